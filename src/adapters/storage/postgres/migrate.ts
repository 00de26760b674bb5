// PostgreSQL migrations: drizzle-kit's folder (db/migrations-pg: `meta/_journal.json` plus `<tag>.sql`, statements
// split by `--> statement-breakpoint`), applied in journal order, each in its own transaction (a savepoint when the
// caller holds one: `caravan migrate-to` creates the schema and copies in one transaction), and recorded in
// `caravan_migrations`. A transaction-scoped advisory lock makes nodes that start at once apply each migration once:
// the second waits for the first and then finds it applied. Read from the checkout's folder, or from the copies
// embedded in the single executable (../migrations.ts, as SQLite's are).
import { StorageError } from "../../../ports/store.ts";
import { defaultSource, folderSource, MigrationSourceError, schemaTooNewMessage, type MigrationSource } from "../migrations.ts";
import type { PgSession } from "./session.ts";

/** An arbitrary constant: the advisory lock key Caravan's migrations take. */
const MIGRATION_LOCK = 0x43415241; // "CARA"

/** The journal's entries in order, each with its statements. */
export function readPgMigrations(source: MigrationSource): { tag: string; statements: string[] }[] {
  return [...source.journal.entries]
    .sort((a, b) => a.idx - b.idx)
    .map((e) => {
      const text = source.sql(e.tag);
      if (text === undefined) throw new StorageError(`PostgreSQL migrations in ${source.where}: ${e.tag}.sql is missing`);
      return { tag: e.tag, statements: text.split("--> statement-breakpoint").map((s) => s.trim()).filter((s) => s !== "") };
    });
}

/**
 * A database migrated by a newer Caravan (a recorded tag this build does not carry) is refused before anything is
 * applied: this build would run on a schema it does not know. Tags begin with their number, so the greatest unknown
 * tag is the newest.
 */
async function refuseNewer(session: PgSession, known: string[], where: string): Promise<void> {
  const rows = await session.q<{ tag: string }>("SELECT tag FROM caravan_migrations WHERE NOT (tag = ANY($1::text[])) ORDER BY tag DESC LIMIT 1", [known]);
  if (rows.length > 0) throw new StorageError(schemaTooNewMessage("PostgreSQL", where, rows[0]!.tag, known.at(-1)));
}

/** Applies what the database has not applied yet (from `folder`, else the default source); answers the tags applied now. */
export async function migratePg(session: PgSession, folder?: string, where = "the PostgreSQL database"): Promise<string[]> {
  let migrations: { tag: string; statements: string[] }[];
  try {
    migrations = readPgMigrations(folder ? folderSource(folder) : defaultSource("postgres"));
  } catch (e) {
    if (e instanceof MigrationSourceError) throw new StorageError(e.message);
    throw e;
  }
  await session.q("CREATE TABLE IF NOT EXISTS caravan_migrations (tag text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
  await refuseNewer(session, migrations.map((m) => m.tag), where);
  const applied: string[] = [];
  for (const m of migrations) {
    const done = await session.transaction(async () => {
      // A migration runs as long as it needs: the session's statement_timeout is for Caravan's own statements.
      await session.q("SET LOCAL statement_timeout = 0");
      await session.q("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      if ((await session.q("SELECT 1 FROM caravan_migrations WHERE tag = $1", [m.tag])).length > 0) return false;
      for (const s of m.statements) {
        try {
          await session.exec(s);
        } catch (e) {
          throw new StorageError(`PostgreSQL migration ${m.tag} failed: ${(e as Error).message}`);
        }
      }
      await session.q("INSERT INTO caravan_migrations (tag) VALUES ($1)", [m.tag]);
      return true;
    });
    if (done) applied.push(m.tag);
  }
  return applied;
}
