// Audit log rows on PostgreSQL: the twin of ../../repos/audit.ts (same port, same answers). The insert and the
// filter's conditions are SQLite's, numbered; `seq` is the table's identity column.
import { newId } from "../../../../domain/ids.ts";
import type { Environment } from "../../../../domain/types.ts";
import { AUDIT_INSERT, auditRow, auditWhere, toAuditEntry, type AuditRow } from "../../repos/audit.ts";
import type { AuditEntry, AuditEntryInput, AuditFilter, AuditRepository } from "../../../../ports/audit.ts";
import { numbered } from "../numbered.ts";
import type { PgSession } from "../session.ts";

export class PgAuditLog implements AuditRepository {
  constructor(private readonly db: PgSession) {}

  /** Appends the entry (inside the caller's unit of work when there is one); its ID. */
  async record(e: AuditEntryInput, now: number): Promise<string> {
    const id = newId("aud", now);
    await this.db.q(numbered(AUDIT_INSERT), auditRow(id, e, now));
    return id;
  }

  async get(companyId: string, env: Environment, id: string): Promise<AuditEntry | undefined> {
    const r = await this.db.read<AuditRow>("SELECT * FROM audit_log WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
    return r[0] ? toAuditEntry(r[0]) : undefined;
  }

  /** Keyset page, newest first: rows with seq below `beforeSeq`. */
  async page(companyId: string, env: Environment, f: AuditFilter, beforeSeq: number | null, limit: number): Promise<AuditEntry[]> {
    const { where, args } = auditWhere(companyId, env, f, beforeSeq);
    const rows = await this.db.read<AuditRow>(numbered(`SELECT * FROM audit_log WHERE ${where} ORDER BY seq DESC LIMIT ?`), [...args, limit]);
    return rows.map(toAuditEntry);
  }

  async count(companyId: string, env: Environment, f: AuditFilter): Promise<number> {
    const { where, args } = auditWhere(companyId, env, f, null);
    const [r] = await this.db.read<{ n: number }>(numbered(`SELECT count(*) AS n FROM audit_log WHERE ${where}`), args);
    return r!.n;
  }
}
