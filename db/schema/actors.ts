// The actor runtime's durable tables: mailboxes, persisted state, dead letters.
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";

/** One row per message not yet acknowledged. Acknowledging deletes the row in the handler's transaction. */
export const actorMessages = sqliteTable(
  "actor_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    actor: text("actor").notNull(),
    body: text("body").notNull(),
    dueAt: integer("due_at").notNull(),
    retryAt: integer("retry_at"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    replyTo: text("reply_to"),
    /** Times the handler committed part of its work before finishing (ctx.checkpoint): a replay knows it. */
    checkpoints: integer("checkpoints").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  // No secondary index (migration 0019): the runtime reads messages by id only (`id = ?`, `id > ? ORDER BY id`), so
  // the former (actor, id) and due_at indexes cost every message two index inserts and two deletes for no reader.
);

/** Persisted state of an actor and the last message it applied (replays change nothing twice). */
export const actorState = sqliteTable("actor_state", {
  address: text("address").primaryKey(),
  state: text("state").notNull(),
  lastMessageId: integer("last_message_id").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Messages whose handler kept failing: parked with the error, never silently dropped. */
export const actorDeadLetters = sqliteTable(
  "actor_dead_letters",
  {
    id: integer("id").primaryKey(),
    actor: text("actor").notNull(),
    body: text("body").notNull(),
    attempts: integer("attempts").notNull(),
    lastError: text("last_error").notNull(),
    createdAt: integer("created_at").notNull(),
    diedAt: integer("died_at").notNull(),
    /** The company and environment its message names (null for the runtime's own actors). */
    companyId: text("company_id"),
    environment: text("environment"),
  },
  (t) => [index("actor_dead_letters_actor").on(t.actor), index("actor_dead_letters_tenant").on(t.companyId, t.environment, t.diedAt, t.id)],
);
