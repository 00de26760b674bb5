// provider_e's transfer flow (Part 3 "provider_e transfers"): the permission callback bound to the provider's signed
// status, status reading (after each permission, after a review, once a minute), postcheck of each counterparty
// person alone, expiry, the signed transaction report, and the incoming decision sent signed before anything changes.
import type { TransferFlow, TransferFlowContext, ActionResult } from "../transfer-flow.ts";
import type { Environment } from "../../domain/types.ts";
import type { AdapterContext } from "../../adapters/providers/types.ts";
import { signObject, verifyObject } from "../../adapters/providers/provider_e/crypto.ts";
import { clientOf, credsOf, directoryKey, failed, readSignedStatus } from "../../adapters/providers/provider_e/adapter.ts";
import { orderedPermission, PATH, readPermission, statusOf, type StatusAnswer } from "../../adapters/providers/provider_e/wire.ts";
import type { Sealer } from "../../adapters/crypto/envelope.ts";
import type { ProviderEFlowLookups } from "../../adapters/providers/provider_e/lookups.ts";
import { screenedFingerprint } from "../../domain/provider_e/rules.ts";
import type { CddAction } from "../../domain/provider_e/cdd.ts";
import { cddHandlers, type CddState } from "./provider_e-cdd.ts";

type Base = { test: string; live: string };

/** What a callback answers (Part 3, provider_e callbacks table). */
export interface CallbackAnswer {
  status: number;
  body: Record<string, unknown>;
}
const OK: CallbackAnswer = { status: 200, body: { status: "OK" } };
const err = (status: number, error: string): CallbackAnswer => ({ status, body: { error } });

/** Events the callbacks and sweeps tell (`providerEvent` with `provider: "provider_e"`). */
export type ProviderEEvent =
  | { kind: "permission"; body: Record<string, unknown> }
  | { kind: "poll" }
  | { kind: "incoming"; refuse: "BVRC001" | "BVRC002" | null }
  | { kind: "txid"; body: Record<string, unknown> }
  | { kind: "cancel"; body: Record<string, unknown> }
  // Information requests (CDD): the callback, the caller's action and list (asked by the route), the background send.
  | { kind: "cdd"; body: Record<string, unknown> }
  | { kind: "cddAction"; action: CddAction }
  | { kind: "cddList" }
  | { kind: "cddSend"; messageId: string };

/** The flow's durable state per transfer. */
interface FlowState extends CddState {
  peerKey?: string;
  /** The beneficiary's decision as received and bound (outgoing). */
  permission?: { status: string; signature: string; expireDate: number | null };
  /** The signed transaction report (repeated on retry). */
  txReport?: { txid: string; body: Record<string, unknown> };
  /** Our signed decision on an incoming transfer (repeated on retry). */
  decision?: { status: "ACCEPTED" | "REJECTED"; body: Record<string, unknown> };
  txid?: string;
  txidSignature?: string;
  cancelSignature?: string;
  expired?: boolean;
  /** What an incoming transfer was screened as (a held accept is refused when it no longer matches). */
  screened?: string;
}

const OPEN = ["exchanging", "awaiting_counterparty", "accepted"];

/** The counterparty's key kept with the transfer (read once from the verified directory). */
async function peerKey(base: Base, f: TransferFlowContext, a: AdapterContext): Promise<string | null> {
  const fs = f.flowState<FlowState>();
  if (fs.peerKey) return fs.peerKey;
  const code = f.row.direction === "outgoing" ? f.row.beneficiaryVaspId : f.row.originatorVaspId;
  if (!code) return null;
  const r = await directoryKey(base, f.environment as Environment, a, code);
  if (!r.ok) return null;
  fs.peerKey = r.body.key;
  return fs.peerKey;
}

async function status(base: Base, f: TransferFlowContext, a: AdapterContext) {
  return readSignedStatus(clientOf(base, f.environment as Environment, a), credsOf(a), f.row.providerExternalId ?? "");
}

async function send(base: Base, f: TransferFlowContext, a: AdapterContext, path: string, body: unknown) {
  return clientOf(base, f.environment as Environment, a).post(path, body);
}

