// The audit log API (Part 1 lists the resource; its endpoints are "not shown": designed here, see README).
import { apiError } from "../domain/errors.ts";
import type { AuditLog, AuditRow } from "../adapters/storage/repos/audit.ts";
import { ok, page, type ApiKit } from "./kit.ts";
import { keysetPage } from "./paging.ts";
import { q } from "./query.ts";

const access = { scope: "audit:read", permission: "audit:view", feature: "audit_log" } as const;

export function presentAudit(r: AuditRow) {
  return {
    id: r.id,
    action: r.action,
    entityType: r.entity_type,
    entityId: r.entity_id,
    // `sessionId` only on a signed-in member's entries: a key's entries answer as they always did.
    actor: r.session_id ? { type: r.actor_type, memberId: r.member_id, apiKeyId: r.api_key_id, sessionId: r.session_id } : { type: r.actor_type, memberId: r.member_id, apiKeyId: r.api_key_id },
    detail: JSON.parse(r.detail),
    environment: r.environment,
    createdAt: r.created_at,
  };
}

export function auditRoutes(kit: ApiKit, audit: AuditLog, cursorKey: Uint8Array) {
  return kit.group("/api/v2/audit-log", (r) =>
    r
      .get(
        "/",
        {
          summary: "List audit log entries of the key's environment, newest first",
          access,
          tags: ["audit"],
          query: { entityType: q.string(100), entityId: q.string(100), action: q.string(100), memberId: q.string(100), limit: q.limit(200), cursor: q.cursor() },
        },
        ({ auth, query }) => {
          const f = { entityType: query.entityType, entityId: query.entityId, action: query.action, memberId: query.memberId };
          const { company, environment } = auth;
          const res = keysetPage<AuditRow>({
            key: cursorKey,
            scope: auth,
            list: `audit|${JSON.stringify(f)}`,
            cursor: query.cursor,
            limit: query.limit,
            fetch: (after, n) => audit.page(company.id, environment, f, after ? Number(after[0]) : null, n),
            position: (row) => [row.seq],
            total: () => audit.count(company.id, environment, f),
          });
          return page(res.rows.map(presentAudit), res.meta);
        },
      )
      .get("/:id", { summary: "One audit log entry", access, tags: ["audit"] }, ({ auth, params }) => {
        const row = audit.get(auth.company.id, auth.environment, params.id);
        if (!row) throw apiError("AUDIT_ENTRY_NOT_FOUND", { details: { resource: "AuditEntry", id: params.id } });
        return ok(presentAudit(row));
      }),
  );
}
