// provider_a incoming, steps 1 and 2 (Part 3 "provider_a transfers → Incoming flow"), in the actor of the wallet's
// customer so that a create never interleaves with an erasure: the destination must be a verified wallet of a
// customer with a verified identity (otherwise nothing is created and the event answers 503), then the transfer is
// created `exchanging`, verdict pending, and `transfer.created` is sent. The rest of the flow is the transfer's
// (src/actors/flows/provider_a.ts), told by the callback right after.
import type { Transfer } from "../ports/transfers.ts";
import type { Person } from "../domain/ivms101/index.ts";
import type { HistoryEntry } from "./transfer-presenter.ts";
import { newIncomingTransfer, recordIncoming } from "./customer-transfers.ts";
import type { CustomerScope } from "./customer-scope.ts";
import type { Outcome } from "./outcome.ts";
import { hasVerifiedIdentity } from "../domain/identity.ts";

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
  | { created: boolean; refused: null; transfer: Transfer };

/** The service's external ID of an incoming provider_a transfer: one transfer per provider transfer. */
export const incomingExternalId = (providerTransferId: string) => `provider_a-inbound:${providerTransferId}`;

export async function receiveProviderAIncoming(h: CustomerScope, n: ProviderAIncoming): Promise<Outcome<ProviderAIncomingOutcome>> {
  const pii = h.deps.pii;
  const { companyId, environment } = h.msg;
  const externalId = incomingExternalId(n.providerTransferId);
  const transfers = h.deps.repositories.transfers;
  const done = await transfers.byExternalId(companyId, environment, externalId);
  if (done) return { ok: true, data: { created: false, refused: null, transfer: done } };
  const refused: Outcome<ProviderAIncomingOutcome> = { ok: true, data: { created: false, refused: "BENEFICIARY_WALLET_NOT_VERIFIED", transfer: null } };
  const c = await h.customers.get(companyId, environment, h.ctx.id);
  const w = await h.ownWallet(n.walletId);
  // Step 1: a verified wallet on the transfer's network whose active customer has a verified identity.
  if (!hasVerifiedIdentity(c)) return refused;
  if (!w || w.address !== n.beneficiaryAddress || w.network !== n.network || !w.verified) return refused;
  const history: HistoryEntry[] = [{ type: "created", from: null, to: "exchanging", at: h.at, detail: { protocol: "provider_a" } }];
  const row = newIncomingTransfer(h, { ...n, externalId, protocol: "provider_a", providerExternalId: n.providerTransferId, beneficiaryCustomerId: c.id, history });
  recordIncoming(h, row);
  return { ok: true, status: 201, data: { created: true, refused: null, transfer: row } };
}