/** Status reading of an outgoing transfer (Part 3 table); never failed for silence. */
async function applyOutgoing(base: Base, f: TransferFlowContext, a: AdapterContext, st: StatusAnswer): Promise<void> {
  const fs = f.flowState<FlowState>();
  const d = st.transferData;
  const decided = statusOf(d);
  if (!OPEN.includes(f.row.state) && f.row.state !== "held") return;
  if (decided === "REJECTED" || decided === "CANCELED") {
    if (f.row.state === "held" && f.row.status === "rejected") return;
    f.change("rejected", { theirsStatus: "rejected", rejectionReason: decided === "CANCELED" ? "CANCELED" : (d.reject_code ?? "REJECTED") }, "counterparty_rejected", { providerStatus: decided, rejectCode: d.reject_code ?? null });
    f.audit("transfer.rejected", { provider: "provider_e", providerStatus: decided });
    return;
  }
  if (decided !== "ACCEPTED") return;
  if (!fs.permission || fs.permission.signature !== d.permission_signature) {
    // ACCEPTED but the decision did not reach us: ask the provider to resend failed callbacks; no change.
    await send(base, f, a, PATH.retry, { vasp_code: credsOf(a).vaspCode });
    f.note("permission_retry_requested", { provider: "provider_e" });
    return;
  }
  if (f.row.state !== "exchanging") return;
  f.update({ theirsStatus: "accepted" });
  const outcome = await f.screenCounterparty(f.persons("beneficiary"), "beneficiary", { onBlock: "hold", eachAlone: true });
  if (outcome === "approved") {
    f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", theirsStatus: "accepted", matchedAt: f.at }, "counterparty_accepted", { screened: true });
    return;
  }
  if (f.row.status === "rejected") {
    // Screening rejected the beneficiary: cancelled at the provider, then rejected.
    const body = signObject({ transfer_id: f.row.providerExternalId ?? "", cancel_reason: "COMPLIANCE_POLICY" }, credsOf(a).privateKey);
    await f.checkpoint();
    const r = await send(base, f, a, PATH.cancel, body);
    if (r.ok) {
      f.change("rejected", { oursStatus: "rejected", rejectionReason: "SANCTIONS_MATCH" }, "cancelled_at_provider", { provider: "provider_e" });
      f.audit("transfer.rejected", { provider: "provider_e", reason: "SANCTIONS_MATCH" });
    } else f.note("cancel_refused", { provider: "provider_e", code: r.code });
  }
}

async function onPermission(base: Base, f: TransferFlowContext, a: AdapterContext, body: Record<string, unknown>): Promise<CallbackAnswer> {
  const read = readPermission(body);
  if (!read.ok) return err(400, "Invalid callback");
  const p = read.value;
  if (f.row.direction !== "outgoing") return err(400, "UNSUPPORTED_TRANSFER");
  if (f.row.providerExternalId && p.transfer_id !== f.row.providerExternalId) return err(400, "PERMISSION_BINDING_MISMATCH");
  const key = await peerKey(base, f, a);
  if (!key) return err(503, "UNKNOWN_PEER");
  if (!verifyObject(body, key)) return err(401, "INVALID_SIGNATURE");
  const fs = f.flowState<FlowState>();
  if (fs.permission?.signature === p.signature) return OK;
  if (!f.row.providerExternalId) {
    // The decision arrived before the provider answered the permission request: bound by the URL's ID and token.
    f.update({ providerExternalId: p.transfer_id });
  }
  const st = await status(base, f, a);
  if (!st.ok) return st.status && st.status !== 200 ? err(st.status, `HTTP_${st.status}`) : err(503, st.code);
  const d = st.body.transferData;
  if (d.permission_status !== p.permission_status || d.permission_signature !== p.signature) return err(400, "PERMISSION_BINDING_MISMATCH");
  fs.permission = { status: p.permission_status, signature: p.signature, expireDate: p.expire_date ?? null };
  f.note("permission_received", { provider: "provider_e", permissionStatus: p.permission_status });
  await applyOutgoing(base, f, a, st.body);
  return OK;
}

/** Our decision on an incoming transfer: signed, recorded, sent; the transfer changes only once the provider has it. */
async function decide(base: Base, f: TransferFlowContext, a: AdapterContext, status: "ACCEPTED" | "REJECTED", code?: string): Promise<{ ok: true } | { ok: false; code: string }> {
  const fs = f.flowState<FlowState>();
  if (fs.decision && fs.decision.status !== status) return { ok: false, code: "DECISION_CONFLICT" };
  if (!fs.decision) {
    const expire = f.row.expiresAt ? Date.parse(f.row.expiresAt) : undefined;
    const perm = orderedPermission({
      transfer_id: f.row.providerExternalId ?? "",
      permission_status: status,
      ...(status === "ACCEPTED" && expire ? { expire_date: expire } : {}),
      ...(status === "REJECTED" ? { reject_code: code ?? "BVRC999", reject_message: "The beneficiary VASP declined the transfer" } : {}),
    });
    fs.decision = { status, body: signObject(perm as Record<string, unknown>, credsOf(a).privateKey) };
    await f.checkpoint();
  }
  const r = await send(base, f, a, PATH.permission, fs.decision.body);
  return r.ok ? { ok: true } : { ok: false, code: r.code };
}

