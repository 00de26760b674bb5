// The PostgreSQL engine: chosen by CARAVAN_DATABASE_URL (postgres://user@host:port/db); SQLite at CARAVAN_DB stays
// the default. `openPostgres` connects, checks the server (version 15 or later, the C collation the keysets rely
// on), applies the migrations of db/migrations-pg and hands out the session; `createPgRepositories` (./repositories.ts)
// builds the ports over it. Only the composition roots import this (the layer rule only-composition-roots-know-the-engine).
import { StorageError } from "../../../ports/store.ts";
import { checkReachable, createPgSession, databaseTarget, type PgOptions, type PgSession } from "./session.ts";
import { migratePg } from "./migrate.ts";
import { createPgMailbox } from "./repos/mailbox.ts";

export { maskDatabaseUrl, databaseTarget, type PgSession } from "./session.ts";
export { createPgRepositories } from "./repositories.ts";
export { watchChanges, type PgChangeNotice } from "./notice.ts";
export { PgClusterStore } from "./repos/cluster.ts";
export { PgReplyStore } from "./repos/replies.ts";
export { PgStreamRegistry } from "./repos/event-streams.ts";

/** The oldest PostgreSQL major Caravan runs on. */
export const MIN_POSTGRES_MAJOR = 15;

export interface OpenPostgresOptions extends PgOptions {
  /** Apply migrations (default true). */
  readonly migrate?: boolean;
  readonly migrationsFolder?: string;
}

/** Whether `value` names a PostgreSQL database (a `postgres://` or `postgresql://` URL). */
export function isPostgresUrl(value: string | undefined): value is string {
  return value !== undefined && /^postgres(ql)?:\/\//i.test(value.trim());
}

/**
 * Opens the database at `url`: reachable (else one line naming host and port, never the password), version 15 or
 * later, C collation, migrated. Throws StorageError with the reason.
 */
export async function openPostgres(url: string, o: OpenPostgresOptions = {}): Promise<PgSession> {
  const session = createPgSession(url, o);
  try {
    await checkReachable(session, url);
    const [info] = await session.read<{ v: number; collate: string; ctype: string }>(
      "SELECT current_setting('server_version_num')::int AS v, datcollate AS collate, datctype AS ctype FROM pg_database WHERE datname = current_database()",
    );
    if (!info || info.v < MIN_POSTGRES_MAJOR * 10000)
      throw new StorageError(`PostgreSQL at ${databaseTarget(url)} is version ${info ? Math.floor(info.v / 10000) : "unknown"}; Caravan needs ${MIN_POSTGRES_MAJOR} or later`);
    // Byte order for text (the keysets, as SQLite's BINARY) and ASCII-only case folding (search, as SQLite's lower()).
    const isC = (v: string) => v === "C" || v === "POSIX";
    if (!isC(info.collate) || !isC(info.ctype))
      throw new StorageError(
        `PostgreSQL database at ${databaseTarget(url)} has collation ${info.collate} and character type ${info.ctype}; Caravan needs C for both (byte order and ASCII case folding, as SQLite): CREATE DATABASE … TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`,
      );
    if (o.migrate !== false) await migratePg(session, o.migrationsFolder, `PostgreSQL at ${databaseTarget(url)}`);
  } catch (e) {
    await session.close().catch(() => {});
    if (e instanceof StorageError) throw e;
    throw new StorageError(`PostgreSQL at ${databaseTarget(url)}: ${(e as Error).message}`);
  }
  session.useRuntimeStore((ro) => createPgMailbox(session, ro));
  return session;
}
