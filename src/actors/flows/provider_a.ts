// provider_a's transfer flow (Part 3 "provider_a transfers"): what an event, a poll or the stall sweep does to a
// transfer the provider carries, the PATCH table, and the case resolution. Runs inside the transfer actor's handler
// (src/actors/transfer-flow.ts): everything it changes commits with the message. The status is never taken from an
// event: the transfer is read from the provider (the callback passes what it read, a poll reads it here).
import type { TransferFlow, TransferFlowContext, ActionResult } from "../transfer-flow.ts";
import type { Person } from "../../domain/ivms101/index.ts";
import type { Environment } from "../../domain/types.ts";
import {
  agentChainOk,
  agentOf,
  beneficiaryNamesMatch,
  bindingMismatch,
  counterpartyAccepted,
  isFlagged,
  isRejected,
  isSettled,
  ourSideAuthorized,
  peerIdentityProblem,
  personsFingerprint,
  type PartyRole,
  type ProviderTx,
} from "../../domain/provider_a/transfer.ts";
import { beneficiaryInformationPresent } from "../../domain/provider_a/transfer.ts";
import { splitDestination } from "../../domain/networks/tags.ts";
import { failed, type ProviderA } from "../../adapters/providers/provider_a/adapter.ts";
import type { ProviderAClient } from "../../adapters/providers/provider_a/client.ts";

/** Part 3, Limits: `exchanging` 15 minutes without change → `failed`. */
export const STALL_MS = 15 * 60_000;
/** Part 3: polled once a minute when unchanged five minutes. */
export const POLL_AFTER_MS = 5 * 60_000;

/** What callbacks and sweeps tell `transfer:<id>` as the `event` of a `providerEvent`. */
export type ProviderAEvent =
  | { kind: "event"; tx: ProviderTx }
  | { kind: "poll" }
  | { kind: "stall" };

/** What a provider_a event answers: `ok`, or the code of the 503 the callback answers. */
export type EventResult = { ok: true; state: string } | { ok: false; code: string };

interface FlowState extends Record<string, unknown> {
  /** Fingerprint of the counterparty persons screened last (new or changed information is screened again). */
  screened?: string;
  /** Our authorization was sent and read back. */
  authorized?: boolean;
  /** Incoming step 4 done: relationship confirmed and the verified identity appended. */
  related?: boolean;
  /** A hash the service tried to settle with: a later confirm must use it (Part 3). */
  triedTxHash?: string;
  /** Failed by the 15-minute stall: later events answer 503. */
  stalled?: boolean;
  /** A name mismatch was noted (once). */
  nameMismatch?: boolean;
}

export interface ProviderAFlowDeps {
  adapter: ProviderA;
  /** A customer's verified identity, or null when it is not verified (or the customer is gone). */
  verifiedIdentity(companyId: string, env: Environment, customerId: string): Promise<Person[] | null>;
}

const OPEN = ["exchanging", "awaiting_counterparty", "accepted", "held"];

async function client(deps: ProviderAFlowDeps, f: TransferFlowContext): Promise<{ client: ProviderAClient; did: string } | { error: string }> {
  const ctx = await f.adapterContext();
  if (!ctx) return { error: "Provider unavailable" };
  const c = deps.adapter.connect(ctx);
  if (!c.ok) return { error: "INVALID_CONFIGURATION" };
  return { client: c.client, did: c.settings.vaspDid };
}

const roles = (f: TransferFlowContext): { us: PartyRole; them: PartyRole } =>
  f.row.direction === "outgoing" ? { us: "ORIGINATOR", them: "BENEFICIARY" } : { us: "BENEFICIARY", them: "ORIGINATOR" };

/**
 * The counterparty's information, once present. Outgoing: the beneficiary VASP's IVMS101 — what we appended
 * ourselves (the request's beneficiary persons) counts only once that VASP acted on the transfer (its agent is no
 * longer PENDING) or replaced it with its own; our own data is never taken for the counterparty's.
 */
