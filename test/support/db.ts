// A test's own short-lived connection to the database a server under test uses (reads and the odd planted row), with
// a busy timeout so it waits for the server's writes instead of failing on a lock.
//
// On the PostgreSQL test engine (./test-engine.ts) `sqlRows` reads and writes the database that stands for the path
// instead, through `psql` (synchronous, as here): the same statement text, so only SQL both engines read may go through
// it; its `?` parameters are sent as quoted literals. `withDb` hands out SQLite's own handle and stays SQLite's.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { testDatabaseNow } from "./test-engine.ts";

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
export function sqlRows(path: string, q: string, ...args: (string | number)[]): Record<string, unknown>[] {
  const pg = testDatabaseNow(path);
  if (pg) return pgRows(pg, q, args);
  return withDb(path, (d) => d.query(q).all(...args) as Record<string, unknown>[]);
}

function literal(v: string | number): string {
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`sqlRows: not a number PostgreSQL can take: ${v}`);
    return String(v);
  }
  return `'${v.replaceAll("'", "''")}'`;
}

function pgRows(pg: { bin: string; url: string }, q: string, args: (string | number)[]): Record<string, unknown>[] {
  let i = 0;
  const text = q.replace(/\?/g, () => {
    if (i >= args.length) throw new Error(`sqlRows: more ? than parameters in ${q}`);
    return literal(args[i++]!);
  });
  if (i !== args.length) throw new Error(`sqlRows: ${args.length} parameters for ${i} ? in ${q}`);
  const reads = /^\s*(SELECT|WITH)\b/i.test(text);
  const statement = reads ? `SELECT coalesce(json_agg(t), '[]'::json) FROM (${text}) t` : text;
  const u = new URL(pg.url);
  const r = Bun.spawnSync([join(pg.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement], {
    // The password in the environment, never on a command line another process could read.
    env: { ...process.env, PGHOST: u.hostname, PGPORT: u.port, PGUSER: decodeURIComponent(u.username), PGPASSWORD: decodeURIComponent(u.password), PGDATABASE: u.pathname.slice(1) },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`sqlRows on PostgreSQL: ${r.stderr.toString().trim()} (in ${q})`);
  return reads ? (JSON.parse(r.stdout.toString()) as Record<string, unknown>[]) : [];
}
