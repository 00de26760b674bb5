// Newest-first keyset pages on (created_at, id), on PostgreSQL: the twin of ../../repos/keyset.ts (the same row-value
// comparison, which PostgreSQL too turns into an index range), the `$n` placeholders the engine's filters build, and
// the retention sweeps' prefix walk.
import type { Where } from "../../repos/keyset.ts";
import type { PgParam, PgSession } from "../session.ts";
import { numbered } from "../numbered.ts";

/** A WHERE clause with its `$1…` parameters. */
export interface PgWhere {
  sql: string;
  args: PgParam[];
}

/** Appends `value` to `args` and answers its placeholder (`$3`). */
export function param(args: PgParam[], value: PgParam): string {
  args.push(value);
  return `$${args.length}`;
}

/**
 * `SELECT <select> FROM <from> WHERE <where> [after the position] ORDER BY created_at DESC, id DESC LIMIT n`.
 * `alias` prefixes the ordering columns when the query names its table (`c.`).
 */
export function newestFirst<T>(db: Pick<PgSession, "read">, select: string, from: string, where: PgWhere, after: [string, string] | null, limit: number, alias = ""): Promise<T[]> {
  const args = [...where.args];
  let sql = where.sql;
  if (after) sql += ` AND (${alias}created_at, ${alias}id) < (${param(args, after[0])}, ${param(args, after[1])})`;
  return db.read<T>(`SELECT ${select} FROM ${from} WHERE ${sql} ORDER BY ${alias}created_at DESC, ${alias}id DESC LIMIT ${param(args, limit)}`, args);
}

/** A filter the SQLite repositories build (`?` parameters, shared so it is written once) as a PostgreSQL one. */
export function fromSqlite(where: Where): PgWhere {
  return { sql: numbered(where.sql), args: [...where.args] as PgParam[] };
}

/**
 * A prefix walk in key order, a page at a time: hands each row to `visit` until it answers false, reading pages of
 * 256 (fewer when `limit` is smaller) while fewer than `limit` rows were seen, as SQLite's retention walks do. A walk
 * the first rows end reads one page, not `limit` rows. `page(last, size)`: the rows after `last` (null: from the start).
 */
export async function walkPages<R>(limit: number, page: (last: R | null, size: number) => Promise<R[]>, visit: (r: R) => boolean): Promise<void> {
  const size = Math.min(256, limit);
  let last: R | null = null;
  for (let seen = 0; seen < limit; ) {
    const rows = await page(last, size);
    for (const r of rows) {
      if (!visit(r)) return;
      last = r;
    }
    seen += rows.length;
    if (rows.length < size) break;
  }
}
