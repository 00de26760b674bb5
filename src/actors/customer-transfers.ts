// The customer actor's transfer work: an outgoing transfer created by its originator's actor, and an incoming one
// received for a wallet of the customer (Part 3, provider_b Incoming), so neither interleaves with an erasure.
import { Transfers, type TransferRow } from "../adapters/storage/repos/transfers.ts";
import { ownVasp } from "../adapters/storage/repos/thresholds.ts";
import type { CustomerRow } from "../adapters/storage/repos/customers.ts";
import { recordValuation, type ValuationRecord } from "../adapters/fx/pricing.ts";
import { VaspDirectory } from "../adapters/storage/repos/vasps.ts";
import { personNames, type Person } from "../domain/ivms101/index.ts";
import { SCHEMA_NAME, type CreateTransferInput } from "../domain/transfers.ts";
import { beneficiaryMatches } from "../domain/provider_b/names.ts";
import { holderReason, screeningReason, type IncomingReason } from "../domain/provider_b/decisions.ts";
import { transferEventData, type HistoryEntry } from "./transfer-presenter.ts";
import type { CustomerScope } from "./customer.ts";
import { refuse, type Outcome } from "./outcome.ts";
import { openIdentity } from "../domain/identity.ts";

export interface NewTransfer {
  id: string;
  idempotencyKey: string | null;
  input: CreateTransferInput;
  assetCode: string;
  assetId: string;
  /** Originator address in its canonical registry form (or null). */
  originatorAddress: string | null;
  beneficiaryAddress: string;
  outcome: "completed" | "queued";
  thresholdInfo: Record<string, unknown>;
  fxRateId: string;
  /**
   * The valuation named by `fxRateId` when it is not recorded yet: written with the transfer, in the same commit,
   * so the row exists exactly when the transfer does (a refused create records none).
   */
  valuation?: ValuationRecord;
  expiresAt: string | null;
}

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
  | { result: "verified" | "denied"; reasonType: string | null; transfer: TransferRow; created: boolean };

/** What a create checks in the actor: the Idempotency-Key again (a racing create), the customer, the originator wallet. */
function checkCreate(h: CustomerScope, n: NewTransfer): Outcome | { c: CustomerRow; vasp: { id: string; name: string } } {
  const { companyId, environment } = h.msg;
  if (n.idempotencyKey !== null) {
    const done = new Transfers(h.ctx.storage).byExternalId(companyId, environment, n.idempotencyKey);
    if (done) return { ok: true, status: 200, data: { idempotent: true, transfer: done } };
  }
  const c = h.customers.get(companyId, environment, h.ctx.id);
  if (!c || c.status !== "active")
    return refuse("VALIDATION_ERROR", { schemaName: SCHEMA_NAME }, c ? "The originator customer is deactivated" : "The originator customer is unknown in this environment");
  if (n.originatorAddress !== null) {
    const w = h.wallets.byAddress(companyId, environment, n.originatorAddress);
    if (!w || w.customer_id !== c.id) return refuse("VALIDATION_ERROR", { schemaName: SCHEMA_NAME }, "originatorAddress is not a wallet registered to the originator customer");
  }
  return { c, vasp: ownVasp(h.ctx.storage, companyId) };
}

