// The count of live nodes each node divides the request budgets by (src/actors/placement.ts `nodeCount`, used by
// src/http/ratelimit.ts): three sessions on one database of the test cluster, each a ClusterNode ticked by the test
// with its own clock. A joining node counts itself at once and is counted by the others at their next tick; a node that
// leaves cleanly is dropped at the next tick; a dead one is counted until its heartbeat lapses. And each node's limiter
// admits the budget over that count.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { openPostgres, PgClusterStore, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { ClusterNode } from "../../src/actors/placement.ts";
import { RateLimiter } from "../../src/http/ratelimit.ts";
import { startPostgres } from "../support/postgres.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(120_000);

const LEASE = 10_000;
const T0 = 1_800_000_000_000;

const sessions: PgSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
});

async function node(url: string, nodeId: string, time: { now: number }) {
  const session = await openPostgres(url, { readers: 1 });
  sessions.push(session);
  const clock = () => time.now;
  const lines: string[] = [];
  const n = new ClusterNode(new PgClusterStore(session), { nodeId, clock, leaseMs: LEASE, tickMs: 0, log: (_l, msg, f) => lines.push(`${msg} ${JSON.stringify(f)}`) });
  return { node: n, lines, clock };
}

/** Requests of one company admitted by `limiter` before its first refusal. */
function admitted(limiter: RateLimiter): number {
  for (let n = 0; ; n++) {
    try {
      limiter.check("company", "cmp_count");
    } catch {
      return n;
    }
  }
}

test("nodeCount follows joins, clean leaves and lapsed heartbeats; each limiter admits the budget over it", async () => {
  const url = await (await startPostgres()).createDatabase();
  const time = { now: T0 };
  const a = await node(url, "node-a", time);
  const b = await node(url, "node-b", time);
  const c = await node(url, "node-c", time);

  await a.node.join();
  expect(a.node.nodeCount()).toBe(1);
  await b.node.join();
  expect(b.node.nodeCount()).toBe(2); // itself and a, at its own first tick
  expect(a.node.nodeCount()).toBe(1); // a has not ticked since
  await a.node.tick();
  expect(a.node.nodeCount()).toBe(2);
  expect(a.lines.filter((l) => l.startsWith("live nodes"))).toEqual(['live nodes {"nodeId":"node-a","nodes":1}', 'live nodes {"nodeId":"node-a","nodes":2}']);

  // The budget over two nodes: 10 a minute is 5 on each, 10 for the service.
  const rules = { company: { limit: 10, windowSeconds: 60 } };
  const la = new RateLimiter(rules, a.clock, () => a.node.nodeCount());
  const lb = new RateLimiter(rules, b.clock, () => b.node.nodeCount());
  expect([admitted(la), admitted(lb)]).toEqual([5, 5]);

  await c.node.join();
  for (const n of [a, b]) await n.node.tick();
  expect([a.node.nodeCount(), b.node.nodeCount(), c.node.nodeCount()]).toEqual([3, 3, 3]);

  // c leaves cleanly: gone from the others' count at their next tick, without waiting out the lease.
  await c.node.leave();
  for (const n of [a, b]) await n.node.tick();
  expect([a.node.nodeCount(), b.node.nodeCount()]).toEqual([2, 2]);

  // b dies (no more ticks, no leave): counted until its heartbeat lapses, then a counts itself alone.
  time.now += LEASE - 1;
  await a.node.tick();
  expect(a.node.nodeCount()).toBe(2);
  time.now += 1;
  await a.node.tick();
  expect(a.node.nodeCount()).toBe(1);
  // Alone, a's limiter refills at the whole budget's rate: a token every 6 s (at two nodes, every 12 s).
  time.now += 60_000;
  expect(admitted(la)).toBe(10);
  await a.node.leave();
});
