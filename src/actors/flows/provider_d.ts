// provider_d's transfer flow (TRP v3, docs/providers/provider_d.md "States"): the resolution of an acknowledged
// inquiry arriving at our callback, the confirmation sent to the approval's callback (txid on accept with txHash,
// canceled on reject or expiry), and an incoming transfer's confirmation from the originating VASP.
import type { ActionResult, TransferFlow, TransferFlowContext } from "../transfer-flow.ts";
import type { Network } from "../../domain/networks/index.ts";
import { canonicalAddress } from "../../domain/wallets.ts";
import { readProviderDConfig } from "../../domain/provider_d/settings.ts";
import { readConfirmation, readResolution } from "../../domain/provider_d/wire.ts";
import { mapped, trpCall } from "../../adapters/providers/provider_d/client.ts";
import type { ExchangeFetch } from "../../adapters/net/exchange.ts";

/** What a callback answers (TRP: 204 once taken; a refusal with its status). */
export interface CallbackAnswer {
  status: number;
  body?: Record<string, unknown>;
}

/** Events the provider_d callbacks and the incoming route tell (`providerEvent` with `provider: "provider_d"`). */
export type ProviderDEvent =
  | { kind: "resolution"; requestId: string; fingerprint: string; body: unknown }
  | { kind: "confirmation"; requestId: string; fingerprint: string; body: unknown }
  /** A new incoming inquiry, created by the customer's actor: screened and answered within the request when it can be. */
  | { kind: "incoming"; requestId: string; apiVersion: string; extensions?: string[]; fingerprint: string; callback: string; approveWith: { address: string; callback: string } }
  /** The same inquiry again (same counterparty, same request-identifier): the first answer. */
  | { kind: "incomingAgain" }
  /** The durable POST of our later decision to the originator's callback (retried until it lands or the transfer expires). */
  | { kind: "resolveSend" };

/** Retries of the resolution POST: 2 s, doubling, at most 5 minutes apart. */
export const RESOLVE_RETRY_MS = (attempt: number) => Math.min(2_000 * 2 ** Math.max(0, attempt - 1), 5 * 60_000);

export type ProviderDFlowState = {
  requestId?: string;
  apiVersion?: string;
  counterparty?: string;
  /** Outgoing: where the confirmation goes (from the approval). Incoming: the originator's resolution callback. */
  confirmCallback?: string;
  resolveCallback?: string;
  /** The confirmation we sent (repeated on a retry of the same action). */
  confirmation?: { txid: string } | { canceled: string };
  confirmed?: boolean;
  resolved?: "approved" | "rejected";
  resolutionSent?: boolean;
  /** Incoming: what the inquiry was answered (repeated for the same request), and the decision to POST later. */
  firstAnswer?: CallbackAnswer;
  approveWith?: { address: string; callback: string };
  pendingResolution?: Record<string, unknown>;
  sendAttempts?: number;
  expiredAt?: string;
  extensions?: string[];
};

const OPEN = ["exchanging", "awaiting_counterparty", "accepted", "held"];
const NO_CONTENT: CallbackAnswer = { status: 204 };
const bad = (status: number, error: string): CallbackAnswer => ({ status, body: { error } });

async function sendConfirmation(f: TransferFlowContext, body: { txid: string } | { canceled: string }): Promise<{ ok: true } | { ok: false; code: string }> {
  const fs = f.flowState<ProviderDFlowState>();
  const a = await f.adapterContext();
  if (!a) return { ok: false, code: "NOT_CONFIGURED" };
  const read = readProviderDConfig(a.credentials, f.now);
  if (!read.ok) return { ok: false, code: "INVALID_CONFIGURATION" };
  if (!fs.confirmCallback) return { ok: false, code: "NOT_APPROVED" };
  if (fs.confirmation && JSON.stringify(fs.confirmation) !== JSON.stringify(body)) return { ok: false, code: "CONFIRMATION_CONFLICT" };
  if (!fs.confirmation) {
    fs.confirmation = body;
    await f.checkpoint();
  }
  const r = await trpCall(a.fetch as unknown as ExchangeFetch, read.config, { method: "POST", url: fs.confirmCallback, body: JSON.stringify(body), requestId: fs.requestId ?? f.row.providerExternalId ?? "", apiVersion: fs.apiVersion });
  if (!r.ok) return { ok: false, code: mapped(r) };
  fs.confirmed = true;
  return { ok: true };
}

