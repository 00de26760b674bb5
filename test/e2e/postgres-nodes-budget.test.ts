// The company's request budget on two nodes of one PostgreSQL database (docs/api.md#rate-limits): two real `caravan
// serve` processes, one key, requests alternating between the nodes. Each node enforces half the budget, so the
// service as a whole admits the budget and then answers 429 RATE_LIMITED with a Retry-After that is the time until
// that node admits again. The budget is 10 an hour: over the test's seconds the buckets refill by a small fraction of
// one request, so the count admitted is exact.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { startPgServer, type PgServer } from "../support/pg-server.ts";
import { startServer, type ChildServer } from "../support/server.ts";

// Servers as child processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const running: (PgServer | ChildServer)[] = [];
afterAll(async () => {
  for (const s of running) await s.stop().catch(() => 0);
});

const BUDGET = 10;
const WINDOW_S = 3600;
const ENV = { CARAVAN_RATE_LIMITS: `company=${BUDGET}/${WINDOW_S}`, CARAVAN_LEASE_MS: "6000", CARAVAN_LOG: "info" };

test("requests spread over two nodes are refused 429 at the service-wide budget, Retry-After naming the node's next token", async () => {
  const first = await startPgServer({ ...ENV, CARAVAN_NODE_ID: "node-a" });
  running.push(first);
  // The key is made before the second node starts: the CLI's commands do not pass through the budget.
  const { key } = await first.newKey("owner");
  const second = await startServer({ ...first.env, CARAVAN_NODE_ID: "node-b" });
  running.push(second);
  // Each node logs the count of live nodes when it changes: both must count two before the budget is shared.
  for (const [s, id] of [
    [first.server, "node-a"],
    [second, "node-b"],
  ] as const) {
    const line = `"msg":"live nodes","nodeId":"${id}","nodes":2`;
    expect(await s.untilOutput(line, 30_000)).toContain(line);
  }

  const nodes = [first.server.url, second.url];
  const answers: { node: number; status: number; retryAfter: string | null; code?: string }[] = [];
  const t0 = Date.now();
  for (let i = 0; i < BUDGET + 6; i++) {
    const node = i % 2;
    const res = await fetch(`${nodes[node]}/api/v2/customers?limit=1`, { headers: { "x-api-key": key } });
    const body = (await res.json()) as { code?: string };
    answers.push({ node, status: res.status, retryAfter: res.headers.get("retry-after"), code: body.code });
  }
  const elapsedS = (Date.now() - t0) / 1000;

  // The service admitted the budget, half on each node, then refused every further request on both.
  expect(answers.filter((a) => a.status === 200)).toHaveLength(BUDGET);
  expect(answers.slice(0, BUDGET).map((a) => a.status)).toEqual(Array(BUDGET).fill(200));
  expect(answers.slice(BUDGET).map((a) => [a.status, a.code])).toEqual(Array(6).fill([429, "RATE_LIMITED"]));
  expect(answers.slice(0, BUDGET).every((a) => a.retryAfter === null)).toBe(true);
  // Retry-After: whole seconds until the node's share (5 an hour: a token every 720 s) has one token again; the
  // fraction refilled since its first request is all that can take off it.
  const tokenS = WINDOW_S / (BUDGET / 2);
  for (const a of answers.slice(BUDGET)) {
    expect(a.retryAfter).toMatch(/^\d+$/);
    expect(Number(a.retryAfter)).toBeLessThanOrEqual(tokenS);
    expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(tokenS - Math.ceil(elapsedS));
  }
});
