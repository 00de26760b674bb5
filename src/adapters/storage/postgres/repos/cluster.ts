// Several nodes on one PostgreSQL database (src/ports/cluster.ts): the heartbeat rows of cluster_nodes and the lease
// rows of shard_leases. Every write is one statement (atomic on its own); `fence` runs inside the runtime's group
// commit and locks the rows it checks FOR SHARE, so a takeover (an UPDATE of the same rows) waits for that commit, and
// a commit after a takeover sees the new epoch and is refused. Times come from the caller's clock.
import { DuplicateNodeError, type ClusterStore, type LeaderLease, type Lease, type NodeRecord } from "../../../../ports/cluster.ts";
import type { PgSession } from "../session.ts";

/**
 * Shards ascending, epochs alongside. Every statement locks the rows it writes or fences in shard order (an ordered
 * `FOR UPDATE`/`FOR SHARE`, or an insert fed in order), so two nodes' statements never deadlock on each other.
 */
function arrays(held: Lease[]): [number[], number[]] {
  const sorted = [...held].sort((a, b) => a.shard - b.shard);
  return [sorted.map((l) => l.shard), sorted.map((l) => l.epoch)];
}

type LeaseRow = { shard: number; epoch: number; expires_at: number };
type LeaderRow = { epoch: number; expires_at: number };
const toLeader = (r: LeaderRow | undefined): LeaderLease | null => (r ? { epoch: r.epoch, expiresAt: r.expires_at } : null);
const toLease = (r: LeaseRow): Lease => ({ shard: r.shard, epoch: r.epoch, expiresAt: r.expires_at });

export class PgClusterStore implements ClusterStore {
  constructor(private readonly db: PgSession) {}

  async register(node: { nodeId: string; incarnation: string; address?: string | null }, now: number, ttlMs: number): Promise<void> {
    const taken = await this.db.q<{ node_id: string }>(
      `INSERT INTO cluster_nodes (node_id, incarnation, started_at, heartbeat_at, expires_at, address) VALUES ($1, $2, $3, $3, $4, $5)
       ON CONFLICT (node_id) DO UPDATE SET incarnation = excluded.incarnation, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at,
         expires_at = excluded.expires_at, address = excluded.address
       WHERE cluster_nodes.expires_at <= $3 OR cluster_nodes.incarnation = excluded.incarnation
       RETURNING node_id`,
      [node.nodeId, node.incarnation, now, now + ttlMs, node.address ?? null],
    );
    if (taken.length > 0) return;
    const live = await this.db.one<{ expires_at: number }>("SELECT expires_at FROM cluster_nodes WHERE node_id = $1", [node.nodeId]);
    throw new DuplicateNodeError(node.nodeId, live?.expires_at ?? now);
  }

  async heartbeat(nodeId: string, incarnation: string, now: number, ttlMs: number): Promise<boolean> {
    return (await this.db.run("UPDATE cluster_nodes SET heartbeat_at = $3, expires_at = $4 WHERE node_id = $1 AND incarnation = $2", [nodeId, incarnation, now, now + ttlMs])) > 0;
  }

  async deregister(nodeId: string, incarnation: string): Promise<void> {
    await this.db.q("DELETE FROM cluster_nodes WHERE node_id = $1 AND incarnation = $2", [nodeId, incarnation]);
  }

  async liveNodes(now: number): Promise<NodeRecord[]> {
    const rows = await this.db.read<{ node_id: string; started_at: number; heartbeat_at: number; expires_at: number; address: string | null }>(
      "SELECT node_id, started_at, heartbeat_at, expires_at, address FROM cluster_nodes WHERE expires_at > $1 ORDER BY node_id",
      [now],
    );
    return rows.map((r) => ({ nodeId: r.node_id, startedAt: r.started_at, heartbeatAt: r.heartbeat_at, expiresAt: r.expires_at, address: r.address }));
  }

  async acquire(nodeId: string, shards: number[], now: number, leaseMs: number): Promise<Lease[]> {
    if (shards.length === 0) return [];
    const rows = await this.db.q<LeaseRow>(
      `INSERT INTO shard_leases (shard, node_id, epoch, expires_at) SELECT s, $2::text, 1, $4::bigint FROM unnest($1::int[]) AS s ORDER BY s
       ON CONFLICT (shard) DO UPDATE SET node_id = excluded.node_id, epoch = shard_leases.epoch + 1, expires_at = excluded.expires_at
       WHERE shard_leases.node_id IS NULL OR shard_leases.expires_at <= $3::bigint
       RETURNING shard, epoch, expires_at`,
      [[...shards].sort((a, b) => a - b), nodeId, now, now + leaseMs],
    );
    return rows.map(toLease).sort((a, b) => a.shard - b.shard);
  }

