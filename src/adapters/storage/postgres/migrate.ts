// PostgreSQL migrations: drizzle-kit's folder (db/migrations-pg: `meta/_journal.json` plus `<tag>.sql`, statements
// split by `--> statement-breakpoint`), applied in journal order, each in its own transaction, and recorded in
// `caravan_migrations`. A transaction-scoped advisory lock makes nodes that start at once apply each migration once:
// the second waits for the first and then finds it applied.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StorageError } from "../../../ports/store.ts";
import { isCompiled } from "../migrations.ts";
import type { PgSession } from "./session.ts";
import bundledPgJournal from "../../../../db/migrations-pg/meta/_journal.json" with { type: "json" };

/**
 * The checkout's db/migrations-pg; in the executable, the embedded copies of its `.sql` files (`bun run build` names
 * them by their own paths under the virtual root, as SQLite's: ../migrations.ts), read with the bundled journal.
 */
export const pgMigrationsFolder = isCompiled ? join(dirname(fileURLToPath(import.meta.url)), "db", "migrations-pg") : fileURLToPath(new URL("../../../../db/migrations-pg", import.meta.url));

interface Entry {
  idx: number;
  tag: string;
}

/** An arbitrary constant: the advisory lock key Caravan's migrations take. */
const MIGRATION_LOCK = 0x43415241; // "CARA"

/** The journal's entries in order, each with its statements. */
export function readPgMigrations(folder = pgMigrationsFolder): { tag: string; statements: string[] }[] {
  let journal: { entries: Entry[] };
  try {
    journal = isCompiled && folder === pgMigrationsFolder ? (bundledPgJournal as { entries: Entry[] }) : JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8"));
  } catch (e) {
    throw new StorageError(`PostgreSQL migrations: cannot read ${join(folder, "meta", "_journal.json")}: ${(e as Error).message}`);
  }
  return [...journal.entries]
    .sort((a, b) => a.idx - b.idx)
    .map((e) => {
      const text = readFileSync(join(folder, `${e.tag}.sql`), "utf8");
      return { tag: e.tag, statements: text.split("--> statement-breakpoint").map((s) => s.trim()).filter((s) => s !== "") };
    });
}

/** Applies what the database has not applied yet; answers the tags applied now. */
export async function migratePg(session: PgSession, folder = pgMigrationsFolder): Promise<string[]> {
  const migrations = readPgMigrations(folder);
  await session.q("CREATE TABLE IF NOT EXISTS caravan_migrations (tag text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
  const applied: string[] = [];
  for (const m of migrations) {
    const done = await session.transaction(async () => {
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
