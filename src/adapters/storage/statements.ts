// Prepared statements of one connection: prepared once per SQL text and reused, and finalized together before the
// connection closes. bun:sqlite finishes closing a connection only once its statements are finalized; until then
// SQLite's last-connection checkpoint (which removes the -wal file) waits for garbage collection. node:sqlite
// finalizes them on close, and has no finalize.
import type { SqlClient, SqlStatement } from "./types.ts";

export function finalize(st: SqlStatement | null | undefined): void {
  try {
    (st as { finalize?: () => void } | null | undefined)?.finalize?.();
  } catch {
    /* already finalized */
  }
}

export interface StatementCache {
  stmt(sql: string): SqlStatement;
  /** Finalizes every statement prepared so far (the cache is empty after). */
  finalizeAll(): void;
}

export function statementCache(client: SqlClient): StatementCache {
  const cache = new Map<string, SqlStatement>();
  return {
    stmt(sql) {
      let s = cache.get(sql);
      if (!s) cache.set(sql, (s = client.prepare(sql)));
      return s;
    },
    finalizeAll() {
      for (const st of cache.values()) finalize(st);
      cache.clear();
    },
  };
}

/** A statement run once and finalized at once. */
export function runOnce<T>(client: SqlClient, sql: string, fn: (st: SqlStatement) => T): T {
  const st = client.prepare(sql);
  try {
    return fn(st);
  } finally {
    finalize(st);
  }
}
