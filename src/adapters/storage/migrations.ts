// Where migrations come from: a folder (the checkout's db/migrations, or CARAVAN_MIGRATIONS), or the copies
// embedded in a `bun build --compile` executable. Both give drizzle the same list its stock reader would.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { MigrationMeta } from "drizzle-orm/migrator";
// The journal is bundled as a module (it travels inside the executable); the SQL files are embedded
// assets of the executable (`bun run build` passes them to `bun build --compile` as extra entry points).
import bundledJournal from "../../../db/migrations/meta/_journal.json" with { type: "json" };
import bundledPgJournal from "../../../db/migrations-pg/meta/_journal.json" with { type: "json" };

export interface JournalEntry {
  idx: number;
  when: number;
  tag: string;
  breakpoints: boolean;
}

export interface Journal {
  entries: JournalEntry[];
}

/** One place migrations are read from: a journal plus the SQL text of each entry by tag. */
export interface MigrationSource {
  /** For messages: the folder, or "embedded in <executable>". */
  readonly where: string;
  readonly journal: Journal;
  sql(tag: string): string | undefined;
}

/** A fault in the migration source; the storage adapter reports it as a StorageError. */
export class MigrationSourceError extends Error {
  override name = "MigrationSourceError";
}

/** True inside a `bun build --compile` executable, whose modules live under `/$bunfs/`. */
export const isCompiled = import.meta.url.includes("/$bunfs/");

/** The checkout's db/migrations (running from source). */
export const checkoutMigrationsFolder = isCompiled ? "" : fileURLToPath(new URL("../../../db/migrations", import.meta.url));
/** The checkout's db/migrations-pg: the PostgreSQL engine's migrations. */
export const checkoutPgMigrationsFolder = isCompiled ? "" : fileURLToPath(new URL("../../../db/migrations-pg", import.meta.url));

/**
 * Where the executable's embedded `db/migrations/*.sql` are readable: `bun build --compile` puts entry-point
 * assets under the executable's virtual root (`/$bunfs/root/`), kept at `db/migrations/<tag>.sql` by
 * `--asset-naming='[dir]/[name].[ext]'` with `--root .`.
 */
export function embeddedMigrationsFolder(engine: "sqlite" | "postgres" = "sqlite"): string {
  return join(dirname(fileURLToPath(import.meta.url)), "db", engine === "sqlite" ? "migrations" : "migrations-pg");
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path).toString();
  } catch {
    return undefined;
  }
}

/** A folder laid out by drizzle-kit: `meta/_journal.json` plus `<tag>.sql`. */
export function folderSource(folder: string): MigrationSource {
  const journalPath = `${folder}/meta/_journal.json`;
  if (!existsSync(journalPath)) throw new MigrationSourceError(`migration folder ${folder} is missing or has no meta/_journal.json`);
  let journal: Journal;
  try {
    journal = JSON.parse(readFileSync(journalPath).toString()) as Journal;
  } catch (e) {
    throw new MigrationSourceError(`migration folder ${folder}: meta/_journal.json is not valid JSON (${(e as Error).message})`);
  }
  return { where: folder, journal, sql: (tag) => readText(`${folder}/${tag}.sql`) };
}

/** The migrations inside this executable: the bundled journal and the embedded SQL files (of either engine). */
export function embeddedSource(engine: "sqlite" | "postgres" = "sqlite"): MigrationSource {
  const folder = embeddedMigrationsFolder(engine);
  return { where: `the executable (${folder})`, journal: (engine === "sqlite" ? bundledJournal : bundledPgJournal) as Journal, sql: (tag) => readText(`${folder}/${tag}.sql`) };
}

/** Without an explicit folder: the embedded copies in an executable, the checkout's folder from source. */
export function defaultSource(engine: "sqlite" | "postgres" = "sqlite"): MigrationSource {
  if (isCompiled) return embeddedSource(engine);
  return folderSource(engine === "sqlite" ? checkoutMigrationsFolder : checkoutPgMigrationsFolder);
}

/**
 * The list drizzle's dialect migrates with, built exactly as drizzle's `readMigrationFiles` builds it
 * (statements split on `--> statement-breakpoint`, sha256 of the file, the journal's `when`), so a database
 * migrated from source and one migrated by the executable record the same rows in `__drizzle_migrations`.
 */
export function loadMigrations(source: MigrationSource): MigrationMeta[] {
  const entries = source.journal?.entries;
  if (!Array.isArray(entries)) throw new MigrationSourceError(`migrations in ${source.where}: the journal has no entries`);
  return entries.map((entry) => {
    const query = source.sql(entry.tag);
    if (query === undefined) throw new MigrationSourceError(`migrations in ${source.where}: ${entry.tag}.sql is missing`);
    return {
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: bytesToHex(sha256(utf8ToBytes(query))),
    };
  });
}

/**
 * The refusal of a database whose schema is newer than this build's (docs/operations.md#upgrading-several-nodes): one
 * line naming the newest migration the database has, the newest this build knows, and what to do. A node of the
 * previous version must never run on a schema it does not know; during a rolling upgrade it is the one to replace.
 */
export function schemaTooNewMessage(engine: "SQLite" | "PostgreSQL", where: string, theirs: string, ours: string | undefined): string {
  return `${where}: the ${engine} schema is newer than this Caravan knows: the database has migration ${theirs}, this build's newest is ${ours ?? "(none)"}; run the Caravan version that migrated it (or a newer one), or restore a backup taken before that upgrade`;
}

/** The newest migration this build knows (for `caravan --version`). */
export function newestMigration(): string | undefined {
  return (bundledJournal as Journal).entries.at(-1)?.tag;
}
