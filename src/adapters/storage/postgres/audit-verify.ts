// `caravan audit verify` on PostgreSQL: the verifier of ../audit-check.ts (written once, over an AuditReader) run on
// one REPEATABLE READ, READ ONLY snapshot of the database, so a server writing meanwhile changes nothing it reads. The
// database is not migrated and nothing is written.
import { verifyAuditLog, type AuditReader } from "../audit-check.ts";
import type { VerifyOptions, VerifyResult } from "../../../ports/audit-verify.ts";
import { checkReachable, createPgSession, type PgSession } from "./session.ts";

/** The verifier's `?` parameters as PostgreSQL's `$1, $2…` (its statements have no `?` inside a literal). */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** An AuditReader over a session (inside its snapshot, every read joins it). */
export function pgAuditReader(db: PgSession): AuditReader {
  return {
    hasTable: async (name) => (await db.read<{ x: boolean }>("SELECT to_regclass($1) IS NOT NULL AS x", [name]))[0]!.x,
    all: <T>(sql: string, ...params: (string | number)[]) => db.read<T>(numbered(sql), params),
  };
}

/** Verifies the audit log of the PostgreSQL database at `url`. */
export async function verifyAuditDatabase(url: string, o: VerifyOptions): Promise<VerifyResult> {
  const db = createPgSession(url, { readers: 1 });
  try {
    await checkReachable(db, url);
    return await db.snapshot(() => verifyAuditLog(pgAuditReader(db), o));
  } finally {
    await db.close();
  }
}
