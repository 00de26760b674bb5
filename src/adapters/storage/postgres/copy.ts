// `caravan migrate-to --database-url postgres://…`, the engines' part: copies a SQLite database into an empty
// PostgreSQL database.
//
// 1. The target must be empty (no table, view or sequence in its `public` schema): a copy never merges into data.
// 2. An online backup of the SQLite database is taken first (the same checked copy `caravan backup` makes) and the
//    copy is read from that backup, so it is one consistent moment of the source even if writes were not stopped.
// 3. In ONE PostgreSQL transaction: the schema is created (the migrations), the rows the migrations seed are removed,
//    user triggers are disabled while rows are copied (the list counters and delivery counters are copied as they
//    are, not counted again; the audit tables' append-only triggers stay in force for everyone else), identity
//    sequences are moved past the copied numbers, the triggers are enabled again, the row counts of every table are
//    compared with the source, and a sample of sealed values is opened with the master key. Any failure rolls the
//    whole transaction back: the target is left empty, as it was.
//
// Sealed values are copied as they are (ciphertext): the master key that sealed them must be the one the PostgreSQL
// deployment starts with.
import { join } from "node:path";
import { StorageError } from "../../../ports/store.ts";
import { identityContext } from "../../../domain/identity.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import { Sealer } from "../../crypto/envelope.ts";
import { openClient, refuseNewerSqlite } from "../index.ts";
import { backupDatabase } from "../backup.ts";
import { migratePg } from "./migrate.ts";
import { openPostgres } from "./index.ts";
import { databaseTarget, type PgParam, type PgSession } from "./session.ts";
import { KEY_CHECK, KEY_CHECK_TEXT } from "../../../domain/key-check.ts";
import type { SqlClient } from "../types.ts";
import type { MigrateToResult } from "../../../ports/migrate-to.ts";

export type { MigrateToResult };

/** SQLite tables with no PostgreSQL twin: derived data the PostgreSQL engine keeps otherwise. */
const DERIVED = new Set(["transfers_search_pending"]);

export interface MigrateToOptions {
  /** The SQLite database (CARAVAN_DB). */
  readonly dbPath: string;
  readonly url: string;
  readonly masterKey: MasterKey;
  /** Where the online backup goes (default `<db>.before-postgres-<time>.db` beside the database). */
  readonly backupTo?: string;
  readonly busyTimeoutMs?: number;
  readonly clock?: () => number;
  /** Rows per INSERT (default: as many as 60,000 parameters allow, at most 1,000). */
  readonly batchRows?: number;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The SQLite tables a copy reads: base tables, not SQLite's own, not drizzle's journal, not FTS5 tables and their shadows. */
function sqliteTables(client: SqlClient): string[] {
  const rows = client.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string; sql: string | null }[];
  const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql ?? "")).map((r) => r.name);
  return rows
    .map((r) => r.name)
    .filter((n) => !n.startsWith("sqlite_") && n !== "__drizzle_migrations" && !virtual.includes(n) && !virtual.some((v) => n.startsWith(`${v}_`)));
}

/** `tables` ordered so a table comes after every table its foreign keys name (the rows they refer to exist first). */
async function referencedFirst(session: PgSession, tables: string[]): Promise<string[]> {
  const edges = await session.q<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE k.contype = 'f' AND s.nspname = 'public' AND c.relname <> p.relname`,
  );
  const out: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (t: string, path: string[]) => {
    if (state.get(t) === "done") return;
    if (state.get(t) === "visiting") throw new StorageError(`foreign keys form a cycle (${[...path, t].join(" → ")}): the copy cannot order them`);
    state.set(t, "visiting");
    for (const e of edges) if (e.child === t && tables.includes(e.parent)) visit(e.parent, [...path, t]);
    state.set(t, "done");
    out.push(t);
  };
  for (const t of tables) visit(t, []);
  return out;
}

async function isEmpty(session: PgSession): Promise<number> {
  const [row] = await session.read<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')",
  );
  return row?.n ?? 0;
}

/** A value as PostgreSQL takes it for a column of `type` (SQLite's dynamic typing may have stored a number in a text column). */
function toPg(value: unknown, type: string): PgParam {
  if (value === null || value === undefined) return null;
  if (type === "bytea") return value instanceof Uint8Array ? value : new TextEncoder().encode(String(value));
  if (type === "text") return typeof value === "string" ? value : value instanceof Uint8Array ? new TextDecoder().decode(value) : String(value);
  if (typeof value === "bigint") return value.toString();
  return value as PgParam;
}

async function copyTable(client: SqlClient, session: PgSession, table: string, batchRows: number | undefined): Promise<number> {
  const pgColumns = await session.q<{ name: string; type: string }>(
    "SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
    [table],
  );
  const liteColumns = (client.prepare(`PRAGMA table_info(${q(table)})`).all() as { name: string }[]).map((c) => c.name);
  const missing = liteColumns.filter((c) => !pgColumns.some((p) => p.name === c));
  if (missing.length > 0) throw new StorageError(`table ${table}: the PostgreSQL schema lacks column(s) ${missing.join(", ")}`);
  const columns = pgColumns.filter((p) => liteColumns.includes(p.name));
  const per = Math.max(1, Math.min(batchRows ?? 1000, Math.floor(60000 / columns.length)));
  const list = columns.map((c) => q(c.name)).join(", ");
  // Read a batch at a time in rowid order (a large database is never held in memory whole); a WITHOUT ROWID table
  // is read whole, in its key's order.
  const withoutRowid = /WITHOUT\s+ROWID/i.test((client.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql?: string } | undefined)?.sql ?? "");
  const next = withoutRowid
    ? client.prepare(`SELECT ${list}, 0 AS "__after" FROM ${q(table)}`)
    : client.prepare(`SELECT ${list}, rowid AS "__after" FROM ${q(table)} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
  let after = Number.MIN_SAFE_INTEGER;
  let copied = 0;
  for (;;) {
    const batch = (withoutRowid ? next.all() : next.all(after, per)) as Record<string, unknown>[];
    for (let i = 0; i < batch.length; i += per) {
      const chunk = batch.slice(i, i + per);
      const params: PgParam[] = [];
      const tuples = chunk.map((r) => `(${columns.map((c) => (params.push(toPg(r[c.name], c.type)), `$${params.length}`)).join(", ")})`);
      await session.q(`INSERT INTO ${q(table)} (${list}) VALUES ${tuples.join(", ")}`, params);
    }
    copied += batch.length;
    if (withoutRowid || batch.length < per) return copied;
    after = Number(batch[batch.length - 1]!.__after);
  }
}

