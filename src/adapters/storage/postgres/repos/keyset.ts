// Newest-first keyset pages on (created_at, id), on PostgreSQL: the twin of ../../repos/keyset.ts (the same row-value
// comparison, which PostgreSQL too turns into an index range), and the `$n` placeholders the engine's filters build.
import type { PgParam, PgSession } from "../session.ts";

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
