// The leader lease of several nodes on one PostgreSQL database, at the engine level: two or three sessions (each its
// own writer connection, as separate processes have) on one database of the test cluster, each with a ClusterNode and,
// where a test needs one, an actor runtime placed and led by it. Clocks are the tests' own: leases lapse when a test
// moves a node's clock, never by waiting. Also here: a due message whose shard moves fires once, on the new holder;
// a node whose ticks cannot reach the database gives up what lapsed and comes back at new epochs.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { openPostgres, PgClusterStore, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ClusterNode } from "../../src/actors/placement.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { SHARDS, type ClusterStore } from "../../src/ports/cluster.ts";
import { StorageUnavailableError } from "../../src/ports/store.ts";
import { startPostgres } from "../support/postgres.ts";
import { freezableProxy } from "../support/postgres-faults.ts";
import { openEngine, PG_IDLE_IN_TRANSACTION_MS } from "../../src/adapters/storage/engine.ts";
import { tempDir } from "../support/tmp.ts";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createPgRepositories } from "../../src/adapters/storage/postgres/index.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { newSigningKey } from "../../src/adapters/crypto/audit-key.ts";
import { startAuditSealer } from "../../src/actors/audit-sealer.ts";
import type { AuditSealing } from "../../src/ports/audit-tree.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(120_000);

const LEASE = 10_000;
const T0 = 1_800_000_000_000;

const sessions: PgSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
});

async function database(): Promise<string> {
  return (await startPostgres()).createDatabase();
}

/**
 * The cluster store of a node whose connection can be cut: while `cut`, every call fails as a lost connection does
 * (the store fault a PostgreSQL session raises), and nothing reaches the database.
 */
function cuttable(store: ClusterStore): { store: ClusterStore; cut: boolean; refused: number; failing: Set<string> } {
  const box = { cut: false, store, refused: 0, failing: new Set<string>() };
  box.store = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (box.cut || box.failing.has(String(prop))) return (box.refused++, Promise.reject(new StorageUnavailableError({ class: "PG_CONNECTION", cause: "connection cut by the test", uncertain: true })));
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return box;
}

interface Handled {
  node: string;
  actor: string;
  n: number;
}

/** One node: its own session, its clock, its placement (which is also its leadership) and its runtime. */
async function node(url: string, nodeId: string, handled: Handled[] = [], options: { idleInTransactionTimeoutMs?: number } = {}) {
  const session = await openPostgres(url, { readers: 1, ...options });
  sessions.push(session);
  const time = { now: T0 };
  const clock = () => time.now;
  const link = cuttable(new PgClusterStore(session));
  const placement = new ClusterNode(link.store, { nodeId, clock, leaseMs: LEASE, tickMs: 0 });
  const leading: boolean[] = [];
  placement.onLeaderChange((leads) => leading.push(leads));
  const kind: ActorKind<{ seen: number[] }, { n: number }> = {
    kind: "log",
    initialState: () => ({ seen: [] }),
    handle(ctx, msg) {
      handled.push({ node: nodeId, actor: ctx.address, n: msg.n });
      ctx.state.seen.push(msg.n);
    },
  };
  const runtime = new ActorRuntime(session, { clock, placement, leader: placement, pollMs: 3_600_000, maxAttempts: 3 });
  runtime.register(kind);
  return { session, time, placement, runtime, nodeId, link, leading };
}

type Node = Awaited<ReturnType<typeof node>>;

const leaderRow = (n: Node) => n.session.one<{ node_id: string | null; epoch: number }>("SELECT node_id, epoch FROM leader_lease WHERE name = 'leader'");

async function seen(session: PgSession, actor: string): Promise<number[]> {
  const row = await session.one<{ state: string }>("SELECT state FROM actor_state WHERE address = $1", [actor]);
  return row ? (JSON.parse(row.state) as { seen: number[] }).seen : [];
}

/** Waits for `cond` (a hang guard bounds it, not a timing assertion). */
async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await Bun.sleep(20);
}

test("one leader among three nodes: the first to tick takes the lease, renews it on its ticks, and the others never take it while it lives", async () => {
  const url = await database();
  const nodes = [await node(url, "node-a"), await node(url, "node-b"), await node(url, "node-c")];
  for (const n of nodes) await n.placement.join();
  const [a] = nodes as [Node, Node, Node];
  expect(nodes.map((n) => n.placement.leads())).toEqual([true, false, false]);
  expect(await leaderRow(a)).toEqual({ node_id: "node-a", epoch: 1 });
  expect(await new PgClusterStore(a.session).leader(T0)).toEqual({ nodeId: "node-a", epoch: 1, expiresAt: T0 + LEASE });
  // Many ticks, each half a lease later: a renews (same epoch), b and c find it taken every time.
  for (let round = 0; round < 6; round++) {
    for (const n of nodes) n.time.now += LEASE / 2;
    for (const n of [...nodes].reverse()) await n.placement.tick();
    expect(nodes.map((n) => n.placement.leads())).toEqual([true, false, false]);
  }
  expect(await leaderRow(a)).toEqual({ node_id: "node-a", epoch: 1 });
  expect(a.placement.leaderEpoch()).toBe(1);
  expect(nodes.map((n) => n.leading)).toEqual([[true], [], []]);
});

