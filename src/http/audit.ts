// The audit log API (Part 1 lists the resource; its endpoints are "not shown": designed here, see README).
import { apiError } from "../domain/errors.ts";
import type { AuditEntry, AuditRepository } from "../ports/audit.ts";
import { logIdOf, type AuditCheckpoint, type AuditTreeRepository } from "../ports/audit-tree.ts";
import { verifierKey } from "../domain/audit-tree.ts";
import { base64 } from "@scure/base";
import { ok, page, type ApiKit } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import { q } from "./query.ts";

const access = { scope: "audit:read", permission: "audit:view", feature: "audit_log" } as const;

export function presentAudit(r: AuditEntry) {
  const a = r.actor;
  return {
    id: r.id,
    action: r.action,
    entityType: r.entityType,
    entityId: r.entityId,
    // `sessionId` only on a signed-in member's entries: a key's entries answer as they always did.
    actor: a.sessionId ? { type: a.type, memberId: a.memberId, apiKeyId: a.apiKeyId, sessionId: a.sessionId } : { type: a.type, memberId: a.memberId, apiKeyId: a.apiKeyId },
    detail: r.detail,
    environment: r.environment,
    createdAt: r.createdAt,
  };
}

const b64 = (b: Uint8Array) => base64.encode(b);

/** The key's tree's checkpoint of this size (the latest without one), or 404 AUDIT_CHECKPOINT_NOT_FOUND. */
async function checkpointOf(trees: AuditTreeRepository, logId: string, size: number | undefined): Promise<AuditCheckpoint> {
  const row = size === undefined ? await trees.latest(logId) : await trees.checkpointAt(logId, size);
  if (!row) throw apiError("AUDIT_CHECKPOINT_NOT_FOUND", { details: { resource: "AuditCheckpoint", treeSize: size ?? null } });
  return row;
}

export function auditRoutes(kit: ApiKit, audit: AuditRepository, cursorKey: Uint8Array, trees: AuditTreeRepository) {
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
        async ({ auth, query }) => {
          const f = { entityType: query.entityType, entityId: query.entityId, action: query.action, memberId: query.memberId };
          const { company, environment } = auth;
          const res = await keysetPageAsync<AuditEntry>({
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
      .get("/checkpoints/latest", { summary: "The latest signed checkpoint of the key's environment's audit log (C2SP tlog-checkpoint signed note)", access, tags: ["audit"] }, async ({ auth }) =>
        ok(await trees.view(await checkpointOf(trees, logIdOf(auth.company.id, auth.environment), undefined))),
      )
      .get(
        "/signing-keys",
        { summary: "Every checkpoint signing key's public half, the active one and those rotated away, with this log's verifier key", access, tags: ["audit"] },
        async ({ auth }) => {
          const origin = (await trees.tree(logIdOf(auth.company.id, auth.environment)))?.origin ?? null;
          return ok(
            (await trees.keys()).map((k) => ({
              keyId: k.keyId,
              publicKey: k.publicKey,
              verifierKey: origin ? verifierKey(origin, base64.decode(k.publicKey)) : null,
              createdAt: k.createdAt,
              retiredAt: k.retiredAt,
            })),
          );
        },
      )
      .get(
        "/consistency-proof",
        {
          summary: "RFC 6962 consistency proof between two signed checkpoints of the audit log (from, to: tree sizes; to defaults to the latest)",
          access,
          tags: ["audit"],
          query: { from: q.count(), to: q.count() },
        },
        async ({ auth, query }) => {
          const logId = logIdOf(auth.company.id, auth.environment);
          if (query.from === undefined) throw apiError("INVALID_QUERY", { message: "from is required", details: { issues: [{ path: "from", message: "is required" }] } });
          const to = await checkpointOf(trees, logId, query.to);
          if (query.from > to.treeSize)
            throw apiError("INVALID_QUERY", { message: "from must not be larger than to", details: { issues: [{ path: "from", message: `must be at most ${to.treeSize}` }] } });
          const from = await checkpointOf(trees, logId, query.from);
          const fromView = await trees.view(from);
          const toView = await trees.view(to);
          return ok({
            fromSize: from.treeSize,
            toSize: to.treeSize,
            fromRoot: fromView.rootHash,
            toRoot: toView.rootHash,
            hashes: (await trees.consistency(logId, from.treeSize, to.treeSize)).map(b64),
            from: fromView,
            to: toView,
          });
        },
      )
      .get(
        "/:id/inclusion-proof",
        {
          summary: "RFC 6962 inclusion proof of one entry against a signed checkpoint (treeSize; the latest by default), with the entry's leaf encoding",
          access,
          tags: ["audit"],
          query: { treeSize: q.count() },
        },
        async ({ auth, params, query }) => {
          const row = await audit.get(auth.company.id, auth.environment, params.id);
          if (!row) throw apiError("AUDIT_ENTRY_NOT_FOUND", { details: { resource: "AuditEntry", id: params.id } });
          const logId = logIdOf(auth.company.id, auth.environment);
          const cp = await checkpointOf(trees, logId, query.treeSize);
          const leaf = await trees.leafOf(row.seq);
          if (!leaf || leaf.leafIndex >= cp.treeSize)
            throw apiError("AUDIT_ENTRY_NOT_IN_CHECKPOINT", { details: { id: params.id, treeSize: cp.treeSize, leafIndex: leaf?.leafIndex ?? null } });
          return ok({
            entryId: row.id,
            leafIndex: leaf.leafIndex,
            treeSize: cp.treeSize,
            leaf: b64(leaf.encoding),
            leafHash: b64(leaf.leafHash),
            hashes: (await trees.inclusion(logId, leaf.leafIndex, cp.treeSize)).map(b64),
            checkpoint: await trees.view(cp),
          });
        },
      )
      .get("/:id", { summary: "One audit log entry", access, tags: ["audit"] }, async ({ auth, params }) => {
        const row = await audit.get(auth.company.id, auth.environment, params.id);
        if (!row) throw apiError("AUDIT_ENTRY_NOT_FOUND", { details: { resource: "AuditEntry", id: params.id } });
        return ok(presentAudit(row));
      }),
  );
}
