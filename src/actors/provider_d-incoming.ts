// provider_d incoming (TRP inquiry at our Travel Address), in the actor of the wallet's customer so that a create never
// interleaves with an erasure: the transfer is created `exchanging` with `provider_d:<counterparty>:<request-identifier>`
// as external ID (the same request from the same counterparty finds it again and creates nothing). The wallet must be a
// verified wallet of an active customer with a verified identity, and the beneficiary persons the originating VASP named
// must match that identity; otherwise nothing is created and the inquiry is answered rejected.
import type { Transfer } from "../ports/transfers.ts";
import type { Person } from "../domain/ivms101/index.ts";
import { beneficiaryNamesMatch } from "../domain/provider_e/rules.ts";
import type { HistoryEntry } from "./transfer-presenter.ts";
import { newIncomingTransfer, recordIncoming } from "./customer-transfers.ts";
import type { CustomerScope } from "./customer-scope.ts";
import type { Outcome } from "./outcome.ts";
import { hasVerifiedIdentity, openIdentity } from "../domain/identity.ts";

export interface ProviderDIncoming {
  id: string;
  /** `provider_d:<first 16 hex of the counterparty's certificate fingerprint>:<request-identifier>`. */
  externalId: string;
  requestId: string;
  walletId: string;
  asset: string;
  assetId: string;
  amount: string;
  network: string;
  originatorAddress: string | null;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  originatorVasp: { id: string; name: string | null };
  beneficiaryVasp: { id: string; name: string | null };
  expiresAt: string;
}

export type ProviderDIncomingOutcome = { created: true; transfer: Transfer } | { created: false; transfer: Transfer } | { created: false; transfer: null; refused: "BENEFICIARY_NOT_VERIFIED" | "BENEFICIARY_NAME_MISMATCH" };

export async function receiveProviderDIncoming(h: CustomerScope, n: ProviderDIncoming): Promise<Outcome<ProviderDIncomingOutcome>> {
  const { companyId, environment } = h.msg;
  const done = await h.deps.repositories.transfers.byExternalId(companyId, environment, n.externalId);
  if (done) return { ok: true, data: { created: false, transfer: done } };
  const c = await h.customers.get(companyId, environment, h.ctx.id);
  const w = await h.ownWallet(n.walletId);
  if (!hasVerifiedIdentity(c) || !w || !w.verified || w.network !== n.network) return { ok: true, data: { created: false, transfer: null, refused: "BENEFICIARY_NOT_VERIFIED" } };
  if (n.beneficiaryPersons.length > 0 && !beneficiaryNamesMatch(n.beneficiaryPersons, openIdentity(c, (s, aad) => h.deps.pii.open(s, aad)))) return { ok: true, data: { created: false, transfer: null, refused: "BENEFICIARY_NAME_MISMATCH" } };
  const history: HistoryEntry[] = [{ type: "created", from: null, to: "exchanging", at: h.at, detail: { protocol: "provider_d" } }];
  const row = newIncomingTransfer(h, { ...n, beneficiaryAddress: w.address, protocol: "provider_d", providerExternalId: n.requestId, beneficiaryCustomerId: h.ctx.id, history });
  recordIncoming(h, row);
  return { ok: true, status: 201, data: { created: true, transfer: row } };
}