test("the leader dies: after its lease lapses one survivor takes it at the next epoch; a clean leave hands it over at once", async () => {
  const url = await database();
  const nodes = [await node(url, "node-a"), await node(url, "node-b"), await node(url, "node-c")];
  for (const n of nodes) await n.placement.join();
  const [a, b, c] = nodes as [Node, Node, Node];
  expect(a.placement.leads()).toBe(true);
  // a dies (no more ticks). Before its lease time nothing moves.
  for (const n of [b, c]) n.time.now += LEASE - 1;
  for (const n of [b, c]) await n.placement.tick();
  expect([b.placement.leads(), c.placement.leads()]).toEqual([false, false]);
  expect(await leaderRow(a)).toEqual({ node_id: "node-a", epoch: 1 });
  // Once it lapsed, the first survivor to tick takes it, at epoch 2; the other finds it taken.
  for (const n of [b, c]) n.time.now += 2;
  for (const n of [c, b]) await n.placement.tick();
  expect([b.placement.leads(), c.placement.leads()]).toEqual([false, true]);
  expect(await leaderRow(a)).toEqual({ node_id: "node-c", epoch: 2 });
  expect(c.leading).toEqual([true]);

  // c leaves cleanly: the lease is free at once (no lease time), b takes it at its next tick, at epoch 3.
  await c.placement.leave();
  expect(c.leading).toEqual([true, false]);
  expect(await leaderRow(a)).toEqual({ node_id: null, epoch: 2 });
  await b.placement.tick();
  expect(b.placement.leads()).toBe(true);
  expect(await leaderRow(a)).toEqual({ node_id: "node-b", epoch: 3 });
});

test("nodes racing for a free leader lease (three, then two, at once on their own connections): exactly one takes it each time, one epoch up", async () => {
  const url = await database();
  const nodes = [await node(url, "node-a"), await node(url, "node-b"), await node(url, "node-c"), await node(url, "node-d")];
  const [a, ...rest] = nodes as [Node, Node, Node, Node];
  for (const n of nodes) await n.placement.join();
  expect(a.placement.leads()).toBe(true);
  for (let round = 1; round <= 3; round++) {
    // The leader dies (stops ticking); the others tick at once, on their own connections, after its lease.
    const leader = nodes.find((n) => n.placement.leads())!;
    const others = rest.includes(leader) ? nodes.filter((n) => n !== leader && n !== a) : rest;
    for (const n of nodes) n.time.now += LEASE + 1;
    await Promise.all(others.map((n) => n.placement.tick()));
    expect(others.filter((n) => n.placement.leads()).length).toBe(1);
    expect((await leaderRow(a))!.epoch).toBe(round + 1);
  }
});

test("a paused leader that comes back does not lead: not at once (its clock says its lease lapsed), nor after its tick (another holds it)", async () => {
  const url = await database();
  const a = await node(url, "node-a");
  const b = await node(url, "node-b");
  await a.placement.join();
  await b.placement.join();
  expect(a.placement.leads()).toBe(true);
  // a is paused (no ticks) longer than the lease; b takes over.
  b.time.now += LEASE + 1;
  await b.placement.tick();
  expect(b.placement.leads()).toBe(true);
  // a wakes up: time went on for it too, so before any tick it already knows it does not lead.
  a.time.now += LEASE + 1;
  expect(a.placement.leads()).toBe(false);
  expect(a.placement.leaderEpoch()).toBeUndefined();
  // Its tick: the renewal is refused (the row is b's, at epoch 2) and b's lease is current, so a stays a follower.
  await a.placement.tick();
  expect(a.placement.leads()).toBe(false);
  expect(a.leading).toEqual([true, false]);
  expect(await leaderRow(a)).toEqual({ node_id: "node-b", epoch: 2 });

  // A leader whose clock lags (it believes its lease current) finds out at its next tick: the renewal names its epoch.
  const c = await node(url, "node-c");
  c.time.now = b.time.now;
  await c.placement.join();
  b.time.now += LEASE + 1; // b paused; c takes over; b's clock does not move on (it lags)
  c.time.now += LEASE + 1;
  await c.placement.tick();
  expect(c.placement.leads()).toBe(true);
  b.time.now -= LEASE + 1;
  expect(b.placement.leads()).toBe(true); // its belief, until its tick
  await b.placement.tick();
  expect(b.placement.leads()).toBe(false);
  expect(await leaderRow(a)).toEqual({ node_id: "node-c", epoch: 3 });
});

