// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). The actor runtime's durable tables: mailboxes, persisted state, dead letters.
import { pgTable, text, integer, index, bigint } from "drizzle-orm/pg-core";

/** One row per message not yet acknowledged. Acknowledging deletes the row in the handler's transaction. */
export const actorMessages = pgTable(
  "actor_messages",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    actor: text("actor").notNull(),
    body: text("body").notNull(),
    dueAt: bigint("due_at", { mode: "number" }).notNull(),
    retryAt: bigint("retry_at", { mode: "number" }),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    replyTo: text("reply_to"),
    /** Times the handler committed part of its work before finishing (ctx.checkpoint): a replay knows it. */
    checkpoints: integer("checkpoints").notNull().default(0),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  // No secondary index (migration 0019): the runtime reads messages by id only (`id = ?`, `id > ? ORDER BY id`), so
  // the former (actor, id) and due_at indexes cost every message two index inserts and two deletes for no reader.
);

/** Persisted state of an actor and the last message it applied (replays change nothing twice). */
export const actorState = pgTable("actor_state", {
  address: text("address").primaryKey(),
  state: text("state").notNull(),
  lastMessageId: bigint("last_message_id", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/** Messages whose handler kept failing: parked with the error, never silently dropped. */
export const actorDeadLetters = pgTable(
  "actor_dead_letters",
  {
    id: bigint("id", { mode: "number" }).primaryKey(),
    actor: text("actor").notNull(),
    body: text("body").notNull(),
    attempts: integer("attempts").notNull(),
    lastError: text("last_error").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    diedAt: bigint("died_at", { mode: "number" }).notNull(),
    /** The company and environment its message names (null for the runtime's own actors). */
    companyId: text("company_id"),
    environment: text("environment"),
  },
  (t) => [index("actor_dead_letters_actor").on(t.actor), index("actor_dead_letters_tenant").on(t.companyId, t.environment, t.diedAt, t.id)],
);
