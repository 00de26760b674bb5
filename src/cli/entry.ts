// The CLI's entry: the one CLI file that opens the store and names the engine (a composition root, as src/services.ts
// is the server's). It opens the database the configuration names, builds what a command receives (./context.ts: the
// repositories, the entry to the actor runtime, the runtime's store), runs the command and closes the store. The
// program (src/main.ts) and the in-process test runner (test/support/cli.ts) both run commands through it.
import process from "node:process";
import { openStorage, storageSettingsFromEnv, type Storage } from "../adapters/storage/index.ts";
import { backupDatabase } from "../adapters/storage/backup.ts";
import type { Backup } from "../ports/backup.ts";
import { CLI_COMMANDS } from "./commands.ts";
import type { CliCommand, CliContext } from "./context.ts";
import { cliRepositories } from "./repositories.ts";
import { cliRuntime } from "./runtime.ts";

type Env = Record<string, string | undefined>;
type Out = (line: string) => void;

/** Commands that still take the engine itself (they write through its synchronous transactions). */
type EngineCommand = (s: Storage, argv: string[], out: Out) => void | Promise<void>;
const ENGINE_COMMANDS: Readonly<Record<string, () => Promise<EngineCommand>>> = {
  audit: async () => (await import("./audit.ts")).runAudit,
};

/** Whether `name` is a command that works on the database (run with `runDatabaseCommand`). */
export function isDatabaseCommand(name: string | undefined): name is string {
  return name !== undefined && (Object.hasOwn(CLI_COMMANDS, name) || Object.hasOwn(ENGINE_COMMANDS, name));
}

/** What a command receives over the open store. */
export function cliContext(storage: Storage): CliContext {
  return {
    path: storage.path,
    store: storage,
    repositories: (clock, keys) => cliRepositories(storage, clock, keys),
    runtime: (deps) => cliRuntime(storage, deps),
    runtimeStore: () => storage.runtimeStore(),
  };
}

/** Opens the configured database (migrating it), runs the command `name` on it, and closes it. */
export async function runDatabaseCommand(name: string, argv: string[], out: Out, env: Env = process.env): Promise<void> {
  const load = Object.hasOwn(CLI_COMMANDS, name) ? CLI_COMMANDS[name] : undefined;
  const engine = Object.hasOwn(ENGINE_COMMANDS, name) ? ENGINE_COMMANDS[name] : undefined;
  if (!load && !engine) throw new Error(`${name} is not a database command`);
  const run: CliCommand | EngineCommand = load ? await load() : await engine!();
  const { dbPath, migrationsFolder, busyTimeoutMs } = storageSettingsFromEnv(env);
  const storage = await openStorage(dbPath, { migrationsFolder, busyTimeoutMs });
  try {
    if (load) await (run as CliCommand)(cliContext(storage), argv, out);
    else await (run as EngineCommand)(storage, argv, out);
  } finally {
    storage.close();
  }
}

/** `caravan backup`'s engine half: a checked copy of the configured database (no store is opened for the command). */
export function configuredBackup(env: Env = process.env): Backup {
  const { dbPath, busyTimeoutMs } = storageSettingsFromEnv(env);
  return ({ to }) => backupDatabase({ dbPath, to, busyTimeoutMs });
}