test("the sweeps run only on the leader, and move with the lease: the old leader's stop at once when its lease lapsed", async () => {
  const url = await database();
  const a = await node(url, "node-a");
  const b = await node(url, "node-b");
  const runs = { "node-a": 0, "node-b": 0 };
  for (const n of [a, b]) n.runtime.sweep("count", "* * * * * *", () => void runs[n.nodeId as keyof typeof runs]++);
  await a.placement.join();
  await b.placement.join();
  for (const n of [a, b]) await n.runtime.start();
  await until(() => runs["node-a"] >= 2);
  expect(runs["node-b"]).toBe(0);
  // a's lease lapses (it stopped ticking, time went on for both); b takes over. a's sweeps pass from now on.
  for (const n of [a, b]) n.time.now += LEASE + 1;
  await b.placement.tick();
  expect(b.placement.leads()).toBe(true);
  const aRuns = runs["node-a"];
  await until(() => runs["node-b"] >= 2);
  expect(runs["node-a"]).toBe(aRuns);
  for (const n of [a, b]) await n.runtime.stop();
});

test("a due message whose shard moves fires once, on the new holder; the old holder's timer finds its lease lapsed and runs nothing", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const a = await node(url, "node-a", handled);
  const b = await node(url, "node-b", handled);
  await a.placement.join();
  await b.placement.join();
  for (const n of [a, b]) await n.runtime.start();
  const actor = "log:due";
  expect(a.placement.owns(actor)).toBe(true);
  await a.runtime.tell(actor, { n: 1 }, { dueAt: T0 + 300 });
  expect(a.runtime.stats().timers).toBe(1); // a holds it, waiting for its due time

  // a stops ticking; time goes on past the lease and the due time. a's timer fires: its shard lapsed by its own
  // clock, so nothing runs there (and nothing is refused: nothing was tried); the message stays in the mailbox.
  a.time.now += LEASE + 1;
  await until(() => a.runtime.stats().timers === 0);
  await a.runtime.idle();
  expect(handled).toEqual([]);
  expect(a.runtime.stats().fenced).toBe(0);
  expect(await a.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages")).toEqual({ n: 1 });
  // b takes every shard, reads the mailbox afresh and finds the message due: it fires there, once.
  b.time.now += LEASE + 1;
  await b.placement.tick();
  expect(b.placement.owns(actor)).toBe(true);
  await until(async () => (await seen(b.session, actor)).length > 0);
  await b.runtime.idle();
  expect(handled).toEqual([{ node: "node-b", actor, n: 1 }]);
  expect(await seen(b.session, actor)).toEqual([1]);
  expect(a.runtime.stats().fenced + b.runtime.stats().fenced).toBe(0);
  expect(await b.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages")).toEqual({ n: 0 });

  // A clean handover: a due message of b's moves to a node that takes b's shards at once, and fires there once.
  await b.runtime.tell(actor, { n: 2 }, { dueAt: b.time.now + 300 });
  const c = await node(url, "node-c", handled);
  c.time.now = b.time.now;
  await b.runtime.stop();
  await b.placement.leave();
  await c.placement.join();
  await c.runtime.start();
  expect(c.placement.owns(actor)).toBe(true);
  c.time.now += 300;
  await until(async () => (await seen(c.session, actor)).length > 1);
  await c.runtime.idle();
  expect(handled).toEqual([{ node: "node-b", actor, n: 1 }, { node: "node-c", actor, n: 2 }]);
  expect(await seen(c.session, actor)).toEqual([1, 2]);
  for (const n of [a, c]) await n.runtime.stop();
});

test("a node whose ticks cannot reach the database gives up what lapsed (its runtime forgets those actors, it stops leading); back, it takes the leases at new epochs and handles what arrived meanwhile", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const a = await node(url, "node-a", handled);
  const other = await node(url, "node-x", handled); // a process that only inserts (any node takes any request)
  await a.placement.join();
  const moves: { gained: number; lost: number }[] = [];
  a.placement.onChange((gained, lost) => moves.push({ gained: gained.length, lost: lost.length }));
  await a.runtime.start();
  const before = new Map(a.placement.leases().map((l) => [l.shard, l.epoch]));
  expect(before.size).toBe(SHARDS);
  expect(a.placement.leads()).toBe(true);

  a.link.cut = true;
  // Within the lease time a failed tick gives nothing up (the leases are still a's, and the database may be back soon).
  a.time.now += LEASE / 2;
  expect(await a.placement.tick().then(() => null, (e: unknown) => e)).toBeInstanceOf(StorageUnavailableError);
  expect(a.placement.leases().length).toBe(SHARDS);
  expect(a.placement.leads()).toBe(true);
  // Past it, the failed tick drops what lapsed and says so: the runtime is told, the node no longer leads.
  a.time.now += LEASE / 2 + 1;
  expect(await a.placement.tick().then(() => null, (e: unknown) => e)).toBeInstanceOf(StorageUnavailableError);
  expect(a.placement.leases()).toEqual([]);
  expect(a.placement.leads()).toBe(false);
  expect(moves).toEqual([{ gained: 0, lost: SHARDS }]);
  expect(a.leading).toEqual([true, false]);

  await other.runtime.tell("log:meanwhile", { n: 5 });
  a.link.cut = false;
  await a.placement.tick();
  // Back: nothing of the old epochs is renewed; every shard and the leader lease are taken anew, one epoch up.
  expect(a.placement.leases().length).toBe(SHARDS);
  for (const l of a.placement.leases()) expect(l.epoch).toBe(before.get(l.shard)! + 1);
  expect(a.placement.leaderEpoch()).toBe(2);
  expect(moves).toEqual([{ gained: 0, lost: SHARDS }, { gained: SHARDS, lost: 0 }]);
  await a.runtime.noticeInserts();
  await a.runtime.idle();
  expect(handled).toEqual([{ node: "node-a", actor: "log:meanwhile", n: 5 }]);
  expect(a.runtime.stats().fenced).toBe(0);
  await a.runtime.stop();
});

