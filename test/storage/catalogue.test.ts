// The two engines' catalogues side by side: SQLite's from a freshly migrated file (db/migrations), PostgreSQL's from a
// throwaway server with db/migrations-pg applied. Tables, columns, types (through TYPES and WIDE), nullability,
// defaults, primary keys, unique keys, foreign keys and indexes (by column lists and partial-ness; names may differ)
// must agree, except for the differences listed in DELIBERATE, each with its reason. A DELIBERATE entry that no longer
// matches a difference fails too, so the list never outlives the difference it explains.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { generateDrizzleJson, generateMigration } from "drizzle-kit/api";
import * as pgSchema from "../../db/schema-pg/index.ts";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { tempDir } from "../support/tmp.ts";
import { startPostgres } from "../support/postgres.ts";

setDefaultTimeout(120_000);

const root = resolve(import.meta.dir, "../..");

/** SQLite's declared type → the PostgreSQL type a column of it has, unless WIDE says otherwise. */
const TYPES: Record<string, string> = {
  TEXT: "text",
  INTEGER: "integer",
  BLOB: "bytea",
};

/**
 * SQLite INTEGER columns that are bigint on PostgreSQL (SQLite's INTEGER is 64-bit; PostgreSQL's integer is 32-bit):
 * milliseconds since the epoch (past 2^31 since 1970-01-25), and sequence numbers and positions in logs that only grow.
 */
const WIDE: Record<string, string[]> = {
  actor_messages: ["id", "due_at", "retry_at", "created_at"],
  actor_state: ["last_message_id", "updated_at"],
  actor_dead_letters: ["id", "created_at", "died_at"],
  events: ["seq"],
  audit_log: ["seq"],
  audit_trees: ["size"],
  audit_leaves: ["leaf_index", "entry_seq"],
  audit_tree_nodes: ["idx"],
  audit_checkpoints: ["tree_size"],
  case_notes: ["seq"],
  case_history: ["seq"],
  webhooks: ["active_from_seq", "failing_since", "response_ms_sum"],
  webhook_deliveries: ["event_seq", "next_retry_at", "retry_claim_until"],
};

/** Differences between the two catalogues that are meant, by the exact line `differences()` prints, with the reason. */
const DELIBERATE: Record<string, string> = {
  "table transfers_search_pending: only in sqlite":
    "SQLite's queue feeding its separate FTS5 search file; PostgreSQL searches transfers with pg_trgm indexes on the rows (a twin to write, not a table)",
  "column rules.seq: only in postgres": "insertion order of rules (SQLite's rowid, which PostgreSQL lacks): the keyset of rule lists and the order of the active rules",
  "rules: index (company_id, environment) only in sqlite": "SQLite's index carries the rowid after its columns; PostgreSQL's names seq, the rowid's twin",
  "rules: index (company_id, environment, seq) only in postgres": "the twin of SQLite's (company_id, environment) index, whose entries end in the rowid",
  "column events.data: type text (sqlite, mapped) vs bytea (postgres)":
    "SQLite's column takes the JSON text or its compact BLOB (CARAVAN_EVENTS_COMPACT) alike; PostgreSQL's text cannot hold the compact bytes, so it is bytea (the JSON text as UTF-8 bytes)",
  "table cluster_nodes: only in postgres": "several nodes on one database (migration 0011): a SQLite file is served by one process, the single node",
  "table event_streams: only in postgres": "every node's open event streams, counted for the stream caps (migration 0015): a SQLite file's one process counts its streams in memory",
  "table shard_leases: only in postgres": "the shard leases of several nodes (migration 0011): a SQLite file's one node holds every shard without a row",
  "table leader_lease: only in postgres": "the leader lease of several nodes (migration 0014): a SQLite file's one node always leads, without a row",
  "table actor_replies: only in postgres": "answers to asks that crossed nodes (migration 0013): on SQLite one process holds every actor and answers stay in memory",
  "transfers: index (<expr>) only in postgres":
    "transfers_search, a pg_trgm GIN index over the searched columns (migration 0003): the twin of SQLite's FTS5 transfers_search in its own file",
  "column customers.external_id_fold: only in postgres":
    "the external-ID search (SQLite's FTS5 table customers_search): caravan_fold(external_id), a stored generated column the pg_trgm index covers (migration 0004)",
  "customers: index (external_id_fold) only in postgres": "the external-ID search's pg_trgm GIN index (SQLite: the FTS5 table customers_search)",
  ...Object.fromEntries(
    ["address", "label", "customer_id"].map((c) => [
      `column wallets.${c}_fold: only in postgres`,
      `the wallet search (SQLite's FTS5 table wallets_search): caravan_fold(${c}), a stored generated column the pg_trgm index covers (migration 0004)`,
    ]),
  ),
  "wallets: index (address_fold, label_fold, customer_id_fold) only in postgres": "the wallet search's pg_trgm GIN index (SQLite: the FTS5 table wallets_search)",
};

