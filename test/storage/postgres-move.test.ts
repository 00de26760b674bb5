// Moving to PostgreSQL and keeping it safe there: `caravan migrate-to` copies a SQLite database that a real server
// wrote (customers with sealed identities, the master key check) into an empty PostgreSQL database, checks every
// table's count and that sealed values open with the master key, refuses a target that is not empty and leaves the
// target empty when the key is wrong; `caravan backup` on PostgreSQL writes a pg_dump archive that restores into an
// empty database with the same rows. Runs against the test process's throwaway cluster (test/support/postgres.ts).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { existsSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import postgres from "postgres";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectOk } from "../support/api.ts";
import { startPostgres, type PostgresServer } from "../support/postgres.ts";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { backupPostgres, pgProgram, withoutPassword } from "../../src/adapters/storage/postgres/backup.ts";
import { migrateToPostgres } from "../../src/adapters/storage/postgres/copy.ts";
import { loadMasterKey } from "../../src/adapters/crypto/master-key.ts";

// A server, a cluster and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "move.db");
let S: ChildServer | undefined;
let pg: PostgresServer;
const { newKey, call } = apiClient(db, () => S!.url);
const NAMES = ["Quintessa Marlowe", "Bartholomew Okonkwo-Reyes", "Ingrid Vasquez-Thorne"];

const person = (full: string) => {
  const [given, family] = full.split(" ");
  return { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } };
};

/** The SQLite row counts of the tables a copy reads. */
async function liteCounts(path: string): Promise<Record<string, number>> {
  const s = await openStorage(path, { migrate: false, search: false });
  try {
    const tables = (s.client.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as { name: string; sql: string }[])
      .filter((t) => !t.name.startsWith("sqlite_") && !/VIRTUAL/i.test(t.sql) && !/_(data|idx|content|docsize|config)$/.test(t.name) && t.name !== "__drizzle_migrations" && t.name !== "transfers_search_pending")
      .map((t) => t.name);
    return Object.fromEntries(tables.map((t) => [t, (s.client.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]));
  } finally {
    s.close();
  }
}

async function pgCounts(url: string, tables: string[]): Promise<Record<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const out: Record<string, number> = {};
    for (const t of tables) out[t] = Number((await sql.unsafe(`SELECT count(*) AS n FROM "${t}"`))[0]!.n);
    return out;
  } finally {
    await sql.end();
  }
}

beforeAll(async () => {
  pg = await startPostgres();
  const owner = await newKey("--env", "test", "--role", "owner");
  S = await startServer({ CARAVAN_DB: db });
  for (const name of NAMES) {
    const c = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId: `ext-${crypto.randomUUID()}`, name } });
    expectOk(c, 201);
    expectOk(await call(`/api/v2/customers/${c.body.data.id}/travel-rule-identity`, { method: "PUT", key: owner.key, json: { status: "verified", persons: [person(name)] } }));
  }
  await S.stop();
  S = undefined;
});

afterAll(async () => {
  await S?.stop();
});

