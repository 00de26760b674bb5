// Where an actor runs when several nodes share one database (docs/architecture.md#several-nodes): this node's
// membership (a heartbeat row), the shards it holds (lease rows with epochs), and the fence the runtime's group commit
// asks inside its transaction. The store is the cluster port (src/ports/cluster.ts); the clock is given, so tests move
// time and call `tick()` themselves.
import { randomBytes } from "node:crypto";
import { SHARDS, shardOf, type ClusterStore, type LeaderLease, type Lease } from "../ports/cluster.ts";

/** What the runtime needs to know about placement: which actors are its own, and the fence of a commit. */
export interface Placement {
  /** The node's ID (what its asks' tokens name, so that another node's answer finds it). */
  readonly nodeId?: string;
  /** Whether no other node was live at the last tick (a node alone: every insert it is hinted of is its own or the CLI's). */
  alone?(): boolean;
  shardOf(address: string): number;
  /** Whether this node holds the actor's shard now (as far as it knows: the fence has the last word). */
  owns(address: string): boolean;
  /** The epoch of the shard's lease this node holds now, or undefined (a turn remembers it; its commit must match). */
  epoch(shard: number): number | undefined;
  /**
   * Inside the commit's unit of work: the shards among `shards` this node may NOT commit for (no lease, lapsed, or
   * taken over). The rows of the others stay locked until the unit ends.
   */
  fence(shards: number[]): Promise<Set<number>>;
  /** Told when shards are gained or lost (after the change). */
  onChange(fn: (gained: number[], lost: number[]) => void): () => void;
  /**
   * Tells the placement whether a turn is under way on a shard's actors (the runtime's answer), so that a shard given
   * back to another node is handed over once its turns have committed, not in the middle of one.
   */
  watchTurns?(busy: (shard: number) => boolean): void;
}

/**
 * Whether this node is the service's leader now (as far as it knows): the one that runs the periodic sweeps and the
 * other work that must run once across the nodes. The runtime takes it as `RuntimeOptions.leader`.
 */
export interface Leadership {
  leads(): boolean;
}

export interface ClusterNodeOptions {
  /** CARAVAN_NODE_ID; generated (`node-<hex>`) when absent. */
  nodeId?: string;
  clock?: () => number;
  /** How long a lease and a heartbeat last without renewal (default 15 s): a dead node's shards move after it. */
  leaseMs?: number;
  /** How often the node renews and rebalances (default a third of the lease); 0: only when `tick()` is called. */
  tickMs?: number;
  /** Where the node answers (host:port), recorded in its row. */
  address?: string | null;
  shards?: number;
  log?: (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;
}

/** A node ID an operator may set: letters, digits, `.`, `_`, `-`, at most 64. */
export function validNodeId(id: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(id);
}

/**
 * The node's settings from the environment: CARAVAN_NODE_ID (checked; absent: generated at construction) and
 * CARAVAN_LEASE_MS (the lease and heartbeat time, at least 1000, default 15000). Throws naming the variable.
 */
export function clusterNodeOptionsFromEnv(env: Record<string, string | undefined>): Pick<ClusterNodeOptions, "nodeId" | "leaseMs"> {
  const nodeId = env.CARAVAN_NODE_ID?.trim() || undefined;
  if (nodeId !== undefined && !validNodeId(nodeId)) throw new Error(`CARAVAN_NODE_ID must be 1 to 64 letters, digits, ".", "_" or "-", got "${nodeId}"`);
  const raw = env.CARAVAN_LEASE_MS?.trim();
  const leaseMs = raw ? Number(raw) : undefined;
  if (leaseMs !== undefined && (!Number.isInteger(leaseMs) || leaseMs < 1000)) throw new Error(`CARAVAN_LEASE_MS must be a whole number of milliseconds, at least 1000, got "${raw}"`);
  return { nodeId, leaseMs };
}

/**
 * One node of the service. `join()` registers it (refusing a node ID another live process holds) and takes its share
 * of the shards; every tick renews its heartbeat and leases, takes over shards whose lease lapsed (a dead node's) up to
 * its fair share (the shards over the live nodes, rounded up), and gives back what exceeds it (so a new node gets its
 * share); it also renews the leader lease when it holds it, or takes it when it is free (its holder left, or died and
 * the lease lapsed). A tick that fails (the database unreachable) drops whatever lapsed meanwhile by this node's clock
 * and tells the listeners, so the node stops handling those actors and stops leading; a lapsed lease is never used
 * again, only taken anew at a new epoch. `leave()` releases everything at once.
 */
export class ClusterNode implements Placement, Leadership {
  readonly nodeId: string;
  readonly incarnation = randomBytes(8).toString("hex");
  readonly shards: number;
  readonly leaseMs: number;
  private readonly tickMs: number;
  private readonly clock: () => number;
  private readonly log: NonNullable<ClusterNodeOptions["log"]>;
  private readonly held = new Map<number, Lease>();
  /**
   * Shards being handed over to another node (the fair share moved), by when the hand-over began: no new turn starts
   * on their actors (`owns` says no), the turns under way commit under the lease, which is then released; at the latest
   * after the lease time (a turn that waits that long is fenced instead).
   */
  private readonly draining = new Map<number, number>();
  private busy: (shard: number) => boolean = () => false;
  private readonly listeners = new Set<(gained: number[], lost: number[]) => void>();
  /** The leader lease while this node holds it (lapsed by the clock: no longer leading, whatever it says here). */
  private leader: LeaderLease | null = null;
  private readonly leaderListeners = new Set<(leads: boolean) => void>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private ticking: Promise<void> | null = null;
  /** Until when the membership is current (the last heartbeat that took, plus the lease time); 0: not a member. */
  private memberUntil = 0;
  private joined = false;
  /** Commits the fence refused. */
  fenced = 0;
  /** The live nodes (this one included) at the last tick that read them. */
  private live = 1;
  private counted = false;

