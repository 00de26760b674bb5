// Rows written whole on PostgreSQL: the INSERT of a row given column by column, and the audit entry a repository
// appends inside its caller's unit of work (the audit log's own append, with its lock: ./repos/audit.ts).
import type { AuditEntryInput } from "../../../ports/audit.ts";
import { PgAuditLog } from "./repos/audit.ts";
import type { PgParam, PgSession } from "./session.ts";

/** `INSERT INTO table (its columns) VALUES ($1…)`; `table` is always a name written in the code, never input. */
export async function insertRow(db: PgSession, table: string, row: object): Promise<void> {
  const cols = Object.keys(row);
  await db.q(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`, Object.values(row) as PgParam[]);
}

/** Appends an audit entry (in the caller's unit, when there is one): its ID. */
export function appendAudit(db: PgSession, e: AuditEntryInput, now: number): Promise<string> {
  return new PgAuditLog(db).record(e, now);
}
