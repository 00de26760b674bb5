// The PostgreSQL session after its connections are cut (src/adapters/storage/postgres/session.ts): every backend of
// the database ended with pg_terminate_backend while statements are in flight, several rounds. After each cut every
// kind of statement (a write outside a unit, a transaction, a read, a snapshot) succeeds again by itself, each one
// failing at most once on the way and only as a store fault. postgres.js 3.4.9 left alone keeps a buffered write of
// the dead socket and never sends the startup message of its reconnection again (CONNECT_TIMEOUT after
// CONNECT_TIMEOUT, a statement queued behind it hanging); the session replaces a pool that met a connection fault.
// Also: the session's statement_timeout is PostgreSQL's for Caravan's statements (57014 a store fault), and
// migrations run without it. Bounded loops, no timing assertions.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { openPostgres, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { migratePg } from "../../src/adapters/storage/postgres/migrate.ts";
import { StorageUnavailableError } from "../../src/ports/store.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { startPostgres, type PostgresServer } from "../support/postgres.ts";
import { databaseOf, freezableProxy, terminateBackends } from "../support/postgres-faults.ts";

// A hang guard (a statement that never answers fails the test instead of stalling it), not a timing assertion.
setDefaultTimeout(120_000);

let pg: PostgresServer;
let url: string;
let s: PgSession;

beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.createDatabase();
  s = await openPostgres(url, { statementTimeoutMs: 2000 });
  await s.exec("CREATE TABLE reconnect_probe (n bigint NOT NULL)");
});

afterAll(async () => {
  await s?.close();
});

/** Runs `call` until it succeeds, at most `tries` times; answers how many attempts failed (each a store fault). */
async function failuresBefore(call: () => Promise<unknown>, tries = 3): Promise<number> {
  for (let failures = 0; failures < tries; failures++) {
    try {
      await call();
      return failures;
    } catch (e) {
      expect(e).toBeInstanceOf(StorageUnavailableError);
    }
  }
  throw new Error(`still failing after ${tries} attempts`);
}

const kinds: Record<string, () => Promise<unknown>> = {
  write: () => s.q("INSERT INTO reconnect_probe (n) VALUES (1)"),
  transaction: () => s.transaction(async () => {
    await s.q("INSERT INTO reconnect_probe (n) VALUES (2)");
    return s.q("SELECT count(*) FROM reconnect_probe");
  }),
  read: () => s.read("SELECT count(*) FROM reconnect_probe"),
  snapshot: () => s.snapshot(() => s.read("SELECT count(*) FROM reconnect_probe")),
};

test("after every backend is cut, each kind of statement succeeds again with at most one failure, round after round", async () => {
  for (let round = 0; round < 12; round++) {
    // Connections open and busy on both pools when the cut lands.
    await Promise.all(Object.values(kinds).map((k) => k()));
    const inFlight = Object.values(kinds).map((k) => k().then(() => "ok", (e) => e));
    expect(await terminateBackends(pg, databaseOf(url))).toBeGreaterThan(0);
    for (const r of await Promise.all(inFlight)) if (r !== "ok") expect(r).toBeInstanceOf(StorageUnavailableError);
    for (const [name, call] of Object.entries(kinds)) {
      for (let i = 0; i < 3; i++) {
        const failures = await failuresBefore(call);
        expect({ round, name, i, failures: Math.min(failures, 1) }).toEqual({ round, name, i, failures });
      }
    }
  }
});

test("a statement past the session's statement_timeout is a store fault (PG_TIMEOUT), and the session goes on", async () => {
  const e = await s.q("SELECT pg_sleep(30)").then(() => null, (x) => x);
  expect(e).toBeInstanceOf(StorageUnavailableError);
  expect((e as StorageUnavailableError).fault.class).toBe("PG_TIMEOUT");
  expect(await s.read<{ n: number }>("SELECT 1::int AS n")).toEqual([{ n: 1 }]);
});

test("a migration runs without the session's statement_timeout (a step longer than it still applies)", async () => {
  const dir = tempDir();
  mkdirSync(join(dir, "meta"));
  writeFileSync(join(dir, "meta", "_journal.json"), JSON.stringify({ version: "7", dialect: "postgresql", entries: [{ idx: 0, version: "7", when: 1, tag: "0000_slow", breakpoints: true }] }));
  writeFileSync(join(dir, "0000_slow.sql"), "SELECT pg_sleep(3);\n--> statement-breakpoint\nCREATE TABLE slow_step (x int);");
  // On an empty database of its own: the shared one has Caravan's migrations, which this folder lacks (a database
  // newer than the migrations at hand is refused).
  const own = await openPostgres(await pg.createDatabase(), { statementTimeoutMs: 2000, migrate: false });
  try {
    expect(await migratePg(own, dir)).toEqual(["0000_slow"]);
    expect(await own.read("SELECT x FROM slow_step")).toEqual([]);
    // Outside the migration the bound holds again.
    expect(await own.one<{ t: string }>("SELECT current_setting('statement_timeout') AS t")).toEqual({ t: "2s" });
  } finally {
    await own.close();
  }
});

test("a connection gone silent without closing (a partition): the statement ends as PG_TIMEOUT at the session's deadline, the next one runs on a new connection", async () => {
  const proxy = await freezableProxy(url);
  // A short statement_timeout and connect timeout make the deadline short; the assertion is only that it ends.
  const p = await openPostgres(proxy.url, { migrate: false, readers: 1, statementTimeoutMs: 500, connectTimeoutSeconds: 1 });
  try {
    expect(await p.q<{ n: number }>("SELECT 1::int AS n")).toEqual([{ n: 1 }]);
    expect(await p.read<{ n: number }>("SELECT 2::int AS n")).toEqual([{ n: 2 }]);
    const before = proxy.connections();
    proxy.freeze();
    // The writer's and the reader's connections are the frozen ones.
    for (const call of [() => p.q("SELECT 1"), () => p.read("SELECT 1")]) {
      const e = await call().then(() => null, (x) => x);
      expect(e).toBeInstanceOf(StorageUnavailableError);
      expect(["PG_TIMEOUT", "PG_CONNECTION"]).toContain((e as StorageUnavailableError).fault.class);
    }
    // New connections (the proxy still forwards those): each kind answers again, at most one failure each.
    expect(await failuresBefore(() => p.q("SELECT 1"))).toBeLessThanOrEqual(1);
    expect(await failuresBefore(() => p.read("SELECT 1"))).toBeLessThanOrEqual(1);
    expect(await failuresBefore(() => p.transaction(() => p.q("SELECT 1")))).toBeLessThanOrEqual(1);
    expect(proxy.connections()).toBeGreaterThan(before);
  } finally {
    await p.close();
    proxy.close();
  }
});
