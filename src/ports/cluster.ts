// Several nodes on one database: the membership of running nodes (a heartbeat row each) and the shard leases that put
// every actor in one place (docs/architecture.md#several-nodes). Times are milliseconds since epoch and always given
// by the caller (its clock), never read from the database server. The PostgreSQL engine implements it with rows that
// every node sees; SQLite's implementation is the single node (storage's single-node.ts): one process per file,
// holding every shard, whose fence never refuses.

/** The number of shards actor addresses are hashed into. Fixed: changing it would move actors between shards. */
export const SHARDS = 64;

/** A lease held: the shard, the epoch the holder's commits must present, and when it lapses unless renewed. */
export interface Lease {
  shard: number;
  epoch: number;
  expiresAt: number;
}

/**
 * The leader lease: one per database, held by one live node at a time (the node that runs the service's periodic
 * sweeps). Its epoch grows by one at every change of holder, as a shard lease's does.
 */
export interface LeaderLease {
  epoch: number;
  expiresAt: number;
}

/** A node another process registered under this ID is still alive (its heartbeat has not lapsed). */
export class DuplicateNodeError extends Error {
  constructor(
    readonly nodeId: string,
    readonly expiresAt: number,
  ) {
    super(`node ${nodeId} is already running on this database (its heartbeat is current until ${new Date(expiresAt).toISOString()}); give this node another CARAVAN_NODE_ID, or stop the other one`);
    this.name = "DuplicateNodeError";
  }
}

/** A commit of a shard's actors by a node that does not hold the shard's lease (lapsed, or taken over): refused. */
export class ShardFencedError extends Error {
  constructor(readonly shard: number) {
    super(`this node no longer holds shard ${shard}: the commit was refused`);
    this.name = "ShardFencedError";
  }
}

/** A running node as the registry lists it. */
export interface NodeRecord {
  nodeId: string;
  startedAt: number;
  heartbeatAt: number;
  expiresAt: number;
  address: string | null;
}

export interface ClusterStore {
  /**
   * Registers the node (`incarnation`: random per start) with a heartbeat current until `now + ttlMs`. A row of a node
   * whose heartbeat lapsed is taken over; a live one refuses with DuplicateNodeError.
   */
  register(node: { nodeId: string; incarnation: string; address?: string | null }, now: number, ttlMs: number): Promise<void>;
  /** Moves the heartbeat on; false when the row is no longer this incarnation's (it lapsed and was taken, or removed). */
  heartbeat(nodeId: string, incarnation: string, now: number, ttlMs: number): Promise<boolean>;
  /** Removes this incarnation's row (a clean shutdown: the ID is free at once). */
  deregister(nodeId: string, incarnation: string): Promise<void>;
  /** Nodes whose heartbeat is current at `now`, by ID. */
  liveNodes(now: number): Promise<NodeRecord[]>;
  /**
   * Takes each of `shards` that is free (never held, released, or its lease lapsed at `now`) for `nodeId` until
   * `now + leaseMs`, with its epoch one above the last; answers the leases taken (shards held by a live lease are left).
   */
  acquire(nodeId: string, shards: number[], now: number, leaseMs: number): Promise<Lease[]>;
  /** Extends the node's leases that are still current at `now` and of the epoch it holds; answers those extended. */
  renew(nodeId: string, held: Lease[], now: number, leaseMs: number): Promise<Lease[]>;
  /** Gives the shards up (a clean shutdown, or handing one to a newer node): another node may take them at once. */
  release(nodeId: string, held: Lease[]): Promise<void>;
  /** Every shard's holder whose lease is current at `now` (shards nobody holds are absent). */
  holders(now: number): Promise<{ shard: number; nodeId: string; epoch: number; expiresAt: number }[]>;
  /**
   * The fence, inside the caller's unit of work: which of `held` are still the node's, at their epoch and current at
   * `now`. The rows stay locked (shared) until that unit ends, so no takeover commits in between: a unit that commits
   * after this check committed under the lease.
   */
  fence(nodeId: string, held: Lease[], now: number): Promise<Set<number>>;
  /**
   * Takes the leader lease for `nodeId` until `now + leaseMs` when it is free (never held, released, or lapsed at
   * `now`), its epoch one above the last; null when another node's lease is current.
   */
  acquireLeader(nodeId: string, now: number, leaseMs: number): Promise<LeaderLease | null>;
  /** Extends the leader lease while it is still the node's, at `held`'s epoch and current at `now`; else null. */
  renewLeader(nodeId: string, held: LeaderLease, now: number, leaseMs: number): Promise<LeaderLease | null>;
  /** Gives the leader lease up (a clean shutdown): another node may take it at once. */
  releaseLeader(nodeId: string, held: LeaderLease): Promise<void>;
  /** The leader whose lease is current at `now`, or null. */
  leader(now: number): Promise<{ nodeId: string; epoch: number; expiresAt: number } | null>;
  /**
   * Inside the caller's unit of work, for a process that is no node (the CLI handling a command itself): locks the
   * shard's lease row (made, unheld, if the shard was never held) and answers whether no node holds it at `now`. Until
   * the unit ends no node can take the shard (taking it updates that row), so a turn committed in that unit cannot
   * race a node that starts meanwhile; that node reads the actor afresh when it takes the shard.
   */
  claimUnheld(shard: number, now: number): Promise<boolean>;
}

/** The shard of an actor address: FNV-1a (32 bit) of its UTF-8 bytes, modulo `shards`. */
const utf8 = new TextEncoder();

export function shardOf(address: string, shards = SHARDS): number {
  let h = 0x811c9dc5;
  const bytes = utf8.encode(address);
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** What a wake-up is about: new mailbox rows, new events, replies to a node's asks (payload: that node's ID). */
export type WakeTopic = "mailbox" | "events" | "replies";

/**
 * Wake-up hints across processes on one database (PostgreSQL's LISTEN/NOTIFY; SQLite has none: one process). A hint
 * arrives after a commit that wrote on the topic, whichever process made it (this one included). It is only a hint:
 * a listener that was not subscribed misses it, so work is always also found by polling; after such a gap every
 * listener is called once with `null` (look now: something may have been missed).
 */
export interface Wakeups {
  on(topic: WakeTopic, fn: (payload: string | null) => void): () => void;
  /** Whether hints can arrive now (false while the listener's connection is being replaced). */
  readonly listening: boolean;
}
