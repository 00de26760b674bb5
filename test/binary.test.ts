// The single binary's parts that can be tested without building it: the migration loader the executable
// uses (same list as drizzle's stock reader), its failure when SQL is missing, `--version` and `help`.
// `.ci/run` builds dist/caravan and boots it from a fresh directory against a temporary database.
import { test, expect, setDefaultTimeout } from "bun:test";
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { readMigrationFiles } from "drizzle-orm/migrator";
import {
  checkoutMigrationsFolder,
  embeddedSource,
  folderSource,
  loadMigrations,
  MigrationSourceError,
  newestMigration,
  type Journal,
} from "../src/adapters/storage/migrations.ts";
import { tempDir } from "./support/tmp.ts";
import { repoRoot, runCli } from "./support/server.ts";

setDefaultTimeout(60_000);

const dir = tempDir("caravan-binary-");
const folder = join(repoRoot, "db/migrations");
const journal = JSON.parse(readFileSync(join(folder, "meta/_journal.json"), "utf8")) as Journal;

test("the loader gives exactly drizzle's stock list (statements, breakpoints, when, sha256) for db/migrations", () => {
  expect(checkoutMigrationsFolder).toBe(folder);
  const ours = loadMigrations(folderSource(folder));
  expect(ours.length).toBe(journal.entries.length);
  expect(ours).toEqual(readMigrationFiles({ migrationsFolder: folder }));
});

test("embedded-style source (journal in the bundle, SQL files only, no meta/) migrates a database like the folder does", async () => {
  // What the executable has: the journal as a module and the .sql files under db/migrations.
  const sqlOnly = join(dir, "embedded", "db", "migrations");
  mkdirSync(sqlOnly, { recursive: true });
  for (const e of journal.entries) cpSync(join(folder, `${e.tag}.sql`), join(sqlOnly, `${e.tag}.sql`));
  const source = { where: "test", journal, sql: (tag: string) => readFileSync(join(sqlOnly, `${tag}.sql`), "utf8") };
  expect(loadMigrations(source)).toEqual(loadMigrations(folderSource(folder)));

  const { openStorage } = await import("../src/adapters/storage/index.ts");
  const fromFolder = join(dir, "folder.db");
  (await openStorage(fromFolder)).close();
  const a = new Database(fromFolder, { readonly: true });
  const rows = a.prepare("SELECT hash, created_at FROM __drizzle_migrations ORDER BY id").all();
  a.close();
  expect(rows.length).toBe(journal.entries.length);
  expect(rows).toEqual(loadMigrations(source).map((m) => ({ hash: m.hash, created_at: m.folderMillis })));
});

test("a journal entry whose SQL is not there fails with a message naming the file (a binary built without its SQL)", () => {
  const tag = journal.entries.at(-1)!.tag;
  const source = { where: "the executable (/x)", journal, sql: (t: string) => (t === tag ? undefined : "SELECT 1;") };
  expect(() => loadMigrations(source)).toThrow(new MigrationSourceError(`migrations in the executable (/x): ${tag}.sql is missing`));
  // From source, the executable's embedded folder does not exist: the same clear failure, not a crash.
  expect(() => loadMigrations(embeddedSource())).toThrow(`${journal.entries[0].tag}.sql is missing`);
});

test("a folder without meta/_journal.json is refused with one line naming the folder", () => {
  const empty = join(dir, "empty-migrations");
  mkdirSync(empty, { recursive: true });
  expect(() => folderSource(empty)).toThrow(`migration folder ${empty} is missing or has no meta/_journal.json`);
  rmSync(empty, { recursive: true });
});

test("`caravan --version` prints the package version, the newest migration and the runtime, and exits 0", async () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
  expect(newestMigration()).toBe(journal.entries.at(-1)!.tag);
  for (const arg of ["--version", "version"]) {
    const r = await runCli([arg]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`caravan ${pkg.version} (schema ${journal.entries.at(-1)!.tag}, bun ${Bun.version}, source)`);
  }
});

test("`caravan help` prints the usage on stdout with every command, including backup, and exits 0", async () => {
  const r = await runCli(["help"]);
  expect(r.code).toBe(0);
  for (const cmd of ["serve", "migrate", "backup --to <file>", "keys", "--version"]) expect(r.stdout).toContain(cmd);
  expect(r.stderr).toBe("");
});