  async renew(nodeId: string, held: Lease[], now: number, leaseMs: number): Promise<Lease[]> {
    if (held.length === 0) return [];
    const [shards, epochs] = arrays(held);
    const rows = await this.db.q<LeaseRow>(
      `WITH mine AS (SELECT l.shard FROM shard_leases l JOIN unnest($2::int[], $3::bigint[]) AS h(shard, epoch) ON l.shard = h.shard AND l.epoch = h.epoch
                     WHERE l.node_id = $1 AND l.expires_at > $5 ORDER BY l.shard FOR UPDATE OF l)
       UPDATE shard_leases l SET expires_at = $4 FROM mine WHERE l.shard = mine.shard
       RETURNING l.shard, l.epoch, l.expires_at`,
      [nodeId, shards, epochs, now + leaseMs, now],
    );
    return rows.map(toLease).sort((a, b) => a.shard - b.shard);
  }

  async release(nodeId: string, held: Lease[]): Promise<void> {
    if (held.length === 0) return;
    const [shards, epochs] = arrays(held);
    await this.db.q(
      `WITH mine AS (SELECT l.shard FROM shard_leases l JOIN unnest($2::int[], $3::bigint[]) AS h(shard, epoch) ON l.shard = h.shard AND l.epoch = h.epoch
                     WHERE l.node_id = $1 ORDER BY l.shard FOR UPDATE OF l)
       UPDATE shard_leases l SET node_id = NULL FROM mine WHERE l.shard = mine.shard`,
      [nodeId, shards, epochs],
    );
  }

  async holders(now: number): Promise<{ shard: number; nodeId: string; epoch: number; expiresAt: number }[]> {
    const rows = await this.db.read<LeaseRow & { node_id: string }>(
      "SELECT shard, node_id, epoch, expires_at FROM shard_leases WHERE node_id IS NOT NULL AND expires_at > $1 ORDER BY shard",
      [now],
    );
    return rows.map((r) => ({ ...toLease(r), nodeId: r.node_id }));
  }

  async claimUnheld(shard: number, now: number): Promise<boolean> {
    await this.db.q("INSERT INTO shard_leases (shard, node_id, epoch, expires_at) VALUES ($1, NULL, 0, 0) ON CONFLICT (shard) DO NOTHING", [shard]);
    const [row] = await this.db.q<{ node_id: string | null; expires_at: number }>("SELECT node_id, expires_at FROM shard_leases WHERE shard = $1 FOR UPDATE", [shard]);
    return row!.node_id === null || row!.expires_at <= now;
  }

  async fence(nodeId: string, held: Lease[], now: number): Promise<Set<number>> {
    if (held.length === 0) return new Set();
    const [shards, epochs] = arrays(held);
    const rows = await this.db.q<{ shard: number }>(
      `SELECT l.shard FROM shard_leases l JOIN unnest($2::int[], $3::bigint[]) AS h(shard, epoch) ON l.shard = h.shard AND l.epoch = h.epoch
       WHERE l.node_id = $1 AND l.expires_at > $4 ORDER BY l.shard FOR SHARE OF l`,
      [nodeId, shards, epochs, now],
    );
    return new Set(rows.map((r) => r.shard));
  }

  // ---- the leader lease: the one row of leader_lease, taken, renewed and released as a shard's lease row is ----

  async acquireLeader(nodeId: string, now: number, leaseMs: number): Promise<LeaderLease | null> {
    return toLeader(
      await this.db.one<LeaderRow>(
        `INSERT INTO leader_lease (name, node_id, epoch, expires_at) VALUES ('leader', $1, 1, $3)
         ON CONFLICT (name) DO UPDATE SET node_id = excluded.node_id, epoch = leader_lease.epoch + 1, expires_at = excluded.expires_at
         WHERE leader_lease.node_id IS NULL OR leader_lease.expires_at <= $2
         RETURNING epoch, expires_at`,
        [nodeId, now, now + leaseMs],
      ),
    );
  }

  async renewLeader(nodeId: string, held: LeaderLease, now: number, leaseMs: number): Promise<LeaderLease | null> {
    return toLeader(
      await this.db.one<LeaderRow>(
        "UPDATE leader_lease SET expires_at = $4 WHERE name = 'leader' AND node_id = $1 AND epoch = $2 AND expires_at > $3 RETURNING epoch, expires_at",
        [nodeId, held.epoch, now, now + leaseMs],
      ),
    );
  }

  async releaseLeader(nodeId: string, held: LeaderLease): Promise<void> {
    await this.db.q("UPDATE leader_lease SET node_id = NULL WHERE name = 'leader' AND node_id = $1 AND epoch = $2", [nodeId, held.epoch]);
  }

  async leader(now: number): Promise<{ nodeId: string; epoch: number; expiresAt: number } | null> {
    const r = await this.db.read<LeaderRow & { node_id: string }>("SELECT node_id, epoch, expires_at FROM leader_lease WHERE name = 'leader' AND node_id IS NOT NULL AND expires_at > $1", [now]);
    return r[0] ? { nodeId: r[0].node_id, epoch: r[0].epoch, expiresAt: r[0].expires_at } : null;
  }
}
