// The events table as the live stream reads it: one company and environment's events after a seq, in pages (prepared).
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";

export interface EventRow {
  seq: number;
  type: string;
  data: string;
  created_at: string;
}

export class EventLog {
  constructor(private readonly s: Storage) {}

  /** At most `limit` events of one company and environment with `after < seq <= upTo`, in seq order (index events_company_env_seq). */
  tenantPage(companyId: string, env: Environment, after: number, upTo: number, limit: number): EventRow[] {
    return this.s
      .stmt("SELECT seq, type, data, created_at FROM events WHERE company_id = ? AND environment = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?")
      .all(companyId, env, after, upTo, limit) as unknown as EventRow[];
  }
}