const counterpartySide = (f: TransferFlowContext, tx: ProviderTx) => {
  if (f.row.direction === "outgoing") {
    const b = tx.ivms101.beneficiary;
    if (!b || !beneficiaryInformationPresent(tx, b.beneficiaryPersons, f.persons("beneficiary"))) return null;
    return { persons: b.beneficiaryPersons, accountNumber: b.accountNumber, address: f.row.beneficiaryAddress };
  }
  const o = tx.ivms101.originator;
  return o ? { persons: o.originatorPersons, accountNumber: o.accountNumber, address: f.row.originatorAddress } : null;
};

const binding = (f: TransferFlowContext, did: string) => ({
  assetId: f.row.assetId ?? "",
  amount: f.row.amount,
  originatorAddress: f.row.originatorAddress,
  beneficiaryAddress: f.row.beneficiaryAddress,
  originatorDid: f.row.direction === "outgoing" ? did : f.row.originatorVaspId,
  beneficiaryDid: f.row.direction === "outgoing" ? f.row.beneficiaryVaspId : did,
});

const lastAttempt = (f: TransferFlowContext) => f.row.attempts.at(-1);
const resumable = (f: TransferFlowContext, fs: FlowState) => f.row.state === "failed" && !fs.stalled && lastAttempt(f)?.status === "submission_unknown";

/** Our own customer's verified identity: originator of an outgoing transfer, beneficiary of an incoming one. */
const ourIdentity = (deps: ProviderAFlowDeps, f: TransferFlowContext) => {
  const customer = f.row.direction === "outgoing" ? f.row.originatorCustomerId : f.row.beneficiaryCustomerId;
  return customer ? deps.verifiedIdentity(f.companyId, f.environment, customer) : Promise.resolve(null);
};

type Connected = { client: ProviderAClient; did: string };
const at = (f: TransferFlowContext): EventResult => ({ ok: true, state: f.row.state });

/** One reading of the provider's transfer applied to ours (Part 3 status table, incoming and outgoing flows), step by step. */
async function apply(deps: ProviderAFlowDeps, f: TransferFlowContext, tx: ProviderTx, c: Connected, fromEvent: boolean): Promise<EventResult> {
  const fs = f.flowState<FlowState>();
  const { them } = roles(f);
  if (f.row.direction === "outgoing" && tx.ref !== f.row.id) return { ok: false, code: "TRANSFER_BINDING_MISMATCH" };
  const mismatch = bindingMismatch(tx, binding(f, c.did));
  if (mismatch) {
    f.note("provider_binding_mismatch", { provider: "provider_a", field: mismatch });
    return { ok: false, code: "TRANSFER_BINDING_MISMATCH" };
  }
  if (resumable(f, fs)) {
    const stopped = await bindByEvent(deps, f, tx, c);
    if (stopped) return stopped;
  }
  if (f.row.state === "failed") return { ok: false, code: "TRANSFER_FAILED" };
  if (!OPEN.includes(f.row.state)) return at(f);
  if (stoppedByProviderStatus(f, tx, them)) return at(f);
  if (f.row.direction === "incoming" && f.row.state === "exchanging" && !fs.related) {
    const stopped = await relateIncoming(deps, f, tx, c);
    if (stopped) return stopped;
  }
  const side = counterpartySide(f, tx);
  if (side && (await screenInformation(deps, f, side)) === "stopped") return at(f);
  // Authorization: approved verdict, not yet authorized (also after a case approval: "authorized at the next event or poll").
  if (side && f.row.status === "approved" && !fs.authorized && (f.row.state === "exchanging" || f.row.state === "awaiting_counterparty")) {
    const stopped = await authorize(f, tx, c);
    if (stopped) return stopped;
  }
  counterpartyProgress(f, tx, them, fromEvent);
  return at(f);
}