async function onIncoming(base: Base, f: TransferFlowContext, a: AdapterContext, refuseWith: "BVRC001" | "BVRC002" | null): Promise<CallbackAnswer> {
  if (f.row.state !== "exchanging") return OK;
  if (refuseWith) {
    const r = await decide(base, f, a, "REJECTED", refuseWith);
    if (r.ok) {
      f.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: refuseWith === "BVRC002" ? "BENE_NAME_MISMATCH" : "BENE_NOT_FOUND" }, "rejected_at_provider", { rejectCode: refuseWith });
      f.audit("transfer.rejected", { provider: "provider_e", rejectCode: refuseWith });
    } else f.note("decision_failed", { provider: "provider_e", code: r.code });
    return OK;
  }
  f.flowState<FlowState>().screened = screenedFingerprint(f.row, f.persons("originator"), f.persons("beneficiary"));
  const outcome = await f.screenCounterparty(f.persons("originator"), "originator", { onBlock: "hold", eachAlone: true });
  if (outcome === "approved") {
    const r = await decide(base, f, a, "ACCEPTED");
    if (r.ok) f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: f.at }, "accepted_at_provider", { provider: "provider_e" });
    else f.note("decision_failed", { provider: "provider_e", code: r.code });
  } else if (f.row.status === "rejected") {
    const r = await decide(base, f, a, "REJECTED", "BVRC999");
    if (r.ok) {
      f.change("rejected", { oursStatus: "rejected", rejectionReason: "SANCTIONS_MATCH" }, "rejected_at_provider", { rejectCode: "BVRC999" });
      f.audit("transfer.rejected", { provider: "provider_e", rejectCode: "BVRC999" });
    }
  }
  return OK;
}

async function onTxid(base: Base, f: TransferFlowContext, a: AdapterContext, body: Record<string, unknown>): Promise<CallbackAnswer> {
  if (typeof body.txid !== "string" || body.txid === "" || body.txid.length > 200 || typeof body.signature !== "string") return err(400, "Invalid callback");
  if (f.row.direction !== "incoming") return err(400, "UNSUPPORTED_TRANSFER");
  const key = await peerKey(base, f, a);
  if (!key) return err(503, "UNKNOWN_PEER");
  if (!verifyObject(body, key)) return err(401, "INVALID_SIGNATURE");
  const fs = f.flowState<FlowState>();
  if (fs.txid === body.txid) return OK;
  if (fs.txid) return err(400, "TXID_BINDING_MISMATCH");
  const st = await status(base, f, a);
  if (!st.ok) return st.status && st.status !== 200 ? err(st.status, `HTTP_${st.status}`) : err(503, st.code);
  // Bound by the status's `txid_signature` (published) and, when the bridge lists it, its `txid`.
  const sd = st.body.transferData;
  if (sd.txid_signature !== body.signature || (typeof sd.txid === "string" && sd.txid !== body.txid)) return err(400, "TXID_BINDING_MISMATCH");
  if (f.row.state !== "awaiting_counterparty" || f.row.status !== "approved") return err(400, "UNSUPPORTED_TRANSFER");
  fs.txid = body.txid;
  f.change("accepted", { theirsStatus: "accepted", txHash: body.txid, acceptedAt: f.at }, "transaction_reported", { provider: "provider_e" });
  f.change("completed", { completedAt: f.at }, "completed", { provider: "provider_e" });
  f.audit("transfer.completed", { provider: "provider_e" });
  return OK;
}

