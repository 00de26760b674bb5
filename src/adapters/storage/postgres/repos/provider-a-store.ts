// provider_a storage on PostgreSQL: the twin of ../../repos/provider-a-store.ts (same port, same answers). The sweep
// queries are SQLite's text with `$n` for `?` (one source for the predicate the partial sweep index serves), read
// page after page over the same (updated_at, id) cursor.
import type { Environment } from "../../../../domain/types.ts";
import type { Person } from "../../../../domain/ivms101/index.ts";
import { iso } from "../../../../domain/ids.ts";
import { verifiedIdentity, type Unseal } from "../../../../domain/identity.ts";
import type { DueTransfer, MessageKey, ProviderARepository, ProviderATransferRef } from "../../../../ports/provider-stores.ts";
import { PROVIDER_A_DUE_FOR_POLL, PROVIDER_A_DUE_FOR_STALL, SWEEP_PAGE } from "../../repos/provider-a-store.ts";
import type { PgSession } from "../session.ts";

import { numbered } from "../numbered.ts";

type DueRow = { id: string; company_id: string; environment: Environment; updated_at: string };

/** Every row of a sweep query (SQLite's text, `$n` numbered), read page by page over the (updated_at, id) cursor. */
export async function pgDuePages(db: PgSession, sql: string, args: string[], pageSize: number): Promise<DueTransfer[]> {
  const out: DueTransfer[] = [];
  let cursor: [string, string] = ["", ""];
  for (;;) {
    const page = await db.read<DueRow>(sql, [...args, ...cursor, pageSize]);
    out.push(...page.map((r) => ({ id: r.id, companyId: r.company_id, environment: r.environment })));
    if (page.length < pageSize) return out;
    const last = page[page.length - 1]!;
    cursor = [last.updated_at, last.id];
  }
}

const DUE_FOR_POLL = numbered(PROVIDER_A_DUE_FOR_POLL);
const DUE_FOR_STALL = numbered(PROVIDER_A_DUE_FOR_STALL);

type RefRow = { id: string; provider_external_id: string | null };
const toRef = (r: RefRow | undefined): ProviderATransferRef | undefined => (r ? { id: r.id, providerExternalId: r.provider_external_id } : undefined);

export class PgProviderAStore implements ProviderARepository {
  constructor(private readonly db: PgSession) {}

  async processed(k: MessageKey): Promise<boolean> {
    const rows = await this.db.read(
      "SELECT 1 AS x FROM provider_a_messages WHERE company_id = $1 AND environment = $2 AND entity = $3 AND message_id = $4 AND body_sha256 = $5",
      [k.companyId, k.environment, k.entity, k.messageId, k.bodySha256],
    );
    return rows.length > 0;
  }

  /** Recorded after the event was applied (a failure leaves it unrecorded: its redelivery is processed again). */
  async record(k: MessageKey, providerTransferId: string, transferId: string | null, now: number): Promise<void> {
    await this.db.q(
      `INSERT INTO provider_a_messages (company_id, environment, entity, message_id, body_sha256, provider_transfer_id, transfer_id, processed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
      [k.companyId, k.environment, k.entity, k.messageId, k.bodySha256, providerTransferId, transferId, iso(now)],
    );
  }

  /** The transfer this environment holds for a provider transfer ID (outgoing or incoming). */
  async byProviderTransferId(companyId: string, env: Environment, providerTransferId: string): Promise<ProviderATransferRef | undefined> {
    const rows = await this.db.read<RefRow>(
      "SELECT id, provider_external_id FROM transfers WHERE company_id = $1 AND environment = $2 AND provider_external_id = $3 AND protocol = 'provider_a' LIMIT 1",
      [companyId, env, providerTransferId],
    );
    return toRef(rows[0]);
  }

  /** An outgoing transfer by our ID whose provider_a creation started (a lost answer: bound by a later event). */
  async outgoingByRef(companyId: string, env: Environment, id: string): Promise<ProviderATransferRef | undefined> {
    const rows = await this.db.read<RefRow>(
      "SELECT id, provider_external_id FROM transfers WHERE id = $1 AND company_id = $2 AND environment = $3 AND direction = 'outgoing' AND protocol = 'provider_a'",
      [id, companyId, env],
    );
    return toRef(rows[0]);
  }

  /** `exchanging` or `awaiting_counterparty` and unchanged since `before`: every one, read in pages of `pageSize`. */
  dueForPoll(before: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return pgDuePages(this.db, DUE_FOR_POLL, [iso(before)], pageSize);
  }

  /** `exchanging` unchanged since `before` (the stall): every one, read in pages of `pageSize`. */
  dueForStall(before: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return pgDuePages(this.db, DUE_FOR_STALL, [iso(before)], pageSize);
  }

  /** A customer's verified identity (sealed persons opened), or null when not verified, blocked, inactive or gone. */
  async verifiedIdentity(open: Unseal, companyId: string, env: Environment, customerId: string): Promise<Person[] | null> {
    const c = (
      await this.db.read<{ id: string; status: string; identity_status: string | null; identity_sealed: string | null }>(
        "SELECT id, status, identity_status, identity_sealed FROM customers WHERE id = $1 AND company_id = $2 AND environment = $3",
        [customerId, companyId, env],
      )
    )[0];
    return verifiedIdentity(c ? { id: c.id, status: c.status, identityStatus: c.identity_status, identitySealed: c.identity_sealed } : null, open);
  }

  async originatorCustomerOf(companyId: string, env: Environment, transferId: string): Promise<string | null> {
    const r = (await this.db.read<{ originator_customer_id: string | null }>("SELECT originator_customer_id FROM transfers WHERE id = $1 AND company_id = $2 AND environment = $3", [transferId, companyId, env]))[0];
    return r?.originator_customer_id ?? null;
  }
}