/** The beneficiary VASP's decision on an acknowledged inquiry, POSTed to our resolution callback. */
async function onResolution(f: TransferFlowContext, requestId: string, fingerprint: string, body: unknown): Promise<CallbackAnswer> {
  const fs = f.flowState<ProviderDFlowState>();
  if (f.row.direction !== "outgoing" || (fs.requestId ?? f.row.providerExternalId) !== requestId) return bad(404, "unknown transfer");
  if (fs.counterparty !== fingerprint) return bad(403, "not the counterparty of this transfer");
  const r = readResolution(body);
  if (!r.ok) return bad(400, `not understood (${r.path || "body"})`);
  const res = r.value;
  if (res.kind === "acknowledged") return NO_CONTENT;
  if (fs.resolved) return fs.resolved === (res.kind === "approved" ? "approved" : "rejected") ? NO_CONTENT : bad(409, "already resolved otherwise");
  if (f.row.state !== "exchanging") return bad(409, `the transfer is ${f.row.state}`);
  if (res.kind === "rejected") {
    fs.resolved = "rejected";
    f.change("rejected", { status: "rejected", theirsStatus: "rejected", rejectionReason: "COUNTERPARTY_REJECTED" }, "counterparty_rejected", { provider: "provider_d" });
    f.audit("transfer.rejected", { provider: "provider_d", reason: "COUNTERPARTY_REJECTED" });
    return NO_CONTENT;
  }
  const addr = canonicalAddress(f.row.network as Network, res.address);
  if (!addr.ok) return bad(422, "approved.address is not an address of the transfer's network");
  fs.resolved = "approved";
  fs.confirmCallback = res.callback;
  f.update({ beneficiaryAddress: addr.address, theirsStatus: "accepted" });
  const outcome = await f.screenCounterparty([], "beneficiary", { onBlock: "hold", eachAlone: true });
  if (outcome === "approved") f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", theirsStatus: "accepted", matchedAt: f.at }, "counterparty_accepted", { provider: "provider_d" });
  return NO_CONTENT;
}

/** The originating VASP's confirmation of an incoming transfer we approved: txid → completed; canceled → rejected. */
async function onConfirmation(f: TransferFlowContext, requestId: string, fingerprint: string, body: unknown): Promise<CallbackAnswer> {
  const fs = f.flowState<ProviderDFlowState>();
  if (f.row.direction !== "incoming" || fs.requestId !== requestId) return bad(404, "unknown transfer");
  if (fs.counterparty !== fingerprint) return bad(403, "not the counterparty of this transfer");
  const c = readConfirmation(body);
  if (!c.ok) return bad(400, `not understood (${c.path || "body"})`);
  if (c.value.kind === "txid") {
    if (f.row.txHash === c.value.txid) return NO_CONTENT;
    if (f.row.txHash) return bad(409, "another txid was confirmed");
    if (f.row.state !== "awaiting_counterparty" || f.row.status !== "approved") return bad(409, `the transfer is ${f.row.state}`);
    f.change("accepted", { theirsStatus: "accepted", txHash: c.value.txid, acceptedAt: f.at }, "transaction_reported", { provider: "provider_d" });
    f.change("completed", { completedAt: f.at }, "completed", { provider: "provider_d" });
    f.audit("transfer.completed", { provider: "provider_d" });
    return NO_CONTENT;
  }
  if (f.row.state === "rejected" || f.row.state === "cancelled") return NO_CONTENT;
  if (f.row.state === "completed") return bad(409, "the transfer is completed");
  f.change("rejected", { theirsStatus: "rejected", rejectionReason: "ORIGINATOR_CANCELED" }, "originator_canceled", { provider: "provider_d" });
  f.audit("transfer.rejected", { provider: "provider_d", reason: "ORIGINATOR_CANCELED" });
  return NO_CONTENT;
}

// ---------------------------------------------------------------------------------------------------------------
// Incoming

const approvedAnswer = (fs: ProviderDFlowState): CallbackAnswer => ({ status: 200, body: { approved: { ...fs.approveWith! } } });
const rejectedAnswer = (comment: string): CallbackAnswer => ({ status: 200, body: { rejected: comment } });