/** A lost answer after creation started: the event binds the transfer and resumes it (Part 3). */
async function bindByEvent(deps: ProviderAFlowDeps, f: TransferFlowContext, tx: ProviderTx, c: Connected): Promise<EventResult | null> {
  const vasp = agentOf(tx, "BENEFICIARY");
  if (!tx.ivms101.originator) {
    const identity = await ourIdentity(deps, f);
    if (!identity) return { ok: false, code: "VERIFIED_ORIGINATOR_REQUIRED" };
    const dest = splitDestination(f.row.beneficiaryAddress);
    const origin = f.row.originatorAddress ? splitDestination(f.row.originatorAddress) : null;
    const appended = await c.client.append(tx, {
      originator: { persons: identity, address: origin?.address ?? null, memo: origin?.memo ?? null },
      beneficiary: { persons: f.persons("beneficiary"), address: dest.address, memo: dest.memo },
    });
    if (!appended.ok) return { ok: false, code: failed(appended.code) };
  }
  f.change("exchanging", { protocol: "provider_a", providerExternalId: tx.id, beneficiaryVaspId: vasp?.did ?? f.row.beneficiaryVaspId, beneficiaryVaspName: vasp?.name ?? f.row.beneficiaryVaspName }, "bound_by_event", { provider: "provider_a" });
  return null;
}

/** The provider's status decides first: rejected, flagged (held), already held, or an agent chain we do not carry. */
function stoppedByProviderStatus(f: TransferFlowContext, tx: ProviderTx, them: PartyRole): boolean {
  // 1. Transfer or counterparty VASP REJECTED → rejected, theirs rejected.
  if (isRejected(tx, them)) {
    f.change("rejected", { theirsStatus: "rejected", rejectionReason: "COUNTERPARTY_REJECTED" }, "counterparty_rejected", { provider: "provider_a", providerStatus: tx.status });
    f.audit("transfer.rejected", { reason: "COUNTERPARTY_REJECTED", provider: "provider_a" });
    return true;
  }
  // 2. FLAGGED, the revert family or any flag → held, verdict pending (a rejected verdict stays).
  if (isFlagged(tx)) {
    if (f.row.state !== "held") f.hold("PROVIDER_FLAGGED", { status: f.row.status === "rejected" ? "rejected" : "pending", caseType: "provider_rejection", detail: { providerStatus: tx.status, flags: tx.flags.slice(0, 10) } });
    return true;
  }
  if (f.row.state === "held") return true;
  if (!agentChainOk(tx)) {
    f.hold("UNSUPPORTED_AGENT_CHAIN", { caseType: "compliance_review" });
    return true;
  }
  return false;
}

/** Incoming steps 3 and 4: the beneficiary names, then the relationship and our verified identity appended. */
async function relateIncoming(deps: ProviderAFlowDeps, f: TransferFlowContext, tx: ProviderTx, c: Connected): Promise<EventResult | null> {
  const fs = f.flowState<FlowState>();
  const identity = await ourIdentity(deps, f);
  if (!identity) return { ok: false, code: "BENEFICIARY_WALLET_NOT_VERIFIED" };
  const named = tx.ivms101.beneficiary?.beneficiaryPersons ?? [];
  if (named.length > 0 && !beneficiaryNamesMatch(named, identity)) {
    if (!fs.nameMismatch) {
      fs.nameMismatch = true;
      f.note("beneficiary_name_mismatch", { provider: "provider_a" });
    }
    return { ok: false, code: "BENEFICIARY_NAME_MISMATCH" };
  }
  const dest = splitDestination(f.row.beneficiaryAddress);
  const rel = await c.client.confirmRelationship(tx.asset, dest.address);
  if (!rel.ok) return { ok: false, code: failed(rel.code) };
  const appended = await c.client.append(tx, { beneficiary: { persons: identity, address: dest.address, memo: dest.memo } });
  if (!appended.ok) return { ok: false, code: failed(appended.code) };
  if (named.length > 0) {
    const checked = await c.client.check(tx.id, "beneficiary-name-matching");
    if (!checked.ok) return { ok: false, code: failed(checked.code) };
  }
  fs.related = true;
  delete fs.nameMismatch;
  return null;
}

