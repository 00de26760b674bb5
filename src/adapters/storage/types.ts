// The storage surface every layer sees: a synchronous SQLite client plus a drizzle database over it.
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type * as schema from "../../../db/schema/index.ts";
import type { StorageHealth } from "./faults.ts";
import type { RuntimeHost } from "../../ports/runtime-store.ts";

export type SqlValue = string | number | bigint | null | Uint8Array;

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A prepared statement, the shape bun:sqlite and drizzle's bun-sqlite session expect. */
export interface SqlStatement {
  run(...params: SqlValue[]): RunResult;
  get(...params: SqlValue[]): Record<string, unknown> | null | undefined;
  all(...params: SqlValue[]): Record<string, unknown>[];
  values(...params: SqlValue[]): unknown[][];
}

/** The part of a driver drizzle's sync session and our hot paths use. */
export interface SqlClient {
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  /** bun:sqlite shape: returns a function with deferred/immediate/exclusive variants. */
  transaction<T>(fn: () => T): ((...args: unknown[]) => T) & {
    deferred: () => T;
    immediate: () => T;
    exclusive: () => T;
  };
  close(): void;
  /** Whether a transaction is open on the connection (SQLite rolls one back by itself on some faults: a full disk). */
  readonly inTransaction?: boolean;
}

export type Db = BaseSQLiteDatabase<"sync", unknown, typeof schema>;

/**
 * The SQLite engine's store. Above storage only its `Store` side is seen (src/ports/store.ts); the synchronous members
 * are the engine's own, for the repositories and the hot paths inside src/adapters/storage.
 */
export interface Storage extends RuntimeHost {
  readonly path: string;
  readonly client: SqlClient;
  readonly db: Db;
  /** Prepared once per SQL text and reused: hot paths use this, not drizzle. */
  stmt(sql: string): SqlStatement;
  /** Runs fn in one IMMEDIATE transaction (nested calls become savepoints). Synchronous: inside storage only. */
  tx<T>(fn: () => T): T;
  /**
   * How an asynchronous repository method runs its synchronous SQL: at once when the caller may use the connection
   * (no extra turn), else after the unit of work that holds it; a throw becomes the promise's rejection.
   */
  run<T>(fn: () => T): Promise<T>;
  /**
   * Runs fn's reads in one read transaction (one snapshot; SQLite takes its WAL read lock once instead of once per
   * statement). Inside a transaction it just runs fn. Only for code that does not write: a write inside would be
   * committed when fn returns (or throws), not before.
   */
  read<T>(fn: () => T): T;
  /**
   * `PRAGMA data_version`: changes when another connection (another process) commits to the file. Read at most
   * once per synchronous turn, so every cache checking it in one turn costs one read.
   */
  dataVersion(): number;
  /**
   * The transfer search index's connection (search-index.ts): the main file as `main`, the search file as `search`.
   * For a database file it is a second connection, so that its transactions lock only the files they write; in
   * memory it is this one. Absent when opened without it (`search: false`: backups, checks).
   */
  readonly search?: SearchStore;
  /** Whether the store takes writes, as the last top-level transaction found (./faults.ts). */
  readonly health: StorageHealth;
  /** A one-row write (database_meta `write_probe`): true when the store takes writes again; updates `health`. */
  probeWrite(now: number): Promise<boolean>;
  close(): void;
}

/** A connection with the search file attached: statements prepared once, and its own read snapshot. */
export interface SearchStore {
  /** The search file, or null when the index is in memory. */
  readonly file: string | null;
  stmt(sql: string): SqlStatement;
  exec(sql: string): void;
  /** fn's reads in one snapshot of both files (on this connection). */
  read<T>(fn: () => T): T;
}
