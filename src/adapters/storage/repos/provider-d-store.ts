// What provider_d's sweep reads of the service's transfers: open provider_d transfers past their expiry, in pages
// over the (updated_at, id) cursor of the sweep index.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import { SWEEP_OPEN, SWEEP_PAGE } from "./provider-a-store.ts";

export const PROVIDER_D_DUE_FOR_EXPIRY = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_d' AND ${SWEEP_OPEN}
  AND state <> 'held' AND expires_at IS NOT NULL AND expires_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;

export type ProviderDDue = { id: string; company_id: string; environment: Environment };

export class ProviderDStore {
  constructor(private readonly s: Storage) {}

  /** provider_d transfers still open (not held) at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize = SWEEP_PAGE): ProviderDDue[] {
    const out: ProviderDDue[] = [];
    let after = { updated_at: "", id: "" };
    for (;;) {
      const page = this.s.stmt(PROVIDER_D_DUE_FOR_EXPIRY).all(new Date(now).toISOString(), after.updated_at, after.id, pageSize) as unknown as (ProviderDDue & { updated_at: string })[];
      for (const r of page) out.push({ id: r.id, company_id: r.company_id, environment: r.environment });
      if (page.length < pageSize) return out;
      after = page[page.length - 1]!;
    }
  }
}