/** Counterparty information: screened once present; new or changed information is screened again. */
async function screenInformation(deps: ProviderAFlowDeps, f: TransferFlowContext, side: NonNullable<ReturnType<typeof counterpartySide>>): Promise<"stopped" | "screened"> {
  const fs = f.flowState<FlowState>();
  const fp = personsFingerprint(side.persons);
  if (fp === fs.screened) return "screened";
  // Never screened (held before it was, then approved by an officer): screened now; changed after acceptance: held again.
  if (f.row.state !== "exchanging" && fs.screened !== undefined) {
    // A change after acceptance holds the transfer for an officer's approval again.
    fs.screened = fp;
    if (f.row.direction === "incoming") f.setPersons("originator", side.persons);
    f.hold("COUNTERPARTY_INFORMATION_CHANGED", { caseType: "compliance_review" });
    return "stopped";
  }
  const problem = peerIdentityProblem(side, side.address);
  if (problem) {
    fs.screened = fp;
    f.hold(problem, { caseType: "compliance_review" });
    return "stopped";
  }
  if (f.row.direction === "incoming") f.setPersons("originator", side.persons);
  fs.screened = fp;
  // Screened with our party as the provider was sent it: the customer's verified identity (not the request's
  // originator of an outgoing transfer, nor the persons the originating VASP named for an incoming one).
  const ours = (await ourIdentity(deps, f)) ?? [];
  const outcome = await f.screenCounterparty(side.persons, f.row.direction === "outgoing" ? "beneficiary" : "originator", { onBlock: "hold", ours });
  if (outcome !== "approved") return "stopped";
  f.update({ status: "approved" });
  return "screened";
}

/** Our authorization (incoming: our checks of the originator's data confirmed first). */
async function authorize(f: TransferFlowContext, tx: ProviderTx, c: Connected): Promise<EventResult | null> {
  const fs = f.flowState<FlowState>();
  if (f.row.direction === "incoming") {
    const checked = await c.client.check(tx.id, "internal-checks");
    if (!checked.ok) return { ok: false, code: failed(checked.code) };
  }
  const a = await c.client.authorize(tx.id);
  if (!a.ok) return { ok: false, code: failed(a.code) };
  // The provider accepts the authorization (202); the counterparty's side below is as read before it.
  fs.authorized = true;
  if (f.row.state === "exchanging") f.change("awaiting_counterparty", { oursStatus: "accepted", matchedAt: f.at }, "authorized", { provider: "provider_a" });
  else f.note("authorized", { provider: "provider_a" });
  return null;
}

/** After our authorization: the counterparty's acceptance, then (incoming, on an event) the settlement. */
function counterpartyProgress(f: TransferFlowContext, tx: ProviderTx, them: PartyRole, fromEvent: boolean): void {
  const fs = f.flowState<FlowState>();
  // Counterparty AUTHORIZED, SETTLED or CLEARED → theirs accepted, accepted.
  if (fs.authorized && f.row.state === "awaiting_counterparty" && counterpartyAccepted(tx, them)) {
    f.change("accepted", { theirsStatus: "accepted", acceptedAt: f.row.acceptedAt ?? f.at }, "counterparty_accepted", { provider: "provider_a" });
    f.audit("transfer.accepted", { provider: "provider_a" });
  }
  // Incoming, once accepted: SETTLED or CLEARED with a settlement → completed (on a provider event only).
  if (fromEvent && f.row.direction === "incoming" && f.row.state === "accepted" && isSettled(tx)) {
    f.change("completed", { txHash: tx.settlement!.id, completedAt: f.at }, "settled", { provider: "provider_a" });
    f.audit("transfer.completed", { provider: "provider_a" });
  }
}

// ---------------------------------------------------------------------------------------------
// PATCH (Part 3 table): provider first; a refusal is 400 INVALID_REQUEST with the reason in `error`.

const refuse = (f: TransferFlowContext, reason: string, explanation: string) => f.refuse("INVALID_REQUEST", reason, { reason, explanation });

