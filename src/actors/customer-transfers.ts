// The customer actor's transfer work: an outgoing transfer created by its originator's actor, and an incoming one
// received for a wallet of the customer (Part 3, provider_b Incoming), so neither interleaves with an erasure.
import type { HistoryEntry, Transfer } from "../ports/transfers.ts";
import type { ValuationRecord } from "../adapters/fx/pricing.ts";
import { personNames, type Person } from "../domain/ivms101/index.ts";
import type { CreateTransferInput } from "../domain/transfers.ts";
import { decideCreate, readsCapabilities, type AppliedThreshold, type CreateDecision, type ThresholdInfo, type Valuation } from "../domain/transfers/create.ts";
import { beneficiaryMatches } from "../domain/provider_b/names.ts";
import { holderReason, screeningReason, type IncomingReason } from "../domain/provider_b/decisions.ts";
import { transferEventData } from "./transfer-presenter.ts";
import type { CustomerScope } from "./customer-scope.ts";
import { refuse, type Outcome } from "./outcome.ts";
import { openIdentity } from "../domain/identity.ts";
import { caseOpening } from "./checkpoint.ts";

/**
 * A validated, priced outgoing transfer the HTTP layer asks the originator's actor to create; the actor reads the
 * customer and the wallet and decides (src/domain/transfers/create.ts) in one place, serialized with an erasure.
 */
export interface NewTransfer {
  id: string;
  idempotencyKey: string | null;
  input: CreateTransferInput;
  assetId: string;
  /** Originator address in its canonical registry form (or null). */
  originatorAddress: string | null;
  beneficiaryAddress: string;
  threshold: AppliedThreshold;
  valuation: Valuation;
  /**
   * The valuation's row when it is not recorded yet: written with the transfer, in the same commit, so the row exists
   * exactly when the transfer does (a refused create records none).
   */
  valuationRecord?: ValuationRecord;
}

/** The answer to `createTransfer`: the transfer created now, or the one an Idempotency-Key created before. */
export type CreatedTransfer =
  | { idempotent: true; transfer: Transfer }
  | {
      idempotent: false;
      transfer: Transfer;
      thresholdInfo: ThresholdInfo;
      originatorName: string | null;
      beneficiaryName: string | null;
      /** Whether the beneficiary address is a verified wallet of this environment (Part 1 create answer). */
      beneficiaryVerified: boolean;
    };

/**
 * An incoming transfer a provider delivers to a wallet of this customer (Part 3, provider_b transfers → Incoming),
 * after the request was decrypted and the wallet found; the holder and name checks happen in the actor.
 */
export interface IncomingTransfer {
  id: string;
  /** The provider's reference of the request (`provider_b-inbound:<request ID>`): one transfer per reference. */
  externalId: string;
  protocol: "provider_b";
  walletId: string;
  asset: string;
  assetId: string;
  amount: string;
  network: string;
  /** The wallet's address in its canonical registry form. */
  beneficiaryAddress: string;
  originatorAddress: string;
  originatorPersons: Person[];
  /** The beneficiary persons as the originating VASP sent them. */
  beneficiaryPersons: Person[];
  originatorVasp: { id: string; name: string | null };
  beneficiaryVasp: { id: string; name: string | null };
  thresholdInfo: Record<string, unknown>;
}

/** The answer to `receiveIncoming`: denied before creation (nothing recorded), or the transfer created (or found again). */
export type IncomingOutcome =
  | { result: "denied"; reasonType: IncomingReason; transfer: null }
  | { result: "verified" | "denied"; reasonType: string | null; transfer: Transfer; created: boolean };

/** The facts the decision needs, read in one read transaction (one WAL read lock): the Idempotency-Key, customer, wallets. */
async function readFacts(h: CustomerScope, n: NewTransfer) {
  const { companyId, environment } = h.msg;
  if (n.idempotencyKey !== null) {
    // A racing create with the same key got here first: its transfer is the answer.
    const done = await h.deps.repositories.transfers.byExternalId(companyId, environment, n.idempotencyKey);
    if (done) return { done };
  }
  const c = await h.customers.get(companyId, environment, h.ctx.id);
  const w = n.originatorAddress === null ? null : await h.wallets.byAddress(companyId, environment, n.originatorAddress);
  const beneficiaryVerified = (await h.wallets.byAddress(companyId, environment, n.beneficiaryAddress))?.verified === true;
  return { done: undefined, c, w, beneficiaryVerified, vasp: c ? await h.deps.repositories.thresholds.ownVasp(companyId) : null };
}

