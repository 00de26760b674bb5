// Disk per stored transfer: BENCH_CREATES (5,000) below-threshold creates through the application's own fetch (the
// whole route pipeline, the customer actor, the group commit; 32 customers, 32 in flight) on a temp database, the
// search index caught up (its own file, counted too), then SQLite's `dbstat` per table and index: bytes used on pages (payload + cell headers
// + unused space on the table's pages) divided by the creates. Used for docs/benchmarks.md ("Disk per transfer").
//
// Then the same figures once the events are past the retention window (CARAVAN_EVENTS_RETENTION=1s here: the bench
// waits a second and runs the retention turn of the webhook dispatcher), i.e. what a stored transfer costs for good.
//
// BENCH_KEEP=<dir> keeps the database in that directory for inspection.
//
// On PostgreSQL (CARAVAN_BENCH_ENGINE=postgres, a fresh database: bench/setup.ts), the engine's own size accounting
// instead of dbstat: `pg_total_relation_size` of each of Caravan's tables (heap, its indexes, TOAST), growth over the
// run, after a VACUUM (what autovacuum leaves: dead row versions become free space inside the files, which do not
// shrink). Past the events window, the events table is rewritten (VACUUM FULL) so that the figure is what the rows
// still stored need, as SQLite's pages are; the plain-VACUUM figure is printed beside it.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/http/app.ts";
import { benchEngine, benchQuery, benchService, dropBenchDatabases, inProcessCreator } from "./setup.ts";
import type { PgSession } from "../src/adapters/storage/postgres/index.ts";
import type { Database } from "bun:sqlite";

