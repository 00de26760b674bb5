// The CLI's one entry to the actor runtime: the same runtime the server runs, with the kinds the CLI's commands ask,
// never started (a started runtime would pick up the server's mailbox). A command is handled in this process through
// `ActorRuntime.handleHere`: the kind's own handler, under the write lock, its unit of work committed in one
// transaction; what it sends is left in the mailbox for the running server (or the next start). CLI commands reach
// actors only through this file and name no actor kind themselves.
import type { Storage } from "../adapters/storage/index.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Repositories } from "../adapters/storage/repositories.ts";
import { ActorRuntime } from "../actors/runtime.ts";
import { caseActor, caseAddress, type CaseMsg } from "../actors/case.ts";
import type { Outcome } from "../actors/outcome.ts";

export interface CliRuntimeDeps {
  readonly clock: () => number;
  readonly repositories: Repositories;
  /** The personal-data sealer (cases' titles and notes). */
  readonly pii: Sealer;
  /** The blind text index key (the `name-index` subkey). */
  readonly nameIndexKey: Uint8Array;
  /** Seals mailbox bodies and actor state as the server's runtime does (the `mailbox` subkey of the master key). */
  readonly mailSealer: Sealer;
}

/** What the CLI's commands can ask, each as the typed command its owner handles. */
export interface CliRuntime {
  /** One command to a case's actor; answers its outcome. */
  caseCommand(caseId: string, msg: CaseMsg): Outcome<Record<string, unknown>>;
}

export function cliRuntime(storage: Storage, deps: CliRuntimeDeps): CliRuntime {
  const runtime = new ActorRuntime(storage, { clock: deps.clock, sealer: deps.mailSealer });
  runtime.register(caseActor({ repositories: deps.repositories, pii: deps.pii, nameIndexKey: deps.nameIndexKey }));
  return {
    caseCommand: (caseId, msg) => runtime.handleHere<Outcome<Record<string, unknown>>>(caseAddress(caseId), msg),
  };
}