/** The new outgoing transfer: `completed` (approved) below the threshold, otherwise `queued` (pending). */
function outgoingRow(h: CustomerScope, n: NewTransfer, decision: Extract<CreateDecision, { ok: true }>, customerId: string, vasp: { id: string; name: string }): Transfer {
  const { companyId, environment } = h.msg;
  const input = n.input;
  const completed = decision.outcome === "completed";
  const history: HistoryEntry[] = [{ type: "created", from: null, to: completed ? "completed" : "queued", at: h.at }];
  return {
    id: n.id,
    companyId: companyId,
    environment,
    direction: "outgoing",
    state: completed ? "completed" : "queued",
    status: completed ? "approved" : "pending",
    externalId: n.idempotencyKey,
    asset: input.asset,
    assetId: n.assetId,
    amount: input.amount,
    network: input.network,
    blockchainType: input.network,
    originatorCustomerId: customerId,
    originatorAddress: n.originatorAddress,
    beneficiaryAddress: n.beneficiaryAddress,
    beneficiaryCustomerId: null,
    isUnhostedWallet: input.isUnhostedWallet,
    originatorSealed: h.deps.pii.seal(JSON.stringify(input.originatorPersons), `transfer:${n.id}:originator`),
    beneficiarySealed: input.beneficiaryPersons.length ? h.deps.pii.seal(JSON.stringify(input.beneficiaryPersons), `transfer:${n.id}:beneficiary`) : null,
    // We are the originating VASP of an outgoing transfer.
    originatorVaspId: vasp.id,
    originatorVaspName: vasp.name,
    beneficiaryVaspId: null,
    beneficiaryVaspName: null,
    preferredProtocol: input.preferredProtocol,
    protocol: null,
    providerExternalId: null,
    matchedAt: null,
    oursStatus: completed ? null : "pending",
    theirsStatus: null,
    rejectionReason: null,
    rejectionDetailsSealed: null,
    txHash: null,
    sanctionsStatus: null,
    sanctionsProvider: null,
    thresholdInfo: { ...decision.thresholdInfo },
    fxRateId: decision.fxRateId,
    checks: [],
    attempts: [],
    messages: [],
    history,
    expiresAt: decision.expiresAt,
    acceptedAt: null,
    completedAt: completed ? h.at : null,
    createdAt: h.at,
    updatedAt: h.at,
  };
}

/** Created here, not in the transfer's actor, so that a create and an erasure of the originator never interleave. */
export async function createTransfer(h: CustomerScope, n: NewTransfer): Promise<Outcome<CreatedTransfer>> {
  const facts = await readFacts(h, n);
  if (facts.done) return { ok: true, status: 200, data: { idempotent: true, transfer: facts.done } };
  const { c, w, beneficiaryVerified } = facts;
  const { companyId, environment, actor } = h.msg;
  const input = n.input;
  // The providers' verdicts read first, and only when the decision asks for them.
  const verdicts = readsCapabilities({ input, valuation: n.valuation, threshold: n.threshold })
    ? ((await h.deps.capabilities?.(companyId, environment, {
        assetId: n.assetId,
        asset: input.asset,
        network: input.network,
        amount: input.amount,
        beneficiaryPersonCount: input.beneficiaryPersons.length,
        hasOriginatorAddress: n.originatorAddress !== null,
        beneficiaryAddress: n.beneficiaryAddress,
      })) ?? [])
    : [];
  const decision = decideCreate({
    input,
    customer: c,
    originatorWallet: w === null ? null : w && { customerId: w.customerId },
    capabilities: () => verdicts,
    valuation: n.valuation,
    threshold: n.threshold,
    now: h.ctx.now,
  });
  if (!decision.ok) return refuse(decision.code, decision.message, decision.details);
  const completed = decision.outcome === "completed";
  const row = outgoingRow(h, n, decision, c!.id, facts.vasp!);
  const valuation = n.valuationRecord;
  h.ctx.write(async () => {
    if (valuation) await h.deps.repositories.fxValuations.record(valuation);
    await h.deps.repositories.transfers.insert(row);
  });
  const event = { companyId, environment, entityType: "transfer", entityId: row.id, data: transferEventData(row) };
  h.ctx.emit({ ...event, type: "transfer.created" });
  if (completed) h.ctx.emit({ ...event, type: "transfer.completed" });
  else h.ctx.tell(`transfer:${row.id}`, { type: "start", companyId, environment, actor });
  h.audit("transfer.created", "Transfer", row.id, { state: row.state, asset: row.asset, network: row.network });
  return {
    ok: true,
    status: completed ? 201 : 202,
    data: {
      idempotent: false,
      transfer: row,
      thresholdInfo: decision.thresholdInfo,
      originatorName: personNames(input.originatorPersons)[0] ?? null,
      beneficiaryName: personNames(input.beneficiaryPersons)[0] ?? null,
      beneficiaryVerified,
    },
  };
}