/** Created here, not in the transfer's actor, so that a create and an erasure of the originator never interleave. */
export function createTransfer(h: CustomerScope, n: NewTransfer): Outcome {
  // The checks read several rows: one read transaction (one WAL read lock) serves them all.
  const checked = h.ctx.storage.read(() => checkCreate(h, n));
  if ("ok" in checked) return checked;
  const { c, vasp } = checked;
  const { companyId, environment, actor } = h.msg;
  const completed = n.outcome === "completed";
  const history: HistoryEntry[] = [{ type: "created", from: null, to: completed ? "completed" : "queued", at: h.at }];
  const row: TransferRow = {
    id: n.id,
    company_id: companyId,
    environment,
    direction: "outgoing",
    state: completed ? "completed" : "queued",
    status: completed ? "approved" : "pending",
    external_id: n.idempotencyKey,
    asset: n.assetCode,
    asset_id: n.assetId,
    amount: n.input.amount,
    network: n.input.network,
    blockchain_type: n.input.network,
    originator_customer_id: c.id,
    originator_address: n.originatorAddress,
    beneficiary_address: n.beneficiaryAddress,
    beneficiary_customer_id: null,
    is_unhosted_wallet: n.input.isUnhostedWallet ? 1 : 0,
    originator_sealed: h.deps.pii.seal(JSON.stringify(n.input.originatorPersons), `transfer:${n.id}:originator`),
    beneficiary_sealed: n.input.beneficiaryPersons.length ? h.deps.pii.seal(JSON.stringify(n.input.beneficiaryPersons), `transfer:${n.id}:beneficiary`) : null,
    // We are the originating VASP of an outgoing transfer.
    originator_vasp_id: vasp.id,
    originator_vasp_name: vasp.name,
    beneficiary_vasp_id: null,
    beneficiary_vasp_name: null,
    preferred_protocol: n.input.preferredProtocol,
    protocol: null,
    provider_external_id: null,
    matched_at: null,
    ours_status: completed ? null : "pending",
    theirs_status: null,
    rejection_reason: null,
    rejection_details_sealed: null,
    tx_hash: null,
    sanctions_status: null,
    sanctions_provider: null,
    threshold_info: JSON.stringify(n.thresholdInfo),
    fx_rate_id: n.fxRateId,
    checks: "[]",
    attempts: "[]",
    messages: "[]",
    history: JSON.stringify(history),
    expires_at: n.expiresAt,
    accepted_at: null,
    completed_at: completed ? h.at : null,
    created_at: h.at,
    updated_at: h.at,
  };
  const valuation = n.valuation;
  h.ctx.write((s) => {
    if (valuation) recordValuation(s, valuation);
    new Transfers(s).insert(row);
  });
  const event = { companyId, environment, entityType: "transfer", entityId: row.id, data: transferEventData(row) };
  h.ctx.emit({ ...event, type: "transfer.created" });
  if (completed) h.ctx.emit({ ...event, type: "transfer.completed" });
  else h.ctx.tell(`transfer:${row.id}`, { type: "start", companyId, environment, actor });
  h.audit("transfer.created", "Transfer", row.id, { state: row.state, asset: row.asset, network: row.network });
  return { ok: true, status: completed ? 201 : 202, data: { idempotent: false, transfer: row, originatorName: personNames(n.input.originatorPersons)[0] ?? null, beneficiaryName: personNames(n.input.beneficiaryPersons)[0] ?? null } };
}

/**
 * Part 3, provider_b Incoming: the wallet must be verified and the customer's identity verified (NOT_KYC_USER,
 * SANCTION_LIST when blocked), the beneficiary persons sent must match the identity (INPUT_NAME_MISMATCHED); only
 * then is the transfer created, screened, and left `awaiting_counterparty` (approved) or `rejected` (denied).
 * A denial before creation records nothing. The same reference again answers the transfer it created.
 */
export async function receiveIncoming(h: CustomerScope, n: IncomingTransfer): Promise<Outcome<IncomingOutcome>> {
  const { companyId, environment } = h.msg;
  const transfers = new Transfers(h.ctx.storage);
  const done = transfers.byExternalId(companyId, environment, n.externalId);
  if (done) return { ok: true, data: { result: done.state === "rejected" ? "denied" : "verified", reasonType: done.rejection_reason, transfer: done, created: false } };
  const deny = (reasonType: IncomingReason): Outcome<IncomingOutcome> => ({ ok: true, data: { result: "denied", reasonType, transfer: null } });
  const c = h.customers.get(companyId, environment, h.ctx.id);
  const w = h.ownWallet(n.walletId);
  // The wallet was found outside the actor: it may have been deleted or moved since.
  if (!c || !w || w.address !== n.beneficiaryAddress) return deny("NOT_FOUND_ADDRESS");
  const holder = holderReason({ customerActive: c.status === "active", walletVerified: w.verified === 1, identityStatus: c.identity_status });
  if (holder) return deny(holder);
  const identity = openIdentity({ id: c.id, identity_sealed: c.identity_sealed! }, (s, aad) => h.deps.pii.open(s, aad));
  if (!beneficiaryMatches(n.beneficiaryPersons, identity)) return deny("INPUT_NAME_MISMATCHED");

  const history: HistoryEntry[] = [{ type: "created", from: null, to: "exchanging", at: h.at, detail: { protocol: n.protocol } }];
  const created = incomingTransferRow(h, { ...n, beneficiaryCustomerId: c.id, providerExternalId: n.externalId, history });
  // Screened with rules and screening integrations (postcheck, Part 3); nothing is recorded before the answer, so a
  // crash meanwhile leaves the provider to ask again and the screening runs again.
  const screening = h.deps.screenIncoming ? await h.deps.screenIncoming(created, { originator: n.originatorPersons, beneficiary: n.beneficiaryPersons, identity }) : null;
  const reason = screeningReason(screening?.verdict ?? "approved");
  if (screening) created.checks = JSON.stringify(screening.checks);
  // Never held (Part 3): approved → awaiting_counterparty; a verdict needing review or a rejection → rejected.
  const to = reason === null ? "awaiting_counterparty" : "rejected";
  history.push({ type: reason === null ? "screened" : "screening_denied", from: "exchanging", to, at: h.at, ...(reason ? { detail: { reasonType: reason } } : {}) });
  const messages = [...JSON.parse(created.messages), { type: "transfer_response", direction: "outbound", timestamp: h.at }];
  const final: TransferRow = {
    ...created,
    state: to,
    status: reason === null ? "approved" : "rejected",
    ours_status: reason === null ? "accepted" : "rejected",
    matched_at: reason === null ? h.at : null,
    rejection_reason: reason,
    messages: JSON.stringify(messages),
    history: JSON.stringify(history),
  };
  h.ctx.write((s) => {
    new Transfers(s).insert(final);
    // The sender is a counterparty this environment has now exchanged a transfer with (VASP search).
    new VaspDirectory(s).record(companyId, environment, n.originatorVasp.id, n.originatorVasp.name, "transfer_history", h.at);
  });
  const event = { companyId, environment, entityType: "transfer", entityId: final.id };
  h.ctx.emit({ ...event, type: "transfer.created", data: transferEventData(reason === null ? final : created) });
  if (reason !== null) h.ctx.emit({ ...event, type: "transfer.rejected", data: transferEventData(final) });
  h.audit("transfer.created", "Transfer", final.id, { state: final.state, asset: final.asset, network: final.network, direction: "incoming", protocol: n.protocol });
  if (screening) {
    h.ctx.emit({ ...event, type: "compliance.screening_complete", data: screening.event(final) });
    // Screening denied it: the officers get a case, as for any transfer screening holds or blocks.
    if (screening.openCase) h.ctx.tell(`case:${screening.openCase.caseId}`, { ...screening.openCase, companyId, environment, transferId: final.id });
  }
  return { ok: true, status: 201, data: { result: reason === null ? "verified" : "denied", reasonType: reason, transfer: final, created: true } };
}

