// Audit log rows on PostgreSQL: the twin of ../../repos/audit.ts (same port, same answers; the row, the filter and
// the mapper are SQLite's). Appended inside the transaction of the change they record; read newest first by seq.
//
// One difference SQLite does not have: a sequence hands out `seq` at insert, not at commit, so two processes writing
// at once could commit a smaller seq after a larger one, and the sealer (./audit-tree.ts), which takes the entries
// after the last sealed seq, would pass the late one by. Each append therefore takes a transaction-level advisory
// lock (AUDIT_APPEND_LOCK) before its seq is drawn, held to its commit: transactions that write audit entries commit
// in seq order, on PostgreSQL as on SQLite. Inside one process the single writer connection serializes them anyway.
import { newId } from "../../../../domain/ids.ts";
import type { Environment } from "../../../../domain/types.ts";
import { AUDIT_COLUMNS, auditValues, auditWhere, toAuditEntry, type AuditRow } from "../../repos/audit.ts";
import type { AuditEntry, AuditEntryInput, AuditFilter, AuditRepository } from "../../../../ports/audit.ts";
import type { PgParam, PgSession } from "../session.ts";

/** The advisory lock key audit appends hold to their commit ("AUD" 1; the migrations take "CARA"). */
export const AUDIT_APPEND_LOCK = 0x41554401;

// The lock is drawn in the statement's source row, so it is held before the row (and its seq) is made; outside a
// transaction the statement is its own and the lock ends with it.
const APPEND = `INSERT INTO audit_log (${AUDIT_COLUMNS})
  SELECT ${AUDIT_COLUMNS.split(", ").map((_, i) => `$${i + 1}`).join(", ")} FROM (SELECT pg_advisory_xact_lock(${AUDIT_APPEND_LOCK})) AS serialized`;

export class PgAuditLog implements AuditRepository {
  constructor(private readonly db: PgSession) {}

  async record(e: AuditEntryInput, now: number): Promise<string> {
    const id = newId("aud", now);
    await this.db.q(APPEND, auditValues(id, e, now));
    return id;
  }

  async get(companyId: string, env: Environment, id: string): Promise<AuditEntry | undefined> {
    const [r] = await this.db.read<AuditRow>("SELECT * FROM audit_log WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
    return r ? toAuditEntry(r) : undefined;
  }

  /** Keyset page, newest first: rows with seq below `beforeSeq`. */
  async page(companyId: string, env: Environment, f: AuditFilter, beforeSeq: number | null, limit: number): Promise<AuditEntry[]> {
    const args: PgParam[] = [];
    const where = auditWhere(companyId, env, f, beforeSeq, (v) => (args.push(v), `$${args.length}`));
    args.push(limit);
    return (await this.db.read<AuditRow>(`SELECT * FROM audit_log WHERE ${where} ORDER BY seq DESC LIMIT $${args.length}`, args)).map(toAuditEntry);
  }

  async count(companyId: string, env: Environment, f: AuditFilter): Promise<number> {
    const args: PgParam[] = [];
    const where = auditWhere(companyId, env, f, null, (v) => (args.push(v), `$${args.length}`));
    const [r] = await this.db.read<{ n: number }>(`SELECT count(*) AS n FROM audit_log WHERE ${where}`, args);
    return r!.n;
  }
}
