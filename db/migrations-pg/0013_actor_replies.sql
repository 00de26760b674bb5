-- Answers to asks that crossed nodes (docs/architecture.md#several-nodes): the node holding an actor writes the answer
-- to another node's ask here, in the transaction that acknowledges the message; the asking node takes it (reads and
-- deletes it). `body` is sealed (the value, or the error's message and fields: answers carry personal data). A row
-- trigger sends `NOTIFY caravan_replies, '<asking node>'` on commit, the asker's wake-up; it also polls. Rows of askers
-- that are gone are swept once they are older than any ask's time-out. PostgreSQL only: on SQLite answers stay in memory.
CREATE TABLE "actor_replies" (
	"token" text PRIMARY KEY NOT NULL,
	"node_id" text NOT NULL,
	"body" text NOT NULL,
	"is_error" integer DEFAULT 0 NOT NULL,
	"error_class" text,
	"error_code" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "actor_replies_node" ON "actor_replies" USING btree ("node_id","created_at");
--> statement-breakpoint
CREATE INDEX "actor_replies_created" ON "actor_replies" USING btree ("created_at");
--> statement-breakpoint
CREATE FUNCTION caravan_notify_reply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('caravan_replies', NEW.node_id);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "actor_replies_notify" AFTER INSERT ON "actor_replies" FOR EACH ROW EXECUTE FUNCTION caravan_notify_reply();
