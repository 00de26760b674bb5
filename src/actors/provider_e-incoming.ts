// provider_e incoming (Part 3 "provider_e transfers → Incoming flow"), in the actor of the wallet's customer so that a
// create never interleaves with an erasure: the transfer is created `exchanging` (`transfer.created`) with the
// provider's 64-hex transfer ID as external ID, and the wallet, identity and name checks decide whether it is to be
// rejected at the provider (BVRC002 for a name mismatch, BVRC001 for anything else). An address no customer owns is
// recorded by the actor kept for unowned addresses (`customer:unowned`), with no beneficiary customer, and refused
// BVRC001. The decision itself is sent by the transfer's flow (src/actors/flows/provider_e.ts), told right after.
import type { Transfer } from "../ports/transfers.ts";
import type { Person } from "../domain/ivms101/index.ts";
import { beneficiaryNamesMatch } from "../domain/provider_e/rules.ts";
import type { HistoryEntry } from "./transfer-presenter.ts";
import { newIncomingTransfer, recordIncoming } from "./customer-transfers.ts";
import type { CustomerScope } from "./customer-scope.ts";
import type { Outcome } from "./outcome.ts";
import { hasVerifiedIdentity, openIdentity } from "../domain/identity.ts";

export interface ProviderEIncoming {
  id: string;
  /** The provider's 64-hex transfer ID (the transfer's external ID). */
  providerTransferId: string;
  /** The signature of the permission request's data: a different request under the same ID is a replay mismatch. */
  requestSignature: string;
  /** The beneficiary's wallet on the network; null when no customer owns the address (the transfer is rejected). */
  walletId: string | null;
  asset: string;
  assetId: string | null;
  amount: string;
  network: string;
  beneficiaryAddress: string;
  originatorAddress: string;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  originatorVasp: { id: string; name: string | null };
  beneficiaryVasp: { id: string; name: string | null };
  expiresAt: string;
}

export type ProviderEIncomingOutcome = { created: boolean; transfer: Transfer; refuse: "BVRC001" | "BVRC002" | null; replayMismatch: boolean };

export async function receiveProviderEIncoming(h: CustomerScope, n: ProviderEIncoming): Promise<Outcome<ProviderEIncomingOutcome>> {
  const pii = h.deps.pii;
  const { companyId, environment } = h.msg;
  const transfers = h.deps.repositories.transfers;
  const done = await transfers.byExternalId(companyId, environment, n.providerTransferId);
  if (done) {
    const history = done.history;
    const sig = history[0]?.detail?.requestSignature;
    return { ok: true, data: { created: false, transfer: done, refuse: null, replayMismatch: sig !== n.requestSignature } };
  }
  const c = n.walletId === null ? undefined : await h.customers.get(companyId, environment, h.ctx.id);
  const w = n.walletId === null ? undefined : await h.ownWallet(n.walletId);
  let refuse: "BVRC001" | "BVRC002" | null = null;
  if (!hasVerifiedIdentity(c)) refuse = "BVRC001";
  else if (!w || w.address !== n.beneficiaryAddress || w.network !== n.network || !w.verified) refuse = "BVRC001";
  else if (!beneficiaryNamesMatch(n.beneficiaryPersons, openIdentity(c, (s, aad) => pii.open(s, aad)))) refuse = "BVRC002";
  const history: HistoryEntry[] = [{ type: "created", from: null, to: "exchanging", at: h.at, detail: { protocol: "provider_e", requestSignature: n.requestSignature } }];
  const row = newIncomingTransfer(h, { ...n, externalId: n.providerTransferId, protocol: "provider_e", providerExternalId: n.providerTransferId, beneficiaryCustomerId: h.ctx.id, history });
  // Part 3: an address no customer owns still gets its transfer (rejected at the provider right after), with no customer.
  if (n.walletId === null) row.beneficiaryCustomerId = null;
  recordIncoming(h, row);
  return { ok: true, status: 201, data: { created: true, transfer: row, refuse, replayMismatch: false } };
}
