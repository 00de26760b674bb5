// `caravan backup`, the engine's part: a consistent online copy of the live database, checked, written beside the
// target under a temporary private name, flushed to disk, then renamed into place, so the target either does not exist
// or is a complete, checked backup. The CLI's command (src/cli/backup.ts) reads its options and prints the result; the
// CLI's entry (src/cli/entry.ts) hands it `backupDatabase` bound to the configured database.
//
// SQLite's `VACUUM INTO` reads the database inside one read transaction: under WAL, the server's writers keep
// committing while it runs and the copy is the database exactly as of the moment the copy began (no torn
// transactions, no half-applied batch). The copy is one self-contained file (rollback-journal mode, no -wal/-shm).
// A PostgreSQL backend's twin is `pg_dump` (one snapshot) and a restore check.
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { openClient, openStorage, StorageError } from "./index.ts";
import type { BackupResult } from "../../ports/backup.ts";

export type { BackupResult };

/**
 * Copies the database at `database` into `into`, an empty file that already exists (created private by the caller).
 * No migrations are run: a backup taken before an upgrade must be the database as the old version left it.
 */
export async function copyDatabase(database: string, into: string, opts: { busyTimeoutMs?: number } = {}): Promise<void> {
  const storage = await openStorage(database, { migrate: false, busyTimeoutMs: opts.busyTimeoutMs });
  try {
    storage.client.prepare("VACUUM INTO ?").run(into);
  } catch (e) {
    throw new StorageError(`backup of ${database} failed: ${(e as Error).message}`);
  } finally {
    storage.close();
  }
}

/**
 * Checks a copy (`PRAGMA quick_check`) and answers how many migrations it records (its schema version); a copy that
 * fails the check is a `StorageError` naming `database`, the source.
 */
export async function checkCopy(path: string, database: string): Promise<{ migrations: number }> {
  const copy = await openClient(path);
  try {
    const rows = copy.prepare("PRAGMA quick_check").all() as { quick_check?: string }[];
    const verdict = rows.map((r) => Object.values(r)[0]).join("; ");
    if (verdict !== "ok") throw new StorageError(`backup of ${database} failed its integrity check: ${verdict}`);
    const hasTable = copy.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
    const migrations = hasTable ? Number((copy.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n) : 0;
    return { migrations };
  } finally {
    copy.close();
  }
}

export interface BackupOptions {
  dbPath: string;
  to: string;
  busyTimeoutMs?: number;
  clock?: () => number;
}

function fsyncPath(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    fsyncSync(fd);
  } catch {
    /* some filesystems refuse fsync on directories: the copy itself was flushed */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Copies the database at `dbPath` to `to` (which must not exist) and checks the copy. */
export async function backupDatabase(opts: BackupOptions): Promise<BackupResult> {
  const clock = opts.clock ?? Date.now;
  const { dbPath } = opts;
  if (dbPath === ":memory:" || dbPath.startsWith("file:")) throw new StorageError(`cannot back up ${dbPath}: CARAVAN_DB must name a database file`);
  const database = resolve(dbPath);
  if (!existsSync(database)) throw new StorageError(`cannot back up ${database}: no such database (is CARAVAN_DB set as the server's?)`);
  const file = resolve(opts.to);
  if (file === database) throw new StorageError(`the backup file must not be the database itself (${file})`);
  if (existsSync(file)) throw new StorageError(`backup file ${file} already exists: choose a new name (a backup never overwrites)`);
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (e) {
    throw new StorageError(`cannot create the directory of ${file}: ${(e as Error).message}`);
  }

  const startedAt = new Date(clock()).toISOString();
  const partial = join(dirname(file), `.${basename(file)}.partial-${crypto.randomUUID().slice(0, 8)}`);
  let migrations = 0;
  try {
    // Created empty and private first (VACUUM INTO fills an empty file): the copy holds sealed personal data and
    // credentials, so it is never readable by others, not even while it is written.
    try {
      closeSync(openSync(partial, "wx", 0o600));
    } catch (e) {
      throw new StorageError(`backup of ${database} failed: ${(e as Error).message}`);
    }
    await copyDatabase(database, partial, { busyTimeoutMs: opts.busyTimeoutMs });
    ({ migrations } = await checkCopy(partial, database));
    chmodSync(partial, 0o600); // again, whatever the umask did to the mode at creation
    fsyncPath(partial);
    renameSync(partial, file);
    fsyncPath(dirname(file));
  } finally {
    rmSync(partial, { force: true });
  }
  return { database, file, bytes: statSync(file).size, migrations, integrity: "ok", startedAt, finishedAt: new Date(clock()).toISOString() };
}
