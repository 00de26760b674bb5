// Audit log rows: appended inside the transaction of the change they record; read newest first by seq.
import { newId, iso } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { RowOf } from "./row.ts";
import type { auditLog as auditLogTable } from "../../../../db/schema/audit.ts";
import type { AuditActor, AuditEntry, AuditEntryInput, AuditFilter, AuditRepository } from "../../../ports/audit.ts";

export type { AuditActor, AuditEntry, AuditEntryInput, AuditFilter, AuditRepository };

export type AuditRow = RowOf<typeof auditLogTable>;

export const toAuditEntry = (r: AuditRow): AuditEntry => ({
  id: r.id,
  seq: r.seq,
  companyId: r.company_id,
  environment: r.environment as Environment,
  actor: { type: r.actor_type as AuditActor["type"], memberId: r.member_id, apiKeyId: r.api_key_id, sessionId: r.session_id },
  action: r.action,
  entityType: r.entity_type,
  entityId: r.entity_id,
  detail: JSON.parse(r.detail) as Record<string, unknown>,
  createdAt: r.created_at,
});

/** The columns an audit entry is written to, in the order of `auditRowValues` (both engines). */
export const AUDIT_COLUMNS = "id, company_id, environment, actor_type, member_id, api_key_id, session_id, action, entity_type, entity_id, detail, created_at";

/** A new audit entry's ID and column values (AUDIT_COLUMNS' order), at `now`. */
export function auditRowValues(e: AuditEntryInput, now: number): { id: string; values: (string | null)[] } {
  const id = newId("aud", now);
  return {
    id,
    values: [
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
    ],
  };
}

export class AuditLog implements AuditRepository {
  constructor(private readonly s: Storage) {}

  record(e: AuditEntryInput, now: number): Promise<string> {
    return this.s.run(() => this.append(e, now));
  }

  /** The synchronous append, for repositories inside storage that write within their own transaction (storage.tx). */
  append(e: AuditEntryInput, now: number): string {
    const row = auditRowValues(e, now);
    this.s.stmt(`INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...row.values);
    return row.id;
  }

  get(companyId: string, env: Environment, id: string): Promise<AuditEntry | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM audit_log WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) as AuditRow | null | undefined;
      return r ? toAuditEntry(r) : undefined;
    });
  }

  /** Keyset page, newest first: rows with seq below `beforeSeq`. */
  page(companyId: string, env: Environment, f: AuditFilter, beforeSeq: number | null, limit: number): Promise<AuditEntry[]> {
    return this.s.run(() => this.pageRows(companyId, env, f, beforeSeq, limit).map(toAuditEntry));
  }

  private pageRows(companyId: string, env: Environment, f: AuditFilter, beforeSeq: number | null, limit: number): AuditRow[] {
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

  count(companyId: string, env: Environment, f: AuditFilter): Promise<number> {
    return this.s.run(() => this.countRows(companyId, env, f));
  }

  private countRows(companyId: string, env: Environment, f: AuditFilter): number {
    const where = ["company_id = ?", "environment = ?"];
    const args: string[] = [companyId, env];
    if (f.entityType) (where.push("entity_type = ?"), args.push(f.entityType));
    if (f.entityId) (where.push("entity_id = ?"), args.push(f.entityId));
    if (f.action) (where.push("action = ?"), args.push(f.action));
    if (f.memberId) (where.push("member_id = ?"), args.push(f.memberId));
    return (this.s.stmt(`SELECT count(*) AS n FROM audit_log WHERE ${where.join(" AND ")}`).get(...args) as { n: number }).n;
  }
}
