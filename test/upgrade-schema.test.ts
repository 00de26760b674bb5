// Rolling upgrades (docs/operations.md#upgrading-several-nodes): a Caravan started on a database that a newer Caravan
// migrated refuses to start, in one line naming the newest migration the database has and the newest this build
// knows, on SQLite and on PostgreSQL, for `migrate`, `serve` and a database command alike, and applies nothing.
// The database "from the future" is a real migrated one with one more applied migration recorded by hand.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { join } from "node:path";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import postgres from "postgres";
import { tempDir } from "./support/tmp.ts";
import { repoRoot, runCli } from "./support/server.ts";
import { startPostgres } from "./support/postgres.ts";
import { openStorage, StorageError } from "../src/adapters/storage/index.ts";
import { openPostgres } from "../src/adapters/storage/postgres/index.ts";
import sqliteJournal from "../db/migrations/meta/_journal.json" with { type: "json" };
import pgJournal from "../db/migrations-pg/meta/_journal.json" with { type: "json" };

// Child processes and a PostgreSQL cluster on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const FUTURE = "0999_from_the_future";
const newestSqlite = sqliteJournal.entries.at(-1)!;
const newestPg = pgJournal.entries.at(-1)!.tag;

const sqliteRefusal = (db: string) =>
  `caravan: ${db}: the SQLite schema is newer than this Caravan knows: the database has migration ${FUTURE}, this build's newest is ${newestSqlite.tag}; run the Caravan version that migrated it (or a newer one), or restore a backup taken before that upgrade`;

function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(stderr).not.toContain("    at ");
  return lines[0]!;
}

/** A SQLite database migrated by this build, then given one applied migration newer than any this build carries. */
async function sqliteFromTheFuture(name: string, tag: string | null = FUTURE): Promise<string> {
  const db = join(dir, `${name}.db`);
  const first = await runCli(["migrate"], { CARAVAN_DB: db, CARAVAN_DATABASE_URL: "" });
  expect(first.code).toBe(0);
  const d = new Database(db);
  d.prepare("INSERT INTO __drizzle_migrations (hash, created_at, tag) VALUES ('f00d', ?, ?)").run(newestSqlite.when + 1000, tag);
  d.close();
  return db;
}

function sqliteRows(db: string): { hash: string; created_at: number; tag: string | null }[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("SELECT hash, created_at, tag FROM __drizzle_migrations ORDER BY id").all() as { hash: string; created_at: number; tag: string | null }[];
  } finally {
    d.close();
  }
}

test("SQLite: every applied migration is recorded with its tag, the ones applied before the tag column existed too", async () => {
  const db = join(dir, "tags.db");
  expect((await runCli(["migrate"], { CARAVAN_DB: db, CARAVAN_DATABASE_URL: "" })).code).toBe(0);
  expect(sqliteRows(db).map((r) => [r.tag, Number(r.created_at)])).toEqual(sqliteJournal.entries.map((e) => [e.tag, e.when]));
});

test("SQLite: migrate, serve and a database command on a newer schema each exit non-zero with one line, and apply nothing", async () => {
  const db = await sqliteFromTheFuture("future");
  const before = sqliteRows(db);
  for (const args of [["migrate"], ["serve"], ["keys", "list"]]) {
    const r = await runCli(args, { CARAVAN_DB: db, CARAVAN_DATABASE_URL: "", PORT: "0" });
    expect(r.code).not.toBe(0);
    expect(oneLine(r.stderr)).toBe(sqliteRefusal(db));
  }
  expect(sqliteRows(db)).toEqual(before);
});