/** Opens the key check and up to 20 customers' identities with the master key; answers how many were opened. */
async function checkSealed(session: PgSession, key: MasterKey): Promise<number> {
  let opened = 0;
  const [check] = await session.q<{ value: string }>("SELECT value FROM database_meta WHERE key = $1", [KEY_CHECK]);
  if (check) {
    let ok = false;
    try {
      ok = new Sealer(key.derive("key-check")).open(check.value, KEY_CHECK) === KEY_CHECK_TEXT;
    } catch {
      ok = false;
    }
    if (!ok) throw new StorageError("the master key is not the key that sealed this database: the copy was rolled back (use the key the SQLite deployment ran with)");
    opened++;
  }
  const pii = new Sealer(key.derive("pii"));
  for (const c of await session.q<{ id: string; identity_sealed: string }>("SELECT id, identity_sealed FROM customers WHERE identity_sealed IS NOT NULL ORDER BY id LIMIT 20")) {
    try {
      pii.open(c.identity_sealed, identityContext(c.id));
    } catch {
      throw new StorageError(`customer ${c.id}: its sealed identity does not open with the master key after the copy; the copy was rolled back`);
    }
    opened++;
  }
  return opened;
}

/** Copies the SQLite database at `dbPath` into the empty PostgreSQL database at `url` (see the top of this file). */
export async function migrateToPostgres(o: MigrateToOptions): Promise<MigrateToResult> {
  const clock = o.clock ?? Date.now;
  const startedAt = new Date(clock()).toISOString();
  const session = await openPostgres(o.url, { migrate: false, readers: 1 });
  try {
    const existing = await isEmpty(session);
    if (existing > 0)
      throw new StorageError(`the target database ${databaseTarget(o.url)} is not empty (${existing} relations in its public schema): migrate-to copies only into an empty database`);
    const stamp = startedAt.replace(/[:.]/g, "-");
    const backup = await backupDatabase({ dbPath: o.dbPath, to: o.backupTo ?? join(`${o.dbPath}.before-postgres-${stamp}.db`), busyTimeoutMs: o.busyTimeoutMs, clock });
    const client = await openClient(backup.file);
    try {
      // A source a newer Caravan migrated has columns and tables this build's PostgreSQL schema lacks.
      refuseNewerSqlite(client, o.dbPath);
      const lite = sqliteTables(client);
      const out = await session.transaction(async () => {
        await migratePg(session);
        const inPg = new Set(
          (await session.q<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")).map((r) => r.name),
        );
        inPg.delete("caravan_migrations");
        const skipped: { name: string; reason: string }[] = [];
        const copied: string[] = [];
        for (const t of lite) {
          if (inPg.has(t)) copied.push(t);
          else if (DERIVED.has(t)) skipped.push({ name: t, reason: "derived data (SQLite's search queue); PostgreSQL searches the rows themselves" });
          else throw new StorageError(`table ${t} of ${o.dbPath} has no PostgreSQL twin: this Caravan cannot copy that database (is it newer than this version?)`);
        }
        for (const t of inPg) await session.q(`ALTER TABLE ${q(t)} DISABLE TRIGGER USER`);
        // What the migrations seeded (the default company) comes from the source instead.
        for (const t of (await referencedFirst(session, [...inPg])).reverse()) await session.q(`DELETE FROM ${q(t)}`);
        const tables: { name: string; rows: number }[] = [];
        for (const t of await referencedFirst(session, copied)) {
          try {
            tables.push({ name: t, rows: await copyTable(client, session, t, o.batchRows) });
          } catch (e) {
            if (e instanceof StorageError || session.faultOf(e)) throw e;
            throw new StorageError(`table ${t}: ${(e as Error).message}; the copy was rolled back`);
          }
        }
        const identities = await session.q<{ t: string; c: string }>(
          "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND is_identity = 'YES'",
        );
        for (const { t, c } of identities)
          await session.q(`SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT max(${q(c)}) FROM ${q(t)}), 0) + 1, false)`, [q(t), c]);
        for (const t of inPg) await session.q(`ALTER TABLE ${q(t)} ENABLE TRIGGER USER`);
        for (const t of tables) {
          const [row] = await session.q<{ n: number }>(`SELECT count(*)::int AS n FROM ${q(t.name)}`);
          const source = (client.prepare(`SELECT count(*) AS n FROM ${q(t.name)}`).get() as { n: number }).n;
          if (row?.n !== source || t.rows !== source) throw new StorageError(`table ${t.name}: ${row?.n} rows in PostgreSQL, ${source} in the source; the copy was rolled back`);
        }
        const sealedChecked = await checkSealed(session, o.masterKey);
        return { tables, skipped, sealedChecked };
      });
      return { source: o.dbPath, backup: backup.file, target: databaseTarget(o.url), ...out, startedAt, finishedAt: new Date(clock()).toISOString() };
    } finally {
      client.close();
    }
  } finally {
    await session.close();
  }
}
