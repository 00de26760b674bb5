// What provider_e reads from the service's storage: the originator's verified identity, the company profile as
// originating VASP, the provider's ID (for the callback URL). The reads themselves are the provider stores port's
// (`ProviderERepository` in src/ports/provider-stores.ts); the sweeps' due transfers are `repositories.providerE.dueFor…`.
import type { Repositories } from "../../../ports/repositories.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import type { ProviderELookups } from "./adapter.ts";
import { beneficiaryNamesMatch } from "../../../domain/provider_e/rules.ts";
import { verifiedIdentity } from "../../../domain/identity.ts";

/** The repositories the lookups read. */
export type ProviderELookupRepositories = Pick<Repositories, "providerE" | "thresholds" | "wallets" | "customers">;

export function providerELookups(repos: ProviderELookupRepositories, open: (sealed: string, aad: string) => string, providerId: (companyId: string) => Promise<string | null>): ProviderELookups {
  return {
    originatorIdentity(companyId: string, env: Environment, transferId: string): Promise<Person[] | null> {
      return repos.providerE.originatorIdentity(open, companyId, env, transferId);
    },
    async companyVasp(companyId: string) {
      const p = await repos.thresholds.profile(companyId);
      if (!p?.legalName || !p.country) return null;
      const lei = p.identifiers.find((i) => i.type === "LEI" || i.type === "LEIX")?.value ?? null;
      return { legalName: p.legalName, country: p.country, lei };
    },
    providerId,
  };
}

/** What the provider_e transfer flow reads besides its transfer: the verified identities its checks use. */
export interface ProviderEFlowLookups {
  /** The originator customer's verified identity (the draft answer to an information request), or null. */
  originatorIdentity(companyId: string, env: Environment, transferId: string): Promise<Person[] | null>;
  /**
   * Part 3, held incoming accept: the beneficiary address still a verified wallet on the network of the transfer's
   * customer, active with a verified identity, and the originator-sent beneficiary persons still matching it.
   */
  beneficiaryStillChecks(companyId: string, env: Environment, t: { beneficiaryCustomerId: string | null; beneficiaryAddress: string; network: string }, sent: Person[]): Promise<boolean>;
}

export function providerEFlowLookups(repos: ProviderELookupRepositories, open: (sealed: string, aad: string) => string): ProviderEFlowLookups {
  const base = providerELookups(repos, open, async () => null);
  return {
    originatorIdentity: (companyId, env, transferId) => base.originatorIdentity(companyId, env, transferId),
    async beneficiaryStillChecks(companyId, env, t, sent) {
      if (!t.beneficiaryCustomerId) return false;
      const w = await repos.wallets.byAddress(companyId, env, t.beneficiaryAddress);
      if (!w || w.customerId !== t.beneficiaryCustomerId || !w.verified || w.network !== t.network) return false;
      const c = await repos.customers.get(companyId, env, t.beneficiaryCustomerId);
      const identity = verifiedIdentity(c, open);
      return identity !== null && beneficiaryNamesMatch(sent, identity);
    },
  };
}
