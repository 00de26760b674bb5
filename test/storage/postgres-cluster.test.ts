// Several nodes on one PostgreSQL database, at the engine level: two or three sessions (each its own writer
// connection, as separate processes have) on one database of the test cluster, each with a ClusterNode and an actor
// runtime placed by it. Clocks are the tests' own: leases lapse when a test moves a node's clock, never by waiting.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { openPostgres, PgClusterStore, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ClusterNode } from "../../src/actors/placement.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { DuplicateNodeError, SHARDS, ShardFencedError, shardOf } from "../../src/ports/cluster.ts";
import { startPostgres } from "../support/postgres.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(120_000);

const LEASE = 10_000;
const T0 = 1_800_000_000_000;

interface Handled {
  node: string;
  actor: string;
  n: number;
}

/** A gate a handler waits on (a node paused mid-turn). */
function gate(): { wait: Promise<void>; open(): void; reached: Promise<void>; arrive(): void } {
  let open!: () => void;
  let arrive!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (arrive = r));
  return { wait, open, reached, arrive };
}

const sessions: PgSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
});

async function database(): Promise<string> {
  return (await startPostgres()).createDatabase();
}

/** One node: its own session, its clock, its placement and its runtime with the `log` actor kind. */
async function node(url: string, nodeId: string, handled: Handled[], gates: Map<number, ReturnType<typeof gate>> = new Map()) {
  const session = await openPostgres(url, { readers: 1 });
  sessions.push(session);
  const time = { now: T0 };
  const clock = () => time.now;
  const placement = new ClusterNode(new PgClusterStore(session), { nodeId, clock, leaseMs: LEASE, tickMs: 0 });
  const kind: ActorKind<{ seen: number[] }, { n: number }> = {
    kind: "log",
    initialState: () => ({ seen: [] }),
    async handle(ctx, msg) {
      handled.push({ node: nodeId, actor: ctx.address, n: msg.n });
      const g = gates.get(msg.n);
      if (g) {
        g.arrive();
        await g.wait;
      }
      ctx.state.seen.push(msg.n);
    },
  };
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const runtime = new ActorRuntime(session, { clock, placement, pollMs: 3_600_000, maxAttempts: 3, log: (level, msg, fields) => logs.push({ level, msg, fields }) });
  runtime.register(kind);
  return { session, time, placement, runtime, nodeId, logs };
}

type Node = Awaited<ReturnType<typeof node>>;

async function seen(session: PgSession, actor: string): Promise<number[]> {
  const row = await session.one<{ state: string }>("SELECT state FROM actor_state WHERE address = $1", [actor]);
  return row ? (JSON.parse(row.state) as { seen: number[] }).seen : [];
}

/** Both nodes pick up what is in the mailbox and finish it. */
async function settle(...nodes: Node[]): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const n of nodes) await n.runtime.noticeInserts();
    for (const n of nodes) await n.runtime.idle();
  }
}

/** An actor address in a shard the node holds (and, with `not`, one the other does not). */
function actorOf(holder: Node, from = 0): string {
  for (let i = from; ; i++) if (holder.placement.owns(`log:${i}`)) return `log:${i}`;
}