const CREATES = Number(process.env.BENCH_CREATES ?? 5_000);
const keep = process.env.BENCH_KEEP;
const dir = keep ?? mkdtempSync(join(tmpdir(), "caravan-bench-disk-"));
if (keep) mkdirSync(keep, { recursive: true });
const dbPath = join(dir, "disk.db");
const service = await benchService(dbPath, {
  // CARAVAN_EVENTS_COMPACT=on measures event data stored deflated (bench/all.ts runs both).
  compactEvents: process.env.CARAVAN_EVENTS_COMPACT === "on",
  env: { CARAVAN_EVENTS_RETENTION: "1s" },
  // The retention sweep must not run during the creates (a minute's second 0 would prune the "fresh" figures): only
  // the explicit retention turn below prunes.
  sweepSchedule: (name, pattern) => (name === "events-retention" ? "0 0 0 1 1 *" : pattern),
});
const pg = benchEngine() === "postgres" ? (service.store as PgSession) : null;
let before: Map<string, number>;
try {
  const app = createApp(service);
  const beneficiary = { beneficiaryPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Smith", secondaryIdentifier: "John", nameIdentifierType: "LEGL" }] } } }] };
  const creator = await inProcessCreator(app, service, { prefix: "disk", body: { beneficiary } });
  before = await usage();
  await creator.create(CREATES);
  // Let the search index catch up (the storage worker fills it; on PostgreSQL the server's sweep, done here at once),
  // and its queue be trimmed (the sweep's second step).
  const transfers = service.repositories.transfers;
  if (service.searchIndexedElsewhere()) for (let i = 0; i < 200 && (await transfers.pendingIndex()) > 0; i++) await Bun.sleep(100);
  else while ((await transfers.indexPending(500)) === 500);
  await transfers.trimSearchQueue();
  if (pg) await service.runtime.idle();
  const after = await usage();
  // What the events are: per type, how many per transfer and the stored size of `data` (as written: compressed or not).
  const eventTypes = pg
    ? (await pg.read<{ type: string; n: number; bytes: number }>("SELECT type, count(*)::int AS n, avg(octet_length(data))::float8 AS bytes FROM events GROUP BY type ORDER BY n DESC"))
    : ((service.storage.client as unknown as Database).query("SELECT type, count(*) AS n, avg(length(CAST(data AS BLOB))) AS bytes FROM events GROUP BY type ORDER BY n DESC").all() as Array<{ type: string; n: number; bytes: number }>);
  await service.runtime.idle();
  // Past the window: the dispatcher's retention turn (what the events-retention sweep asks for each minute).
  await Bun.sleep(1_100);
  for (let i = 0; i < 20; i++) {
    await service.runtime.tell("webhook-dispatcher:main", { type: "prune" });
    await service.runtime.idle();
    if (Number((await benchQuery<{ n: number }>(service, "SELECT count(*) AS n FROM events")).n) === 0) break;
  }
  let vacuumed: Map<string, number> | undefined;
  if (pg) {
    vacuumed = await usage();
    await pg.exec("VACUUM FULL events");
  }
  const pruned = await usage();
  const rows: Array<[string, number, number]> = [];
  for (const [name, bytes] of after) {
    const d = bytes - (before.get(name) ?? 0);
    const p = Math.max(0, (pruned.get(name) ?? 0) - (before.get(name) ?? 0));
    if (d > 0) rows.push([name, d, p]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  let total = 0;
  let totalPruned = 0;
  console.log(`${CREATES} below-threshold creates; bytes per transfer (dbstat: pages of each table and index, growth over the run):`);
  console.log("  fresh  past the events window");
  for (const [name, d, p] of rows) {
    total += d;
    totalPruned += p;
    console.log(`${(d / CREATES).toFixed(0).padStart(7)}  ${(p / CREATES).toFixed(0).padStart(7)}  ${name}`);
  }
  console.log(`${(total / CREATES).toFixed(0).padStart(7)}  ${(totalPruned / CREATES).toFixed(0).padStart(7)}  total`);
  if (vacuumed) {
    let kept = 0;
    for (const [name, bytes] of vacuumed) kept += Math.max(0, bytes - (before.get(name) ?? 0));
    console.log(`PostgreSQL: past the events window before the events table is rewritten (plain VACUUM only, files as they stay): ${(kept / CREATES).toFixed(0)} bytes per transfer`);
  }
  // For bench/all.ts: KB (1,000 bytes) per stored transfer, with the events fresh and past the retention window.
  console.log(`bench-result ${JSON.stringify({ diskKB: Number((total / CREATES / 1000).toFixed(3)), diskKBPruned: Number((totalPruned / CREATES / 1000).toFixed(3)) })}`);
  console.log("events per transfer by type (stored bytes of data, average):");
  for (const e of eventTypes) console.log(`${(e.n / CREATES).toFixed(2).padStart(7)}  ${e.bytes.toFixed(0).padStart(5)} B  ${e.type}`);
  const sample = pg
    ? ((await pg.read<Record<string, unknown>>("SELECT * FROM transfers ORDER BY created_at DESC, id DESC LIMIT 1"))[0] ?? {})
    : ((service.storage.client as unknown as Database).query("SELECT * FROM transfers ORDER BY rowid DESC LIMIT 1").get() as Record<string, unknown>);
  console.log("largest columns of one transfer row (bytes):");
  const cols = Object.entries(sample).map(([k, v]) => [k, v == null ? 0 : typeof v === "string" ? Buffer.byteLength(v) : v instanceof Uint8Array ? v.byteLength : 8] as const);
  for (const [k, b] of cols.sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${String(b).padStart(7)}  ${k}`);
} finally {
  await service.stop();
  if (!keep) await dropBenchDatabases();
  if (!keep) rmSync(dir, { recursive: true, force: true });
}

/**
 * Bytes on pages per table and index: the main file's, and the search file's (named `search:<name>`). On PostgreSQL,
 * `pg_total_relation_size` of every table of the database's public schema, after a VACUUM of the database.
 */
async function usage(): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  if (pg) {
    await pg.exec("VACUUM");
    for (const r of await pg.read<{ name: string; bytes: number }>("SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"))
      m.set(r.name, Number(r.bytes));
    return m;
  }
  const db = service.storage.client as unknown as Database;
  for (const r of db.query("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as Array<{ name: string; bytes: number }>) m.set(r.name, r.bytes);
  const search = service.storage.search;
  if (search)
    for (const r of search.stmt("SELECT name, sum(pgsize) AS bytes FROM dbstat('search') GROUP BY name").all() as Array<{ name: string; bytes: number }>) m.set(`search:${r.name}`, r.bytes);
  return m;
}