async function readForAction(deps: ProviderAFlowDeps, f: TransferFlowContext): Promise<{ tx: ProviderTx; c: { client: ProviderAClient; did: string } } | ActionResult> {
  const c = await client(deps, f);
  if ("error" in c) return refuse(f, c.error === "Provider unavailable" ? "PROVIDER_UNAVAILABLE" : "INVALID_CONFIGURATION", `provider_a is disabled or its settings are unusable (${c.error})`);
  if (!f.row.providerExternalId) return refuse(f, "LOCAL_APPROVAL_REQUIRED", "the transfer is not bound to a provider transfer");
  const r = await c.client.getTx(f.row.providerExternalId);
  if (!r.ok) return refuse(f, failed(r.code), "the provider could not be read");
  if (bindingMismatch(r.body, binding(f, c.did)) || (f.row.direction === "outgoing" && r.body.ref !== f.row.id)) return refuse(f, "TRANSFER_BINDING_MISMATCH", "amount, asset, network, addresses, memo or VASPs differ");
  return { tx: r.body, c };
}

async function acceptIncoming(deps: ProviderAFlowDeps, f: TransferFlowContext, previousState: string): Promise<ActionResult> {
  const fs = f.flowState<FlowState>();
  if (previousState !== "held" || f.row.status !== "pending") return refuse(f, "LOCAL_APPROVAL_REQUIRED", `only a held incoming transfer with a pending verdict can be accepted (it is ${previousState}, verdict ${f.row.status})`);
  if (!(await ourIdentity(deps, f))) return refuse(f, "VERIFIED_BENEFICIARY_IDENTITY_REQUIRED", "the beneficiary customer's identity is not verified");
  const read = await readForAction(deps, f);
  if (!("tx" in read)) return read;
  const { tx, c } = read;
  if (isFlagged(tx)) return refuse(f, "LOCAL_APPROVAL_REQUIRED", "the transfer is flagged at the provider");
  const side = counterpartySide(f, tx);
  if (!side || personsFingerprint(side.persons) !== fs.screened) return refuse(f, "LOCAL_APPROVAL_REQUIRED", "the originator information is missing or changed since screening");
  if (!agentChainOk(tx)) return refuse(f, "UNSUPPORTED_AGENT_CHAIN", "only direct transfers between two VASPs are supported");
  const problem = peerIdentityProblem(side, side.address);
  if (problem) return refuse(f, problem, "the originator's IVMS101 does not check out");
  const checked = await c.client.check(tx.id, "internal-checks");
  if (!checked.ok) return refuse(f, failed(checked.code), "the provider refused the internal checks' confirmation");
  const a = await c.client.authorize(tx.id);
  if (!a.ok) return refuse(f, failed(a.code), "the provider refused the authorization");
  const back = await c.client.getTx(tx.id);
  if (!back.ok) return refuse(f, failed(back.code), "the authorization could not be read back");
  if (!ourSideAuthorized(back.body, "BENEFICIARY")) return refuse(f, "AUTHORIZATION_PENDING", "the provider does not show the authorization yet");
  fs.authorized = true;
  f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: f.at }, "accepted_by_officer", { provider: "provider_a" });
  f.audit("transfer.accepted", { provider: "provider_a", by: "officer" });
  return f.answer("accept", previousState);
}