async function onCancel(base: Base, f: TransferFlowContext, a: AdapterContext, body: Record<string, unknown>): Promise<CallbackAnswer> {
  if (typeof body.signature !== "string") return err(400, "Invalid callback");
  const key = await peerKey(base, f, a);
  if (!key) return err(503, "UNKNOWN_PEER");
  if (!verifyObject(body, key)) return err(401, "INVALID_SIGNATURE");
  const fs = f.flowState<FlowState>();
  if (fs.cancelSignature === body.signature) return OK;
  const st = await status(base, f, a);
  if (!st.ok) return st.status && st.status !== 200 ? err(st.status, `HTTP_${st.status}`) : err(503, st.code);
  if (statusOf(st.body.transferData) !== "CANCELED") return err(400, "CANCEL_BINDING_MISMATCH");
  fs.cancelSignature = body.signature;
  if (f.row.state !== "rejected" && f.row.state !== "completed") {
    f.change("rejected", { theirsStatus: "rejected", rejectionReason: "ORIGINATOR_CANCELED" }, "originator_canceled", { provider: "provider_e" });
    f.audit("transfer.rejected", { provider: "provider_e", reason: "ORIGINATOR_CANCELED" });
  }
  return OK;
}

const refuse = (f: TransferFlowContext, code: string, message?: string): ActionResult => f.refuse("INVALID_REQUEST", message ?? failed(code), { reason: code });

async function report(s: Steps, f: TransferFlowContext, txHash: string, previousState: string): Promise<ActionResult> {
  const a = await f.adapterContext();
  if (!a) return refuse(f, "NOT_CONFIGURED");
  const fs = f.flowState<FlowState>();
  if (fs.txReport && fs.txReport.txid !== txHash) return refuse(f, "TXID_CONFLICT");
  if (!["awaiting_counterparty", "accepted"].includes(previousState) || f.row.theirsStatus !== "accepted" || f.row.status !== "approved") return refuse(f, "APPROVAL_REQUIRED");
  if (s.cdd.pending(f)) return refuse(f, "CDD_REVIEW_REQUIRED");
  const st = await status(s.base, f, a);
  if (!st.ok) return refuse(f, st.code);
  const d = st.body.transferData;
  if (statusOf(d) !== "ACCEPTED" || !fs.permission || d.permission_signature !== fs.permission.signature) return refuse(f, "PERMISSION_REQUIRED");
  if (!fs.txReport) {
    const exp = f.row.expiresAt ? Date.parse(f.row.expiresAt) : Infinity;
    if (exp <= f.now || (fs.permission.expireDate !== null && fs.permission.expireDate <= f.now)) return refuse(f, "TRANSFER_EXPIRED");
    fs.txReport = { txid: txHash, body: signObject({ transfer_id: f.row.providerExternalId ?? "", txid: txHash }, credsOf(a).privateKey) };
    await f.checkpoint();
  }
  const r = await send(s.base, f, a, PATH.txid, fs.txReport.body);
  if (!r.ok) return refuse(f, r.status === 409 ? "TXID_CONFLICT" : r.code);
  if (f.row.state !== "accepted") f.change("accepted", { txHash: txHash, acceptedAt: f.row.acceptedAt ?? f.at }, "transaction_reported", { provider: "provider_e" });
  f.change("completed", { txHash: txHash, completedAt: f.at }, "completed", { provider: "provider_e" });
  f.audit("transfer.completed", { provider: "provider_e" });
  return f.answer("accept", previousState);
}


/** The flow's fixed parts: the provider's addresses, the sealer and lookups, and the information-request handlers. */
interface Steps {
  base: Base;
  deps: { baseUrl: Base; pii: Sealer; lookups: ProviderEFlowLookups };
  cdd: ReturnType<typeof cddHandlers>;
}

/** A callback's or sweep's event, handed to its step. */
async function onEvent(s: Steps, f: TransferFlowContext, raw: unknown) {
  const event = raw as ProviderEEvent;
  if (event.kind === "cddList") return { ok: true as const, data: await s.cdd.view(f) };
  const a = await f.adapterContext();
  if (event.kind === "cddAction") return a ? s.cdd.action(f, a, event.action) : f.refuse("PROVIDER_E_TRANSFER_NOT_FOUND", "provider_e is disabled or has no credentials for this environment");
  if (!a) return err(503, "Provider unavailable");
  switch (event.kind) {
    case "cdd":
      return s.cdd.onCdd(f, a, event.body);
    case "cddSend":
      await s.cdd.sendOne(f, a, event.messageId);
      return OK;
    case "permission":
      return onPermission(s.base, f, a, event.body);
    case "poll": {
      if (f.row.direction !== "outgoing" || !f.row.providerExternalId) return OK;
      const st = await status(s.base, f, a);
      if (st.ok) await applyOutgoing(s.base, f, a, st.body);
      return OK;
    }
    case "incoming":
      return onIncoming(s.base, f, a, event.refuse);
    case "txid":
      return onTxid(s.base, f, a, event.body);
    case "cancel":
      return onCancel(s.base, f, a, event.body);
  }
}