/**
 * Part 3, provider_b Incoming: the wallet must be verified and the customer's identity verified (NOT_KYC_USER,
 * SANCTION_LIST when blocked), the beneficiary persons sent must match the identity (INPUT_NAME_MISMATCHED); only
 * then is the transfer created, screened, and left `awaiting_counterparty` (approved) or `rejected` (denied).
 * A denial before creation records nothing. The same reference again answers the transfer it created.
 */
export async function receiveIncoming(h: CustomerScope, n: IncomingTransfer): Promise<Outcome<IncomingOutcome>> {
  const { companyId, environment } = h.msg;
  const transfers = h.deps.repositories.transfers;
  const done = await transfers.byExternalId(companyId, environment, n.externalId);
  if (done) return { ok: true, data: { result: done.state === "rejected" ? "denied" : "verified", reasonType: done.rejectionReason, transfer: done, created: false } };
  const deny = (reasonType: IncomingReason): Outcome<IncomingOutcome> => ({ ok: true, data: { result: "denied", reasonType, transfer: null } });
  const c = await h.customers.get(companyId, environment, h.ctx.id);
  const w = await h.ownWallet(n.walletId);
  // The wallet was found outside the actor: it may have been deleted or moved since.
  if (!c || !w || w.address !== n.beneficiaryAddress) return deny("NOT_FOUND_ADDRESS");
  const holder = holderReason({ customerActive: c.status === "active", walletVerified: w.verified, identityStatus: c.identityStatus });
  if (holder) return deny(holder);
  const identity = openIdentity({ id: c.id, identitySealed: c.identitySealed! }, (s, aad) => h.deps.pii.open(s, aad));
  if (!beneficiaryMatches(n.beneficiaryPersons, identity)) return deny("INPUT_NAME_MISMATCHED");

  const history: HistoryEntry[] = [{ type: "created", from: null, to: "exchanging", at: h.at, detail: { protocol: n.protocol } }];
  const created = newIncomingTransfer(h, { ...n, beneficiaryCustomerId: c.id, providerExternalId: n.externalId, history });
  // Screened with rules and screening integrations (postcheck, Part 3); nothing is recorded before the answer, so a
  // crash meanwhile leaves the provider to ask again and the screening runs again.
  const screening = h.deps.screenIncoming ? await h.deps.screenIncoming(created, { originator: n.originatorPersons, beneficiary: n.beneficiaryPersons, identity }) : null;
  const reason = screeningReason(screening?.verdict ?? "approved");
  if (screening) created.checks = screening.checks;
  // Never held (Part 3): approved → awaiting_counterparty; a verdict needing review or a rejection → rejected.
  const to = reason === null ? "awaiting_counterparty" : "rejected";
  history.push({ type: reason === null ? "screened" : "screening_denied", from: "exchanging", to, at: h.at, ...(reason ? { detail: { reasonType: reason } } : {}) });
  const messages = [...created.messages, { type: "transfer_response", direction: "outbound", timestamp: h.at }];
  const final: Transfer = {
    ...created,
    state: to,
    status: reason === null ? "approved" : "rejected",
    oursStatus: reason === null ? "accepted" : "rejected",
    matchedAt: reason === null ? h.at : null,
    rejectionReason: reason,
    messages,
    history: [...history],
  };
  h.ctx.write(async () => {
    await h.deps.repositories.transfers.insert(final);
    // The sender is a counterparty this environment has now exchanged a transfer with (VASP search).
    await h.deps.repositories.vasps.record(companyId, environment, n.originatorVasp.id, n.originatorVasp.name, "transfer_history", h.at);
  });
  const event = { companyId, environment, entityType: "transfer", entityId: final.id };
  h.ctx.emit({ ...event, type: "transfer.created", data: transferEventData(reason === null ? final : created) });
  if (reason !== null) h.ctx.emit({ ...event, type: "transfer.rejected", data: transferEventData(final) });
  h.audit("transfer.created", "Transfer", final.id, { state: final.state, asset: final.asset, network: final.network, direction: "incoming", protocol: n.protocol });
  if (screening) {
    h.ctx.emit({ ...event, type: "compliance.screening_complete", data: screening.event(final) });
    // Screening denied it: the officers get a case, as for any transfer screening holds or blocks.
    const open = screening.openCase;
    if (open) h.ctx.tell(`case:${open.caseId}`, caseOpening({ companyId, environment, transferId: final.id }, open.cause, open.at));
  }
  return { ok: true, status: 201, data: { result: reason === null ? "verified" : "denied", reasonType: reason, transfer: final, created: true } };
}

