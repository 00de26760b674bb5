// A backup of the store, as the CLI's `caravan backup` answers it: the engine makes a consistent copy while the server
// keeps writing, checks it and puts it in place whole (the SQLite engine: `VACUUM INTO`, `PRAGMA quick_check`, rename).
// What the copy is and how it is checked are the engine's; this is what the operator is told.

export interface BackupResult {
  /** The database that was copied. */
  database: string;
  /** The backup file written. */
  file: string;
  bytes: number;
  /** Migrations recorded in the copy (its schema version). */
  migrations: number;
  integrity: "ok";
  startedAt: string;
  finishedAt: string;
}

/** Copies the configured database to `to` (which must not exist yet) and checks the copy. */
export type Backup = (o: { to: string }) => Promise<BackupResult>;
