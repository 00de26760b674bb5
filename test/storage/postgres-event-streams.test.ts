// The open event streams of several nodes on one PostgreSQL database (PgStreamRegistry, migration 0015): the caps
// count every live node's streams; opens of one company on two sessions at once never both take the last place; the
// streams of a node whose membership lapsed, or that left, stop counting (clocks are the test's own: nothing waits for
// time), whatever node ID a restart takes; a stream that ends frees its place.
import { test, expect, setDefaultTimeout, afterAll, beforeAll } from "bun:test";
import { openPostgres, PgClusterStore, PgStreamRegistry, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import type { StreamCaps } from "../../src/ports/event-streams.ts";
import { startPostgres } from "../support/postgres.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(60_000);

const T0 = 1_800_000_000_000;
const TTL = 10_000;
const CAPS: StreamCaps = { perKey: 2, perEnvironment: 3, perCompany: 4 };

const sessions: PgSession[] = [];
let url = "";
beforeAll(async () => {
  url = await (await startPostgres()).createDatabase();
});
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
});

/** A node: its own session, registered in cluster_nodes at `at` (its heartbeat current until `at` + TTL), and its registry. */
async function node(nodeId: string, incarnation = `${nodeId}-1`, at = T0) {
  const session = await openPostgres(url, { readers: 1 });
  sessions.push(session);
  await new PgClusterStore(session).register({ nodeId, incarnation }, at, TTL);
  return { session, registry: new PgStreamRegistry(session, { nodeId, incarnation }) };
}

let n = 0;
const slot = (companyId: string, keyId: string, environment: "test" | "live" = "test") => ({ id: `str_${++n}`, companyId, keyId, environment });

test("the caps count both nodes' streams: per key, per company and environment, per company; a closed stream frees its place on either node", async () => {
  const a = await node("a");
  const b = await node("b");
  expect(await a.registry.open(slot("c1", "k1"), CAPS, T0)).toBeNull();
  expect(await b.registry.open(slot("c1", "k1"), CAPS, T0)).toBeNull();
  expect(await b.registry.open(slot("c1", "k1"), CAPS, T0)).toEqual({ cap: "key", held: 2, max: 2 });
  expect(await a.registry.open(slot("c1", "k2"), CAPS, T0)).toBeNull();
  expect(await b.registry.open(slot("c1", "k3"), CAPS, T0)).toEqual({ cap: "environment", held: 3, max: 3 });
  const live = slot("c1", "k4", "live");
  expect(await b.registry.open(live, CAPS, T0)).toBeNull();
  expect(await a.registry.open(slot("c1", "k5", "live"), CAPS, T0)).toEqual({ cap: "company", held: 4, max: 4 });
  // Another company is counted apart.
  expect(await a.registry.open(slot("c2", "k9"), CAPS, T0)).toBeNull();
  // The live stream ends on b: a's next open of the company takes its place.
  await b.registry.close([live.id]);
  expect(await a.registry.open(slot("c1", "k5", "live"), CAPS, T0)).toBeNull();
});

test("two nodes opening the company's last place at once: exactly one gets it", async () => {
  const a = await node("race-a");
  const b = await node("race-b");
  const caps = { perKey: 100, perEnvironment: 100, perCompany: 1 };
  for (let round = 0; round < 10; round++) {
    const company = `race-${round}`;
    const [x, y] = await Promise.all([a.registry.open(slot(company, "k1"), caps, T0), b.registry.open(slot(company, "k2"), caps, T0)]);
    expect([x, y].filter((r) => r === null).length).toBe(1);
    expect([x, y].find((r) => r !== null)).toEqual({ cap: "company", held: 1, max: 1 });
  }
});

test("a node whose membership lapsed stops counting: its rows go at the company's next open", async () => {
  const dead = await node("dead");
  const b = await node("alive");
  const caps = { perKey: 100, perEnvironment: 100, perCompany: 2 };
  expect(await dead.registry.open(slot("c3", "k1"), caps, T0)).toBeNull();
  expect(await dead.registry.open(slot("c3", "k1"), caps, T0)).toBeNull();
  expect(await b.registry.open(slot("c3", "k2"), caps, T0 + TTL - 1)).toEqual({ cap: "company", held: 2, max: 2 });
  const rows = async (nodeId: string) => (await b.session.read<{ n: number }>("SELECT count(*)::int AS n FROM event_streams WHERE node_id = $1", [nodeId]))[0]!.n;
  expect(await rows("dead")).toBe(2);
  // The dead node's heartbeat lapsed at T0 + TTL (b renewed its own).
  await new PgClusterStore(b.session).heartbeat("alive", "alive-1", T0 + TTL, TTL);
  expect(await b.registry.open(slot("c3", "k2"), caps, T0 + TTL)).toBeNull();
  expect(await rows("dead")).toBe(0);
  expect(await b.registry.open(slot("c3", "k2"), caps, T0 + TTL)).toBeNull();
  expect(await b.registry.open(slot("c3", "k2"), caps, T0 + TTL)).toEqual({ cap: "company", held: 2, max: 2 });

});

test("a node that left before its streams' rows went (its leave outran their removal): they do not count, and a restart under the same ID starts from none", async () => {
  const first = await node("again", "again-1");
  const caps = { perKey: 100, perEnvironment: 100, perCompany: 2 };
  expect(await first.registry.open(slot("c4", "k1"), caps, T0)).toBeNull();
  expect(await first.registry.open(slot("c4", "k1"), caps, T0)).toBeNull();
  await new PgClusterStore(first.session).deregister("again", "again-1");
  const restarted = await node("again", "again-2");
  expect(await restarted.registry.open(slot("c4", "k1"), caps, T0)).toBeNull();
  expect(await restarted.registry.open(slot("c4", "k1"), caps, T0)).toBeNull();
  expect(await restarted.registry.open(slot("c4", "k1"), caps, T0)).toEqual({ cap: "company", held: 2, max: 2 });
  const [r] = await restarted.session.read<{ n: number }>("SELECT count(*)::int AS n FROM event_streams WHERE incarnation = 'again-1'");
  expect(r!.n).toBe(0);
});