/**
 * SQLite triggers without a PostgreSQL trigger of the same name on the same table, and PostgreSQL triggers SQLite has
 * no counterpart of, each with its reason. Every other trigger must exist on both, on the same table.
 */
const TRIGGER_TWINS_TO_WRITE: Record<string, string> = {
  ...Object.fromEntries(
    ["customers_search_insert", "customers_search_delete", "customers_search_update"].map((t) => [`trigger ${t} on customers: only in sqlite`, "feeds FTS5 customers_search; twin: a pg_trgm GIN index on customers, no trigger"]),
  ),
  ...Object.fromEntries(
    ["wallets_search_insert", "wallets_search_delete", "wallets_search_update"].map((t) => [`trigger ${t} on wallets: only in sqlite`, "feeds FTS5 wallets_search; twin: a pg_trgm GIN index on wallets, no trigger"]),
  ),
  ...Object.fromEntries(
    ["transfers_search_insert", "transfers_search_update", "transfers_search_delete"].map((t) => [
      `trigger ${t} on transfers: only in sqlite`,
      "feeds transfers_search_pending for the separate search file; twin: a pg_trgm GIN index on transfers, no trigger",
    ]),
  ),
  ...Object.fromEntries(
    ["companies", "members", "api_keys", "rules", "thresholds", "asset_policies"].flatMap((t) =>
      [`${t}_changes`, `${t}_changes_truncate`].map((name) => [
        `trigger ${name} on ${t}: only in postgres`,
        "the change notice (NOTIFY caravan_changes on commit): the caches' twin of SQLite's PRAGMA data_version, which needs no trigger",
      ]),
    ),
  ),
  ...Object.fromEntries(
    ["audit_log", "audit_leaves", "audit_tree_nodes", "audit_checkpoints"].map((t) => [
      `trigger ${t}_no_truncate on ${t}: only in postgres`,
      "TRUNCATE skips row triggers on PostgreSQL (SQLite has no TRUNCATE): append-only needs a statement trigger too",
    ]),
  ),
  ...Object.fromEntries(
    [
      ["actor_messages_wake", "actor_messages"],
      ["events_wake", "events"],
    ].map(([name, t]) => [
      `trigger ${name} on ${t}: only in postgres`,
      "a wake-up hint to the other nodes (NOTIFY on commit); SQLite is served by one process, which needs none",
    ]),
  ),
  "trigger actor_replies_notify on actor_replies: only in postgres": "the asking node's wake-up (NOTIFY caravan_replies on commit) on a table SQLite does not have",
};

interface Column {
  type: string;
  notNull: boolean;
  default: string | null;
}

interface Table {
  columns: Record<string, Column>;
  primaryKey: string;
  /** Unique keys and indexes, each `unique|index (cols)[ partial]`, sorted; names left out. */
  indexes: string[];
  /** `(cols) -> table(cols)`, sorted. */
  foreignKeys: string[];
}

type Catalogue = Record<string, Table>;

function normalDefault(d: string | null): string | null {
  if (d === null) return null;
  return d.replace(/::[a-z ]+$/, "").replace(/^\((.*)\)$/, "$1");
}

