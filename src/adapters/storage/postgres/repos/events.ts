// The events table's reads on PostgreSQL: the twin of ../../repos/events.ts (same port, same answers). events.data is
// bytea here (the JSON text's bytes, or its compact form: ../../event-data.ts), decoded to the JSON text it was written
// as before any record leaves. A log pruned to nothing still counts the last seq handed out: the seq it was pruned
// through (SQLite reads sqlite_sequence; PostgreSQL's identity sequence is no substitute, see newestSeq).
import type { Environment } from "../../../../domain/types.ts";
import type { EventEntity, EventHead, EventRecord, EventRepository, TailEvent } from "../../../../ports/events.ts";
import { decodeEventBytes } from "../../event-data.ts";
import type { PgSession } from "../session.ts";
import { walkPages } from "./keyset.ts";

// The columns as the port's records (quoted aliases: PostgreSQL folds unquoted names to lower case).
const RECORD = `seq, type, data AS "dataJson", created_at AS "createdAt"`;
const HEAD = `seq, id, company_id AS "companyId", environment, type, created_at AS "createdAt"`;
const TAIL = `seq, id, company_id AS "companyId", environment, type, data AS "dataJson", created_at AS "createdAt"`;

export class PgEventLog implements EventRepository {
  constructor(private readonly db: PgSession) {}

  /**
   * Only committed seqs: the identity sequence's last value moves when a seq is drawn, before its transaction commits
   * (or rolls back), so a stream positioned there would pass over that event once it commits. An empty log counts the
   * seq it was pruned through, in retention's committed row.
   */
  async newestSeq(): Promise<number> {
    const [r] = await this.db.read<{ n: number }>(
      "SELECT coalesce((SELECT max(seq) FROM events), (SELECT value::bigint FROM database_meta WHERE key = 'events_pruned_through'), 0)::bigint AS n",
    );
    return r!.n;
  }

  async prunedThrough(): Promise<number> {
    const [r] = await this.db.read<{ value: string }>("SELECT value FROM database_meta WHERE key = 'events_pruned_through'");
    return r ? Number(r.value) : 0;
  }

  async prunableThrough(from: number, upTo: number, cutoff: string, limit: number): Promise<number> {
    let through = from;
    await walkPages<{ seq: number; created_at: string }>(
      limit,
      (last, size) => this.db.read("SELECT seq, created_at FROM events WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3", [last?.seq ?? from, upTo, size]),
      (r) => {
        if (r.created_at >= cutoff) return false;
        through = r.seq;
        return true;
      },
    );
    return through;
  }

  /** Inside the caller's unit of work. */
  async pruneThrough(from: number, through: number): Promise<number> {
    if (through <= from) return 0;
    const n = await this.db.run("DELETE FROM events WHERE seq > $1 AND seq <= $2", [from, through]);
    await this.db.q("INSERT INTO database_meta (key, value) VALUES ('events_pruned_through', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(through)]);
    return n;
  }

  async after(after: number, limit: number): Promise<TailEvent[]> {
    return decoded(await this.db.read<TailEvent>(`SELECT ${TAIL} FROM events WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, limit]));
  }

  headsAfter(after: number, limit: number): Promise<EventHead[]> {
    return this.db.read<EventHead>(`SELECT ${HEAD} FROM events WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, limit]);
  }

  async tenantPage(companyId: string, env: Environment, after: number, upTo: number, limit: number): Promise<EventRecord[]> {
    return decoded(
      await this.db.read<EventRecord>(`SELECT ${RECORD} FROM events WHERE company_id = $1 AND environment = $2 AND seq > $3 AND seq <= $4 ORDER BY seq LIMIT $5`, [
        companyId,
        env,
        after,
        upTo,
        limit,
      ]),
    );
  }

  async entities(companyId: string, env: Environment, seqs: readonly number[]): Promise<Map<number, EventEntity>> {
    const out = new Map<number, EventEntity>();
    if (seqs.length === 0) return out;
    const rows = await this.db.read<{ seq: number; entity_type: string; entity_id: string }>(
      "SELECT seq, entity_type, entity_id FROM events WHERE seq = ANY($1::bigint[]) AND company_id = $2 AND environment = $3",
      [seqs, companyId, env],
    );
    for (const r of rows) out.set(r.seq, { entityType: r.entity_type, entityId: r.entity_id });
    return out;
  }
}

/** Rows as read have `dataJson` as stored (bytes); replaced in place by the JSON text. */
function decoded<R extends EventRecord>(rows: R[]): R[] {
  for (const r of rows) r.dataJson = decodeEventBytes(r.dataJson as unknown as Uint8Array);
  return rows;
}
