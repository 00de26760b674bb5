// What a CLI command receives from the CLI's entry (src/cli/entry.ts), which opened the store: the repositories over
// it, the one entry to the actor runtime, the runtime's store, the store's units of work, and where the database is
// (its master key is found beside it). A command names no engine: it validates its options, reads and dispatches
// through these, and prints.
import type { Repositories } from "../ports/repositories.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { RuntimeStore } from "../ports/runtime-store.ts";
import type { Store } from "../ports/store.ts";
import type { CliRuntime, CliRuntimeDeps } from "./runtime.ts";

/** Sealers a command gives instead of the database's own subkeys (tests, a command that already derived them). */
export interface CliKeys {
  /** The personal-data sealer (default: the pii subkey of the database's master key). */
  pii?: () => Sealer;
  /** The secrets sealer (default: the secrets subkey of the database's master key). */
  secrets?: () => Sealer;
}

export interface CliContext {
  /** The database's location, as configured (CARAVAN_DB): where its master key is looked for. */
  readonly path: string;
  /** The database, for messages: the SQLite file, or `PostgreSQL at host:port/db` (never a password). */
  readonly where: string;
  /** The store's units of work. */
  readonly store: Store;
  /** The repositories over the open store; a sealer's key is derived on its first use. */
  repositories(clock: () => number, keys?: CliKeys): Repositories;
  /** The CLI's entry to the actor runtime over the same store (src/cli/runtime.ts). */
  runtime(deps: CliRuntimeDeps): CliRuntime;
  /** The actor runtime's store (mailbox, dead letters). */
  runtimeStore(): RuntimeStore;
}

/** A CLI command that works on the database. */
export type CliCommand = (cli: CliContext, argv: string[], out: (line: string) => void) => void | Promise<void>;
