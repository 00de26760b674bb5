// The cluster port (src/ports/cluster.ts) on SQLite: one process serves a SQLite file, so there is one node, and it
// holds every shard from the start, at epoch 1, for ever; its fence never refuses. The server on SQLite does not
// give its runtime a placement at all (nothing to check); this is the port's trivial answer, for code that asks.
import { DuplicateNodeError, type ClusterStore, type LeaderLease, type Lease, type NodeRecord } from "../../ports/cluster.ts";

/** The latest time a Date can hold: the single node's leases and heartbeat never lapse. */
const FOREVER = 8_640_000_000_000_000;

export class SingleNodeCluster implements ClusterStore {
  private node: (NodeRecord & { incarnation: string }) | null = null;

  async register(node: { nodeId: string; incarnation: string; address?: string | null }, now: number): Promise<void> {
    if (this.node && this.node.incarnation !== node.incarnation) throw new DuplicateNodeError(this.node.nodeId, FOREVER);
    this.node = { nodeId: node.nodeId, incarnation: node.incarnation, startedAt: now, heartbeatAt: now, expiresAt: FOREVER, address: node.address ?? null };
  }

  async heartbeat(nodeId: string, incarnation: string, now: number): Promise<boolean> {
    if (this.node?.nodeId !== nodeId || this.node.incarnation !== incarnation) return false;
    this.node.heartbeatAt = now;
    return true;
  }

  async deregister(nodeId: string, incarnation: string): Promise<void> {
    if (this.node?.nodeId === nodeId && this.node.incarnation === incarnation) this.node = null;
  }

  async liveNodes(): Promise<NodeRecord[]> {
    if (!this.node) return [];
    const { incarnation: _, ...n } = this.node;
    return [n];
  }

  async acquire(nodeId: string, shards: number[]): Promise<Lease[]> {
    return this.node?.nodeId === nodeId ? [...shards].sort((a, b) => a - b).map((shard) => ({ shard, epoch: 1, expiresAt: FOREVER })) : [];
  }

  async renew(nodeId: string, held: Lease[]): Promise<Lease[]> {
    return this.node?.nodeId === nodeId ? held.map((l) => ({ ...l, expiresAt: FOREVER })) : [];
  }

  async release(): Promise<void> {}

  async holders(): Promise<{ shard: number; nodeId: string; epoch: number; expiresAt: number }[]> {
    return [];
  }

  async fence(_nodeId: string, held: Lease[]): Promise<Set<number>> {
    return new Set(held.map((l) => l.shard));
  }

  /** The single node always leads: the lease is its own, at epoch 1, for ever. */
  async acquireLeader(nodeId: string): Promise<LeaderLease | null> {
    return this.node?.nodeId === nodeId ? { epoch: 1, expiresAt: FOREVER } : null;
  }

  async renewLeader(nodeId: string, held: LeaderLease): Promise<LeaderLease | null> {
    return this.node?.nodeId === nodeId ? { ...held, expiresAt: FOREVER } : null;
  }

  async releaseLeader(): Promise<void> {}

  async leader(_now: number): Promise<{ nodeId: string; epoch: number; expiresAt: number } | null> {
    return this.node ? { nodeId: this.node.nodeId, epoch: 1, expiresAt: FOREVER } : null;
  }

  /** No node registered in this process: nothing holds the shard (another process never shares this store). */
  async claimUnheld(): Promise<boolean> {
    return this.node === null;
  }
}
