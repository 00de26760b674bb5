// What provider_e reads of the service's transfers, on PostgreSQL: the twin of ../../repos/provider-e-store.ts
// (SQLite's sweep statements, `$n` numbered).
import type { Environment } from "../../../../domain/types.ts";
import type { Person } from "../../../../domain/ivms101/index.ts";
import { verifiedIdentity, type Unseal } from "../../../../domain/identity.ts";
import type { DueTransfer, ProviderERepository } from "../../../../ports/provider-stores.ts";
import { SWEEP_PAGE } from "../../repos/provider-a-store.ts";
import { PROVIDER_E_DUE_FOR_EXPIRY, PROVIDER_E_DUE_FOR_POLL } from "../../repos/provider-e-store.ts";
import { pgDuePages } from "./provider-a-store.ts";
import { numbered } from "../numbered.ts";
import type { PgSession } from "../session.ts";

const DUE_FOR_POLL = numbered(PROVIDER_E_DUE_FOR_POLL);
const DUE_FOR_EXPIRY = numbered(PROVIDER_E_DUE_FOR_EXPIRY);

export class PgProviderEStore implements ProviderERepository {
  constructor(private readonly db: PgSession) {}

  /** The verified identity of the originator customer of the company's transfer `transferId`, or null. */
  async originatorIdentity(open: Unseal, companyId: string, env: Environment, transferId: string): Promise<Person[] | null> {
    const c = (
      await this.db.read<{ id: string; identity_sealed: string | null; identity_status: string | null; status: string }>(
        `SELECT c.id, c.identity_sealed, c.identity_status, c.status FROM transfers t
           JOIN customers c ON c.id = t.originator_customer_id AND c.company_id = t.company_id AND c.environment = t.environment
          WHERE t.company_id = $1 AND t.environment = $2 AND t.id = $3`,
        [companyId, env, transferId],
      )
    )[0];
    return verifiedIdentity(c ? { id: c.id, status: c.status, identityStatus: c.identity_status, identitySealed: c.identity_sealed } : null, open);
  }

  /** Outgoing provider_e transfers waiting and unchanged since `before`: every one, in pages (a poll does not change `updated_at`). */
  dueForPoll(before: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return pgDuePages(this.db, DUE_FOR_POLL, [new Date(before).toISOString()], pageSize);
  }

  /** provider_e transfers still open at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return pgDuePages(this.db, DUE_FOR_EXPIRY, [new Date(now).toISOString()], pageSize);
  }
}