async function rejectIncoming(deps: ProviderAFlowDeps, f: TransferFlowContext, body: Record<string, unknown>, previousState: string): Promise<ActionResult> {
  // The body (reason, status, details) was checked by the transfer actor before the flow was asked.
  if (f.row.direction === "outgoing") return refuse(f, "LOCAL_APPROVAL_REQUIRED", "an outgoing provider_a transfer cannot be rejected by the service");
  if (f.row.txHash) return refuse(f, "ALREADY_SETTLED", "the transfer has a transaction hash");
  if (previousState !== "held" || f.row.status !== "pending") return refuse(f, "LOCAL_APPROVAL_REQUIRED", `only a held incoming transfer with a pending verdict can be rejected (it is ${previousState}, verdict ${f.row.status})`);
  const read = await readForAction(deps, f);
  if (!("tx" in read)) return read;
  if (read.tx.settlement) return refuse(f, "ALREADY_SETTLED", "the provider shows a settlement");
  // Part 3: SANCTION_SCREENING for SANCTIONS_MATCH, else COMPLIANCE_POLICIES; the details are not sent.
  const r = await read.c.client.reject(read.tx.id, body.reason === "SANCTIONS_MATCH" ? "SANCTION_SCREENING" : "COMPLIANCE_POLICIES");
  if (!r.ok) return refuse(f, failed(r.code), "the provider refused the rejection");
  f.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: body.reason as string }, "rejected", { reason: body.reason, provider: "provider_a" });
  // Part 1: the free text is kept on the rejection (sealed), out of the audit log; never sent to provider_a (Part 3).
  f.setRejectionDetails(typeof body.details === "string" ? body.details : null);
  f.audit("transfer.rejected", { reason: body.reason, provider: "provider_a" });
  return f.answer("reject", previousState);
}

async function settle(deps: ProviderAFlowDeps, f: TransferFlowContext, txHash: string, previousState: string): Promise<ActionResult> {
  const fs = f.flowState<FlowState>();
  if (f.row.direction === "incoming") return refuse(f, "LOCAL_APPROVAL_REQUIRED", "an incoming transfer takes no txHash from the caller; it completes on the provider's settlement");
  if (fs.triedTxHash && fs.triedTxHash !== txHash) return refuse(f, "TX_HASH_CONFLICT", "another hash was already tried; a confirmation must use it");
  if (f.row.txHash && f.row.txHash !== txHash) return refuse(f, "TX_HASH_CONFLICT", "another hash is already reported");
  if (!["awaiting_counterparty", "accepted"].includes(previousState) || f.row.status !== "approved") return refuse(f, "LOCAL_APPROVAL_REQUIRED", `the transfer is ${previousState} with verdict ${f.row.status}`);
  if (f.row.theirsStatus !== "accepted") return refuse(f, "TRANSFER_NOT_AUTHORIZED", "the beneficiary VASP has not authorized the transfer");
  const read = await readForAction(deps, f);
  if (!("tx" in read)) return read;
  const { tx, c } = read;
  if (isFlagged(tx)) return refuse(f, "LOCAL_APPROVAL_REQUIRED", "the transfer is flagged at the provider");
  if (tx.settlement && tx.settlement.id !== txHash) return refuse(f, "TX_HASH_CONFLICT", "the provider shows another settlement");
  if (!counterpartyAccepted(tx, "BENEFICIARY")) return refuse(f, "TRANSFER_NOT_AUTHORIZED", "the beneficiary VASP has not authorized the transfer");
  // The hash is recorded before it is sent: a later confirm must repeat it.
  if (!fs.triedTxHash) {
    fs.triedTxHash = txHash;
    await f.checkpoint();
  }
  let after = tx;
  if (!tx.settlement) {
    const s = await c.client.settle(tx.id, txHash);
    if (!s.ok) return refuse(f, failed(s.code), "the provider refused the settlement");
    const back = await c.client.getTx(tx.id);
    if (!back.ok) return refuse(f, "SETTLEMENT_PENDING", "the settlement could not be read back");
    after = back.body;
  }
  if (!isSettled(after) || after.settlement?.id !== txHash) return refuse(f, "SETTLEMENT_PENDING", "the provider does not show the settlement with this hash yet");
  f.change("completed", { txHash: txHash, acceptedAt: f.row.acceptedAt ?? f.at, completedAt: f.at }, "transaction_reported", { provider: "provider_a" });
  f.audit("transfer.completed", { provider: "provider_a" });
  return f.answer("accept", previousState);
}

