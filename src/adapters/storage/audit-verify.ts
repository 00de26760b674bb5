// The offline audit verifier on SQLite (`caravan audit verify`): a database file or a backup, opened read-only and
// not migrated, checked by the engine-neutral verifier (./audit-check.ts); a `postgres://` URL goes to PostgreSQL's
// (./postgres/audit-verify.ts).
import type { SqlClient, SqlValue } from "./types.ts";
import { openClient } from "./index.ts";
import { verifyAuditLog, type AuditReader } from "./audit-check.ts";
import type { VerifyOptions, VerifyResult } from "../../ports/audit-verify.ts";

export type { KeptCheckpoint, LogResult, VerifyOptions, VerifyResult } from "../../ports/audit-verify.ts";
export { verifyAuditLog, type AuditReader } from "./audit-check.ts";

/** An AuditReader over a SQLite connection. */
export function sqliteAuditReader(c: SqlClient): AuditReader {
  return {
    hasTable: async (name) => !!c.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?").get(name),
    all: async <T>(sql: string, ...params: SqlValue[]) => c.prepare(sql).all(...params) as unknown as T[],
  };
}

/**
 * Opens the file without migrating it (a backup stays as it was), read-only for this connection, and verifies it; a
 * `postgres://` URL is verified on PostgreSQL (./postgres/audit-verify.ts), the same way.
 */
export async function verifyAuditFile(file: string, o: VerifyOptions): Promise<VerifyResult> {
  if (/^postgres(ql)?:\/\//i.test(file.trim())) return (await import("./postgres/audit-verify.ts")).verifyAuditDatabase(file, o);
  const client = await openClient(file);
  try {
    // A connection closing elsewhere (its last-connection checkpoint) locks the file for a moment: wait for it, as every
    // other command does, instead of failing at once.
    client.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(Number((globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.CARAVAN_BUSY_TIMEOUT_MS) || 5000))}`);
    client.exec("PRAGMA query_only = ON");
    return await verifyAuditLog(sqliteAuditReader(client), o);
  } finally {
    client.close();
  }
}
