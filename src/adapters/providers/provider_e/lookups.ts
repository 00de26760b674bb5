// What provider_e reads from the service's storage: the originator's verified identity, the company profile as
// originating VASP, the provider's ID (for the callback URL), and the transfers the sweeps tell (poll, expiry).
import type { Storage } from "../../storage/types.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import { companyProfile } from "../../storage/repos/thresholds.ts";
import type { ProviderELookups } from "./adapter.ts";
import { Wallets } from "../../storage/repos/wallets.ts";
import { Customers } from "../../storage/repos/customers.ts";
import { beneficiaryNamesMatch } from "../../../domain/provider_e/rules.ts";
import { SWEEP_OPEN, SWEEP_PAGE } from "../../storage/repos/provider-a-store.ts";
import { verifiedIdentity } from "../../../domain/identity.ts";

export function providerELookups(storage: Storage, open: (sealed: string, aad: string) => string, providerId: (companyId: string) => string | null): ProviderELookups {
  return {
    originatorIdentity(companyId: string, env: Environment, transferId: string): Person[] | null {
      const r = storage
        .stmt("SELECT c.id, c.identity_sealed, c.identity_status, c.status FROM transfers t JOIN customers c ON c.id = t.originator_customer_id AND c.company_id = t.company_id AND c.environment = t.environment WHERE t.company_id = ? AND t.environment = ? AND t.id = ?")
        .get(companyId, env, transferId) as { id: string; identity_sealed: string | null; identity_status: string | null; status: string } | null | undefined;
      return verifiedIdentity(r, open);
    },
    companyVasp(companyId: string) {
      const p = companyProfile(storage, companyId);
      if (!p?.legalName || !p.country) return null;
      const lei = p.identifiers.find((i) => i.type === "LEI" || i.type === "LEIX")?.value ?? null;
      return { legalName: p.legalName, country: p.country, lei };
    },
    providerId,
  };
}

export const PROVIDER_E_DUE_FOR_POLL = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_e' AND ${SWEEP_OPEN}
  AND state <> 'accepted' AND direction = 'outgoing' AND updated_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;
export const PROVIDER_E_DUE_FOR_EXPIRY = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_e' AND ${SWEEP_OPEN}
  AND expires_at IS NOT NULL AND expires_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;

type Due = { id: string; company_id: string; environment: Environment };

/** Every row of a sweep query, read in pages of `pageSize` over the (updated_at, id) cursor of the sweep index. */
function duePages(storage: Storage, sql: string, arg: string, pageSize: number): Due[] {
  const out: Due[] = [];
  let after = { updated_at: "", id: "" };
  for (;;) {
    const page = storage.stmt(sql).all(arg, after.updated_at, after.id, pageSize) as unknown as (Due & { updated_at: string })[];
    for (const r of page) out.push({ id: r.id, company_id: r.company_id, environment: r.environment });
    if (page.length < pageSize) return out;
    after = page[page.length - 1]!;
  }
}

/**
 * Outgoing provider_e transfers waiting (`exchanging`, `awaiting_counterparty`) and unchanged since `before` (Part 3:
 * once a minute after five minutes): every one, in pages (a poll does not change `updated_at`).
 */
export function dueForPoll(storage: Storage, before: number, pageSize = SWEEP_PAGE): Due[] {
  return duePages(storage, PROVIDER_E_DUE_FOR_POLL, new Date(before).toISOString(), pageSize);
}

/** provider_e transfers still open at their expiry: every one, in pages. */
export function dueForExpiry(storage: Storage, now: number, pageSize = SWEEP_PAGE): Due[] {
  return duePages(storage, PROVIDER_E_DUE_FOR_EXPIRY, new Date(now).toISOString(), pageSize);
}

/** What the provider_e transfer flow reads besides its transfer: the verified identities its checks use. */
export interface ProviderEFlowLookups {
  /** The originator customer's verified identity (the draft answer to an information request), or null. */
  originatorIdentity(companyId: string, env: Environment, transferId: string): Person[] | null;
  /**
   * Part 3, held incoming accept: the beneficiary address still a verified wallet on the network of the transfer's
   * customer, active with a verified identity, and the originator-sent beneficiary persons still matching it.
   */
  beneficiaryStillChecks(companyId: string, env: Environment, t: { beneficiary_customer_id: string | null; beneficiary_address: string; network: string }, sent: Person[]): boolean;
}

export function providerEFlowLookups(storage: Storage, open: (sealed: string, aad: string) => string): ProviderEFlowLookups {
  const base = providerELookups(storage, open, () => null);
  return {
    originatorIdentity: (companyId, env, transferId) => base.originatorIdentity(companyId, env, transferId),
    beneficiaryStillChecks(companyId, env, t, sent) {
      if (!t.beneficiary_customer_id) return false;
      const w = new Wallets(storage).byAddress(companyId, env, t.beneficiary_address);
      if (!w || w.customer_id !== t.beneficiary_customer_id || w.verified !== 1 || w.network !== t.network) return false;
      const c = new Customers(storage).get(companyId, env, t.beneficiary_customer_id);
      const identity = verifiedIdentity(c, open);
      return identity !== null && beneficiaryNamesMatch(sent, identity);
    },
  };
}
