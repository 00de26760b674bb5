// The storage engine a composition root opens (src/services.ts for the server, src/cli/entry.ts for the CLI): SQLite
// at CARAVAN_DB by default, PostgreSQL when CARAVAN_DATABASE_URL names one (postgres://user:password@host:port/db).
// Above this file everything works on the engine-neutral bundle it hands out: the store (units of work, health, the
// actor runtime's store: src/ports/) and the repositories over it. What only one engine has stays optional here:
// SQLite's handle (`sqlite`) and its background maintenance (the WAL checkpointer, which also fills the transfer
// search index on its thread); PostgreSQL needs neither (its server checkpoints by itself, and the search index is
// filled by the server's sweep).
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Repositories } from "../../ports/repositories.ts";
import type { RuntimeHost } from "../../ports/runtime-store.ts";
import type { ClusterStore, Wakeups } from "../../ports/cluster.ts";
import type { ReplyStore } from "../../ports/replies.ts";
import type { StreamRegistry } from "../../ports/event-streams.ts";
import { StorageError } from "../../ports/store.ts";
import type { Logger } from "../log.ts";
import { openStorage, storageSettingsFromEnv } from "./index.ts";
import { startCheckpointer } from "./checkpointer.ts";
import { readMeta, recordMetaOnce } from "./meta.ts";
import { createRepositories, type RepositoryKeys } from "./repositories.ts";
import type { Storage } from "./types.ts";
import { createPgRepositories, databaseTarget, isPostgresUrl, openPostgres, PgClusterStore, PgReplyStore, PgStreamRegistry, watchChanges, type PgChangeNotice, type PgSession } from "./postgres/index.ts";
import { SingleNodeCluster } from "./single-node.ts";
import { readPgMigrations } from "./postgres/migrate.ts";
import type { PgOptions } from "./postgres/session.ts";
import { defaultSource, newestMigration } from "./migrations.ts";

/** Where the data is and how it is opened: the server's and the CLI's configuration alike. */
export interface EngineSettings {
  /** The SQLite file (CARAVAN_DB); with `databaseUrl` set, only where the key files are looked for. */
  readonly dbPath: string;
  readonly migrationsFolder?: string;
  readonly busyTimeoutMs?: number;
  /** CARAVAN_DATABASE_URL: PostgreSQL instead of SQLite. */
  readonly databaseUrl?: string;
  /** PostgreSQL's session options (reader connections, the statement hook of the statement-count test); not from the environment. */
  readonly postgres?: Pick<PgOptions, "readers" | "onStatement">;
}

/** Background work an engine does while the server runs. */
export interface Maintenance {
  stop(): Promise<void>;
  /** Whether it fills the transfer search index (then the server's sweep only trims the queue). */
  indexesSearch(): boolean;
}

/** An open engine, as the composition roots see it. */
export interface Engine {
  readonly kind: "sqlite" | "postgres";
  /** Where the data is, for messages: the SQLite file, or `PostgreSQL at host:port/db` (never a password). */
  readonly where: string;
  /** Units of work, health, fault classes, and the actor runtime's store. */
  readonly store: RuntimeHost;
  /** Several nodes on one database (docs/architecture.md#several-nodes): PostgreSQL's rows; SQLite's single node. */
  readonly cluster: ClusterStore;
  /**
   * Wake-up hints from other processes' commits (new mailbox rows, events, replies): PostgreSQL's LISTEN/NOTIFY; null on
   * SQLite (one process serves a file). Only hints: the runtime and the event stream poll as well.
   */
  readonly wakeups: Wakeups | null;
  /** Answers to asks that crossed nodes (PostgreSQL's actor_replies); null on SQLite, whose answers stay in memory. */
  readonly replies: ReplyStore | null;
  /**
   * The open live event streams of every node, counted for the stream caps (PostgreSQL's rows, tied to `node`'s
   * membership); null on SQLite, where the fan-out's counts in memory are the service's.
   */
  streams(node: { readonly nodeId: string; readonly incarnation: string }): StreamRegistry | null;
  /** The SQLite engine's own handle (backups, the CLI's direct reads, tests); null on PostgreSQL. */
  readonly sqlite: Storage | null;
  /** The repositories over the store, one instance each. */
  repositories(keys: RepositoryKeys): Repositories;
  /** A fact of database_meta (the master key check), or undefined. */
  readMeta(key: string): Promise<string | undefined>;
  /** Records the fact unless the database already has one under the key (the first writer wins). */
  recordMetaOnce(key: string, value: string): Promise<void>;
  /** The background work the engine needs while serving (SQLite: WAL checkpoints off the request thread). */
  startMaintenance(o: { log: Logger }): Maintenance;
  close(): Promise<void>;
}

const noMaintenance: Maintenance = { stop: async () => {}, indexesSearch: () => false };