test("SQLite: opening the store refuses the newer schema with a StorageError; a row without a tag is named by its journal time", async () => {
  const db = await sqliteFromTheFuture("untagged", null);
  const err = await openStorage(db).then(
    (s) => {
      s.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StorageError);
  expect((err as Error).message).toContain(`the database has migration one of ${new Date(newestSqlite.when + 1000).toISOString()}, this build's newest is ${newestSqlite.tag}`);
});

/** A copy of a migrations folder with only its journal's first `count` entries: an older build's. */
function olderFolder(folder: string, count: number): { folder: string; newest: string } {
  const to = join(dir, `${folder.replaceAll("/", "-")}-${count}`);
  mkdirSync(join(to, "meta"), { recursive: true });
  const journal = JSON.parse(readFileSync(join(repoRoot, folder, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const entries = journal.entries.slice(0, count);
  writeFileSync(join(to, "meta/_journal.json"), JSON.stringify({ ...journal, entries }));
  for (const e of entries) copyFileSync(join(repoRoot, folder, `${e.tag}.sql`), join(to, `${e.tag}.sql`));
  return { folder: to, newest: entries.at(-1)!.tag };
}

test("SQLite: an older build (its migrations up to 0020) on a database migrated to the newest is refused, naming the database's real newest tag", async () => {
  const db = join(dir, "older-build.db");
  expect((await runCli(["migrate"], { CARAVAN_DB: db, CARAVAN_DATABASE_URL: "" })).code).toBe(0);
  const older = olderFolder("db/migrations", 21);
  const r = await runCli(["migrate"], { CARAVAN_DB: db, CARAVAN_DATABASE_URL: "", CARAVAN_MIGRATIONS: older.folder });
  expect(r.code).not.toBe(0);
  expect(oneLine(r.stderr)).toContain(`${db}: the SQLite schema is newer than this Caravan knows: the database has migration ${newestSqlite.tag}, this build's newest is ${older.newest};`);
});

let stopPg: (() => Promise<void>) | undefined;
afterAll(async () => {
  await stopPg?.();
});

test("PostgreSQL: migrate, serve and a database command on a newer schema each exit non-zero with one line, and apply nothing; migrate-to refuses a newer SQLite source", async () => {
  const pg = await startPostgres();
  const url = await pg.createDatabase();
  const env = { CARAVAN_DB: join(dir, "pg", "caravan.db"), CARAVAN_DATABASE_URL: url, PORT: "0" };
  expect((await runCli(["migrate"], env)).code).toBe(0);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`INSERT INTO caravan_migrations (tag) VALUES (${FUTURE})`;
    const before = await sql`SELECT tag FROM caravan_migrations ORDER BY tag`;
    const target = `${pg.host}:${pg.port}/${new URL(url).pathname.slice(1)}`;
    for (const args of [["migrate"], ["serve"], ["keys", "list"]]) {
      const r = await runCli(args, env);
      expect(r.code).not.toBe(0);
      const line = oneLine(r.stderr);
      expect(line).toBe(
        `caravan: PostgreSQL at ${target}: the PostgreSQL schema is newer than this Caravan knows: the database has migration ${FUTURE}, this build's newest is ${newestPg}; run the Caravan version that migrated it (or a newer one), or restore a backup taken before that upgrade`,
      );
      expect(line).not.toContain(pg.password);
    }
    expect(await sql`SELECT tag FROM caravan_migrations ORDER BY tag`).toEqual(before);
    expect((await sql`SELECT count(*)::int AS n FROM cluster_nodes`)[0]!.n).toBe(0); // serve never registered a node

    // Opening the store directly: a StorageError, the session closed.
    const err = await openPostgres(url).then(
      async (s) => {
        await s.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StorageError);
    expect((err as Error).message).toContain(`the database has migration ${FUTURE}, this build's newest is ${newestPg}`);
  } finally {
    await sql.end();
  }

  // An older build's PostgreSQL migrations (all but the newest) on a database migrated to the newest: refused.
  const migrated = await pg.createDatabase();
  expect((await runCli(["migrate"], { ...env, CARAVAN_DATABASE_URL: migrated })).code).toBe(0);
  const older = olderFolder("db/migrations-pg", pgJournal.entries.length - 1);
  const olderErr = await openPostgres(migrated, { migrationsFolder: older.folder }).then(
    async (s) => {
      await s.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect((olderErr as Error).message).toContain(`the database has migration ${newestPg}, this build's newest is ${older.newest};`);

  // migrate-to: a SQLite source a newer Caravan migrated is not copied into this build's PostgreSQL schema.
  const source = await sqliteFromTheFuture("move-source");
  const empty = await pg.createDatabase();
  const r = await runCli(["migrate-to", "--database-url", empty], { CARAVAN_DB: source, CARAVAN_DATABASE_URL: "" });
  expect(r.code).not.toBe(0);
  expect(oneLine(r.stderr)).toBe(sqliteRefusal(source));
  const target = postgres(empty, { max: 1, onnotice: () => {} });
  try {
    expect((await target`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`)[0]!.n).toBe(0);
  } finally {
    await target.end();
  }
});
