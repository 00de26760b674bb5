// The audit log API (Part 1 lists the resource; its endpoints are "not shown": designed here, see README).
import { apiError } from "../domain/errors.ts";
import type { AuditLog, AuditRow } from "../adapters/storage/repos/audit.ts";
import { logIdOf, type AuditTrees, type CheckpointRow } from "../adapters/storage/repos/audit-tree.ts";
import { encodeEntry, verifierKey, type EntryColumns } from "../domain/audit-tree.ts";
import { base64 } from "@scure/base";
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

const b64 = (b: Uint8Array) => base64.encode(b);

/** The key's tree's checkpoint of this size (the latest without one), or 404 AUDIT_CHECKPOINT_NOT_FOUND. */
function checkpointOf(trees: AuditTrees, logId: string, size: number | undefined): CheckpointRow {
  const row = size === undefined ? trees.latest(logId) : trees.checkpointAt(logId, size);
  if (!row) throw apiError("AUDIT_CHECKPOINT_NOT_FOUND", { details: { resource: "AuditCheckpoint", treeSize: size ?? null } });
  return row;
}

export function auditRoutes(kit: ApiKit, audit: AuditLog, cursorKey: Uint8Array, trees: AuditTrees) {
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
      .get("/checkpoints/latest", { summary: "The latest signed checkpoint of the key's environment's audit log (C2SP tlog-checkpoint signed note)", access, tags: ["audit"] }, ({ auth }) =>
        ok(trees.view(checkpointOf(trees, logIdOf(auth.company.id, auth.environment), undefined))),
      )
      .get(
        "/signing-keys",
        { summary: "Every checkpoint signing key's public half, the active one and those rotated away, with this log's verifier key", access, tags: ["audit"] },
        ({ auth }) => {
          const origin = trees.tree(logIdOf(auth.company.id, auth.environment))?.origin ?? null;
          return ok(
            trees.keys().map((k) => ({
              keyId: k.key_id,
              publicKey: k.public_key,
              verifierKey: origin ? verifierKey(origin, base64.decode(k.public_key)) : null,
              createdAt: k.created_at,
              retiredAt: k.retired_at,
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
        ({ auth, query }) => {
          const logId = logIdOf(auth.company.id, auth.environment);
          if (query.from === undefined) throw apiError("INVALID_QUERY", { message: "from is required", details: { issues: [{ path: "from", message: "is required" }] } });
          const to = checkpointOf(trees, logId, query.to);
          if (query.from > to.tree_size)
            throw apiError("INVALID_QUERY", { message: "from must not be larger than to", details: { issues: [{ path: "from", message: `must be at most ${to.tree_size}` }] } });
          const from = checkpointOf(trees, logId, query.from);
          return ok({
            fromSize: from.tree_size,
            toSize: to.tree_size,
            fromRoot: trees.view(from).rootHash,
            toRoot: trees.view(to).rootHash,
            hashes: trees.consistency(logId, from.tree_size, to.tree_size).map(b64),
            from: trees.view(from),
            to: trees.view(to),
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
        ({ auth, params, query }) => {
          const row = audit.get(auth.company.id, auth.environment, params.id);
          if (!row) throw apiError("AUDIT_ENTRY_NOT_FOUND", { details: { resource: "AuditEntry", id: params.id } });
          const logId = logIdOf(auth.company.id, auth.environment);
          const cp = checkpointOf(trees, logId, query.treeSize);
          const leaf = trees.leafOf(row.seq);
          if (!leaf || leaf.leaf_index >= cp.tree_size)
            throw apiError("AUDIT_ENTRY_NOT_IN_CHECKPOINT", { details: { id: params.id, treeSize: cp.tree_size, leafIndex: leaf?.leaf_index ?? null } });
          return ok({
            entryId: row.id,
            leafIndex: leaf.leaf_index,
            treeSize: cp.tree_size,
            leaf: b64(encodeEntry(row as unknown as EntryColumns)),
            leafHash: b64(leaf.leaf_hash),
            hashes: trees.inclusion(logId, leaf.leaf_index, cp.tree_size).map(b64),
            checkpoint: trees.view(cp),
          });
        },
      )
      .get("/:id", { summary: "One audit log entry", access, tags: ["audit"] }, ({ auth, params }) => {
        const row = audit.get(auth.company.id, auth.environment, params.id);
        if (!row) throw apiError("AUDIT_ENTRY_NOT_FOUND", { details: { resource: "AuditEntry", id: params.id } });
        return ok(presentAudit(row));
      }),
  );
}