test("migrate-to copies every table with its counts, checks sealed values with the master key, and the clear names never reach PostgreSQL", async () => {
  const url = await pg.createDatabase();
  const r = await runCli(["migrate-to", "--database-url", url, "--json"], { CARAVAN_DB: db });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const res = JSON.parse(r.stdout.trim());
  // Never the password, in what the operator is shown.
  expect(r.stdout).not.toContain(pg.password);
  expect(res.target).toBe(`${pg.host}:${pg.port}${new URL(url).pathname}`);
  expect(existsSync(res.backup)).toBe(true);
  // The key check and the three identities, opened after the copy.
  expect(res.sealedChecked).toBe(1 + NAMES.length);
  expect(res.skipped.map((s: { name: string }) => s.name)).toEqual(["transfers_search_pending"]);
  const lite = await liteCounts(db);
  const copied = Object.fromEntries(res.tables.map((t: { name: string; rows: number }) => [t.name, t.rows]));
  expect(copied).toEqual(lite);
  expect(await pgCounts(url, Object.keys(lite))).toEqual(lite);
  expect(lite.customers).toBe(NAMES.length);
  // Sealed before they reached the database: no name in a dump of the whole database.
  const { url: bare, password } = withoutPassword(url);
  const dump = spawnSync(pgProgram("pg_dump"), ["--dbname", bare], { env: { ...process.env, PGPASSWORD: password }, encoding: "utf8", maxBuffer: 256 << 20 });
  expect(dump.status).toBe(0);
  expect(dump.stdout).toContain("COPY public.customers");
  const found = NAMES.flatMap((n) => n.split(" ")).filter((part) => dump.stdout.includes(part));
  expect(found).toEqual([]);
  // A counter copied as it is, not counted again by the triggers.
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`SELECT n FROM list_counts WHERE list = 'customers' AND environment = 'test'`;
    expect(Number(row!.n)).toBe(NAMES.length);
    // Identity sequences continue after the copied numbers: a new event takes a number above every copied one.
    const [max] = await sql`SELECT coalesce(max(seq), 0) AS m FROM events`;
    const [next] = await sql`INSERT INTO events (id, company_id, environment, type, entity_type, entity_id, data, created_at) VALUES ('evt_new', 'cmp_default', 'test', 't', 'e', 'x', '{}', '2026-01-01T00:00:00.000Z') RETURNING seq`;
    expect(Number(next!.seq)).toBeGreaterThan(Number(max!.m));
  } finally {
    await sql.end();
  }
});

test("migrate-to refuses a target that is not empty, and changes nothing in it", async () => {
  const url = await pg.createDatabase();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`CREATE TABLE theirs (n int)`;
    const r = await runCli(["migrate-to", "--database-url", url], { CARAVAN_DB: db });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("is not empty");
    expect(r.stderr).not.toContain(pg.password);
    const tables = await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`;
    expect(tables.map((t) => t.table_name)).toEqual(["theirs"]);
  } finally {
    await sql.end();
  }
});

test("migrate-to with another master key rolls everything back: the target is left empty", async () => {
  const url = await pg.createDatabase();
  const r = await runCli(["migrate-to", "--database-url", url], { CARAVAN_DB: db, CARAVAN_MASTER_KEY: "11".repeat(32) });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("master key");
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [n] = await sql`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'`;
    expect(Number(n!.n)).toBe(0);
  } finally {
    await sql.end();
  }
});

test("backup on PostgreSQL: a checked pg_dump archive, never overwriting, that restores into an empty database with the same rows", async () => {
  const url = await pg.createDatabase();
  expect((await runCli(["migrate-to", "--database-url", url], { CARAVAN_DB: db })).code).toBe(0);
  const file = join(dir, "pg.dump");
  const r = await backupPostgres({ url, to: file });
  expect(r.integrity).toBe("ok");
  expect(r.database).not.toContain(pg.password);
  expect(r.migrations).toBeGreaterThan(0);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  await expect(backupPostgres({ url, to: file })).rejects.toThrow("already exists");
  const restored = await pg.createDatabase();
  const { url: bare, password } = withoutPassword(restored);
  const res = spawnSync(pgProgram("pg_restore"), ["--no-owner", "--dbname", bare, file], { env: { ...process.env, PGPASSWORD: password }, encoding: "utf8" });
  expect(res.stderr).toBe("");
  expect(res.status).toBe(0);
  const lite = await liteCounts(db);
  expect(await pgCounts(restored, Object.keys(lite))).toEqual(await pgCounts(url, Object.keys(lite)));
});

test("migrate-to reads the source a batch at a time: with one row per batch every table still arrives whole", async () => {
  const url = await pg.createDatabase();
  const r = await migrateToPostgres({ dbPath: db, url, masterKey: loadMasterKey(db, {}), batchRows: 1, backupTo: join(dir, "batched-backup.db") });
  const lite = await liteCounts(db);
  expect(Object.fromEntries(r.tables.map((t) => [t.name, t.rows]))).toEqual(lite);
  expect(await pgCounts(url, Object.keys(lite))).toEqual(lite);
  expect(lite.customers).toBeGreaterThan(1);
});