/** A new incoming inquiry: the originator's persons screened; approved within the request, or acknowledged for later. */
async function onIncoming(f: TransferFlowContext, e: Extract<ProviderDEvent, { kind: "incoming" }>): Promise<CallbackAnswer> {
  const fs = f.flowState<ProviderDFlowState>();
  if (fs.firstAnswer) return fs.firstAnswer;
  fs.requestId = e.requestId;
  fs.apiVersion = e.apiVersion;
  // Extensions the originator named (none is required of us; unknown ones are ignored), kept with the transfer.
  if (e.extensions?.length) fs.extensions = e.extensions.slice(0, 20);
  fs.counterparty = e.fingerprint;
  fs.resolveCallback = e.callback;
  fs.approveWith = e.approveWith;
  const outcome = await f.screenCounterparty(f.persons("originator"), "originator", { onBlock: "reject", eachAlone: true });
  if (outcome === "approved") {
    fs.resolved = "approved";
    f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: f.at }, "accepted_at_provider", { provider: "provider_d" });
    fs.firstAnswer = approvedAnswer(fs);
  } else if (outcome === "rejected") {
    fs.resolved = "rejected";
    fs.firstAnswer = rejectedAnswer("The beneficiary VASP declined the transfer");
  } else {
    // Held for an officer: acknowledged now, the decision POSTed to the originator's callback later.
    fs.firstAnswer = { status: 200, body: { version: e.apiVersion } };
  }
  return fs.firstAnswer;
}

/** Our later decision: recorded, then POSTed to the originator's callback, retried until it lands or the transfer expires. */
function queueResolution(f: TransferFlowContext, body: Record<string, unknown>): void {
  const fs = f.flowState<ProviderDFlowState>();
  fs.pendingResolution = body;
  fs.resolutionSent = false;
  fs.sendAttempts = 0;
  f.tell(`transfer:${f.row.id}`, { type: "providerEvent", provider: "provider_d", event: { kind: "resolveSend" }, companyId: f.companyId, environment: f.environment, actor: { type: "system" } });
}

async function sendResolution(f: TransferFlowContext): Promise<void> {
  const fs = f.flowState<ProviderDFlowState>();
  if (!fs.pendingResolution || fs.resolutionSent || !fs.resolveCallback) return;
  if (f.row.expiresAt && Date.parse(f.row.expiresAt) <= f.now) {
    f.note("resolution_not_delivered", { provider: "provider_d", attempts: fs.sendAttempts ?? 0 });
    return;
  }
  const a = await f.adapterContext();
  const read = a ? readProviderDConfig(a.credentials, f.now) : null;
  let code = "NOT_CONFIGURED";
  if (a && read?.ok) {
    const r = await trpCall(a.fetch as unknown as ExchangeFetch, read.config, { method: "POST", url: fs.resolveCallback, body: JSON.stringify(fs.pendingResolution), requestId: fs.requestId ?? "", apiVersion: fs.apiVersion });
    if (r.ok) {
      fs.resolutionSent = true;
      f.note("resolution_delivered", { provider: "provider_d", attempts: (fs.sendAttempts ?? 0) + 1 });
      return;
    }
    code = mapped(r);
  }
  fs.sendAttempts = (fs.sendAttempts ?? 0) + 1;
  if (fs.sendAttempts === 1) f.note("resolution_retrying", { provider: "provider_d", code });
  f.tell(`transfer:${f.row.id}`, { type: "providerEvent", provider: "provider_d", event: { kind: "resolveSend" }, companyId: f.companyId, environment: f.environment, actor: { type: "system" } }, { delayMs: RESOLVE_RETRY_MS(fs.sendAttempts) });
}

/** A held incoming transfer (pending verdict) accepted or rejected by PATCH: decided here, the decision POSTed later. */
async function incomingAction(f: TransferFlowContext, action: string, body: Record<string, unknown>, previousState: string): Promise<ActionResult | undefined> {
  const fs = f.flowState<ProviderDFlowState>();
  if (action === "retry") return undefined;
  if (action === "accept" && typeof body.txHash === "string" && body.txHash !== "") return undefined;
  if (previousState !== "held" || f.row.status !== "pending") return undefined;
  if (fs.expiredAt || (f.row.expiresAt && Date.parse(f.row.expiresAt) <= f.now)) return f.refuse("INVALID_REQUEST", "The transfer has expired", { reason: "LOCAL_APPROVAL_REQUIRED" });
  if (action === "accept") {
    fs.resolved = "approved";
    f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: f.at }, "accepted_at_provider", { provider: "provider_d" });
    f.audit("transfer.accepted", { provider: "provider_d" });
    queueResolution(f, { approved: { ...fs.approveWith! } });
    return f.answer("accept", previousState);
  }
  const reason = body.reason as string;
  fs.resolved = "rejected";
  f.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: reason }, "rejected_at_provider", { provider: "provider_d" });
  f.setRejectionDetails(typeof body.details === "string" ? body.details : null);
  f.audit("transfer.rejected", { provider: "provider_d", reason });
  queueResolution(f, { rejected: "The beneficiary VASP declined the transfer" });
  return f.answer("reject", previousState);
}

