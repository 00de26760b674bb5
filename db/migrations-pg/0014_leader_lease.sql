-- Several nodes on one database: the leader lease, held by one live node at a time (the one that runs the service's
-- periodic sweeps and signs audit checkpoints), with an epoch that grows at every change of holder, as a shard lease's
-- does (docs/architecture.md#several-nodes). One row, named 'leader'. PostgreSQL only: a SQLite file's one node leads.
CREATE TABLE "leader_lease" (
	"name" text PRIMARY KEY NOT NULL,
	"node_id" text,
	"epoch" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