  constructor(
    private readonly store: ClusterStore,
    o: ClusterNodeOptions = {},
  ) {
    this.nodeId = o.nodeId ?? `node-${randomBytes(6).toString("hex")}`;
    if (!validNodeId(this.nodeId)) throw new Error(`node ID must be 1 to 64 letters, digits, ".", "_" or "-", got "${this.nodeId}"`);
    this.clock = o.clock ?? Date.now;
    this.leaseMs = o.leaseMs ?? 15_000;
    this.tickMs = o.tickMs ?? Math.floor(this.leaseMs / 3);
    this.shards = o.shards ?? SHARDS;
    this.log = o.log ?? (() => {});
    this.address = o.address ?? null;
  }

  private readonly address: string | null;

  /** Registers (DuplicateNodeError when a live node has this ID) and takes a first share of the shards. */
  async join(): Promise<void> {
    const now = this.clock();
    await this.store.register({ nodeId: this.nodeId, incarnation: this.incarnation, address: this.address }, now, this.leaseMs);
    this.memberUntil = now + this.leaseMs;
    this.joined = true;
    await this.tick();
    if (this.tickMs > 0) this.timer = setInterval(() => void this.tick().catch((e) => this.log("warn", "cluster tick failed", { error: String(e) })), this.tickMs);
  }

  /** Whether this node's membership is current (what /healthz answers ready on). */
  current(): boolean {
    return this.joined && this.clock() < this.memberUntil;
  }

  /**
   * How many nodes are live (this one included) as of the last tick, at least 1: what each node's share of a
   * service-wide budget is divided by (src/http/ratelimit.ts). A joining node counts at once for itself and at the
   * others' next tick; a dead one until its heartbeat lapses.
   */
  nodeCount(): number {
    return this.live;
  }

  /** The leases held now, by shard. */
  leases(): Lease[] {
    return [...this.held.values()].sort((a, b) => a.shard - b.shard);
  }

  shardOf(address: string): number {
    return shardOf(address, this.shards);
  }

  alone(): boolean {
    return this.live === 1;
  }

  owns(address: string): boolean {
    const shard = this.shardOf(address);
    return !this.draining.has(shard) && this.epoch(shard) !== undefined;
  }

