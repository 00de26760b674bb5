// A copy of the embedded (SQLite) database into an empty PostgreSQL database, as `caravan migrate-to` answers it. How
// the copy is made and checked is the engines' (the PostgreSQL engine's copy.ts); this is what the operator is told.
export interface MigrateToResult {
  readonly source: string;
  /** The online backup of the source taken first (the copy is read from it). */
  readonly backup: string;
  /** host:port/database, never the password. */
  readonly target: string;
  readonly tables: readonly { readonly name: string; readonly rows: number }[];
  /** Tables of the source not copied, with the reason (derived data). */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  /** Sealed values opened with the master key after the copy. */
  readonly sealedChecked: number;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** Copies the configured SQLite database into the empty PostgreSQL database at `url`. */
export type MigrateTo = (o: { url: string }) => Promise<MigrateToResult>;
