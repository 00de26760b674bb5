// The store as every layer above storage sees it: units of work (a write transaction, a read snapshot), whether it
// takes writes, and how a fault of the store is told from a fault of the work. Written in the domain's terms and
// asynchronous, so that an engine reached over the network implements it as well as the embedded one; the SQLite
// engine implements it, and the storage contract suite holds every engine to it.

/** A fault of the store: its class (the engine's result code, `SQLITE_FULL` say) and the engine's own words for it. */
export interface StoreFault {
  /** `SQLITE_FULL`, `SQLITE_IOERR`, `SQLITE_READONLY`, `SQLITE_CANTOPEN`, or another engine's class. */
  readonly class: string;
  /** What the engine said ("database or disk is full"). */
  readonly cause: string;
  /**
   * The store was lost mid-call (a connection to a database server cut, a call that timed out): a write in flight
   * may have committed before the answer was lost, so its outcome is unknown. A local fault (a full disk) rolls back.
   */
  readonly uncertain?: boolean;
}

/**
 * A write the store cannot take now. `queued`: the work is recorded (a mailbox row) and finishes when the store takes
 * writes again; otherwise nothing was changed.
 */
export class StorageUnavailableError extends Error {
  override name = "StorageUnavailableError";
  constructor(
    readonly fault: StoreFault,
    readonly queued = false,
  ) {
    super(`storage unavailable (${fault.class}: ${fault.cause})`);
  }
}

/**
 * A fault the operator must fix (a database that cannot be opened, a key file in the wrong place); the program prints
 * its message as one line and exits non-zero.
 */
export class StorageError extends Error {
  override name = "StorageError";
}

/** Whether the store takes writes, as the last top-level transaction found. */
export interface StoreHealth {
  /** The fault the store is in, with when it began (ms since epoch), or null when writes succeed. */
  readonly unavailable: (StoreFault & { since: number }) | null;
  /** Called when the store becomes unavailable (with the fault) or available again (null). */
  onChange(fn: (fault: StoreFault | null) => void): () => void;
}

/**
 * Units of work. A repository call made inside `transaction` (in the same asynchronous flow) is part of it: committed
 * with it or rolled back with it; a call from elsewhere meanwhile waits for it, never sees its uncommitted writes.
 */
export interface UnitOfWork {
  /** Runs fn as one write transaction; nested inside another, as a savepoint of it. Only store calls inside, never the network. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs fn's reads against one snapshot (inside a transaction: that transaction's view). fn must not write. */
  snapshot<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Runs fn, which only reads, as one read turn: after any unit of work another flow holds has ended, its synchronous
   * part in one snapshot where the engine gains by it (SQLite takes its read lock once instead of once per statement).
   * An engine without the notion just runs fn. Synchronous when fn is and nothing had to wait.
   */
  readTurn<T>(fn: () => T): T | Promise<T>;
}

/** The store: units of work, its health, and the fault classifier of its engine. */
export interface Store extends UnitOfWork {
  readonly health: StoreHealth;
  /** The store fault `e` is (or wraps), or null when it is a fault of the work (a constraint, a bug, a refusal). */
  faultOf(e: unknown): StoreFault | null;
  /** A one-row write: true when the store takes writes again (it updates `health`). */
  probeWrite(now: number): Promise<boolean>;
  /**
   * A cheap round trip, for an engine reached over a network: its connections can be lost while nothing runs, which
   * no write has found yet. A store fault marks `health` (and rejects). Absent where there is nothing to lose (SQLite).
   */
  ping?(): Promise<void>;
}
