// The two storage steps of `caravan backup`: a consistent online copy of the live database, and the check of that
// copy. The CLI (src/cli/backup.ts) does the file handling around them (the private partial file, fsync, rename).
//
// SQLite's `VACUUM INTO` reads the database inside one read transaction: under WAL, the server's writers keep
// committing while it runs and the copy is the database exactly as of the moment the copy began (no torn
// transactions, no half-applied batch). The copy is one self-contained file (rollback-journal mode, no -wal/-shm).
// A PostgreSQL backend's twin is `pg_dump` (one snapshot) and a restore check.
import { openClient, openStorage, StorageError } from "./index.ts";

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
