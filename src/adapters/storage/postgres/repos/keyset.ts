// Newest-first keyset pages on (created_at, id) on PostgreSQL (the twin of ../../repos/keyset.ts), and the retention
// sweeps' prefix walk. The WHERE clause is the SQLite repositories' own (`?` parameters, shared so a filter is written
// once), numbered here as `$1`, `$2`….
import type { Where } from "../../repos/keyset.ts";
import type { PgParam, PgSession } from "../session.ts";

import { numbered } from "../numbered.ts";

/**
 * `SELECT <select> FROM <from> WHERE <where> [after the position] ORDER BY created_at DESC, id DESC LIMIT n` on a reader
 * (or the caller's unit). `alias` prefixes the ordering columns when the query names its table (`c.`).
 */
export function newestFirst<T>(db: PgSession, select: string, from: string, where: Where, after: [string, string] | null, limit: number, alias = ""): Promise<T[]> {
  let sql = where.sql;
  const args = [...where.args] as PgParam[];
  if (after) {
    sql += ` AND (${alias}created_at, ${alias}id) < (?, ?)`;
    args.push(after[0], after[1]);
  }
  args.push(limit);
  return db.read<T>(numbered(`SELECT ${select} FROM ${from} WHERE ${sql} ORDER BY ${alias}created_at DESC, ${alias}id DESC LIMIT ?`), args);
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