/** PATCH on an outgoing transfer: held ones wait for their case, a reserved request is never resent, accept reports. */
async function outgoingAction(s: Steps, f: TransferFlowContext, action: string, body: Record<string, unknown>, previousState: string): Promise<ActionResult | undefined> {
  // Part 3: on a held provider_e transfer accept, reject and retry are refused.
  if (previousState === "held") return f.refuse("INVALID_REQUEST", `A held ${"provider_e"} transfer moves on only when its case is resolved`);
  if (action === "retry" && previousState === "failed" && f.row.providerExternalId !== null)
    return f.refuse("INVALID_REQUEST", "The permission request was reserved at provider_e: it is never sent again");
  if (action === "retry" && previousState === "failed") {
    const attempts = f.row.attempts;
    if (attempts.some((x) => x.provider === "provider_e" && x.status === "submission_unknown")) return f.refuse("INVALID_REQUEST", "The permission request was reserved at provider_e: it is never sent again");
  }
  if (action === "reject") return cancelOutgoing(s, f, body, previousState);
  if (action === "accept") {
    // A malformed txHash was refused by the transfer actor before the flow was asked.
    const txHash = typeof body.txHash === "string" && body.txHash !== "" ? body.txHash : null;
    if (txHash === null) return undefined;
    return report(s, f, txHash, previousState);
  }
  return undefined;
}

/**
 * `reject` on an outgoing transfer provider_e has (not held): cancelled at the provider first, signed, as a blocking
 * screening of the beneficiary does, and rejected only once the provider has it; a refusal leaves it unchanged. The
 * caller's reason and details stay here. A transfer the provider never had is rejected by the generic handling.
 */
async function cancelOutgoing(s: Steps, f: TransferFlowContext, body: Record<string, unknown>, previousState: string): Promise<ActionResult | undefined> {
  if (!f.row.providerExternalId || (!OPEN.includes(previousState) && previousState !== "failed")) return undefined;
  const a = await f.adapterContext();
  if (!a) return refuse(f, "NOT_CONFIGURED");
  // A signed transaction report was made: the transfer is paid, it is no longer cancelled.
  if (f.flowState<FlowState>().txReport) return refuse(f, "TXID_REPORTED");
  const signed = signObject({ transfer_id: f.row.providerExternalId, cancel_reason: "COMPLIANCE_POLICY" }, credsOf(a).privateKey);
  const r = await send(s.base, f, a, PATH.cancel, signed);
  if (!r.ok) return refuse(f, r.code);
  const reason = body.reason as string;
  f.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: reason }, "cancelled_at_provider", { provider: "provider_e", reason });
  f.setRejectionDetails(typeof body.details === "string" ? body.details : null);
  f.audit("transfer.rejected", { provider: "provider_e", reason });
  return f.answer("reject", previousState);
}

/** PATCH on an incoming transfer: a held transfer with a pending verdict takes accept or reject, sent signed first. */
async function incomingAction(s: Steps, f: TransferFlowContext, action: string, body: Record<string, unknown>, previousState: string): Promise<ActionResult | undefined> {
  const fs = f.flowState<FlowState>();
  if (action === "retry") return undefined;
  if (action === "accept" && typeof body.txHash === "string" && body.txHash !== "") return undefined;
  if (previousState !== "held" || f.row.status !== "pending") {
    if (fs.decision && action === "accept" && fs.decision.status === "REJECTED") return refuse(f, "DECISION_CONFLICT");
    if (fs.decision && action === "reject" && fs.decision.status === "ACCEPTED") return refuse(f, "DECISION_CONFLICT");
    return undefined;
  }
  const a = await f.adapterContext();
  if (!a) return refuse(f, "NOT_CONFIGURED");
  if (action === "accept") {
    if (s.cdd.pending(f)) return refuse(f, "CDD_REVIEW_REQUIRED");
    if (fs.expired || fs.cancelSignature || (f.row.expiresAt && Date.parse(f.row.expiresAt) <= f.now)) return refuse(f, "LOCAL_APPROVAL_REQUIRED");
    // Part 3: the wallet and identity must still check out, and the transfer match what was screened.
    if (!(await s.deps.lookups.beneficiaryStillChecks(f.companyId, f.environment, f.row, f.persons("beneficiary")))) return refuse(f, "LOCAL_APPROVAL_REQUIRED");
    if (fs.screened !== undefined && fs.screened !== screenedFingerprint(f.row, f.persons("originator"), f.persons("beneficiary"))) return refuse(f, "LOCAL_APPROVAL_REQUIRED");
    const r = await decide(s.base, f, a, "ACCEPTED");
    if (!r.ok) return refuse(f, r.code);
    f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: f.at }, "accepted_at_provider", { provider: "provider_e" });
    f.audit("transfer.accepted", { provider: "provider_e" });
    return f.answer("accept", previousState);
  }
  // The body (reason from Part 1's list, status rejected, details) was checked by the transfer actor first.
  const reason = body.reason as string;
  const r = await decide(s.base, f, a, "REJECTED", "BVRC999");
  if (!r.ok) return refuse(f, r.code);
  f.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: reason }, "rejected_at_provider", { rejectCode: "BVRC999" });
  // Part 1: the free text is kept on the rejection (sealed), out of the audit log; it is not sent to provider_e.
  f.setRejectionDetails(typeof body.details === "string" ? body.details : null);
  f.audit("transfer.rejected", { provider: "provider_e", reason });
  return f.answer("reject", previousState);
}

