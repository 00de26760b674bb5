// The events table's reads (prepared): the newest seq, the tail of all companies after a seq (the live stream and the
// webhook dispatcher), and one company and environment's events after a seq, in pages (src/ports/events.ts). The one
// place events.data is decoded (event-data.ts): every record read here carries its data as the JSON text it was written as.
import type { Environment } from "../../../domain/types.ts";
import type { EventEntity, EventHead, EventRecord, EventRepository, TailEvent } from "../../../ports/events.ts";
import type { Storage } from "../types.ts";
import { decodeEventData } from "../event-data.ts";

// The columns as the port's records (aliased in the SELECT: a page of rows is the page of records, no copy per event).
const RECORD = "seq, type, data AS dataJson, created_at AS createdAt";
const HEAD = "seq, id, company_id AS companyId, environment, type, created_at AS createdAt";
const TAIL = "seq, id, company_id AS companyId, environment, type, data AS dataJson, created_at AS createdAt";

export class EventLog implements EventRepository {
  constructor(private readonly s: Storage) {}

  /**
   * The newest event's seq (all companies: the sequence is shared), 0 when there has never been one. The table is
   * AUTOINCREMENT, so when retention has pruned every event the last seq handed out (sqlite_sequence) still counts.
   */
  newestSeq(): Promise<number> {
    return this.s.run(() =>
      Number((this.s.stmt("SELECT coalesce((SELECT max(seq) FROM events), (SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS n").get() as { n: number }).n),
    );
  }

  /** Every event with a seq up to this one was pruned by the retention sweep (0: none ever was). */
  prunedThrough(): Promise<number> {
    return this.s.run(() => {
      const row = this.s.stmt("SELECT value FROM database_meta WHERE key = 'events_pruned_through'").get() as { value: string } | undefined;
      return row ? Number(row.value) : 0;
    });
  }

  /**
   * The highest seq X such that every event after `from` up to X was committed before `cutoff` (ISO time) and has
   * seq ≤ `upTo`, looking at `limit` events at most; `from` when there is none. The prefix stops at the first event
   * that is younger, so what is pruned is always a whole prefix of the sequence.
   */
  prunableThrough(from: number, upTo: number, cutoff: string, limit: number): Promise<number> {
    return this.s.run(() => {
      // In pages, so that a run with nothing to prune (the oldest event is young) reads one page, not `limit` rows.
      const page = Math.min(256, limit);
      let through = from;
      for (let seen = 0; seen < limit; ) {
        const rows = this.s.stmt("SELECT seq, created_at FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?").all(through, upTo, page) as unknown as { seq: number; created_at: string }[];
        for (const r of rows) {
          if (r.created_at >= cutoff) return through;
          through = r.seq;
        }
        seen += rows.length;
        if (rows.length < page) break;
      }
      return through;
    });
  }

  /** Deletes the events after `from` up to `through` and records `through` as pruned (inside the caller's transaction). */
  pruneThrough(from: number, through: number): Promise<number> {
    return this.s.run(() => {
      if (through <= from) return 0;
      const n = Number(this.s.stmt("DELETE FROM events WHERE seq > ? AND seq <= ?").run(from, through).changes);
      this.s
        .stmt("INSERT INTO database_meta (key, value) VALUES ('events_pruned_through', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        .run(String(through));
      return n;
    });
  }

  /** At most `limit` events of every company and environment with `seq > after`, in seq order (the primary key). */
  after(after: number, limit: number): Promise<TailEvent[]> {
    return this.s.run(() => decoded(this.s.stmt(`SELECT ${TAIL} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`).all(after, limit) as unknown as TailEvent[]));
  }

  /** The same events as `after`, without their data: where they belong, to see who subscribes before reading it. */
  headsAfter(after: number, limit: number): Promise<EventHead[]> {
    return this.s.run(() => this.s.stmt(`SELECT ${HEAD} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`).all(after, limit) as unknown as EventHead[]);
  }

  /** At most `limit` events of one company and environment with `after < seq <= upTo`, in seq order (index events_company_env_seq). */
  tenantPage(companyId: string, env: Environment, after: number, upTo: number, limit: number): Promise<EventRecord[]> {
    return this.s.run(() =>
      decoded(
        this.s
          .stmt(`SELECT ${RECORD} FROM events WHERE company_id = ? AND environment = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`)
          .all(companyId, env, after, upTo, limit) as unknown as EventRecord[],
      ),
    );
  }

  /**
   * The entity each of these events concerns (`transfer`, `case`, `AuditLog` and its ID), by seq, for one company
   * and environment: the webhook deliveries' `subject`. Reads by the primary key, never `data`; an event the
   * retention sweep removed is absent.
   */
  entities(companyId: string, env: Environment, seqs: readonly number[]): Promise<Map<number, EventEntity>> {
    return this.s.run(() => {
      const out = new Map<number, EventEntity>();
      if (seqs.length === 0) return out;
      const rows = this.s
        .stmt("SELECT seq, entity_type, entity_id FROM events WHERE seq IN (SELECT value FROM json_each(?)) AND company_id = ? AND environment = ?")
        .all(JSON.stringify(seqs), companyId, env) as unknown as { seq: number; entity_type: string; entity_id: string }[];
      for (const r of rows) out.set(r.seq, { entityType: r.entity_type, entityId: r.entity_id });
      return out;
    });
  }
}

/** Rows as read have `dataJson` as stored (TEXT or a compact BLOB); replaced in place by the JSON text. */
function decoded<R extends EventRecord>(rows: R[]): R[] {
  for (const r of rows) r.dataJson = decodeEventData(r.dataJson as string | Uint8Array);
  return rows;
}
