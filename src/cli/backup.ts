// `caravan backup --to <file>`: a consistent online copy of the live database, safe while the server runs.
//
// The copy is the database as of the moment it began, taken while the writers keep committing (copyDatabase in
// src/adapters/storage/backup.ts: SQLite's `VACUUM INTO`). It is written beside the target under a temporary name,
// checked (checkCopy: `PRAGMA quick_check`), flushed to disk, then renamed into place, so `<file>` either does not
// exist or is a complete, checked backup. The copy is one self-contained file (no -wal/-shm).
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { StorageError } from "../adapters/storage/index.ts";
import { checkCopy, copyDatabase } from "../adapters/storage/backup.ts";
import { UsageError } from "./usage.ts";

type Out = (line: string) => void;

const USAGE = "usage: caravan backup --to <file> [--json]   (the database is CARAVAN_DB; the copy must not exist yet)";

export interface BackupResult {
  database: string;
  file: string;
  bytes: number;
  /** Migrations recorded in the copy (its schema version). */
  migrations: number;
  integrity: "ok";
  startedAt: string;
  finishedAt: string;
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

export async function runBackup(argv: string[], env: { dbPath: string; busyTimeoutMs?: number }, out: Out): Promise<void> {
  let values: { to?: string; json?: boolean };
  try {
    values = parseArgs({ args: argv, options: { to: { type: "string" }, json: { type: "boolean" } }, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
  if (!values.to) throw new UsageError(`--to <file> is required\n${USAGE}`);
  const r = await backupDatabase({ dbPath: env.dbPath, to: values.to, busyTimeoutMs: env.busyTimeoutMs });
  if (values.json) out(JSON.stringify(r));
  else out(`caravan: backup of ${r.database} written to ${r.file} (${r.bytes} bytes, ${r.migrations} migrations, integrity ok, as of ${r.startedAt})`);
}