test("two nodes split the shards; every actor's messages are handled by exactly one node, once each, in order", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const a = await node(url, "node-a", handled);
  const b = await node(url, "node-b", handled);
  await a.placement.join();
  expect(a.placement.leases().length).toBe(SHARDS); // alone: every shard
  await b.placement.join();
  expect(b.placement.leases().length).toBe(0); // nothing free yet
  await a.placement.tick(); // two live nodes: a gives back what exceeds its share
  await b.placement.tick(); // and b takes it
  expect(a.placement.leases().length).toBe(SHARDS / 2);
  expect(b.placement.leases().length).toBe(SHARDS / 2);
  const mine = new Set(a.placement.leases().map((l) => l.shard));
  expect(b.placement.leases().some((l) => mine.has(l.shard))).toBe(false);
  await a.runtime.start();
  await b.runtime.start();

  // Requests arrive at either node, alternately: each is a mailbox row that the actor's holder handles.
  const actors = Array.from({ length: 12 }, (_, i) => `log:${i}`);
  for (let n = 0; n < 10; n++) for (const [i, actor] of actors.entries()) await ((n + i) % 2 ? a : b).runtime.tell(actor, { n });
  await settle(a, b);

  for (const actor of actors) {
    const who = new Set(handled.filter((h) => h.actor === actor).map((h) => h.node));
    const holder = a.placement.owns(actor) ? "node-a" : "node-b";
    expect([...who]).toEqual([holder]);
    expect(handled.filter((h) => h.actor === actor).map((h) => h.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await seen(a.session, actor)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  }
  expect(new Set(actors.map((x) => shardOf(x))).size).toBeGreaterThan(1);
  expect(handled.some((h) => h.node === "node-a") && handled.some((h) => h.node === "node-b")).toBe(true);
  expect(a.runtime.stats().fenced + b.runtime.stats().fenced).toBe(0);
  expect(await a.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages")).toEqual({ n: 0 });
  await a.runtime.stop();
  await b.runtime.stop();
});

test("a node whose lease lapsed (its clock moved) cannot commit: refused and counted, and the message stays for the holder", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const gates = new Map([[1, gate()]]);
  const a = await node(url, "node-a", handled, gates);
  await a.placement.join();
  await a.runtime.start();
  const actor = "log:lapse";
  await a.runtime.tell(actor, { n: 1 });
  await a.runtime.noticeInserts();
  await gates.get(1)!.reached; // the turn is under way
  a.time.now += LEASE + 1; // a pause longer than the lease, no renewal meanwhile
  gates.get(1)!.open();
  await a.runtime.idle();

  expect(a.runtime.stats().fenced).toBe(1);
  // The operator's line (docs/operations.md, Running several nodes): a warning naming the shard, with the count.
  expect(a.logs.filter((l) => l.msg.startsWith("actor turn fenced"))).toEqual([
    { level: "warn", msg: "actor turn fenced: its shard is held by another node", fields: { class: "ShardFenced", shard: shardOf(actor), fenced: 1, count: 1, intervalMs: 10_000 } },
  ]);
  expect(await seen(a.session, actor)).toEqual([]); // nothing of the turn committed
  expect(await a.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages WHERE actor = $1", [actor])).toEqual({ n: 1 });
  expect(await a.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_dead_letters")).toEqual({ n: 0 });
  expect(a.runtime.stats().failures).toBe(0); // not the message's fault: no attempt counted

  // Back in touch, the node takes its shards again (a new epoch) and handles the message once.
  await a.placement.tick();
  await settle(a);
  expect(await seen(a.session, actor)).toEqual([1]);
  expect(handled.map((h) => h.n)).toEqual([1, 1]);
  await a.runtime.stop();
});

test("a dead node's shards are taken over after the lease time; the old holder, back with its old epoch, commits nothing, and the new one handles the pending messages once", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const gates = new Map([[1, gate()]]);
  const a = await node(url, "node-a", handled, gates);
  const b = await node(url, "node-b", handled);
  await a.placement.join();
  await b.placement.join();
  await a.runtime.start();
  await b.runtime.start();
  const actor = actorOf(a);
  await a.runtime.tell(actor, { n: 1 }); // a takes it and is paused mid-turn
  await a.runtime.noticeInserts();
  await gates.get(1)!.reached;
  await b.runtime.tell(actor, { n: 2 }); // more arrives meanwhile (at the other node)

  // Before the lease time nothing moves: a's leases are live.
  b.time.now += LEASE - 1;
  await b.placement.tick();
  expect(b.placement.owns(actor)).toBe(false);
  expect(b.placement.leases().length).toBe(0);
  // After it, b (alone alive now) takes every shard, each at a new epoch.
  b.time.now += 2;
  const before = new Map(a.placement.leases().map((l) => [l.shard, l.epoch]));
  await b.placement.tick();
  expect(b.placement.leases().length).toBe(SHARDS);
  for (const l of b.placement.leases()) expect(l.epoch).toBe(before.get(l.shard)! + 1);
  await settle(b);
  expect(handled.filter((h) => h.node === "node-b").map((h) => h.n)).toEqual([1, 2]);
  expect(await seen(b.session, actor)).toEqual([1, 2]);

  // a wakes up with its clock unmoved: it still thinks it holds the shard, but the fence (the lease row's epoch, in the
  // commit's own transaction) refuses its commit.
  expect(a.placement.owns(actor)).toBe(true);
  gates.get(1)!.open();
  await a.runtime.idle();
  expect(a.runtime.stats().fenced).toBe(1);
  expect(a.placement.fenced).toBe(1);
  expect(await seen(b.session, actor)).toEqual([1, 2]); // exactly once, a's turn left no trace
  expect(await b.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages")).toEqual({ n: 0 });

  // Its next tick tells it the leases are gone (renewal refused), and it holds nothing.
  await a.placement.tick();
  expect(a.placement.leases().length).toBe(0);
  await a.runtime.stop();
  await b.runtime.stop();
});

test("a second node started with a live node's ID is refused and says why; the ID is free once that node left or lapsed", async () => {
  const url = await database();
  const a = await node(url, "node-x", []);
  const twin = await node(url, "node-x", []);
  await a.placement.join();
  const refused = await twin.placement.join().then(
    () => null,
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(DuplicateNodeError);
  expect(String((refused as Error).message)).toContain("node node-x is already running");
  expect(twin.placement.current()).toBe(false);
  expect(twin.placement.leases().length).toBe(0);
  expect(a.placement.current()).toBe(true);
  // The one that runs keeps its row: its heartbeat still takes.
  await a.placement.tick();
  expect(a.placement.current()).toBe(true);
  expect(a.placement.leases().length).toBe(SHARDS);

  // A node whose heartbeat lapsed (it died) leaves its ID free after the lease time.
  twin.time.now += LEASE + 1;
  await twin.placement.join();
  expect(twin.placement.current()).toBe(true);
  expect(twin.placement.leases().length).toBe(SHARDS); // a's leases lapsed too
  // The old one finds out at its next heartbeat: no longer a member, holding nothing.
  await a.placement.tick();
  expect(a.placement.current()).toBe(false);
  expect(a.placement.leases().length).toBe(0);

  // A clean leave frees the ID at once.
  await twin.placement.leave();
  const again = await node(url, "node-x", []);
  again.time.now = twin.time.now;
  await again.placement.join();
  expect(again.placement.current()).toBe(true);
});

test("a node that leaves releases its leases: another takes its shards at once (no lease time) and handles what was pending", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const a = await node(url, "node-a", handled);
  const b = await node(url, "node-b", handled);
  await a.placement.join();
  await b.placement.join();
  await a.placement.tick();
  await b.placement.tick();
  expect(a.placement.leases().length).toBe(SHARDS / 2);
  const actor = actorOf(a);
  await a.runtime.start();
  await b.runtime.start();
  await a.runtime.stop(); // shutting down: the runtime drains first, then the leases go
  await a.placement.leave();
  await b.runtime.tell(actor, { n: 7 }); // arrives while a is gone

  await b.placement.tick(); // clock unmoved: released leases are free now
  expect(b.placement.leases().length).toBe(SHARDS);
  expect(b.placement.owns(actor)).toBe(true);
  await settle(b);
  expect(handled).toEqual([{ node: "node-b", actor, n: 7 }]);
  expect(await seen(b.session, actor)).toEqual([7]);
  await b.runtime.stop();
});

test("a shard handed to a node that joined goes once its turn under way has committed: no turn is cut off, none starts meanwhile", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const gates = new Map([[1, gate()]]);
  const a = await node(url, "node-a", handled, gates);
  const b = await node(url, "node-b", handled);
  await a.placement.join();
  await a.runtime.start();
  // An actor in the half a gives back when b joins (the shards above its share).
  let actor = "";
  for (let i = 0; !actor; i++) if (shardOf(`log:${i}`) >= SHARDS / 2) actor = `log:${i}`;
  const shard = shardOf(actor);
  await a.runtime.tell(actor, { n: 1 });
  await a.runtime.noticeInserts();
  await gates.get(1)!.reached; // a's turn is under way (a provider call, say)
  await a.runtime.tell(actor, { n: 2 }); // queued behind it

  await b.placement.join();
  await a.placement.tick(); // two nodes: a hands over its extra shards, but not the one with a turn under way
  expect(a.placement.leases().length).toBe(SHARDS / 2 + 1);
  expect(a.placement.handingOver()).toEqual([shard]);
  expect(a.placement.owns(actor)).toBe(false); // no new turn starts here
  expect(a.placement.epoch(shard)).toBeDefined(); // but the one under way still commits under the lease
  await b.placement.tick();
  expect(b.placement.leases().length).toBe(SHARDS / 2 - 1);
  expect(b.placement.owns(actor)).toBe(false);

  gates.get(1)!.open();
  await a.runtime.idle();
  expect(a.runtime.stats().fenced).toBe(0); // the turn committed: nothing refused, nothing to redo
  expect(await seen(a.session, actor)).toEqual([1]);
  await a.placement.tick(); // no turn under way any more: released
  expect(a.placement.leases().length).toBe(SHARDS / 2);
  expect(a.placement.handingOver()).toEqual([]);
  await b.placement.tick();
  expect(b.placement.owns(actor)).toBe(true);
  await b.runtime.start();
  await settle(a, b);
  expect(handled.filter((h) => h.actor === actor)).toEqual([
    { node: "node-a", actor, n: 1 },
    { node: "node-b", actor, n: 2 },
  ]);
  expect(await seen(b.session, actor)).toEqual([1, 2]);
  expect(a.runtime.stats().fenced + b.runtime.stats().fenced).toBe(0);
  await a.runtime.stop();
  await b.runtime.stop();
});

test("an ask whose shard lapsed mid-turn is refused with ShardFencedError; the message stays durable for the holder", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const gates = new Map([[3, gate()]]);
  const a = await node(url, "node-a", handled, gates);
  await a.placement.join();
  await a.runtime.start();
  const asked = a.runtime.ask("log:ask", { n: 3 }, { timeoutMs: 60_000 }).then(
    () => null,
    (e: unknown) => e,
  );
  await gates.get(3)!.reached;
  a.time.now += LEASE + 1;
  gates.get(3)!.open();
  expect(await asked).toBeInstanceOf(ShardFencedError);
  await a.runtime.idle();
  expect(a.runtime.stats().fenced).toBeGreaterThan(0);
  expect(await seen(a.session, "log:ask")).toEqual([]);
  expect(await a.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages WHERE actor = 'log:ask'")).toEqual({ n: 1 });
  await a.placement.tick(); // the shard again, at a new epoch: the message is handled, once
  await settle(a);
  expect(await seen(a.session, "log:ask")).toEqual([3]);
  await a.runtime.stop();
});

test("three nodes under load, one partitioned mid-stream: every message is committed exactly once, in each sender's order", async () => {
  const url = await database();
  const handled: Handled[] = [];
  const nodes = [await node(url, "node-a", handled), await node(url, "node-b", handled), await node(url, "node-c", handled)];
  const [a, b, c] = nodes as [Node, Node, Node];
  for (const n of nodes) await n.placement.join();
  for (let round = 0; round < 2; round++) for (const n of nodes) await n.placement.tick();
  expect(nodes.map((n) => n.placement.leases().length).reduce((x, y) => x + y)).toBe(SHARDS);
  // Shares of at most ceil(64 / 3) = 22: 22, 22 and what is left (20).
  expect(nodes.map((n) => n.placement.leases().length).sort()).toEqual([20, 22, 22]);
  for (const n of nodes) await n.runtime.start();

  const actors = Array.from({ length: 30 }, (_, i) => `log:${i}`);
  const perSender = 8;
  // Each node is a sender: its tells to one actor go one after another (sender s, value s * 100 + k).
  const send = (sender: number, from: number, to: number) =>
    Promise.all(actors.map(async (actor) => {
      for (let k = from; k < to; k++) await nodes[sender]!.runtime.tell(actor, { n: sender * 100 + k });
    }));
  await Promise.all(nodes.map((_, s) => send(s, 0, perSender / 2)));
  const working = Promise.all([settle(a, b, c)]);

  // c is cut off: it neither ticks nor moves its clock, but goes on handling. a and b renew, then outlive c's leases.
  for (const n of [a, b]) n.time.now += LEASE / 2;
  for (const n of [a, b]) await n.placement.tick();
  for (const n of [a, b]) n.time.now += LEASE / 2 + 1;
  for (const n of [a, b, a, b]) await n.placement.tick();
  expect(a.placement.leases().length + b.placement.leases().length).toBe(SHARDS);
  await working;
  await Promise.all([a, b].map((_, s) => send(s, perSender / 2, perSender)));
  await send(2, perSender / 2, perSender); // c still takes requests (its inserts are not fenced: any node takes any request)
  await settle(a, b, c);
  await settle(a, b, c);

  for (const actor of actors) {
    const values = await seen(a.session, actor);
    expect(values.length).toBe(3 * perSender);
    for (let s = 0; s < 3; s++) expect(values.filter((v) => Math.floor(v / 100) === s)).toEqual(Array.from({ length: perSender }, (_, k) => s * 100 + k));
  }
  expect(await a.session.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages")).toEqual({ n: 0 });
  // Whatever c handled after the takeover was refused, never committed; the others were never fenced.
  expect(a.runtime.stats().fenced + b.runtime.stats().fenced).toBe(0);
  expect(actors.every((x) => a.placement.owns(x) || b.placement.owns(x))).toBe(true);
  expect(c.runtime.stats().fenced).toBeGreaterThan(0); // c handled its own later tells to its old actors: refused
  for (const n of nodes) await n.runtime.stop();
});
