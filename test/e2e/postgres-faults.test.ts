// The server on PostgreSQL losing its database while it serves, end to end (the real server on a free loopback port,
// the test cluster of test/support/postgres.ts):
// - every connection cut (pg_terminate_backend from an admin connection): requests answer again by themselves, each
//   one meanwhile either served or 503 SERVICE_UNAVAILABLE with Retry-After;
// - the cluster's server stopped: /healthz says storage_unavailable (PG_CONNECTION, since when) with Retry-After, a
//   request answers 503 SERVICE_UNAVAILABLE with Retry-After and nothing of a stack trace; started again: /healthz
//   turns ok and requests succeed with nothing restarted;
// - the password of the URL in none of the answers nor in the server's output.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { expectError, expectOk, type Answer } from "../support/api.ts";
import { startPgServer, type PgServer } from "../support/pg-server.ts";
import { databaseOf, startCluster, stopCluster, terminateBackends } from "../support/postgres-faults.ts";

// A server, a PostgreSQL server stopped and started, CLI processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(180_000);

let S: PgServer;
let owner: { key: string };
let customerId: string;

beforeAll(async () => {
  S = await startPgServer();
  owner = await S.newKey("owner");
  const c = await S.call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Originator" } });
  expectOk(c, 201);
  customerId = c.body.data.id;
}, 120_000);

afterAll(async () => {
  if (S) expect(await S.stop()).toBe(0);
});

/** The store-fault answer: 503 SERVICE_UNAVAILABLE, Retry-After, the spec's envelope, no stack, no password. */
function expectStoreFault(r: Answer): void {
  expectError(r, 503, "SERVICE_UNAVAILABLE");
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(r.text).not.toMatch(/\bat .*\.ts:\d+/);
  expect(r.text).not.toContain("Error:");
  expect(r.text).not.toContain(S.pg.password);
}

/** /healthz while the store is in fault: 503 storage_unavailable with Retry-After, no password. */
function expectHealthDown(r: Answer): void {
  expect(r.status).toBe(503);
  expect(r.body.status).toBe("storage_unavailable");
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(r.text).not.toContain(S.pg.password);
}

/** Calls until the answer is `status`; every answer before it must be the fault's (`check`). */
async function until(status: number, call: () => Promise<Answer>, check: (r: Answer) => void = expectStoreFault): Promise<Answer> {
  for (;;) {
    const r = await call();
    if (r.status === status) return r;
    check(r);
    await Bun.sleep(200);
  }
}

const health = () => S.call("/healthz");

const readCustomer = () => S.call(`/api/v2/customers/${customerId}/overview`, { key: owner.key });

test("every connection cut with pg_terminate_backend: requests answer again by themselves", async () => {
  expectOk(await readCustomer());
  expect(await terminateBackends(S.pg, databaseOf(S.databaseUrl))).toBeGreaterThan(0);
  expectOk(await until(200, readCustomer));
  expectOk(await until(201, () => S.call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "After the cut" } })), 201);
});

test("the database server stopped: /healthz and requests say 503 with Retry-After; started again: the server reconnects by itself", async () => {
  // The cut above may still be settling: start from a healthy server.
  await until(200, health, expectHealthDown);
  stopCluster(S.pg);
  try {
    const h = await health();
    expectHealthDown(h);
    expect(h.body).toEqual({ status: "storage_unavailable", fault: "PG_CONNECTION", since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expectStoreFault(await readCustomer());
    expectStoreFault(await S.call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "While down" } }));
    // Still down: the same answer, the same `since`.
    const again = await health();
    expectHealthDown(again);
    expect(again.body.since).toBe(h.body.since);
  } finally {
    startCluster(S.pg);
  }
  // Nothing restarted: /healthz turns ok once a write succeeds (each answer until then the fault), requests succeed.
  const ok = await until(200, health, expectHealthDown);
  expect(ok.body).toEqual({ status: "ok" });
  expectOk(await readCustomer());
  expectOk(await S.call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "After the restart" } }), 201);
});

test("the password is in none of the server's output", () => {
  expect(S.server.output()).not.toContain(S.pg.password);
  expect(S.server.output()).not.toContain(encodeURIComponent(S.pg.password));
});