test("a node stopped while it cannot reach the database, its membership lapsed, leaves without waiting on the database; a live one releases everything", async () => {
  const url = await database();
  const a = await node(url, "node-a");
  const b = await node(url, "node-b");
  await a.placement.join();
  a.link.cut = true;
  a.time.now += LEASE + 1;
  expect(a.placement.current()).toBe(false);
  const refused = a.link.refused;
  await a.placement.leave();
  expect(a.link.refused).toBe(refused); // not one statement tried
  expect(a.placement.leases()).toEqual([]);
  expect(a.placement.leads()).toBe(false);
  // b, alive, leaves cleanly: its leases, the leader lease and its row are free at once.
  b.time.now = a.time.now;
  await b.placement.join();
  expect(b.placement.leads()).toBe(true);
  await b.placement.leave();
  expect(await b.session.one<{ n: number }>("SELECT count(*)::int AS n FROM shard_leases WHERE node_id IS NOT NULL")).toEqual({ n: 0 });
  expect(await leaderRow(b)).toEqual({ node_id: null, epoch: 2 });
  expect(await b.session.one<{ n: number }>("SELECT count(*)::int AS n FROM cluster_nodes WHERE node_id = 'node-b'")).toEqual({ n: 0 });
});

test("audit checkpoints: two nodes signing at once sign each tree size once; with the leader lease only the leader's sealer turns", async () => {
  const url = await database();
  const key = newSigningKey();
  const a = await node(url, "node-a");
  const b = await node(url, "node-b");
  const repos = (n: Node) => createPgRepositories(n.session, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock: () => n.time.now });
  const [ra, rb] = [repos(a), repos(b)];
  await ra.auditTrees.adoptKey(key, T0, "the test");
  let i = 0;
  // Entries committed together (a sealer in between never sees half of them).
  const record = (n: number) =>
    a.session.transaction(async () => {
      for (let k = 0; k < n; k++, i++)
        await ra.audit.record({ companyId: "cmp_default", environment: "live", actor: { type: "system" }, action: "pg.recorded", entityType: "Thing", entityId: `thing_${i}`, detail: { i } }, T0 + i);
    });
  const checkpoints = async () => (await a.session.read<{ tree_size: number }>("SELECT tree_size FROM audit_checkpoints ORDER BY tree_size")).map((r) => r.tree_size);

  // Without a leader (what the store alone guarantees): both sign at once; the seal lock and the key (log, size,
  // signing key) let one checkpoint of the size through.
  await record(3);
  const both = await Promise.all([ra.auditTrees.checkpoint(key, T0 + 100), rb.auditTrees.checkpoint(key, T0 + 100)]);
  expect(both.map((r) => r.checkpoints.length).sort()).toEqual([0, 1]);
  expect(await checkpoints()).toEqual([3]);

  // With it: each node's sealer turns only while its node leads, so checkpoints come at one signer's interval.
  await a.placement.join();
  await b.placement.join();
  const turns = { "node-a": 0, "node-b": 0 };
  const sealers = [ra, rb].map((r, k) => {
    const n = [a, b][k]!;
    const trees: AuditSealing = {
      seal: () => (turns[n.nodeId as keyof typeof turns]++, r.auditTrees.seal()),
      checkpoint: (signer, now) => r.auditTrees.checkpoint(signer, now),
    };
    return startAuditSealer({ trees, key: async () => key, clock: Date.now, log: () => {}, checkpointMs: 50, sealMs: 20, announce: () => {}, leads: () => n.placement.leads() });
  });
  await record(2);
  await until(async () => (await checkpoints()).includes(5));
  expect(turns["node-b"]).toBe(0);
  // The lease moves to b (a stopped ticking; time went on for both): b's sealer signs what comes next, a's stops.
  for (const n of [a, b]) n.time.now += LEASE + 1;
  await b.placement.tick();
  const aTurns = turns["node-a"];
  await record(2);
  await until(async () => (await checkpoints()).includes(7));
  expect(turns["node-b"]).toBeGreaterThan(0);
  expect(turns["node-a"]).toBe(aTurns);
  for (const s of sealers) s.stop();
  expect(await checkpoints()).toEqual([3, 5, 7]);
});

