// `caravan backup` on PostgreSQL: `pg_dump` in its custom format (one snapshot of the whole database, taken while the
// server keeps writing: pg_dump reads inside one REPEATABLE READ transaction), checked with `pg_restore --list`
// (the archive is readable and holds every table's data), written beside the target under a temporary private name
// and renamed into place, so the target either does not exist or is a complete, checked backup. Restore it into an
// empty database with `pg_restore --dbname=… --no-owner <file>` (docs/operations.md, "Running on PostgreSQL").
//
// The password never reaches the command line (where `ps` would show it): pg_dump gets the URL without it and the
// password in PGPASSWORD.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { StorageError } from "../../../ports/store.ts";
import type { BackupResult } from "../../../ports/backup.ts";
import { databaseTarget, maskDatabaseUrl } from "./session.ts";
import { openPostgres } from "./index.ts";

/** `url` split into the URL pg_dump is given (no password) and the password (PGPASSWORD). */
export function withoutPassword(url: string): { url: string; password: string | undefined } {
  const u = new URL(url);
  const password = u.password === "" ? undefined : decodeURIComponent(u.password);
  u.password = "";
  return { url: u.toString(), password };
}

/** A PostgreSQL client program: `CARAVAN_PG_BIN/<name>`, else the newest /usr/lib/postgresql/<n>/bin, else PATH. */
export function pgProgram(name: "pg_dump" | "pg_restore", env: Record<string, string | undefined> = process.env): string {
  if (env.CARAVAN_PG_BIN) return join(env.CARAVAN_PG_BIN, name);
  try {
    const majors = readdirSync("/usr/lib/postgresql").filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
    for (const m of majors) if (existsSync(join("/usr/lib/postgresql", m, "bin", name))) return join("/usr/lib/postgresql", m, "bin", name);
  } catch {
    /* not a Debian layout */
  }
  return name;
}

/** Runs a client program; answers its standard output, or throws with its standard error (never the password). */
export function runPgProgram(cmd: string[], password: string | undefined): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    if (password !== undefined) env.PGPASSWORD = password;
    let child;
    try {
      child = spawn(cmd[0]!, cmd.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      reject(new StorageError(`${basename(cmd[0]!)} could not be started: ${(e as Error).message}`));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => reject(new StorageError(`${basename(cmd[0]!)} could not be started (is the PostgreSQL client installed? set CARAVAN_PG_BIN): ${e.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolvePromise(Buffer.concat(out).toString());
      else {
        let text = Buffer.concat(err).toString().trim();
        if (password) text = text.split(password).join("***");
        reject(new StorageError(`${basename(cmd[0]!)} failed (exit ${code}): ${text.split("\n").slice(-3).join(" ")}`));
      }
    });
  });
}

export interface PgBackupOptions {
  readonly url: string;
  readonly to: string;
  readonly clock?: () => number;
  readonly env?: Record<string, string | undefined>;
}

/** Dumps the database at `url` to `to` (which must not exist) and checks the archive. */
export async function backupPostgres(o: PgBackupOptions): Promise<BackupResult> {
  const clock = o.clock ?? Date.now;
  const file = resolve(o.to);
  if (existsSync(file)) throw new StorageError(`backup file ${file} already exists: choose a new name (a backup never overwrites)`);
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (e) {
    throw new StorageError(`cannot create the directory of ${file}: ${(e as Error).message}`);
  }
  // The database is reachable and Caravan's (its migrations table says how far it is).
  const session = await openPostgres(o.url, { migrate: false, readers: 1 });
  let migrations: number;
  try {
    const [row] = await session.read<{ n: number }>("SELECT count(*)::int AS n FROM caravan_migrations");
    migrations = row?.n ?? 0;
  } catch {
    throw new StorageError(`cannot back up ${databaseTarget(o.url)}: it is not a Caravan database (no caravan_migrations table)`);
  } finally {
    await session.close();
  }
  const startedAt = new Date(clock()).toISOString();
  const partial = join(dirname(file), `.${basename(file)}.partial-${crypto.randomUUID().slice(0, 8)}`);
  const { url, password } = withoutPassword(o.url);
  try {
    // Created empty and private first: the archive holds sealed personal data and credentials.
    closeSync(openSync(partial, "wx", 0o600));
    await runPgProgram([pgProgram("pg_dump", o.env), "--format=custom", "--no-owner", `--file=${partial}`, `--dbname=${url}`], password);
    const listing = await runPgProgram([pgProgram("pg_restore", o.env), "--list", partial], undefined);
    if (!/TABLE DATA public caravan_migrations/.test(listing) || !/TABLE DATA public transfers/.test(listing))
      throw new StorageError(`backup of ${maskDatabaseUrl(o.url)} failed its check: the archive lists no data for Caravan's tables`);
    chmodSync(partial, 0o600);
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
  return { database: maskDatabaseUrl(o.url), file, bytes: statSync(file).size, migrations, integrity: "ok", startedAt, finishedAt: new Date(clock()).toISOString() };
}
