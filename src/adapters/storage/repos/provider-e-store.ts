// What provider_e reads of the service's transfers: the originator's verified identity of a transfer, and the
// transfers its sweeps tell (poll, expiry), every one in pages over the (updated_at, id) cursor of the sweep index.
import type { Environment } from "../../../domain/types.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import { verifiedIdentity, type Unseal } from "../../../domain/identity.ts";
import type { Storage } from "../types.ts";
import type { DueTransfer, ProviderERepository } from "../../../ports/provider-stores.ts";
import { SWEEP_OPEN, SWEEP_PAGE, duePages } from "./provider-a-store.ts";

export type { ProviderERepository } from "../../../ports/provider-stores.ts";

export const PROVIDER_E_DUE_FOR_POLL = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_e' AND ${SWEEP_OPEN}
  AND state <> 'accepted' AND direction = 'outgoing' AND updated_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;
export const PROVIDER_E_DUE_FOR_EXPIRY = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_e' AND ${SWEEP_OPEN}
  AND expires_at IS NOT NULL AND expires_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;

/** The originator customer of a transfer, as far as its identity goes (sealed). */
interface OriginatorIdentityRow {
  id: string;
  identity_sealed: string | null;
  identity_status: string | null;
  status: string;
}

export class ProviderEStore implements ProviderERepository {
  constructor(private readonly s: Storage) {}

  /** The verified identity of the originator customer of the company's transfer `transferId`, or null. */
  originatorIdentity(open: Unseal, companyId: string, env: Environment, transferId: string): Promise<Person[] | null> {
    return this.s.run(() => {
      const c = this.s
        .stmt(
          "SELECT c.id, c.identity_sealed, c.identity_status, c.status FROM transfers t JOIN customers c ON c.id = t.originator_customer_id AND c.company_id = t.company_id AND c.environment = t.environment WHERE t.company_id = ? AND t.environment = ? AND t.id = ?",
        )
        .get(companyId, env, transferId) as OriginatorIdentityRow | null;
      return verifiedIdentity(c && { id: c.id, status: c.status, identityStatus: c.identity_status, identitySealed: c.identity_sealed }, open);
    });
  }

  /**
   * Outgoing provider_e transfers waiting (`exchanging`, `awaiting_counterparty`) and unchanged since `before` (once
   * a minute after five minutes): every one, in pages (a poll does not change `updated_at`).
   */
  dueForPoll(before: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return this.s.run(() => duePages(this.s, PROVIDER_E_DUE_FOR_POLL, [new Date(before).toISOString()], pageSize));
  }

  /** provider_e transfers still open at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return this.s.run(() => duePages(this.s, PROVIDER_E_DUE_FOR_EXPIRY, [new Date(now).toISOString()], pageSize));
  }
}
