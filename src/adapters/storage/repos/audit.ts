// Audit log rows: appended inside the transaction of the change they record; read newest first by seq.
import { newId, iso } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { RowOf } from "./row.ts";
import type { auditLog as auditLogTable } from "../../../../db/schema/audit.ts";
import type { AuditActor, AuditEntryInput } from "../../../ports/audit.ts";

export type { AuditActor, AuditEntryInput };

export type AuditRow = RowOf<typeof auditLogTable>;

export interface AuditFilter {
  entityType?: string;
  entityId?: string;
  action?: string;
  memberId?: string;
}

export class AuditLog {
  constructor(private readonly s: Storage) {}

  /** Call inside the transaction of the change (storage.tx). */
  record(e: AuditEntryInput, now: number): string {
    const id = newId("aud", now);
    this.s
      .stmt(
        "INSERT INTO audit_log (id, company_id, environment, actor_type, member_id, api_key_id, session_id, action, entity_type, entity_id, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        id,
        e.companyId,
        e.environment,
        e.actor.type,
        e.actor.memberId ?? null,
        e.actor.apiKeyId ?? null,
        e.actor.sessionId ?? null,
        e.action,
        e.entityType,
        e.entityId,
        JSON.stringify(e.detail ?? {}),
        iso(now),
      );
    return id;
  }

  get(companyId: string, env: Environment, id: string): AuditRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_log WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ??
      undefined) as AuditRow | undefined;
  }

  /** Keyset page, newest first: rows with seq below `beforeSeq`. */
  page(companyId: string, env: Environment, f: AuditFilter, beforeSeq: number | null, limit: number): AuditRow[] {
    const where = ["company_id = ?", "environment = ?"];
    const args: (string | number)[] = [companyId, env];
    if (f.entityType) (where.push("entity_type = ?"), args.push(f.entityType));
    if (f.entityId) (where.push("entity_id = ?"), args.push(f.entityId));
    if (f.action) (where.push("action = ?"), args.push(f.action));
    if (f.memberId) (where.push("member_id = ?"), args.push(f.memberId));
    if (beforeSeq !== null) (where.push("seq < ?"), args.push(beforeSeq));
    args.push(limit);
    return this.s.stmt(`SELECT * FROM audit_log WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT ?`).all(...args) as unknown as AuditRow[];
  }

  count(companyId: string, env: Environment, f: AuditFilter): number {
    const where = ["company_id = ?", "environment = ?"];
    const args: string[] = [companyId, env];
    if (f.entityType) (where.push("entity_type = ?"), args.push(f.entityType));
    if (f.entityId) (where.push("entity_id = ?"), args.push(f.entityId));
    if (f.action) (where.push("action = ?"), args.push(f.action));
    if (f.memberId) (where.push("member_id = ?"), args.push(f.memberId));
    return (this.s.stmt(`SELECT count(*) AS n FROM audit_log WHERE ${where.join(" AND ")}`).get(...args) as { n: number }).n;
  }
}
