// Opens the SQLite database with the driver of the running runtime and applies migrations.
import { accessSync, chmodSync, closeSync, constants, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SQLiteBunSession } from "drizzle-orm/bun-sqlite/session";
import { BaseSQLiteDatabase, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm";
import * as schema from "../../../db/schema/index.ts";
import type { Db, SearchStore, SqlClient, SqlStatement, Storage } from "./types.ts";
import { attachSearch, reconcile, searchFilePath } from "./search-index.ts";
import { readMeta, recordMetaOnce } from "./meta.ts";
import { statementCache } from "./statements.ts";
import { beaconPath, openBeacon, type ChangeBeacon } from "./change-beacon.ts";
import { checkoutMigrationsFolder, defaultSource, folderSource, loadMigrations, schemaTooNewMessage } from "./migrations.ts";

import { StorageHealth, storeFault } from "./faults.ts";
import { ConnectionGate } from "./gate.ts";
import { createMailbox } from "./repos/mailbox.ts";

export type { Db, SqlClient, SqlStatement, Storage, SqlValue, SearchStore } from "./types.ts";
export { StorageHealth, StorageUnavailableError, storeFault, type StoreFault } from "./faults.ts";

import { StorageError } from "../../ports/store.ts";

export { StorageError } from "../../ports/store.ts";

/**
 * The checkout's `db/migrations` when running from source; empty inside a `bun build --compile` executable,
 * which migrates from the copies embedded in it (see ./migrations.ts).
 */
export const defaultMigrationsFolder = checkoutMigrationsFolder;

export interface OpenOptions {
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  migrationsFolder?: string;
  /** How long a write waits for another connection's lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Open the transfer search index (default: when migrating; a backup's copy and checks go without). */
  search?: boolean;
  /** How long after the last store fault a successful commit marks the store available again (default 5000 ms). */
  healthSettleMs?: number;
}

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

/**
 * How old a `data_version` the change beacon may vouch for: past this, the next read is exact whatever the beacon
 * says. Caravan's own processes signal every commit, so this bounds only what a tool writing the file directly (the
 * sqlite3 shell) changes: seen within this many milliseconds instead of from the next request.
 */
export const DATA_VERSION_BOUND_MS = 100;

/** The change beacon beside a database file (./change-beacon.ts), mapped under Bun; undefined for memory. */
async function changeBeacon(path: string): Promise<ChangeBeacon | undefined> {
  const file = beaconPath(path);
  if (file === null) return undefined;
  return openBeacon(file, isBun ? (await import("./bun.ts")).mapShared : undefined);
}

/** A bare client of the running runtime's driver: no pragmas, no migrations (backups open their copy with it). */
export async function openClient(path: string): Promise<SqlClient> {
  if (isBun) return (await import("./bun.ts")).openBunClient(path);
  return (await import("./node.ts")).openNodeClient(path);
}

function describe(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (/not a database|malformed|corrupt/i.test(msg)) return `database file is corrupt or not SQLite (${msg})`;
  if (/locked|busy/i.test(msg)) return `database is locked by another process (${msg})`;
  if (/unable to open|readonly|read-only|permission|EACCES/i.test(msg)) return `cannot open or write database (${msg})`;
  return msg;
}

function prepareDirectory(path: string): void {
  if (path === ":memory:" || path.startsWith("file:")) return;
  const dir = dirname(resolve(path));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new StorageError(`data directory ${dir} is not writable: ${(e as Error).message}`);
  }
  makePrivate(path);
}

/**
 * The database file is created by us, empty and mode 0600, before SQLite opens it: SQLite then gives its -wal and
 * -shm files the database file's mode, whatever the umask. A file left readable by others (an older version, a copy)
 * is narrowed to 0600 with its -wal and -shm; a file of another owner is left as it is (chmod is refused).
 */
