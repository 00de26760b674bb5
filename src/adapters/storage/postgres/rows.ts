// Rows written whole on PostgreSQL: the INSERT of a row given column by column, and the audit entry a repository
// appends inside its caller's unit of work (the twin of the SQLite AuditLog's append: the same row, ../repos/audit.ts's
// auditRow, its `seq` the table's identity).
import type { AuditEntryInput } from "../../../ports/audit.ts";
import { auditRow } from "../repos/audit.ts";
import type { PgParam, PgSession } from "./session.ts";

/** `INSERT INTO table (its columns) VALUES ($1…)`; `table` is always a name written in the code, never input. */
export async function insertRow(db: PgSession, table: string, row: object): Promise<void> {
  const cols = Object.keys(row);
  await db.q(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`, Object.values(row) as PgParam[]);
}

/** Appends an audit entry (in the caller's unit, when there is one): its ID. */
export async function appendAudit(db: PgSession, e: AuditEntryInput, now: number): Promise<string> {
  const row = auditRow(e, now);
  await insertRow(db, "audit_log", row);
  return row.id;
}
