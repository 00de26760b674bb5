-- Hand-written: the open live event streams of every node (docs/events.md#several-nodes), one row each, so that the
-- caps of open streams (per API key, per company and environment, per company) hold for the service as a whole. A row
-- counts while the membership of the node that opened it (cluster_nodes, same node ID and incarnation) is current: the
-- next open of the company removes the rows of a node that left, died (its heartbeat lapsed) or restarted under the
-- same ID. PostgreSQL only: a SQLite file's one process counts its streams in memory.
CREATE TABLE "event_streams" (
	"id" text PRIMARY KEY NOT NULL,
	"node_id" text NOT NULL,
	"incarnation" text NOT NULL,
	"key_id" text NOT NULL,
	"company_id" text NOT NULL,
	"environment" text NOT NULL,
	"opened_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "event_streams_company_idx" ON "event_streams" USING btree ("company_id");
