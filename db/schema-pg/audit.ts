// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). The append-only audit log: who did what to which record, written in the change's own transaction.
import { pgTable, text, integer, index, primaryKey, uniqueIndex, bigint } from "drizzle-orm/pg-core";
import { bytea } from "./types.ts";

export const auditLog = pgTable(
  "audit_log",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    id: text("id").notNull().unique(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** `member` (through an API key or the CLI on a member's behalf), `system` (CLI, the service itself), `provider` (callbacks). */
    actorType: text("actor_type", { enum: ["member", "system", "provider"] }).notNull(),
    memberId: text("member_id"),
    apiKeyId: text("api_key_id"),
    /** The console session an officer acted through (null for keys, the CLI and the service). */
    sessionId: text("session_id"),
    action: text("action").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    /** Small JSON detail without personal data. */
    detail: text("detail").notNull().default("{}"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("audit_log_company_env_seq").on(t.companyId, t.environment, t.seq),
    index("audit_log_member").on(t.companyId, t.environment, t.memberId, t.seq),
    index("audit_log_entity").on(t.companyId, t.environment, t.entityType, t.entityId, t.seq),
  ],
);

// The audit log as Merkle trees, one per company and environment (migration 0022; docs/architecture.md).

/** One tree: its checkpoint origin and how many leaves it has. `log_id` is `<company_id>/<environment>`. */
export const auditTrees = pgTable("audit_trees", {
  logId: text("log_id").primaryKey(),
  companyId: text("company_id").notNull(),
  environment: text("environment", { enum: ["test", "live"] }).notNull(),
  origin: text("origin").notNull(),
  size: bigint("size", { mode: "number" }).notNull().default(0),
});

/** Leaf `leaf_index` of a tree is the entry `entry_seq`; its hash is SHA-256(0x00 || canonical encoding). Append-only. */
export const auditLeaves = pgTable(
  "audit_leaves",
  {
    logId: text("log_id").notNull(),
    leafIndex: bigint("leaf_index", { mode: "number" }).notNull(),
    entrySeq: bigint("entry_seq", { mode: "number" }).notNull(),
    leafHash: bytea("leaf_hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.logId, t.leafIndex] }), uniqueIndex("audit_leaves_entry").on(t.entrySeq)],
);

/** The hash of every complete perfect subtree of 16 leaves or more (level 4 and up; level 1 holds two leaves). Append-only. */
export const auditTreeNodes = pgTable(
  "audit_tree_nodes",
  {
    logId: text("log_id").notNull(),
    level: integer("level").notNull(),
    idx: bigint("idx", { mode: "number" }).notNull(),
    hash: bytea("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.logId, t.level, t.idx] })],
);

/** Signed checkpoints: the C2SP signed note as issued, one per tree size and signing key (a rotation signs the size again). Append-only. */
export const auditCheckpoints = pgTable(
  "audit_checkpoints",
  {
    logId: text("log_id").notNull(),
    treeSize: bigint("tree_size", { mode: "number" }).notNull(),
    createdAt: text("created_at").notNull(),
    keyId: text("key_id").notNull(),
    note: text("note").notNull(),
  },
  (t) => [primaryKey({ columns: [t.logId, t.treeSize, t.keyId] })],
);

/** Every checkpoint signing key's public half (base64 of 32 bytes); `retired_at` once rotated away. */
export const auditSigningKeys = pgTable("audit_signing_keys", {
  keyId: text("key_id").primaryKey(),
  publicKey: text("public_key").notNull(),
  createdAt: text("created_at").notNull(),
  retiredAt: text("retired_at"),
});