// ---- SQLite ----------------------------------------------------------------------------------------------------

async function sqliteCatalogue(): Promise<Catalogue> {
  const dir = tempDir();
  const path = join(dir, "catalogue.db");
  const storage = await openStorage(path);
  storage.close();
  const db = new Database(path, { readonly: true });
  try {
    const all = db.query("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as { name: string; sql: string }[];
    const virtual = all.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
    const tables = all
      .map((t) => t.name)
      .filter((n) => !n.startsWith("sqlite_") && n !== "__drizzle_migrations")
      // FTS5 tables and their shadow tables are SQLite's own (twins to write: pg_trgm indexes), not rows to compare.
      .filter((n) => !virtual.some((v) => n === v || n.startsWith(`${v}_`)));
    const out: Catalogue = {};
    for (const name of tables) {
      const sql = all.find((t) => t.name === name)!.sql;
      const info = db.query(`PRAGMA table_info(\`${name}\`)`).all() as { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }[];
      const columns: Record<string, Column> = {};
      const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      const autoincrement = /AUTOINCREMENT/i.test(sql);
      for (const c of info) {
        const declared = c.type.toUpperCase();
        const mapped = declared === "INTEGER" && WIDE[name]?.includes(c.name) ? "bigint" : (TYPES[declared] ?? `unmapped ${declared}`);
        const identity = autoincrement && pk.length === 1 && pk[0] === c.name;
        // A primary key column is NOT NULL on PostgreSQL; on SQLite only INTEGER PRIMARY KEY (the rowid) refuses NULL
        // by itself, so every primary key column counts as NOT NULL here (the ports never write a NULL key).
        columns[c.name] = { type: mapped, notNull: c.notnull === 1 || c.pk > 0, default: identity ? "identity" : normalDefault(c.dflt_value) };
      }
      const indexes: string[] = [];
      const list = db.query(`PRAGMA index_list(\`${name}\`)`).all() as { name: string; unique: number; origin: string; partial: number }[];
      for (const ix of list) {
        if (ix.origin === "pk") continue;
        const cols = (db.query(`PRAGMA index_info(\`${ix.name}\`)`).all() as { seqno: number; name: string | null }[]).sort((a, b) => a.seqno - b.seqno).map((c) => c.name ?? "<expr>");
        indexes.push(`${ix.unique ? "unique" : "index"} (${cols.join(", ")})${ix.partial ? " partial" : ""}`);
      }
      const fkRows = db.query(`PRAGMA foreign_key_list(\`${name}\`)`).all() as { id: number; seq: number; table: string; from: string; to: string | null }[];
      const byId = new Map<number, typeof fkRows>();
      for (const r of fkRows) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
      const foreignKeys = [...byId.values()].map((rs) => {
        rs.sort((a, b) => a.seq - b.seq);
        const target = rs[0]!.table;
        const to = rs.map((r) => r.to ?? sqlitePrimaryKey(db, target)[r.seq]);
        return `(${rs.map((r) => r.from).join(", ")}) -> ${target}(${to.join(", ")})`;
      });
      out[name] = { columns, primaryKey: pk.join(", "), indexes: indexes.sort(), foreignKeys: foreignKeys.sort() };
    }
    liteTriggers = (db.query("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string; tbl_name: string }[]).map((t) => `${t.name} on ${t.tbl_name}`);
    return out;
  } finally {
    db.close();
  }
}

function sqlitePrimaryKey(db: Database, table: string): string[] {
  const info = db.query(`PRAGMA table_info(\`${table}\`)`).all() as { name: string; pk: number }[];
  return info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
}

// ---- PostgreSQL: the tests' throwaway server (test/support/postgres.ts), a database of this suite's own ----------

let sql: ReturnType<typeof postgres> | undefined;

async function postgresCatalogue(url: string): Promise<Catalogue> {
  sql = postgres(url, { max: 1, onnotice: () => {} });
  await migrate(drizzle(sql), { migrationsFolder: join(root, "db/migrations-pg") });
  const cols = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null; is_identity: string }[]>`
    SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
  const out: Catalogue = {};
  for (const c of cols) {
    const t = (out[c.table_name] ??= { columns: {}, primaryKey: "", indexes: [], foreignKeys: [] });
    t.columns[c.column_name] = { type: c.data_type, notNull: c.is_nullable === "NO", default: c.is_identity === "YES" ? "identity" : normalDefault(c.column_default) };
  }
  const ixs = await sql<{ table_name: string; indisprimary: boolean; indisunique: boolean; partial: boolean; cols: string[] }[]>`
    SELECT t.relname AS table_name, i.indisprimary, i.indisunique, i.indpred IS NOT NULL AS partial,
      ARRAY(SELECT COALESCE(a.attname, '<expr>') FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
            LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n) AS cols
    FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
    WHERE ns.nspname = 'public'`;
  for (const ix of ixs) {
    const t = out[ix.table_name];
    if (!t) continue;
    if (ix.indisprimary) t.primaryKey = ix.cols.join(", ");
    else t.indexes.push(`${ix.indisunique ? "unique" : "index"} (${ix.cols.join(", ")})${ix.partial ? " partial" : ""}`);
  }
  const fks = await sql<{ table_name: string; cols: string[]; target: string; target_cols: string[] }[]>`
    SELECT t.relname AS table_name, f.relname AS target,
      ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS cols,
      ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS target_cols
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class f ON f.oid = c.confrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
    WHERE c.contype = 'f' AND ns.nspname = 'public'`;
  for (const fk of fks) out[fk.table_name]?.foreignKeys.push(`(${fk.cols.join(", ")}) -> ${fk.target}(${fk.target_cols.join(", ")})`);
  for (const t of Object.values(out)) {
    t.indexes.sort();
    t.foreignKeys.sort();
  }
  return out;
}

// ---- the comparison --------------------------------------------------------------------------------------------

function differences(lite: Catalogue, pg: Catalogue): string[] {
  const out: string[] = [];
  for (const name of Object.keys(lite).sort()) if (!pg[name]) out.push(`table ${name}: only in sqlite`);
  for (const name of Object.keys(pg).sort()) if (!lite[name]) out.push(`table ${name}: only in postgres`);
  for (const name of Object.keys(lite).sort()) {
    const a = lite[name]!;
    const b = pg[name];
    if (!b) continue;
    for (const col of Object.keys(a.columns)) {
      const x = a.columns[col]!;
      const y = b.columns[col];
      if (!y) {
        out.push(`column ${name}.${col}: only in sqlite`);
        continue;
      }
      if (x.type !== y.type) out.push(`column ${name}.${col}: type ${x.type} (sqlite, mapped) vs ${y.type} (postgres)`);
      if (x.notNull !== y.notNull) out.push(`column ${name}.${col}: ${x.notNull ? "NOT NULL" : "nullable"} (sqlite) vs ${y.notNull ? "NOT NULL" : "nullable"} (postgres)`);
      if (x.default !== y.default) out.push(`column ${name}.${col}: default ${x.default} (sqlite) vs ${y.default} (postgres)`);
    }
    for (const col of Object.keys(b.columns)) if (!a.columns[col]) out.push(`column ${name}.${col}: only in postgres`);
    if (a.primaryKey !== b.primaryKey) out.push(`primary key ${name}: (${a.primaryKey}) (sqlite) vs (${b.primaryKey}) (postgres)`);
    for (const ix of a.indexes) if (!b.indexes.includes(ix)) out.push(`${name}: ${ix} only in sqlite`);
    for (const ix of b.indexes) if (!a.indexes.includes(ix)) out.push(`${name}: ${ix} only in postgres`);
    for (const fk of a.foreignKeys) if (!b.foreignKeys.includes(fk)) out.push(`foreign key ${name} ${fk}: only in sqlite`);
    for (const fk of b.foreignKeys) if (!a.foreignKeys.includes(fk)) out.push(`foreign key ${name} ${fk}: only in postgres`);
  }
  return out;
}

let lite: Catalogue;
let pg: Catalogue;
let liteTriggers: string[];
let pgTriggers: string[];

beforeAll(async () => {
  lite = await sqliteCatalogue();
  pg = await postgresCatalogue(await (await startPostgres()).createDatabase());
  pgTriggers = (await sql!<{ name: string; table: string }[]>`
    SELECT t.tgname AS name, c.relname AS table FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE NOT t.tgisinternal AND ns.nspname = 'public'`).map((t) => `${t.name} on ${t.table}`);
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
});

test("both catalogues were read (the comparison has something to compare)", () => {
  expect(Object.keys(lite).length).toBeGreaterThan(30);
  expect(Object.keys(pg).length).toBeGreaterThan(30);
  expect(lite.transfers!.indexes.length).toBeGreaterThan(3);
  expect(pg.webhook_deliveries!.foreignKeys).toEqual(["(webhook_id) -> webhooks(id)"]);
});

test("every SQLite type has a PostgreSQL mapping", () => {
  const unmapped = Object.entries(lite).flatMap(([t, d]) => Object.entries(d.columns).filter(([, c]) => c.type.startsWith("unmapped")).map(([c, d]) => `${t}.${c}: ${d.type}`));
  expect(unmapped).toEqual([]);
});

test("the catalogues differ only where DELIBERATE says so, and every DELIBERATE entry is still a difference", () => {
  const found = differences(lite, pg);
  expect(found.filter((d) => !(d in DELIBERATE))).toEqual([]);
  expect(Object.keys(DELIBERATE).filter((d) => !found.includes(d))).toEqual([]);
});

test("db/schema-pg and db/migrations-pg agree: drizzle-kit would generate no migration from the schema", async () => {
  const journal = JSON.parse(readFileSync(join(root, "db/migrations-pg/meta/_journal.json"), "utf8")) as { entries: { idx: number }[] };
  const last = String(journal.entries.at(-1)!.idx).padStart(4, "0");
  const snapshot = JSON.parse(readFileSync(join(root, `db/migrations-pg/meta/${last}_snapshot.json`), "utf8")) as Parameters<typeof generateMigration>[0];
  const current = generateDrizzleJson(pgSchema as Record<string, unknown>, snapshot.id);
  expect(await generateMigration(snapshot, current)).toEqual([]);
  // and the comparison sees a change: a schema without one table would drop it
  const { webhooks: _dropped, ...fewer } = pgSchema;
  expect((await generateMigration(snapshot, generateDrizzleJson(fewer, snapshot.id))).join("\n")).toContain('DROP TABLE "webhooks"');
});

test("the WIDE list names columns that exist", () => {
  const missing = Object.entries(WIDE).flatMap(([t, cols]) => cols.filter((c) => !lite[t]?.columns[c]).map((c) => `${t}.${c}`));
  expect(missing).toEqual([]);
});

test("every SQLite trigger has a PostgreSQL twin of the same name on the same table, except those TRIGGER_TWINS_TO_WRITE lists", () => {
  const found = [
    ...liteTriggers.filter((t) => !pgTriggers.includes(t)).map((t) => `trigger ${t}: only in sqlite`),
    ...pgTriggers.filter((t) => !liteTriggers.includes(t)).map((t) => `trigger ${t}: only in postgres`),
  ].sort();
  expect(liteTriggers.length).toBeGreaterThan(20);
  expect(found.filter((d) => !(d in TRIGGER_TWINS_TO_WRITE))).toEqual([]);
  expect(Object.keys(TRIGGER_TWINS_TO_WRITE).filter((d) => !found.includes(d))).toEqual([]);
});

// What the PL/pgSQL twins do (SQLite's triggers are exercised by the repositories' own tests).

const AT = "2030-06-01T00:00:00.000Z";

test("PostgreSQL: the audit tables refuse UPDATE, DELETE and TRUNCATE", async () => {
  const db = sql!;
  await db`INSERT INTO audit_log (id, company_id, environment, actor_type, action, entity_type, entity_id, created_at)
    VALUES ('aud_1', 'cmp_1', 'test', 'system', 'company.created', 'company', 'cmp_1', ${AT})`;
  await expect(db`UPDATE audit_log SET action = 'x' WHERE id = 'aud_1'`).rejects.toThrow("audit_log is append-only");
  await expect(db`DELETE FROM audit_log WHERE id = 'aud_1'`).rejects.toThrow("audit_log is append-only");
  await expect(db`TRUNCATE audit_log`).rejects.toThrow("audit_log is append-only");
  for (const t of ["audit_leaves", "audit_tree_nodes", "audit_checkpoints"]) {
    await expect(db.unsafe(`DELETE FROM ${t}`)).resolves.toBeDefined(); // no rows: a row trigger has nothing to refuse
    await expect(db.unsafe(`TRUNCATE ${t}`)).rejects.toThrow(`${t} is append-only`);
  }
  expect((await db`SELECT action FROM audit_log WHERE id = 'aud_1'`)[0]!.action).toBe("company.created");
});

async function counts(): Promise<Record<string, number>> {
  const rows = await sql!<{ list: string; n: number }[]>`SELECT list, n FROM list_counts WHERE company_id = 'cmp_1' AND environment = 'test' ORDER BY list`;
  return Object.fromEntries(rows.map((r) => [r.list, r.n]));
}

test("PostgreSQL: list_counts follows inserts, status changes and deletes of customers", async () => {
  const db = sql!;
  for (const [id, status] of [["cus_1", "active"], ["cus_2", "active"], ["cus_3", "deactivated"]] as const) {
    await db`INSERT INTO customers (id, company_id, environment, status, created_at, updated_at) VALUES (${id}, 'cmp_1', 'test', ${status}, ${AT}, ${AT})`;
  }
  expect(await counts()).toEqual({ customers: 3, "customers:active": 2 });
  await db`UPDATE customers SET status = 'deactivated' WHERE id = 'cus_1'`;
  await db`UPDATE customers SET status = 'erased' WHERE id = 'cus_3'`; // neither active before nor after: no change
  await db`UPDATE customers SET version = 2 WHERE id = 'cus_2'`; // status untouched: no change
  expect(await counts()).toEqual({ customers: 3, "customers:active": 1 });
  await db`DELETE FROM customers WHERE id IN ('cus_2', 'cus_3')`;
  expect(await counts()).toEqual({ customers: 1, "customers:active": 0 });
});

test("PostgreSQL: a webhook's delivery counters follow its deliveries", async () => {
  const db = sql!;
  await db`INSERT INTO webhooks (id, company_id, environment, name, url, events, status, secret_sealed, created_at, updated_at)
    VALUES ('whk_1', 'cmp_1', 'test', 'hook', 'https://example.test/hook', '[]', 'active', 'sealed', ${AT}, ${AT})`;
  const delivery = (id: string, status: string, ms: number | null) => db`
    INSERT INTO webhook_deliveries (id, webhook_id, company_id, environment, event_type, body, status, max_attempts, response_time_ms, created_at, updated_at)
    VALUES (${id}, 'whk_1', 'cmp_1', 'test', 'test.ping', '{}', ${status}, 5, ${ms}, ${AT}, ${AT})`;
  await delivery("del_1", "pending", null);
  await delivery("del_2", "sent", 120);
  await delivery("del_3", "failed", 30);
  await db`UPDATE webhook_deliveries SET status = 'sent', response_time_ms = 50 WHERE id = 'del_1'`;
  await db`UPDATE webhook_deliveries SET status = 'failed' WHERE id = 'del_2'`;
  const [w] = await db`SELECT delivery_count, sent_count, failed_count, response_ms_sum, response_count FROM webhooks WHERE id = 'whk_1'`;
  // response_ms_sum is bigint: postgres.js hands int8 over as a string unless told otherwise.
  expect({ ...w }).toEqual({ delivery_count: 3, sent_count: 1, failed_count: 2, response_ms_sum: "200", response_count: 3 });
});
