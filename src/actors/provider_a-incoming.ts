// provider_a incoming, steps 1 and 2 (Part 3 "provider_a transfers → Incoming flow"), in the actor of the wallet's
// customer so that a create never interleaves with an erasure: the destination must be a verified wallet of a
// customer with a verified identity (otherwise nothing is created and the event answers 503), then the transfer is
// created `exchanging`, verdict pending, and `transfer.created` is sent. The rest of the flow is the transfer's
// (src/actors/flows/provider_a.ts), told by the callback right after.
import { Transfers, type TransferRow } from "../adapters/storage/repos/transfers.ts";
import { VaspDirectory } from "../adapters/storage/repos/vasps.ts";
import type { Person } from "../domain/ivms101/index.ts";
import { transferEventData, type HistoryEntry } from "./transfer-presenter.ts";
import type { CustomerScope } from "./customer.ts";
import type { Outcome } from "./outcome.ts";

export interface ProviderAIncoming {
  id: string;
  /** The provider's transfer ID. */
  providerTransferId: string;
  walletId: string;
  asset: string;
  assetId: string;
  amount: string;
  network: string;
  /** The wallet's address in its canonical registry form (with `?memo=` when tagged). */
  beneficiaryAddress: string;
  originatorAddress: string | null;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  originatorVasp: { id: string; name: string | null };
  beneficiaryVasp: { id: string; name: string | null };
}

export type ProviderAIncomingOutcome =
  | { created: false; refused: "BENEFICIARY_WALLET_NOT_VERIFIED"; transfer: null }
  | { created: boolean; refused: null; transfer: TransferRow };

/** The service's external ID of an incoming provider_a transfer: one transfer per provider transfer. */
export const incomingExternalId = (providerTransferId: string) => `provider_a-inbound:${providerTransferId}`;

export function receiveProviderAIncoming(h: CustomerScope, n: ProviderAIncoming): Outcome<ProviderAIncomingOutcome> {
  const pii = h.deps.pii;
  const { companyId, environment } = h.msg;
  const externalId = incomingExternalId(n.providerTransferId);
  const transfers = new Transfers(h.ctx.storage);
  const done = transfers.byExternalId(companyId, environment, externalId);
  if (done) return { ok: true, data: { created: false, refused: null, transfer: done } };
  const refused: Outcome<ProviderAIncomingOutcome> = { ok: true, data: { created: false, refused: "BENEFICIARY_WALLET_NOT_VERIFIED", transfer: null } };
  const c = h.customers.get(companyId, environment, h.ctx.id);
  const w = h.ownWallet(n.walletId);
  // Step 1: a verified wallet on the transfer's network whose active customer has a verified identity.
  if (!c || c.status !== "active" || c.identity_status !== "verified" || !c.identity_sealed) return refused;
  if (!w || w.address !== n.beneficiaryAddress || w.network !== n.network || w.verified !== 1) return refused;
  const history: HistoryEntry[] = [{ type: "created", from: null, to: "exchanging", at: h.at, detail: { protocol: "provider_a" } }];
  const row: TransferRow = {
    id: n.id,
    company_id: companyId,
    environment,
    direction: "incoming",
    state: "exchanging",
    status: "pending",
    external_id: externalId,
    asset: n.asset,
    asset_id: n.assetId,
    amount: n.amount,
    network: n.network,
    blockchain_type: n.network,
    originator_customer_id: null,
    originator_address: n.originatorAddress,
    beneficiary_address: n.beneficiaryAddress,
    beneficiary_customer_id: c.id,
    is_unhosted_wallet: 0,
    originator_sealed: pii.seal(JSON.stringify(n.originatorPersons), `transfer:${n.id}:originator`),
    beneficiary_sealed: pii.seal(JSON.stringify(n.beneficiaryPersons), `transfer:${n.id}:beneficiary`),
    originator_vasp_id: n.originatorVasp.id,
    originator_vasp_name: n.originatorVasp.name,
    beneficiary_vasp_id: n.beneficiaryVasp.id,
    beneficiary_vasp_name: n.beneficiaryVasp.name,
    preferred_protocol: null,
    protocol: "provider_a",
    provider_external_id: n.providerTransferId,
    matched_at: null,
    ours_status: "pending",
    theirs_status: "pending",
    rejection_reason: null,
    rejection_details_sealed: null,
    tx_hash: null,
    sanctions_status: null,
    sanctions_provider: null,
    threshold_info: null,
    fx_rate_id: null,
    checks: "[]",
    attempts: "[]",
    messages: JSON.stringify([{ type: "transfer_request", direction: "inbound", timestamp: h.at }]),
    history: JSON.stringify(history),
    expires_at: null,
    accepted_at: null,
    completed_at: null,
    created_at: h.at,
    updated_at: h.at,
  };
  h.ctx.write((s) => {
    new Transfers(s).insert(row);
    new VaspDirectory(s).record(companyId, environment, n.originatorVasp.id, n.originatorVasp.name, "transfer_history", h.at);
  });
  h.ctx.emit({ companyId, environment, entityType: "transfer", entityId: row.id, type: "transfer.created", data: transferEventData(row) });
  h.audit("transfer.created", "Transfer", row.id, { state: row.state, asset: row.asset, network: row.network, direction: "incoming", protocol: "provider_a" });
  return { ok: true, status: 201, data: { created: true, refused: null, transfer: row } };
}