function makePrivate(path: string): void {
  try {
    closeSync(openSync(path, "wx", 0o600));
  } catch {
    /* it exists (or cannot be created: opening it reports that) */
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-changes`]) {
    try {
      if (statSync(file).mode & 0o077) chmodSync(file, 0o600);
    } catch {
      /* absent, or not ours to change */
    }
  }
}

export async function openStorage(path: string, opts: OpenOptions = {}): Promise<Storage> {
  prepareDirectory(path);
  let client: SqlClient;
  try {
    client = await openClient(path);
  } catch (e) {
    throw new StorageError(`${path}: ${describe(e)}`);
  }
  try {
    client.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    if (path !== ":memory:") {
      const mode = client.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode?: string } | undefined;
      if (mode?.journal_mode !== "wal") throw new Error(`journal_mode is ${mode?.journal_mode}, WAL required`);
    }
    client.exec("PRAGMA synchronous = NORMAL");
    client.exec("PRAGMA foreign_keys = ON");
    // Savepoint journals (one per unit of a group commit) and sorts stay in memory, never in temp files.
    client.exec("PRAGMA temp_store = MEMORY");
    // 32 MiB of page cache (the default is 2 MiB): the hot index and table pages of reads and creates stay in
    // memory; bounded, so memory does not grow with the database.
    client.exec("PRAGMA cache_size = -32768");
    client.prepare("SELECT count(*) AS n FROM sqlite_master").get();
  } catch (e) {
    try { client.close(); } catch { /* already failing */ }
    throw new StorageError(`${path}: ${describe(e)}`);
  }

  const storage = makeStorage(path, client, await changeBeacon(path), opts.healthSettleMs);
  if (opts.migrate !== false) {
    try {
      migrate(storage, opts.migrationsFolder);
    } catch (e) {
      storage.close();
      throw e instanceof StorageError ? e : new StorageError(`${path}: migration failed: ${describe(e)}`);
    }
  }
  if (opts.search ?? opts.migrate !== false) {
    try {
      await openSearch(storage, opts.busyTimeoutMs);
    } catch (e) {
      storage.close();
      throw e instanceof StorageError ? e : new StorageError(`${searchFilePath(path) ?? path}: search index: ${describe(e)}`);
    }
  }
  return storage;
}

/**
 * The search index (search-index.ts): a file database gets a second connection with `<path>-search` attached; an
 * in-memory one attaches an in-memory index to its only connection. Then the index is checked against this
 * database (its identity is recorded once in database_meta) and rebuilt when it does not match.
 */
async function openSearch(storage: Storage, busyTimeoutMs = 5000): Promise<void> {
  const file = searchFilePath(storage.path);
  let search: SearchStore & { close(): void };
  if (file === null) {
    attachSearch(storage.client, null);
    search = { file, stmt: storage.stmt, exec: (sql) => storage.client.exec(sql), read: storage.read, close: () => {} };
  } else {
    makePrivate(file);
    const client = await openClient(storage.path);
    try {
      client.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      client.exec("PRAGMA temp_store = MEMORY");
      attachSearch(client, file);
    } catch (e) {
      try { client.close(); } catch { /* already failing */ }
      throw e;
    }
    search = connectionStore(file, client);
  }
  (storage as { search?: SearchStore }).search = search;
  const close = storage.close;
  (storage as { close: () => void }).close = () => {
    search.close();
    close();
  };
  // The database's identity, recorded once (read first: most opens find it, and a write would wait for the server's lock).
  if (readMeta(storage, "database_id") === undefined) storage.tx(() => recordMetaOnce(storage, "database_id", crypto.randomUUID()));
  reconcile(search, readMeta(storage, "database_id")!);
}

/** A second connection's statements (prepared once) and read snapshots. */
function connectionStore(file: string, client: SqlClient): SearchStore & { close(): void } {
  const { stmt, finalizeAll } = statementCache(client);
  let depth = 0;
  return {
    file,
    stmt,
    exec: (sql) => client.exec(sql),
    read<T>(fn: () => T): T {
      if (depth > 0) return fn();
      stmt("BEGIN").run();
      depth++;
      try {
        return fn();
      } finally {
        depth--;
        stmt("COMMIT").run();
      }
    },
    close() {
      finalizeAll();
      client.close();
    },
  };
}

function makeStorage(path: string, client: SqlClient, beacon?: ChangeBeacon, healthSettleMs?: number): Storage {
  const dialect = new SQLiteSyncDialect();
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  const rel = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  const session = new SQLiteBunSession(client as never, dialect, rel as never, {});
  const db = new BaseSQLiteDatabase("sync", dialect, session as never, rel as never) as unknown as Db;
  const { stmt, finalizeAll } = statementCache(client);
  let depth = 0;
  let closed = false;
  let version = -1;
  let versionReadThisTurn = false;
  let exactVersion = -1;
  let exactAt = -Infinity;
  /** Transaction control through prepared statements (exec would parse the text on every commit). */
  const ctl = (sql: string): void => void stmt(sql).run();
  const health = new StorageHealth(Date.now, healthSettleMs);
  const gate = new ConnectionGate();
  /** Whether a transaction is still open (a driver that cannot tell: assume it is, and try). */
  const open = (): boolean => client.inTransaction ?? true;
  /**
   * A synchronous unit started by another flow while one flow's asynchronous unit holds the connection would join
   * that unit (commit or roll back with it): refused, loudly, instead.
   */
  function intrusion(what: string): void {
    if (gate.held() && !gate.inside()) throw new Error(`${what} was started while another unit of work holds the connection: use storage.run or storage.transaction`);
  }
  /** The top-level transaction committed: other processes are told (the beacon), and the store's health. */
  function committed(): void {
    ctl("COMMIT");
    beacon?.signal();
    health.succeeded();
  }
  /**
   * The top-level transaction failed: rolled back if still open (SQLite has already rolled back after SQLITE_FULL and
   * some I/O errors), the store's health told of a store fault, and the original error thrown again: a failing
   * ROLLBACK ("no transaction is active") must never replace the cause.
   */
  function rolledBack(e: unknown): never {
    if (open()) {
      try {
        ctl("ROLLBACK");
      } catch {
        /* the original error says what happened */
      }
    }
    const fault = storeFault(e);
    if (fault) health.failed(fault);
    throw e;
  }
  /**
   * A savepoint's work undone. A full disk or an I/O error can make SQLite roll the whole transaction back by itself:
   * then there is no savepoint to go back to, and the error to pass on is the first one, not "no such savepoint".
   */
  function undoSavepoint(sp: string): void {
    if (!open()) return;
    try {
      ctl(`ROLLBACK TO ${sp}`);
      ctl(`RELEASE ${sp}`);
    } catch {
      /* the transaction ended under us: the caller's own rollback (or SQLite's) finishes it */
    }
  }
  /** A nested unit of work: a savepoint of the open transaction (a failure inside undoes only its own writes). */
  async function savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const sp = `sp${depth}`;
    ctl(`SAVEPOINT ${sp}`);
    depth++;
    try {
      const out = await fn();
      ctl(`RELEASE ${sp}`);
      return out;
    } catch (e) {
      undoSavepoint(sp);
      throw e;
    } finally {
      depth--;
    }
  }
  const storage: Storage = {
    path,
    client,
    db,
    stmt,
    health,
    tx<T>(fn: () => T): T {
      intrusion("a transaction");
      if (depth > 0) {
        const sp = `sp${depth}`;
        ctl(`SAVEPOINT ${sp}`);
        depth++;
        try {
          const out = fn();
          ctl(`RELEASE ${sp}`);
          return out;
        } catch (e) {
          undoSavepoint(sp);
          throw e;
        } finally {
          depth--;
        }
      }
      ctl("BEGIN IMMEDIATE");
      depth++;
      try {
        const out = fn();
        committed();
        return out;
      } catch (e) {
        return rolledBack(e);
      } finally {
        depth--;
      }
    },
    async probeWrite(now: number): Promise<boolean> {
      try {
        await storage.transaction(async () => void stmt("INSERT INTO database_meta (key, value) VALUES ('write_probe', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(new Date(now).toISOString()));
        return true;
      } catch (e) {
        if (!storeFault(e)) throw e;
        return false;
      }
    },
    faultOf: storeFault,
    runtimeStore: (o = {}) => createMailbox(storage, o),
    run: (fn) => gate.run(fn),
    transaction<T>(fn: () => Promise<T>): Promise<T> {
      if (gate.inside()) return savepoint(fn);
      return gate.hold(async () => {
        ctl("BEGIN IMMEDIATE");
        depth++;
        try {
          const out = await fn();
          committed();
          return out;
        } catch (e) {
          return rolledBack(e);
        } finally {
          depth--;
        }
      });
    },
    readTurn<T>(fn: () => T): T | Promise<T> {
      if (gate.inside()) return fn(); // inside a unit of work: its view
      // fn's synchronous part (a read route's authentication and its handler up to the first await) in one read
      // snapshot, once no unit of work holds the connection; what it awaits afterwards reads statement by statement.
      // Holding the snapshot across those awaits too serialized concurrent requests: 20 % fewer reads/s at 32 in flight.
      return gate.turn(() => storage.read(fn));
    },
    snapshot<T>(fn: () => Promise<T>): Promise<T> {
      if (gate.inside()) return fn();
      return gate.hold(async () => {
        ctl("BEGIN");
        depth++;
        try {
          return await fn();
        } finally {
          depth--;
          ctl("COMMIT");
        }
      });
    },
    read<T>(fn: () => T): T {
      intrusion("a read snapshot");
      if (depth > 0) return fn();
      ctl("BEGIN");
      depth++;
      try {
        return fn();
      } finally {
        depth--;
        ctl("COMMIT");
      }
    },
    dataVersion(): number {
      // Outside a transaction, with the beacon mapped: the exact read only when some process committed since the
      // last one (or it is older than the bound). Inside a transaction the read is the snapshot's, so it never
      // vouches for the beacon's word; it takes the per-turn path below with its own value.
      if (beacon?.mapped && depth === 0) {
        const now = performance.now();
        if (!beacon.moved() && now - exactAt < DATA_VERSION_BOUND_MS) return exactVersion;
        beacon.take();
        exactAt = now;
        exactVersion = (stmt("PRAGMA data_version").get() as { data_version: number }).data_version;
        return exactVersion;
      }
      if (!versionReadThisTurn) {
        version = (stmt("PRAGMA data_version").get() as { data_version: number }).data_version;
        versionReadThisTurn = true;
        queueMicrotask(() => (versionReadThisTurn = false));
      }
      return version;
    },
    close() {
      if (closed) return;
      closed = true;
      // Finalized first: bun:sqlite closes a connection only once its statements are (./statements.ts).
      finalizeAll();
      try { client.exec("PRAGMA optimize"); } catch { /* best effort */ }
      client.close();
      beacon?.close();
    },
  };
  return storage;
}

/** Applies pending migrations from `folder`, or by default from the checkout (source) or the executable (embedded). */
export function migrate(storage: Storage, folder?: string): void {
  let source;
  let migrations;
  try {
    source = folder ? folderSource(folder) : defaultSource();
    migrations = loadMigrations(source);
  } catch (e) {
    throw new StorageError((e as Error).message);
  }
  const entries = source.journal.entries;
  refuseNewerSqlite(storage.client, storage.path, entries);
  const d = (storage.db as unknown as { dialect: SQLiteSyncDialect; session: unknown });
  d.dialect.migrate(migrations, d.session as never, { migrationsFolder: folder ?? "" });
  recordTags(storage, entries);
}

/** Whether drizzle's table of applied migrations exists, and whether it has the `tag` column (0025 on). */
function migrationTable(client: SqlClient): { exists: boolean; tags: boolean } {
  const cols = client.prepare("SELECT name FROM pragma_table_info('__drizzle_migrations')").all() as { name: string }[];
  return { exists: cols.length > 0, tags: cols.some((c) => c.name === "tag") };
}

/**
 * A database a newer Caravan migrated (an applied migration after this build's newest journal time) is refused before
 * anything runs: drizzle would apply nothing and this build would run on a schema it does not know. The refusal names
 * the newest applied migration by its tag (recorded since 0025) or, failing that, its journal time.
 */
export function refuseNewerSqlite(client: SqlClient, where: string, entries: { when: number; tag: string }[] = defaultSource().journal.entries): void {
  const table = migrationTable(client);
  if (!table.exists) return;
  const newest = entries.reduce((a, e) => Math.max(a, e.when), 0);
  const row = client
    .prepare(`SELECT created_at AS at, ${table.tags ? "tag" : "NULL AS tag"} FROM __drizzle_migrations WHERE created_at > ? ORDER BY created_at DESC LIMIT 1`)
    .get(newest) as { at: number; tag: string | null } | undefined;
  if (!row) return;
  const theirs = row.tag ?? `one of ${new Date(Number(row.at)).toISOString()}`;
  throw new StorageError(schemaTooNewMessage("SQLite", where, theirs, entries.at(-1)?.tag));
}

/** Writes each applied migration's tag beside its row (drizzle records only the hash and the journal time). */
function recordTags(storage: Storage, entries: { when: number; tag: string }[]): void {
  if (!migrationTable(storage.client).tags) return;
  const missing = storage.client.prepare("SELECT count(*) AS n FROM __drizzle_migrations WHERE tag IS NULL").get() as { n: number };
  if (Number(missing.n) === 0) return;
  const set = storage.client.prepare("UPDATE __drizzle_migrations SET tag = ? WHERE created_at = ? AND tag IS NULL");
  storage.tx(() => {
    for (const e of entries) set.run(e.tag, e.when);
  });
}

/** Where the database is and how it is opened, from the environment (the server, the CLI and the tests read it alike). */
export function storageSettingsFromEnv(env: Record<string, string | undefined>): { dbPath: string; migrationsFolder?: string; busyTimeoutMs?: number } {
  return {
    dbPath: env.CARAVAN_DB || "./data/caravan.db",
    migrationsFolder: env.CARAVAN_MIGRATIONS || undefined,
    busyTimeoutMs: env.CARAVAN_BUSY_TIMEOUT_MS ? Number(env.CARAVAN_BUSY_TIMEOUT_MS) : undefined,
  };
}
