// `serve` and `migrate`: boot on a fresh database, /healthz, clean shutdown, and clear startup faults.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { writeFileSync, existsSync } from "node:fs";
import { Database } from "bun:sqlite";
import { tempDir } from "./support/tmp.ts";
import { runCli, startServer } from "./support/server.ts";
import { startPostgres } from "./support/postgres.ts";
import { openPostgres } from "../src/adapters/storage/postgres/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("serve boots on a fresh temp database, applies migrations and answers GET /healthz with 200 {status: ok}", async () => {
  const db = join(dir, "fresh", "caravan.db");
  const server = await startServer({ CARAVAN_DB: db });
  try {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(server.url).toStartWith("http://127.0.0.1:");
  } finally {
    expect(await server.stop("SIGTERM")).toBe(0);
  }
  const d = new Database(db, { readonly: true });
  const tables = (d.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
  expect(tables).toContain("actor_messages");
  expect(tables).toContain("events");
  expect(d.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
  d.close();
});

test("serve accepts CARAVAN_DB=:memory:", async () => {
  const server = await startServer({ CARAVAN_DB: ":memory:" });
  const res = await fetch(`${server.url}/healthz`);
  expect(res.status).toBe(200);
  expect(await server.stop("SIGINT")).toBe(0);
});

test("under Deno, `deno run -A src/main.ts serve` boots and answers /healthz", async () => {
  expect(Bun.which("deno")).not.toBeNull(); // .ci/run installs deno from the npm registry
  const server = await startServer({ CARAVAN_DB: join(dir, "deno.db") }, { runtime: "deno", timeoutMs: 60_000 });
  try {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  } finally {
    expect(await server.stop("SIGTERM")).toBe(0);
  }
}, 90_000);

test("under Deno on PostgreSQL, serve boots, registers as a node, answers /healthz, and leaves the registry on SIGTERM", async () => {
  const url = await (await startPostgres()).createDatabase();
  const server = await startServer({ CARAVAN_DB: join(dir, "deno-pg", "keys.db"), CARAVAN_DATABASE_URL: url, CARAVAN_NODE_ID: "deno-node" }, { runtime: "deno", timeoutMs: 60_000 });
  const session = await openPostgres(url, { migrate: false });
  try {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(await session.q<{ node_id: string }>("SELECT node_id FROM cluster_nodes")).toEqual([{ node_id: "deno-node" }]);
    // Its wake-up listener runs under Deno too (postgres.js's LISTEN on the notice connection).
    expect((await session.q<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'caravan-notice'"))[0]!.n).toBe(1);
  } finally {
    expect(await server.stop("SIGTERM")).toBe(0);
  }
  try {
    expect(await session.q("SELECT node_id FROM cluster_nodes")).toEqual([]);
  } finally {
    await session.close();
  }
}, 120_000);

test("migrate applies migrations and exits 0; a second run changes nothing", async () => {
  const db = join(dir, "migrate.db");
  const first = await runCli(["migrate"], { CARAVAN_DB: db });
  expect(first.code).toBe(0);
  const second = await runCli(["migrate"], { CARAVAN_DB: db });
  expect(second.code).toBe(0);
  const d = new Database(db, { readonly: true });
  expect((d.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBeGreaterThan(0);
  d.close();
});

function oneClearLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines.length).toBe(1);
  expect(stderr).not.toContain("    at "); // no stack trace
  return lines[0];
}

test("a corrupt database file: exit non-zero with one line naming the path and the cause", async () => {
  const db = join(dir, "corrupt.db");
  writeFileSync(db, "this is not a database ".repeat(100));
  const r = await runCli(["serve"], { CARAVAN_DB: db, PORT: "0" });
  expect(r.code).not.toBe(0);
  expect(oneClearLine(r.stderr)).toBe(`caravan: ${db}: database file is corrupt or not SQLite (file is not a database)`);
});

test("a locked database: exit non-zero with one line naming the path and the cause", async () => {
  const db = join(dir, "locked.db");
  // Another process holds an exclusive lock (python's sqlite3, independent of our driver).
  const holder = Bun.spawn(
    ["python3", "-c", `import sqlite3,time,sys
c=sqlite3.connect(${JSON.stringify(db)}, isolation_level=None)
c.execute('create table x(a)'); c.execute('BEGIN EXCLUSIVE'); c.execute('insert into x values(1)')
print('locked', flush=True); time.sleep(20)`],
    { stdout: "pipe" },
  );
  const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  try {
    const r = await runCli(["migrate"], { CARAVAN_DB: db, CARAVAN_BUSY_TIMEOUT_MS: "200" });
    expect(r.code).not.toBe(0);
    expect(oneClearLine(r.stderr)).toBe(`caravan: ${db}: database is locked by another process (database is locked)`);
  } finally {
    holder.kill("SIGKILL");
  }
});

test("a missing migration folder: exit non-zero with one line naming the folder", async () => {
  const folder = join(dir, "no-such-migrations");
  const r = await runCli(["migrate"], { CARAVAN_DB: join(dir, "m.db"), CARAVAN_MIGRATIONS: folder });
  expect(r.code).not.toBe(0);
  expect(oneClearLine(r.stderr)).toBe(`caravan: migration folder ${folder} is missing or has no meta/_journal.json`);
});

test("an unwritable data directory: exit non-zero with one line naming the directory", async () => {
  const blocker = join(dir, "a-file");
  writeFileSync(blocker, "x"); // a file where the data directory should be
  const r = await runCli(["serve"], { CARAVAN_DB: join(blocker, "sub", "caravan.db"), PORT: "0" });
  expect(r.code).not.toBe(0);
  expect(oneClearLine(r.stderr)).toStartWith(`caravan: data directory ${join(blocker, "sub")} is not writable: `);
  expect(existsSync(join(blocker, "sub"))).toBe(false);
});

test("an unknown command exits non-zero and prints the usage", async () => {
  const r = await runCli(["frobnicate"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('unknown command "frobnicate"');
  expect(r.stderr).toContain("serve");
});
