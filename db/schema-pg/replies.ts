// PostgreSQL only (no SQLite twin: on SQLite one process holds every actor, and answers never leave memory). Answers to
// asks that crossed nodes, waiting for the asking node (migration 0013, which also adds the NOTIFY trigger).
// docs/architecture.md#several-nodes.
import { pgTable, text, integer, index, bigint } from "drizzle-orm/pg-core";

export const actorReplies = pgTable(
  "actor_replies",
  {
    /** The ask's token (`ask_…@<node>`). */
    token: text("token").primaryKey(),
    /** The asking node. */
    nodeId: text("node_id").notNull(),
    /** The value, or the error's message and fields, as JSON text: sealed. */
    body: text("body").notNull(),
    isError: integer("is_error").notNull().default(0),
    errorClass: text("error_class"),
    errorCode: text("error_code"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("actor_replies_node").on(t.nodeId, t.createdAt), index("actor_replies_created").on(t.createdAt)],
);
