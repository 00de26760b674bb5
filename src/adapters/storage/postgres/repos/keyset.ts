// Newest-first keyset pages on (created_at, id) on PostgreSQL: the twin of ../../repos/keyset.ts. The WHERE clause is
// the SQLite repositories' own (`?` parameters, shared so a filter is written once), numbered here as `$1`, `$2`….
import type { Where } from "../../repos/keyset.ts";
import type { PgParam, PgSession } from "../session.ts";

/** `sql` with its `?` parameters numbered `$n` from `first` (no `?` may appear in a literal). */
export function numbered(sql: string, first = 1): string {
  let n = first - 1;
  return sql.replace(/\?/g, () => `$${++n}`);
}

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