/** A callback's event, a poll or the stall sweep. */
async function onEvent(deps: ProviderAFlowDeps, f: TransferFlowContext, event: unknown): Promise<EventResult> {
  const ev = event as ProviderAEvent;
  const fs = f.flowState<FlowState>();
  if (ev.kind === "stall") {
    if (f.row.state === "exchanging" && f.now - Date.parse(f.row.updatedAt) >= STALL_MS) {
      fs.stalled = true;
      f.change("failed", {}, "exchange_stalled", { provider: "provider_a", minutes: 15 });
      f.audit("transfer.failed", { reason: "EXCHANGE_STALLED", provider: "provider_a" });
    }
    return { ok: true, state: f.row.state };
  }
  if (f.row.state === "failed" && !resumable(f, fs)) return { ok: false, code: "TRANSFER_FAILED" };
  const c = await client(deps, f);
  if ("error" in c) return { ok: false, code: c.error };
  let tx: ProviderTx;
  if (ev.kind === "event") tx = ev.tx;
  else {
    // A poll: only transfers still waiting, read from the provider (a provider that is down changes nothing).
    if (!["exchanging", "awaiting_counterparty"].includes(f.row.state) || !f.row.providerExternalId) return { ok: true, state: f.row.state };
    const r = await c.client.getTx(f.row.providerExternalId);
    if (!r.ok) return { ok: false, code: failed(r.code) };
    tx = r.body;
  }
  return apply(deps, f, tx, c, ev.kind === "event");
}

/** PATCH: retry refused, reject (incoming), accept with a hash (settle) or without (incoming, held). */
async function action(deps: ProviderAFlowDeps, f: TransferFlowContext, action: string, body: Record<string, unknown>, previousState: string): Promise<ActionResult | undefined> {
  const fs = f.flowState<FlowState>();
  if (action === "retry") {
    if (previousState !== "failed" && previousState !== "held") return undefined;
    return refuse(f, "LOCAL_APPROVAL_REQUIRED", `a ${previousState} provider_a transfer cannot be retried${resumable(f, fs) ? ": the provider may hold it already; a later provider event binds and resumes it" : ""}`);
  }
  if (action === "reject") return rejectIncoming(deps, f, body, previousState);
  // A malformed txHash was refused by the transfer actor before the flow was asked.
  const txHash = typeof body.txHash === "string" && body.txHash !== "" ? body.txHash : null;
  if (txHash !== null) return settle(deps, f, txHash, previousState);
  if (f.row.direction === "incoming") return acceptIncoming(deps, f, previousState);
  return undefined;
}

/** An officer's resolution of a held transfer's case. */
async function caseResolved(deps: ProviderAFlowDeps, f: TransferFlowContext, resolution: "approved" | "rejected") {
  const fs = f.flowState<FlowState>();
  if (f.row.state !== "held") return { moved: false, newValue: resolution === "approved" ? "resume_refused" : "reject_refused" };
  if (resolution === "approved") {
    // A rejected verdict stays held; otherwise back to awaiting_counterparty without calling the provider.
    if (f.row.status !== "pending") return { moved: false, newValue: "resume_refused" };
    fs.authorized = false;
    f.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: f.at }, "resumed", { provider: "provider_a" });
    return { moved: true, newValue: f.row.state };
  }
  // Rejecting the case of an outgoing transfer leaves it held; an incoming one is rejected at the provider first.
  if (f.row.direction === "outgoing" || f.row.txHash) return { moved: false, newValue: "reject_refused" };
  const c = await client(deps, f);
  if ("error" in c || !f.row.providerExternalId) return { moved: false, newValue: "reject_refused" };
  const r = await c.client.reject(f.row.providerExternalId, "COMPLIANCE_POLICIES");
  if (!r.ok) {
    f.note("reject_refused", { provider: "provider_a", code: r.code });
    return { moved: false, newValue: "reject_refused" };
  }
  f.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: "COMPLIANCE_POLICY" }, "rejected", { provider: "provider_a" });
  return { moved: true, newValue: f.row.state };
}

export function providerAFlow(deps: ProviderAFlowDeps): TransferFlow {
  return {
    onEvent: (f, event) => onEvent(deps, f, event),
    action: (f, a, body, previousState) => action(deps, f, a, body, previousState),
    caseResolved: (f, resolution) => caseResolved(deps, f, resolution),
  };
}
