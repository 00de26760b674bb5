// The events table's reads (prepared): the newest seq, the tail of all companies after a seq (the live stream and the
// webhook dispatcher), and one company and environment's events after a seq, in pages.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { RowOf } from "./row.ts";
import type { events as eventsTable } from "../../../../db/schema/events.ts";

export type EventRow = Pick<RowOf<typeof eventsTable>, "seq" | "type" | "data" | "created_at">;

/** A tail row: an event with its ID and the tenant it belongs to. */
export type TailEventRow = EventRow & Pick<RowOf<typeof eventsTable>, "id" | "company_id" | "environment">;

export class EventLog {
  constructor(private readonly s: Storage) {}

  /** The newest event's seq (all companies: the sequence is shared), 0 when there is none. */
  newestSeq(): number {
    return Number((this.s.stmt("SELECT coalesce(max(seq), 0) AS n FROM events").get() as { n: number }).n);
  }

  /** At most `limit` events of every company and environment with `seq > after`, in seq order (the primary key). */
  after(after: number, limit: number): TailEventRow[] {
    return this.s
      .stmt("SELECT seq, id, company_id, environment, type, data, created_at FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(after, limit) as unknown as TailEventRow[];
  }

  /** At most `limit` events of one company and environment with `after < seq <= upTo`, in seq order (index events_company_env_seq). */
  tenantPage(companyId: string, env: Environment, after: number, upTo: number, limit: number): EventRow[] {
    return this.s
      .stmt("SELECT seq, type, data, created_at FROM events WHERE company_id = ? AND environment = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?")
      .all(companyId, env, after, upTo, limit) as unknown as EventRow[];
  }
}
