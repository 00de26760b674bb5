// PostgreSQL only (no SQLite twin: a SQLite file has one process, the single node that holds every shard). Several
// Caravan nodes on one database: who is running (a heartbeat row per node) and which node holds which shard of the
// actors (a lease row per shard, with the epoch every commit of the shard checks). docs/architecture.md#several-nodes.
import { pgTable, text, integer, bigint, index } from "drizzle-orm/pg-core";

/** One row per running node. A row whose `expires_at` has passed is a dead node's: another may take its ID. */
export const clusterNodes = pgTable("cluster_nodes", {
  nodeId: text("node_id").primaryKey(),
  /** Random per start: tells a second process started with the same node ID from the one that registered. */
  incarnation: text("incarnation").notNull(),
  startedAt: bigint("started_at", { mode: "number" }).notNull(),
  heartbeatAt: bigint("heartbeat_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  /** Where the node answers (host:port), for operators and forwarding; free text. */
  address: text("address"),
});

/** One row per shard ever held. `epoch` grows by one at every change of holder (or re-acquisition after expiry). */
export const shardLeases = pgTable("shard_leases", {
  shard: integer("shard").primaryKey(),
  /** The holder, or null once released. */
  nodeId: text("node_id"),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
});

/**
 * The leader lease (one row, named `leader`): the node that runs the service's periodic sweeps. `epoch` grows by one
 * at every change of holder, as a shard lease's does.
 */
export const leaderLease = pgTable("leader_lease", {
  name: text("name").primaryKey(),
  /** The holder, or null once released. */
  nodeId: text("node_id"),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
});

/**
 * One row per open live event stream of any node (migration 0015): the caps of open streams count these across the
 * nodes. A row counts while its node's row (same ID and incarnation) is current; a stream that ends deletes its row.
 */
export const eventStreams = pgTable(
  "event_streams",
  {
    id: text("id").primaryKey(),
    nodeId: text("node_id").notNull(),
    incarnation: text("incarnation").notNull(),
    keyId: text("key_id").notNull(),
    companyId: text("company_id").notNull(),
    environment: text("environment").notNull(),
    openedAt: bigint("opened_at", { mode: "number" }).notNull(),
  },
  (t) => [index("event_streams_company_idx").on(t.companyId)],
);
