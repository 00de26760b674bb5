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

/** The columns an append writes, in the order of `auditValues`. */
export const AUDIT_COLUMNS = "id, company_id, environment, actor_type, member_id, api_key_id, session_id, action, entity_type, entity_id, detail, created_at";

/** The values of a new entry's row (absent actor fields null, absent detail `{}`). */
export function auditValues(id: string, e: AuditEntryInput, now: number): (string | null)[] {
  const { actor } = e;
  return [id, e.companyId, e.environment, actor.type, actor.memberId ?? null, actor.apiKeyId ?? null, actor.sessionId ?? null, e.action, e.entityType, e.entityId, JSON.stringify(e.detail ?? {}), iso(now)];
}

const APPEND = `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES (${AUDIT_COLUMNS.split(", ").map(() => "?").join(", ")})`;

export class AuditLog implements AuditRepository {
  constructor(private readonly s: Storage) {}

  record(e: AuditEntryInput, now: number): Promise<string> {
    return this.s.run(() => this.append(e, now));
  }

  /** The synchronous append, for repositories inside storage that write within their own transaction (storage.tx). */
  append(e: AuditEntryInput, now: number): string {
    const id = newId("aud", now);
    this.s.stmt(APPEND).run(...auditValues(id, e, now));
    return id;
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
    const args: (string | number)[] = [];
    const where = auditWhere(companyId, env, f, beforeSeq, (v) => (args.push(v), "?"));
    args.push(limit);
    return this.s.stmt(`SELECT * FROM audit_log WHERE ${where} ORDER BY seq DESC LIMIT ?`).all(...args) as unknown as AuditRow[];
  }

  count(companyId: string, env: Environment, f: AuditFilter): Promise<number> {
    return this.s.run(() => this.countRows(companyId, env, f));
  }

  private countRows(companyId: string, env: Environment, f: AuditFilter): number {
    const args: (string | number)[] = [];
    const where = auditWhere(companyId, env, f, null, (v) => (args.push(v), "?"));
    return (this.s.stmt(`SELECT count(*) AS n FROM audit_log WHERE ${where}`).get(...args) as { n: number }).n;
  }
}

/** The WHERE clause of an audit filter (and a keyset: seq below `beforeSeq`), each value written through `arg`. */
export function auditWhere(companyId: string, env: Environment, f: AuditFilter, beforeSeq: number | null, arg: (v: string | number) => string): string {
  const where = [`company_id = ${arg(companyId)}`, `environment = ${arg(env)}`];
  if (f.entityType) where.push(`entity_type = ${arg(f.entityType)}`);
  if (f.entityId) where.push(`entity_id = ${arg(f.entityId)}`);
  if (f.action) where.push(`action = ${arg(f.action)}`);
  if (f.memberId) where.push(`member_id = ${arg(f.memberId)}`);
  if (beforeSeq !== null) where.push(`seq < ${arg(beforeSeq)}`);
  return where.join(" AND ");
}