/** What an incoming transfer starts as, whichever provider delivered it. */
export interface NewIncomingInput {
  id: string;
  /** The transfer's external ID (one transfer per provider reference). */
  externalId: string;
  protocol: string;
  providerExternalId: string;
  asset: string;
  assetId: string | null;
  amount: string;
  network: string;
  originatorAddress: string | null;
  beneficiaryAddress: string;
  beneficiaryCustomerId: string;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  originatorVasp: { id: string; name: string | null };
  beneficiaryVasp: { id: string; name: string | null };
  thresholdInfo?: Record<string, unknown> | null;
  expiresAt?: string | null;
  history: HistoryEntry[];
}

/** An incoming transfer `exchanging`, verdict pending, its persons sealed, the provider's request as first message. */
export function newIncomingTransfer(h: CustomerScope, n: NewIncomingInput): Transfer {
  const { companyId, environment } = h.msg;
  return {
    id: n.id,
    companyId: companyId,
    environment,
    direction: "incoming",
    state: "exchanging",
    status: "pending",
    externalId: n.externalId,
    asset: n.asset,
    assetId: n.assetId,
    amount: n.amount,
    network: n.network,
    blockchainType: n.network,
    originatorCustomerId: null,
    originatorAddress: n.originatorAddress,
    beneficiaryAddress: n.beneficiaryAddress,
    beneficiaryCustomerId: n.beneficiaryCustomerId,
    isUnhostedWallet: false,
    originatorSealed: h.deps.pii.seal(JSON.stringify(n.originatorPersons), `transfer:${n.id}:originator`),
    beneficiarySealed: h.deps.pii.seal(JSON.stringify(n.beneficiaryPersons), `transfer:${n.id}:beneficiary`),
    originatorVaspId: n.originatorVasp.id,
    originatorVaspName: n.originatorVasp.name,
    beneficiaryVaspId: n.beneficiaryVasp.id,
    beneficiaryVaspName: n.beneficiaryVasp.name,
    preferredProtocol: null,
    protocol: n.protocol,
    providerExternalId: n.providerExternalId,
    matchedAt: null,
    oursStatus: "pending",
    // The originating VASP asked for the authorization; it reports the transaction or cancels later.
    theirsStatus: "pending",
    rejectionReason: null,
    rejectionDetailsSealed: null,
    txHash: null,
    sanctionsStatus: null,
    sanctionsProvider: null,
    thresholdInfo: n.thresholdInfo ?? null,
    fxRateId: null,
    checks: [],
    attempts: [],
    messages: [{ type: "transfer_request", direction: "inbound", timestamp: h.at }],
    // A copy: the caller goes on adding to its list for the record it writes.
    history: [...n.history],
    expiresAt: n.expiresAt ?? null,
    acceptedAt: null,
    completedAt: null,
    createdAt: h.at,
    updatedAt: h.at,
  };
}

/** Records a new incoming transfer `exchanging`: the transfer, its sender in the VASP directory, `transfer.created`, the audit entry. */
export function recordIncoming(h: CustomerScope, row: Transfer): void {
  const { companyId, environment } = h.msg;
  const at = h.at;
  h.ctx.write(async () => {
    await h.deps.repositories.transfers.insert(row);
    // The sender is a counterparty this environment has now exchanged a transfer with (VASP search).
    await h.deps.repositories.vasps.record(companyId, environment, row.originatorVaspId!, row.originatorVaspName, "transfer_history", at);
  });
  h.ctx.emit({ companyId, environment, entityType: "transfer", entityId: row.id, type: "transfer.created", data: transferEventData(row) });
  h.audit("transfer.created", "Transfer", row.id, { state: row.state, asset: row.asset, network: row.network, direction: "incoming", protocol: row.protocol });
}
