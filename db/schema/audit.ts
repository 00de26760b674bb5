// The append-only audit log: who did what to which record, written in the change's own transaction.
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";

export const auditLog = sqliteTable(
  "audit_log",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
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
