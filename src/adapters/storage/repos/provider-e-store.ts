// What provider_e reads of the service's transfers: the originator's identity row of a transfer, and the transfers
// its sweeps tell (poll, expiry), every one in pages over the (updated_at, id) cursor of the sweep index.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import { SWEEP_OPEN, SWEEP_PAGE } from "./provider-a-store.ts";

export const PROVIDER_E_DUE_FOR_POLL = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_e' AND ${SWEEP_OPEN}
  AND state <> 'accepted' AND direction = 'outgoing' AND updated_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;
export const PROVIDER_E_DUE_FOR_EXPIRY = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_e' AND ${SWEEP_OPEN}
  AND expires_at IS NOT NULL AND expires_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;

export type ProviderEDue = { id: string; company_id: string; environment: Environment };

/** The originator customer of a transfer, as far as its identity goes (sealed). */
export interface OriginatorIdentityRow {
  id: string;
  identity_sealed: string | null;
  identity_status: string | null;
  status: string;
}

/** Every row of a sweep query, read in pages of `pageSize` over the (updated_at, id) cursor of the sweep index. */
function duePages(storage: Storage, sql: string, arg: string, pageSize: number): ProviderEDue[] {
  const out: ProviderEDue[] = [];
  let after = { updated_at: "", id: "" };
  for (;;) {
    const page = storage.stmt(sql).all(arg, after.updated_at, after.id, pageSize) as unknown as (ProviderEDue & { updated_at: string })[];
    for (const r of page) out.push({ id: r.id, company_id: r.company_id, environment: r.environment });
    if (page.length < pageSize) return out;
    after = page[page.length - 1]!;
  }
}

export class ProviderEStore {
  constructor(private readonly s: Storage) {}

  /** The originator customer of the company's transfer `transferId` (its identity still sealed), or undefined. */
  originatorOf(companyId: string, env: Environment, transferId: string): OriginatorIdentityRow | undefined {
    return (this.s
      .stmt(
        "SELECT c.id, c.identity_sealed, c.identity_status, c.status FROM transfers t JOIN customers c ON c.id = t.originator_customer_id AND c.company_id = t.company_id AND c.environment = t.environment WHERE t.company_id = ? AND t.environment = ? AND t.id = ?",
      )
      .get(companyId, env, transferId) ?? undefined) as OriginatorIdentityRow | undefined;
  }

  /**
   * Outgoing provider_e transfers waiting (`exchanging`, `awaiting_counterparty`) and unchanged since `before` (once
   * a minute after five minutes): every one, in pages (a poll does not change `updated_at`).
   */
  dueForPoll(before: number, pageSize = SWEEP_PAGE): ProviderEDue[] {
    return duePages(this.s, PROVIDER_E_DUE_FOR_POLL, new Date(before).toISOString(), pageSize);
  }

  /** provider_e transfers still open at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize = SWEEP_PAGE): ProviderEDue[] {
    return duePages(this.s, PROVIDER_E_DUE_FOR_EXPIRY, new Date(now).toISOString(), pageSize);
  }
}
