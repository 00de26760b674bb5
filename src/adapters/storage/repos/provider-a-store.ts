// provider_a storage: processed webhook messages (Part 3 "provider_a callback": recorded only after success), the
// transfers its sweeps visit (polling, exchange stall) and the verified identity its flows send.
import type { Environment } from "../../../domain/types.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import { iso } from "../../../domain/ids.ts";
import type { Storage } from "../types.ts";
import { verifiedIdentity, type Unseal } from "../../../domain/identity.ts";
import type { DueTransfer, MessageKey, ProviderARepository, ProviderATransferRef } from "../../../ports/provider-stores.ts";

export type { DueTransfer, MessageKey, ProviderARepository, ProviderATransferRef } from "../../../ports/provider-stores.ts";

/** A sweep query's row: the transfer's ID and tenant, and the cursor's `updated_at`. */
type DueRow = { id: string; company_id: string; environment: Environment; updated_at: string };

/**
 * The open states of the provider sweeps' partial index (`transfers_provider_sweep`, migration 0017): a sweep query
 * repeats this text word for word (that is how SQLite knows the index holds every row it needs), and narrows further.
 */
export const SWEEP_OPEN = "state IN ('exchanging', 'awaiting_counterparty', 'accepted')";
/** How many rows a sweep reads per page (a run reads page after page until every due transfer is read). */
export const SWEEP_PAGE = 500;
/** The cursor of a sweep page: after the last (updated_at, id) read, in the order of the sweep index. */
const AFTER_CURSOR = "AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?";

export const PROVIDER_A_DUE_FOR_POLL = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_a' AND ${SWEEP_OPEN}
  AND state <> 'accepted' AND updated_at <= ? ${AFTER_CURSOR}`;
export const PROVIDER_A_DUE_FOR_STALL = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_a' AND ${SWEEP_OPEN}
  AND state = 'exchanging' AND updated_at <= ? ${AFTER_CURSOR}`;

/** Every row of a sweep query, read page by page over the (updated_at, id) cursor of the sweep index. */
export function duePages(s: Storage, sql: string, args: string[], pageSize: number): DueTransfer[] {
  const out: DueTransfer[] = [];
  let after = { updated_at: "", id: "" };
  for (;;) {
    const page = s.stmt(sql).all(...args, after.updated_at, after.id, pageSize) as unknown as DueRow[];
    for (const r of page) out.push({ id: r.id, companyId: r.company_id, environment: r.environment });
    if (page.length < pageSize) return out;
    after = page[page.length - 1]!;
  }
}

const toRef = (r: { id: string; provider_external_id: string | null } | null | undefined): ProviderATransferRef | undefined =>
  r ? { id: r.id, providerExternalId: r.provider_external_id } : undefined;

export class ProviderAStore implements ProviderARepository {
  constructor(private readonly s: Storage) {}

  processed(k: MessageKey): Promise<boolean> {
    return this.s.run(
      () =>
        this.s
          .stmt("SELECT 1 AS x FROM provider_a_messages WHERE company_id = ? AND environment = ? AND entity = ? AND message_id = ? AND body_sha256 = ?")
          .get(k.companyId, k.environment, k.entity, k.messageId, k.bodySha256) != null,
    );
  }

  /** Recorded after the event was applied (a failure leaves it unrecorded: its redelivery is processed again). */
  record(k: MessageKey, providerTransferId: string, transferId: string | null, now: number): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          `INSERT INTO provider_a_messages (company_id, environment, entity, message_id, body_sha256, provider_transfer_id, transfer_id, processed_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        )
        .run(k.companyId, k.environment, k.entity, k.messageId, k.bodySha256, providerTransferId, transferId, iso(now));
    });
  }

  /** The transfer this environment holds for a provider transfer ID (outgoing or incoming). */
  byProviderTransferId(companyId: string, env: Environment, providerTransferId: string): Promise<ProviderATransferRef | undefined> {
    return this.s.run(() =>
      toRef(
        this.s
          .stmt("SELECT id, provider_external_id FROM transfers WHERE company_id = ? AND environment = ? AND provider_external_id = ? AND protocol = 'provider_a'")
          .get(companyId, env, providerTransferId) as { id: string; provider_external_id: string | null } | null,
      ),
    );
  }

  /** An outgoing transfer by our ID whose provider_a creation started (a lost answer: bound by a later event). */
  outgoingByRef(companyId: string, env: Environment, id: string): Promise<ProviderATransferRef | undefined> {
    return this.s.run(() =>
      toRef(
        this.s
          .stmt("SELECT id, provider_external_id FROM transfers WHERE id = ? AND company_id = ? AND environment = ? AND direction = 'outgoing' AND protocol = 'provider_a'")
          .get(id, companyId, env) as { id: string; provider_external_id: string | null } | null,
      ),
    );
  }

  /**
   * `exchanging` or `awaiting_counterparty` and unchanged since `before` (polling: five minutes): every one, read in
   * pages of `pageSize` (a poll does not change `updated_at`, so a single oldest-first page would starve the rest).
   */
  dueForPoll(before: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return this.s.run(() => duePages(this.s, PROVIDER_A_DUE_FOR_POLL, [iso(before)], pageSize));
  }

  /** `exchanging` unchanged since `before` (the stall: fifteen minutes): every one, read in pages of `pageSize`. */
  dueForStall(before: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return this.s.run(() => duePages(this.s, PROVIDER_A_DUE_FOR_STALL, [iso(before)], pageSize));
  }

  /** A customer's verified identity (sealed persons opened), or null when not verified, blocked, inactive or gone. */
  verifiedIdentity(open: Unseal, companyId: string, env: Environment, customerId: string): Promise<Person[] | null> {
    return this.s.run(() => {
      const c = this.s
        .stmt("SELECT id, status, identity_status, identity_sealed FROM customers WHERE id = ? AND company_id = ? AND environment = ?")
        .get(customerId, companyId, env) as { id: string; status: string; identity_status: string | null; identity_sealed: string | null } | null;
      return verifiedIdentity(c && { id: c.id, status: c.status, identityStatus: c.identity_status, identitySealed: c.identity_sealed }, open);
    });
  }

  originatorCustomerOf(companyId: string, env: Environment, transferId: string): Promise<string | null> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT originator_customer_id FROM transfers WHERE id = ? AND company_id = ? AND environment = ?").get(transferId, companyId, env) as { originator_customer_id: string | null } | null;
      return r?.originator_customer_id ?? null;
    });
  }
}