test("a node partitioned in the middle of a commit (its transaction left open, holding lease rows and the mailbox's numbering lock) holds the others up only until PostgreSQL ends its idle transaction; the server's sessions carry that bound", async () => {
  const url = await database();
  const proxy = await freezableProxy(url);
  const b = await node(proxy.url, "node-b", [], { idleInTransactionTimeoutMs: 1_000 });
  const a = await node(url, "node-a");
  await b.placement.join();
  await a.placement.join();
  expect(b.placement.leads()).toBe(true);
  // b is in the middle of a commit: the fence has share-locked its lease rows, a message insert holds the numbering
  // lock. Then its link goes silent: the transaction stays open on the server, its locks held.
  let inside!: () => void;
  const entered = new Promise<void>((r) => (inside = r));
  void b.session
    .transaction(async () => {
      await b.placement.fence(b.placement.leases().map((l) => l.shard));
      await b.runtime.mailbox.insert("log:partitioned", "{}", T0, null, T0);
      inside();
      await new Promise(() => {}); // the rest of the commit never comes
    })
    .catch(() => {});
  await entered;
  proxy.freeze();
  // a inserts a message (the numbering lock), and after b's lease time takes its shards (the rows b share-locked) and
  // the leader lease: both wait for b's transaction, which the server ends once it has been idle for its bound.
  a.time.now += LEASE + 1;
  await a.runtime.tell("log:elsewhere", { n: 1 });
  await a.placement.tick();
  expect(a.placement.leases().length).toBe(SHARDS);
  expect(a.placement.owns("log:partitioned")).toBe(true);
  expect(a.placement.leads()).toBe(true);
  // b's half-done commit left nothing: its message was rolled back with it.
  expect(await a.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages WHERE actor = 'log:partitioned'")).toEqual({ n: 0 });
  proxy.close();

  // The server's and the CLI's sessions (openEngine) carry the bound.
  const engine = await openEngine({ dbPath: join(tempDir(), "unused.db"), databaseUrl: url });
  try {
    expect(await (engine.store as unknown as PgSession).one<{ v: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS v")).toEqual({ v: `${PG_IDLE_IN_TRANSACTION_MS / 1000}s` });
  } finally {
    await engine.close();
  }
});

test("shards whose renewal was refused are given up at once, even when the rest of the round then fails", async () => {
  const url = await database();
  const a = await node(url, "node-a");
  const b = await node(url, "node-b");
  await a.placement.join();
  await b.placement.join();
  const moves: { gained: number; lost: number }[] = [];
  a.placement.onChange((gained, lost) => moves.push({ gained: gained.length, lost: lost.length }));
  // a paused past its lease (its clock lags); b took every shard. a's next round: the heartbeat takes, the renewal is
  // refused, and then the database fails it.
  b.time.now += LEASE + 1;
  await b.placement.tick();
  a.time.now += 1;
  a.link.failing.add("renewLeader");
  expect(await a.placement.tick().then(() => null, (e: unknown) => e)).toBeInstanceOf(StorageUnavailableError);
  expect(a.placement.leases()).toEqual([]);
  expect(moves).toEqual([{ gained: 0, lost: SHARDS }]);
});