/** The engine settings from the environment: CARAVAN_DB, CARAVAN_MIGRATIONS, CARAVAN_BUSY_TIMEOUT_MS, CARAVAN_DATABASE_URL. */
export function engineSettingsFromEnv(env: Record<string, string | undefined>): EngineSettings {
  const url = env.CARAVAN_DATABASE_URL?.trim();
  if (url && !isPostgresUrl(url)) throw new StorageError("CARAVAN_DATABASE_URL must be a postgres:// (or postgresql://) URL; leave it unset for SQLite at CARAVAN_DB");
  return { ...storageSettingsFromEnv(env), databaseUrl: url || undefined };
}

/** `PostgreSQL at host:port/db` for a URL, `the SQLite file <path>` otherwise: a place to name in a message. */
export function describeEngine(s: EngineSettings): string {
  return s.databaseUrl ? `PostgreSQL at ${databaseTarget(s.databaseUrl)}` : s.dbPath;
}

/** The newest migration of the engine the settings select (what `caravan --version` names as the schema). */
export function newestEngineMigration(s: Pick<EngineSettings, "databaseUrl">): string | undefined {
  if (!s.databaseUrl) return newestMigration();
  try {
    return readPgMigrations(defaultSource("postgres")).at(-1)?.tag;
  } catch {
    return undefined;
  }
}

/** PostgreSQL's bound on one of Caravan's statements (a lock wait, a runaway query): answered 503 past it. */
const PG_STATEMENT_TIMEOUT_MS = 30_000;
/**
 * How long PostgreSQL lets one of Caravan's transactions sit idle before it ends it. Caravan never waits on anything
 * but the database inside a transaction, so an idle one is a process gone silent mid-commit (partitioned, paused):
 * the locks it holds (lease rows, the mailbox's numbering lock, which every node's inserts take) are freed after this
 * instead of after TCP keepalive's hours.
 */
export const PG_IDLE_IN_TRANSACTION_MS = 5_000;

/** Opens (and migrates) the engine the settings select. Throws StorageError with one line the operator can act on. */
export async function openEngine(s: EngineSettings): Promise<Engine> {
  if (s.databaseUrl) {
    const session = await openPostgres(s.databaseUrl, { statementTimeoutMs: PG_STATEMENT_TIMEOUT_MS, idleInTransactionTimeoutMs: PG_IDLE_IN_TRANSACTION_MS, ...s.postgres });
    // Before the repositories are built: the caches (keys, members, companies) read its version, so a change
    // another process commits (the CLI revoking a key, another node) is seen from the next request on.
    let notice: PgChangeNotice;
    try {
      notice = await watchChanges(session, s.databaseUrl);
    } catch (e) {
      await session.close().catch(() => {});
      throw e;
    }
    const engine = pgEngine(session, s.databaseUrl, notice);
    // The key files (master.key, audit-signing.key) are kept in CARAVAN_DB's directory, as beside a SQLite file;
    // made private as SQLite's data directory is. A failure shows where a key file is written, naming it.
    if (s.dbPath !== ":memory:") {
      try {
        mkdirSync(dirname(resolve(s.dbPath)), { recursive: true, mode: 0o700 });
      } catch {
        /* reported by the key file's own write */
      }
    }
    return engine;
  }
  return sqliteEngine(await openStorage(s.dbPath, { migrationsFolder: s.migrationsFolder, busyTimeoutMs: s.busyTimeoutMs }));
}

/** The SQLite engine over an open database. */
export function sqliteEngine(storage: Storage): Engine {
  return {
    kind: "sqlite",
    where: storage.path,
    store: storage,
    cluster: new SingleNodeCluster(),
    wakeups: null,
    replies: null,
    streams: () => null,
    sqlite: storage,
    repositories: (keys) => createRepositories(storage, keys),
    readMeta: async (key) => readMeta(storage, key),
    recordMetaOnce: async (key, value) => recordMetaOnce(storage, key, value),
    startMaintenance: ({ log }) => startCheckpointer(storage, { log }),
    close: async () => storage.close(),
  };
}

/** The PostgreSQL engine over an open session. */
export function pgEngine(session: PgSession, url: string, notice?: PgChangeNotice): Engine {
  return {
    kind: "postgres",
    where: `PostgreSQL at ${databaseTarget(url)}`,
    store: session,
    cluster: new PgClusterStore(session),
    wakeups: notice ?? null,
    replies: new PgReplyStore(session),
    streams: (node) => new PgStreamRegistry(session, node),
    sqlite: null,
    repositories: (keys) => createPgRepositories(session, keys),
    readMeta: async (key) => (await session.read<{ value: string }>("SELECT value FROM database_meta WHERE key = $1", [key]))[0]?.value,
    recordMetaOnce: async (key, value) => {
      await session.q("INSERT INTO database_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [key, value]);
    },
    startMaintenance: () => noMaintenance,
    close: async () => {
      await notice?.close();
      await session.close();
    },
  };
}