  watchTurns(busy: (shard: number) => boolean): void {
    this.busy = busy;
  }

  /** The shards being handed over now (their turns under way finish first). */
  handingOver(): number[] {
    return [...this.draining.keys()].sort((a, b) => a - b);
  }

  epoch(shard: number): number | undefined {
    const l = this.held.get(shard);
    return l !== undefined && l.expiresAt > this.clock() ? l.epoch : undefined;
  }

  async fence(shards: number[]): Promise<Set<number>> {
    const now = this.clock();
    const asked = [...new Set(shards)];
    const leases = asked.map((s) => this.held.get(s)).filter((l): l is Lease => l !== undefined && l.expiresAt > now);
    const ok = await this.store.fence(this.nodeId, leases, now);
    const refused = new Set(asked.filter((s) => !ok.has(s)));
    this.fenced += refused.size;
    return refused;
  }

  onChange(fn: (gained: number[], lost: number[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Whether this node holds the leader lease now (as far as it knows: its clock against the lease's expiry). */
  leads(): boolean {
    return this.leader !== null && this.leader.expiresAt > this.clock();
  }

  /** The leader lease's epoch while this node leads, else undefined. */
  leaderEpoch(): number | undefined {
    return this.leads() ? this.leader!.epoch : undefined;
  }

  /** Told when this node becomes the leader (true) or stops being it (false), after the change. */
  onLeaderChange(fn: (leads: boolean) => void): () => void {
    this.leaderListeners.add(fn);
    return () => this.leaderListeners.delete(fn);
  }

  /** One round of heartbeat, renewal and rebalancing (one at a time: a tick during one joins it). */
  tick(): Promise<void> {
    this.ticking ??= this.round()
      .catch((e: unknown) => {
        this.lapsed();
        throw e;
      })
      .finally(() => (this.ticking = null));
    return this.ticking;
  }

  /**
   * After a failed round (the store unreachable): what lapsed by this node's clock is given up here, since it cannot
   * be renewed from here (and the rows cannot be released either): its actors leave the runtime, and leading stops.
   */
  private lapsed(): void {
    const now = this.clock();
    const lost = this.leases().filter((l) => l.expiresAt <= now);
    for (const l of lost) this.forgetLease(l.shard);
    if (lost.length) this.change([], lost.map((l) => l.shard));
    if (this.leader && this.leader.expiresAt <= now) this.setLeader(null);
  }

  private setLeader(lease: LeaderLease | null): void {
    const was = this.leader !== null;
    this.leader = lease;
    if (was === (lease !== null)) return;
    this.log("info", lease ? "this node leads" : "this node no longer leads", { nodeId: this.nodeId, ...(lease ? { epoch: lease.epoch } : {}) });
    for (const fn of this.leaderListeners) fn(lease !== null);
  }

  /** Renews the leader lease when this node holds it, else takes it when it is free. */
  private async lead(now: number): Promise<void> {
    if (this.leader) {
      const renewed = await this.store.renewLeader(this.nodeId, this.leader, now, this.leaseMs);
      if (renewed) return void (this.leader = renewed);
      this.setLeader(null); // lapsed (and maybe taken): never renewed, only taken again at a new epoch
    }
    this.setLeader(await this.store.acquireLeader(this.nodeId, now, this.leaseMs));
  }

  private async round(): Promise<void> {
    if (!this.joined) return;
    const now = this.clock();
    if (!(await this.store.heartbeat(this.nodeId, this.incarnation, now, this.leaseMs))) {
      // Our row lapsed and is gone or someone else's: we are not a member, and hold nothing.
      this.log("error", "cluster membership lost: this node's heartbeat lapsed", { nodeId: this.nodeId });
      this.memberUntil = 0;
      this.change([], [...this.held.keys()]);
      this.held.clear();
      this.draining.clear();
      this.setLeader(null);
      return;
    }
    this.memberUntil = now + this.leaseMs;
    const renewed = await this.store.renew(this.nodeId, this.leases(), now, this.leaseMs);
    const kept = new Set(renewed.map((l) => l.shard));
    const lost = [...this.held.keys()].filter((s) => !kept.has(s));
    // Renewed, at the same epoch, after this node's clock had passed the old expiry (the round read `now` before its
    // statements ran late): meanwhile `owns` answered false and the runtime passed the shard's new messages over, so
    // the shard counts as gained again and its mailbox is read afresh (the several-nodes proof found such messages
    // stranded on their holder).
    const after = this.clock();
    const lapsedHere = renewed.filter((l) => (this.held.get(l.shard)?.expiresAt ?? Infinity) <= after).map((l) => l.shard);
    for (const s of lost) this.forgetLease(s);
    for (const l of renewed) this.held.set(l.shard, l);
    // Told at once (a later statement of this round may fail): the runtime lets go of these actors now.
    this.change([], lost);
    await this.lead(now);
    const live = Math.max(1, (await this.store.liveNodes(now)).length);
    if (live !== this.live || !this.counted) this.log("info", "live nodes", { nodeId: this.nodeId, nodes: live });
    this.live = live;
    this.counted = true;
    const target = Math.ceil(this.shards / live);
    let gained: number[] = [];
    let given: number[] = [];
    const keeping = this.held.size - this.draining.size;
    if (keeping < target && this.draining.size > 0) {
      // The share grew again (a node left) while shards were being handed over: they stay here.
      gained = this.handingOver().slice(0, target - keeping);
      for (const s of gained) this.draining.delete(s);
    } else if (keeping < target) {
      const taken = new Set((await this.store.holders(now)).map((h) => h.shard));
      const free = [];
      for (let s = 0; s < this.shards; s++) if (!taken.has(s) && !this.held.has(s)) free.push(s);
      const got = await this.store.acquire(this.nodeId, free.slice(0, target - keeping), now, this.leaseMs);
      for (const l of got) this.held.set(l.shard, l);
      gained = got.map((l) => l.shard);
    } else if (keeping > target) {
      // More than the share (a node joined): these are handed over, each once its turns under way have committed.
      given = this.leases()
        .filter((l) => !this.draining.has(l.shard))
        .slice(target)
        .map((l) => l.shard);
      for (const s of given) this.draining.set(s, now);
    }
    this.change([...lapsedHere, ...gained], given);
    await this.handOver(now);
  }

  /** Releases the shards being handed over whose turns have all committed (or that waited the lease time). */
  private async handOver(now: number): Promise<void> {
    const ready = this.handingOver().filter((s) => !this.busy(s) || now - this.draining.get(s)! >= this.leaseMs);
    if (ready.length === 0) return;
    const leases = ready.map((s) => this.held.get(s)).filter((l): l is Lease => l !== undefined);
    await this.store.release(this.nodeId, leases);
    for (const s of ready) this.forgetLease(s);
    this.log("info", "shards handed over", { nodeId: this.nodeId, shards: ready.length, held: this.held.size });
  }

  private forgetLease(shard: number): void {
    this.held.delete(shard);
    this.draining.delete(shard);
  }

  private change(gained: number[], lost: number[]): void {
    if (gained.length === 0 && lost.length === 0) return;
    this.log("info", "shards moved", { nodeId: this.nodeId, gained: gained.length, lost: lost.length, held: this.held.size });
    for (const fn of this.listeners) fn(gained, lost);
  }

  /**
   * Releases every lease and the node's row (a clean shutdown: its shards and its ID are free at once); a node whose
   * membership already lapsed only forgets them.
   */
  async leave(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.ticking) await this.ticking.catch(() => {});
    if (!this.joined) return;
    const current = this.current();
    this.joined = false;
    const held = this.leases();
    const leader = this.leader;
    this.held.clear();
    this.draining.clear();
    this.change([], held.map((l) => l.shard));
    this.setLeader(null);
    this.memberUntil = 0;
    // A node whose membership lapsed (it lost the database) holds nothing that counts any more: nothing to release,
    // and the statements would only wait on a database it cannot reach.
    if (!current) return;
    if (leader) await this.store.releaseLeader(this.nodeId, leader);
    await this.store.release(this.nodeId, held);
    await this.store.deregister(this.nodeId, this.incarnation);
  }
}