/** What an incoming transfer starts as, whichever provider delivered it. */
export interface IncomingRowInput {
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
export function incomingTransferRow(h: CustomerScope, n: IncomingRowInput): TransferRow {
  const { companyId, environment } = h.msg;
  return {
    id: n.id,
    company_id: companyId,
    environment,
    direction: "incoming",
    state: "exchanging",
    status: "pending",
    external_id: n.externalId,
    asset: n.asset,
    asset_id: n.assetId,
    amount: n.amount,
    network: n.network,
    blockchain_type: n.network,
    originator_customer_id: null,
    originator_address: n.originatorAddress,
    beneficiary_address: n.beneficiaryAddress,
    beneficiary_customer_id: n.beneficiaryCustomerId,
    is_unhosted_wallet: 0,
    originator_sealed: h.deps.pii.seal(JSON.stringify(n.originatorPersons), `transfer:${n.id}:originator`),
    beneficiary_sealed: h.deps.pii.seal(JSON.stringify(n.beneficiaryPersons), `transfer:${n.id}:beneficiary`),
    originator_vasp_id: n.originatorVasp.id,
    originator_vasp_name: n.originatorVasp.name,
    beneficiary_vasp_id: n.beneficiaryVasp.id,
    beneficiary_vasp_name: n.beneficiaryVasp.name,
    preferred_protocol: null,
    protocol: n.protocol,
    provider_external_id: n.providerExternalId,
    matched_at: null,
    ours_status: "pending",
    // The originating VASP asked for the authorization; it reports the transaction or cancels later.
    theirs_status: "pending",
    rejection_reason: null,
    rejection_details_sealed: null,
    tx_hash: null,
    sanctions_status: null,
    sanctions_provider: null,
    threshold_info: n.thresholdInfo ? JSON.stringify(n.thresholdInfo) : null,
    fx_rate_id: null,
    checks: "[]",
    attempts: "[]",
    messages: JSON.stringify([{ type: "transfer_request", direction: "inbound", timestamp: h.at }]),
    history: JSON.stringify(n.history),
    expires_at: n.expiresAt ?? null,
    accepted_at: null,
    completed_at: null,
    created_at: h.at,
    updated_at: h.at,
  };
}

/** Records a new incoming transfer `exchanging`: the row, its sender in the VASP directory, `transfer.created`, the audit entry. */
export function recordIncoming(h: CustomerScope, row: TransferRow): void {
  const { companyId, environment } = h.msg;
  const at = h.at;
  h.ctx.write((s) => {
    new Transfers(s).insert(row);
    // The sender is a counterparty this environment has now exchanged a transfer with (VASP search).
    new VaspDirectory(s).record(companyId, environment, row.originator_vasp_id!, row.originator_vasp_name, "transfer_history", at);
  });
  h.ctx.emit({ companyId, environment, entityType: "transfer", entityId: row.id, type: "transfer.created", data: transferEventData(row) });
  h.audit("transfer.created", "Transfer", row.id, { state: row.state, asset: row.asset, network: row.network, direction: "incoming", protocol: row.protocol });
}
