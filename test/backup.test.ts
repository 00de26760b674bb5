// `caravan backup --to <file>`: taken while the server serves and a writer commits, the copy is one consistent
// snapshot; restored, the server boots on it and serves what it held; refusals are one clear line.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "./support/tmp.ts";
import { runCli, startServer, type ChildServer } from "./support/server.ts";
import { apiClient } from "./support/api.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir("caravan-backup-");
const db = join(dir, "live", "caravan.db");
let S: ChildServer | undefined;
let R: ChildServer | undefined;
const api = apiClient(db, () => S!.url);
let ownerKey = "";

beforeAll(async () => {
  const m = await runCli(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  ownerKey = (await api.newKey("--env", "test", "--role", "owner")).key;
  // A probe the test writes beside the server: every transaction inserts one row and bumps a total, so a
  // torn copy would show count(*) != total. The ballast makes the copy long enough to overlap the writes.
  const d = new Database(db);
  d.exec("PRAGMA busy_timeout = 10000");
  d.exec("CREATE TABLE backup_probe (seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)");
  d.exec("CREATE TABLE backup_probe_total (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)");
  d.exec("INSERT INTO backup_probe_total VALUES (1, 0)");
  d.exec("CREATE TABLE backup_ballast (id INTEGER PRIMARY KEY, junk BLOB NOT NULL)");
  d.transaction(() => {
    const ins = d.prepare("INSERT INTO backup_ballast (junk) VALUES (randomblob(8192))");
    for (let i = 0; i < 3000; i++) ins.run();
  })();
  d.close();
  S = await startServer({ CARAVAN_DB: db });
}, 120_000);

afterAll(async () => {
  await S?.stop();
  await R?.stop();
});

async function createCustomer(i: number): Promise<{ id: string; externalId: string; name: string }> {
  const externalId = `backup-${i}-${crypto.randomUUID().slice(0, 8)}`;
  const name = `Customer ${i} Ünïcødé`;
  const r = await api.call("/api/v2/customers", { method: "POST", key: ownerKey, json: { externalId, name } });
  expect(r.status).toBe(201);
  return { id: r.body.data.id, externalId, name };
}

function rows(path: string, sql: string): Record<string, unknown>[] {
  const d = new Database(path, { readonly: true });
  try {
    return d.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    d.close();
  }
}

test("a backup taken while the server and a writer commit is one consistent snapshot; restored, the server serves it", async () => {
  const created: { id: string; externalId: string; name: string }[] = [];
  for (let i = 0; i < 5; i++) created.push(await createCustomer(i));

  const file = join(dir, "backups", "nightly.db");
  const writer = new Database(db);
  writer.exec("PRAGMA busy_timeout = 10000");
  const probe = writer.transaction((seq: number) => {
    writer.prepare("INSERT INTO backup_probe (seq, payload) VALUES (?, randomblob(64))").run(seq);
    writer.prepare("UPDATE backup_probe_total SET n = n + 1 WHERE id = 1").run();
  });
  let seq = 0;
  let done = false;
  const backup = runCli(["backup", "--to", file, "--json"], { CARAVAN_DB: db }).finally(() => (done = true));
  // Write through the API and straight to the file until the backup process has exited.
  while (!done) {
    probe(++seq);
    created.push(await createCustomer(100 + seq));
  }
  writer.close();
  const r = await backup;
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout.trim());
  expect(out).toMatchObject({ database: db, file, integrity: "ok", bytes: statSync(file).size });
  expect(out.migrations).toBe((rows(db, "SELECT count(*) AS n FROM __drizzle_migrations")[0] as { n: number }).n);
  expect(out.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  // One self-contained file: no WAL beside it, no temporary file left over, and it checks clean.
  expect(existsSync(`${file}-wal`)).toBe(false);
  expect(readdirSync(join(dir, "backups"))).toEqual(["nightly.db"]);
  expect(rows(file, "PRAGMA journal_mode")).toEqual([{ journal_mode: "delete" }]);
  expect(rows(file, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);

  // Writes went on while the backup ran: the live database holds probe rows the snapshot does not.
  const liveProbe = rows(db, "SELECT seq, hex(payload) AS p FROM backup_probe ORDER BY seq");
  const copyProbe = rows(file, "SELECT seq, hex(payload) AS p FROM backup_probe ORDER BY seq");
  expect(liveProbe.length).toBe(seq);
  expect(copyProbe.length).toBeLessThan(liveProbe.length);
  // Consistent: the copy is exactly a prefix of what was committed, and no transaction is torn.
  expect(copyProbe).toEqual(liveProbe.slice(0, copyProbe.length));
  expect(rows(file, "SELECT n FROM backup_probe_total")).toEqual([{ n: copyProbe.length }]);
  // The server's own rows: every customer in the copy is byte-identical to the live row, the copy holds a
  // prefix of those created, and its maintained list counter agrees with its rows.
  const liveCustomers = rows(db, "SELECT * FROM customers ORDER BY rowid");
  const copyCustomers = rows(file, "SELECT * FROM customers ORDER BY rowid");
  expect(copyCustomers.length).toBeGreaterThanOrEqual(5);
  expect(copyCustomers).toEqual(liveCustomers.slice(0, copyCustomers.length));
  expect(copyCustomers.map((c) => c.id)).toEqual(created.slice(0, copyCustomers.length).map((c) => c.id));
  expect(rows(file, "SELECT coalesce(sum(n), 0) AS n FROM list_counts WHERE list = 'customers'")).toEqual([{ n: copyCustomers.length }]);
  expect(rows(file, "SELECT hash FROM __drizzle_migrations ORDER BY id")).toEqual(rows(db, "SELECT hash FROM __drizzle_migrations ORDER BY id"));

  // Restore (docs/operations.md): the copy becomes a database file, with the master key beside it.
  const restored = join(dir, "restored", "caravan.db");
  mkdirSync(join(dir, "restored"));
  copyFileSync(file, restored);
  copyFileSync(join(dir, "live", "master.key"), join(dir, "restored", "master.key"));
  chmodSync(join(dir, "restored", "master.key"), 0o600);
  R = await startServer({ CARAVAN_DB: restored });
  const served: { id: string; externalId: string; name: string }[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await fetch(`${R.url}/api/v2/customers?${q}`, { headers: { "x-api-key": ownerKey } });
    expect(page.status).toBe(200);
    const body = (await page.json()) as { data: { id: string; externalId: string; name: string }[]; meta: { cursor: string | null; hasMore: boolean; total: number } };
    expect(body.meta.total).toBe(copyCustomers.length);
    served.push(...body.data.map((c) => ({ id: c.id, externalId: c.externalId, name: c.name })));
    cursor = body.meta.hasMore ? body.meta.cursor : null;
  } while (cursor);
  // The API key, the sealed names and the rows all came back: what the snapshot held, decrypted.
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
  expect(served.sort(byId)).toEqual(created.slice(0, copyCustomers.length).sort(byId));
  expect(await R.stop("SIGTERM")).toBe(0);
  R = undefined;
}, 120_000);

function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(stderr).not.toContain("    at ");
  return lines[0];
}

test("backup refuses to overwrite an existing file, and leaves it untouched", async () => {
  const file = join(dir, "taken.db");
  writeFileSync(file, "do not touch");
  const r = await runCli(["backup", "--to", file], { CARAVAN_DB: db });
  expect(r.code).toBe(1);
  expect(oneLine(r.stderr)).toBe(`caravan: backup file ${file} already exists: choose a new name (a backup never overwrites)`);
  expect(readFileSync(file, "utf8")).toBe("do not touch");
});

test("backup of a database that does not exist fails without creating it", async () => {
  const missing = join(dir, "nowhere", "caravan.db");
  const r = await runCli(["backup", "--to", join(dir, "x.db")], { CARAVAN_DB: missing });
  expect(r.code).toBe(1);
  expect(oneLine(r.stderr)).toBe(`caravan: cannot back up ${missing}: no such database (is CARAVAN_DB set as the server's?)`);
  expect(existsSync(missing)).toBe(false);
  expect(existsSync(join(dir, "x.db"))).toBe(false);
});

test("backup without --to, or of :memory:, is refused with one line", async () => {
  const a = await runCli(["backup"], { CARAVAN_DB: db });
  expect(a.code).toBe(1);
  expect(a.stderr).toStartWith("caravan: --to <file> is required");
  const b = await runCli(["backup", "--to", join(dir, "m.db")], { CARAVAN_DB: ":memory:" });
  expect(b.code).toBe(1);
  expect(oneLine(b.stderr)).toBe("caravan: cannot back up :memory:: CARAVAN_DB must name a database file");
});

test("backup copies the database as it is: it applies no migrations (a backup before an upgrade is the old schema)", async () => {
  const old = join(dir, "old", "caravan.db");
  mkdirSync(join(dir, "old"));
  const d = new Database(old);
  d.exec("PRAGMA journal_mode = WAL");
  d.exec("CREATE TABLE legacy (a TEXT)");
  d.exec("INSERT INTO legacy VALUES ('kept')");
  d.close();
  const file = join(dir, "old-backup.db");
  const r = await runCli(["backup", "--to", file, "--json"], { CARAVAN_DB: old });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).migrations).toBe(0);
  const tables = (path: string) => rows(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((t) => t.name);
  expect(tables(old)).toEqual(["legacy"]);
  expect(tables(file)).toEqual(["legacy"]);
  expect(rows(file, "SELECT a FROM legacy")).toEqual([{ a: "kept" }]);
});
