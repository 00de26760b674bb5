// A test's own short-lived connection to the database a server under test uses (reads and the odd planted row), with
// a busy timeout so it waits for the server's writes instead of failing on a lock.
//
// On the PostgreSQL test engine (./test-engine.ts) `sqlRows` reads and writes the database that stands for the path
// instead, through `psql` (synchronous, as here): the same statement text, so only SQL both engines read may go through
// it; its `?` parameters are sent as quoted literals, and a bytea value comes back as bytes (a Uint8Array, as a BLOB does). `withDb` hands out SQLite's own handle and stays SQLite's.
import { Database } from "bun:sqlite";
import { basename, dirname, join } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { testDatabaseNow } from "./test-engine.ts";
import { decodeEventBytes, decodeEventData } from "../../src/adapters/storage/event-data.ts";

export function withDb<T>(path: string, fn: (d: Database) => T): T {
  const d = new Database(path);
  try {
    d.exec("PRAGMA busy_timeout = 10000");
    return fn(d);
  } finally {
    d.close();
  }
}

/** Every row one statement answers (none for a change), over its own short-lived connection. */
export function sqlRows(path: string, q: string, ...args: (string | number | null)[]): Record<string, unknown>[] {
  const pg = testDatabaseNow(path);
  if (pg) return pgRows(pg, q, args);
  return withDb(path, (d) => d.query(q).all(...args) as Record<string, unknown>[]);
}

/** The events stored for an entity, oldest first, their data parsed (SQLite: TEXT or the compact BLOB; PostgreSQL: bytea). */
export function storedEvents(path: string, entityId: string): { type: string; data: any }[] {
  return (sqlRows(path, "SELECT type, data FROM events WHERE entity_id = ? ORDER BY seq", entityId) as { type: string; data: string | Uint8Array }[]).map((e) => ({
    type: e.type,
    data: JSON.parse(typeof e.data === "string" ? decodeEventData(e.data) : decodeEventBytes(e.data)),
  }));
}

/**
 * Every byte the database holds: on SQLite the main file, its WAL and anything else beside it named after it (as it
 * is, no checkpoint); on PostgreSQL a `pg_dump` of the database (schema and data).
 */
export function storedBytes(path: string): Buffer {
  const pg = testDatabaseNow(path);
  if (pg) return Buffer.from(pgDump(pg));
  const base = basename(path);
  const files = readdirSync(dirname(path)).filter((f) => f.startsWith(base));
  if (!files.includes(base)) throw new Error(`no database file ${path}`);
  return Buffer.concat(files.map((f) => readFileSync(join(dirname(path), f))));
}

function pgDump(pg: { bin: string; url: string }): string {
  const r = Bun.spawnSync([join(pg.bin, "pg_dump"), "--no-owner"], { env: pgEnv(pg.url), stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`pg_dump failed: ${r.stderr.toString().trim()}`);
  const text = r.stdout.toString();
  if (!text.includes("CREATE TABLE")) throw new Error("pg_dump answered no schema");
  return text;
}

/**
 * Everything the database holds, as text, to prove a value is not stored in the clear: on SQLite the file and its WAL
 * (after a full checkpoint) read as latin1; on PostgreSQL a `pg_dump` of the database (schema and data).
 */
export function storedText(path: string): string {
  const pg = testDatabaseNow(path);
  if (pg) return pgDump(pg);
  withDb(path, (d) => d.exec("PRAGMA wal_checkpoint(FULL)"));
  let text = "";
  for (const f of [path, `${path}-wal`]) {
    try {
      text += readFileSync(f).toString("latin1");
    } catch {}
  }
  return text;
}

/** psql's and pg_dump's connection settings for a URL: the password in the environment, never on a command line. */
function pgEnv(url: string): Record<string, string | undefined> {
  const u = new URL(url);
  return { ...process.env, PGHOST: u.hostname, PGPORT: u.port, PGUSER: decodeURIComponent(u.username), PGPASSWORD: decodeURIComponent(u.password), PGDATABASE: u.pathname.slice(1) };
}

function literal(v: string | number | null): string {
  if (v === null) return "NULL";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`sqlRows: not a number PostgreSQL can take: ${v}`);
    return String(v);
  }
  return `'${v.replaceAll("'", "''")}'`;
}

function pgRows(pg: { bin: string; url: string }, q: string, args: (string | number | null)[]): Record<string, unknown>[] {
  let i = 0;
  const text = q.replace(/\?/g, () => {
    if (i >= args.length) throw new Error(`sqlRows: more ? than parameters in ${q}`);
    return literal(args[i++]!);
  });
  if (i !== args.length) throw new Error(`sqlRows: ${args.length} parameters for ${i} ? in ${q}`);
  const reads = /^\s*(SELECT|WITH)\b/i.test(text);
  const statement = reads ? `SELECT coalesce(json_agg(t), '[]'::json) FROM (${text}) t` : text;
  const r = Bun.spawnSync([join(pg.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement], {
    env: pgEnv(pg.url),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`sqlRows on PostgreSQL: ${r.stderr.toString().trim()} (in ${q})`);
  if (!reads) return [];
  const rows = JSON.parse(r.stdout.toString()) as Record<string, unknown>[];
  // bytea comes out of json_agg as `\x` and hex digits: back to bytes, as SQLite answers a BLOB.
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) if (typeof v === "string" && /^\\x(?:[0-9a-f]{2})*$/.test(v)) row[k] = new Uint8Array(Buffer.from(v.slice(2), "hex"));
  }
  return rows;
}
