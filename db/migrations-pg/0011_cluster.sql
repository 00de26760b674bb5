-- Several nodes on one database: a heartbeat row per running node, and a lease row per shard of the actors, whose
-- epoch every commit of the shard's actors checks in its own transaction (docs/architecture.md#several-nodes).
-- PostgreSQL only: a SQLite file is one node holding every shard.
CREATE TABLE "cluster_nodes" (
	"node_id" text PRIMARY KEY NOT NULL,
	"incarnation" text NOT NULL,
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"address" text
);
--> statement-breakpoint
CREATE TABLE "shard_leases" (
	"shard" integer PRIMARY KEY NOT NULL,
	"node_id" text,
	"epoch" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
