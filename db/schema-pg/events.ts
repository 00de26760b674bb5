// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Domain events in commit order; the webhook dispatcher and the console read them by seq.
import { pgTable, text, index, bigint } from "drizzle-orm/pg-core";
import { bytea } from "./types.ts";

export const events = pgTable(
  "events",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    // Not indexed: events are read by seq (webhook dispatcher, event stream, console), never by ID; the ID is a
    // monotonic ULID of this process, so a unique index would only cost every event an index write (issue 19).
    id: text("id").notNull(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    type: text("type").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    // bytea, not text: the JSON text as UTF-8 bytes, or its compact form (src/adapters/storage/event-data.ts).
    data: bytea("data").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("events_company_env_seq").on(t.companyId, t.environment, t.seq)],
);