/** An officer's resolution of a held transfer's case: re-checked, our decision sent (incoming), then resumed. */
async function caseResolved(s: Steps, f: TransferFlowContext, resolution: string) {
  // Part 2: a resolution that could not move the transfer is recorded as resume_refused or reject_refused.
  if (f.row.state !== "held") return { moved: false, newValue: resolution === "approved" ? "resume_refused" : "reject_refused" };
  // Part 3: resolved as rejected, a held provider_e transfer stays held.
  if (resolution === "rejected") return { moved: false, newValue: "reject_refused" };
  const fs = f.flowState<FlowState>();
  if (s.cdd.pending(f) || fs.expired) return { moved: false, newValue: "resume_refused" };
  if (f.row.direction === "incoming") {
    const a = await f.adapterContext();
    if (!a) return { moved: false, newValue: "resume_refused" };
    // The same re-checks as a held accept (Part 3, held incoming decisions).
    if (fs.cancelSignature || (f.row.expiresAt && Date.parse(f.row.expiresAt) <= f.now)) return { moved: false, newValue: "resume_refused" };
    if (!(await s.deps.lookups.beneficiaryStillChecks(f.companyId, f.environment, f.row, f.persons("beneficiary")))) return { moved: false, newValue: "resume_refused" };
    if (fs.screened !== undefined && fs.screened !== screenedFingerprint(f.row, f.persons("originator"), f.persons("beneficiary"))) return { moved: false, newValue: "resume_refused" };
    const r = await decide(s.base, f, a, "ACCEPTED");
    if (!r.ok) return { moved: false, newValue: "resume_refused" };
  }
  if (f.row.direction === "outgoing" && fs.permission?.status !== "ACCEPTED") {
    // Not shown: held before the beneficiary VASP decided (an information request while exchanging): back to
    // exchanging with the verdict approved; its decision moves it on as usual (never "accepted" on our word).
    f.change("exchanging", { status: "approved" }, "resumed", { provider: "provider_e" });
    return { moved: true, newValue: f.row.state };
  }
  f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", ...(f.row.direction === "outgoing" ? { theirsStatus: "accepted" } : {}), matchedAt: f.at }, "resumed", { provider: "provider_e" });
  return { moved: true, newValue: f.row.state };
}

/** Past its expiry an open transfer is held for review (once). */
async function expire(f: TransferFlowContext) {
  if (!OPEN.includes(f.row.state)) return;
  const fs = f.flowState<FlowState>();
  if (fs.expired) return;
  fs.expired = true;
  f.hold("TRANSFER_EXPIRED", { status: "pending", caseType: "compliance_review", severity: "low" });
}

export function providerEFlow(deps: { baseUrl: Base; pii: Sealer; lookups: ProviderEFlowLookups }): TransferFlow {
  const base = deps.baseUrl;
  const cdd = cddHandlers(deps, {
    peerKey: (f, a) => peerKey(base, f, a),
    status: (f, a) => status(base, f, a),
    send: (f, a, path, body) => send(base, f, a, path, body),
    applyOutgoing: (f, a, st) => applyOutgoing(base, f, a, st),
  });
  const s: Steps = { base, deps, cdd };
  return {
    onEvent: (f, raw) => onEvent(s, f, raw),
    action: (f, action, body, previousState) => (f.row.direction === "outgoing" ? outgoingAction(s, f, action, body, previousState) : incomingAction(s, f, action, body, previousState)),
    caseResolved: (f, resolution) => caseResolved(s, f, resolution),
    expire,
  };
}