/** An officer's resolution of a held transfer's case: incoming → the decision POSTed to the originator later. */
async function caseResolved(f: TransferFlowContext, resolution: "approved" | "rejected"): Promise<{ moved: boolean; newValue: string } | undefined> {
  if (f.row.direction !== "incoming") return undefined;
  if (f.row.state !== "held") return { moved: false, newValue: "resume_refused" };
  const fs = f.flowState<ProviderDFlowState>();
  if (f.row.expiresAt && Date.parse(f.row.expiresAt) <= f.now) return { moved: false, newValue: "resume_refused" };
  if (resolution === "rejected") {
    fs.resolved = "rejected";
    f.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: "COMPLIANCE_POLICY" }, "rejected_at_provider", { provider: "provider_d" });
    queueResolution(f, { rejected: "The beneficiary VASP declined the transfer" });
    return { moved: true, newValue: f.row.state };
  }
  fs.resolved = "approved";
  f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: f.at }, "resumed", { provider: "provider_d" });
  queueResolution(f, { approved: { ...fs.approveWith! } });
  return { moved: true, newValue: f.row.state };
}

const refuse = (f: TransferFlowContext, code: string): ActionResult => f.refuse("INVALID_REQUEST", `provider_d request failed (${code})`, { reason: code });

async function outgoingAction(f: TransferFlowContext, action: string, body: Record<string, unknown>, previousState: string): Promise<ActionResult | undefined> {
  const fs = f.flowState<ProviderDFlowState>();
  if (action === "accept") {
    const txHash = typeof body.txHash === "string" && body.txHash !== "" ? body.txHash : null;
    if (txHash === null) return undefined;
    if (!["awaiting_counterparty", "accepted"].includes(previousState) || f.row.theirsStatus !== "accepted" || f.row.status !== "approved") return undefined;
    const r = await sendConfirmation(f, { txid: txHash });
    if (!r.ok) return refuse(f, r.code);
    if (f.row.state !== "accepted") f.change("accepted", { txHash: txHash, acceptedAt: f.row.acceptedAt ?? f.at }, "transaction_reported", { provider: "provider_d" });
    f.change("completed", { txHash: txHash, completedAt: f.at }, "completed", { provider: "provider_d" });
    f.audit("transfer.completed", { provider: "provider_d" });
    return f.answer("accept", previousState);
  }
  if (action === "reject" && fs.confirmCallback && OPEN.includes(previousState)) {
    // The beneficiary VASP approved and waits for the transaction: told it will not come, then rejected here.
    const r = await sendConfirmation(f, { canceled: "The originating VASP rejected the transfer" });
    if (!r.ok) f.note("cancel_not_delivered", { provider: "provider_d", code: r.code });
  }
  return undefined;
}

/** Past its expiry an open provider_d transfer is cancelled: the counterparty that approved is told first. */
async function expire(f: TransferFlowContext): Promise<void> {
  if (!OPEN.includes(f.row.state) || f.row.state === "held") return;
  const fs = f.flowState<ProviderDFlowState>();
  if (f.row.direction === "outgoing" && fs.confirmCallback && !fs.confirmed) {
    const r = await sendConfirmation(f, { canceled: "The transfer expired" });
    if (!r.ok) f.note("cancel_not_delivered", { provider: "provider_d", code: r.code });
  }
  const from = f.row.state;
  f.change("cancelled", {}, "expired", { provider: "provider_d", expiresAt: f.row.expiresAt, from });
  f.audit("transfer.cancelled", { reason: "EXPIRED", previousState: from, provider: "provider_d" });
}

export function providerDFlow(): TransferFlow {
  return {
    async onEvent(f, raw) {
      const e = raw as ProviderDEvent;
      switch (e.kind) {
        case "resolution":
          return onResolution(f, e.requestId, e.fingerprint, e.body);
        case "confirmation":
          return onConfirmation(f, e.requestId, e.fingerprint, e.body);
        case "incoming":
          return onIncoming(f, e);
        case "incomingAgain":
          return f.flowState<ProviderDFlowState>().firstAnswer ?? bad(409, "the inquiry is still being answered");
        case "resolveSend":
          await sendResolution(f);
          return NO_CONTENT;
      }
    },
    action: (f, action, body, previousState) => (f.row.direction === "outgoing" ? outgoingAction(f, action, body, previousState) : incomingAction(f, action, body, previousState)),
    caseResolved,
    expire,
  };
}
