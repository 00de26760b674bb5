// The one CLI: serve, migrate (and, as issues land, console, demo, keys, members, companies).
import process from "node:process";
import { parseArgs } from "node:util";
import { openStorage, StorageError } from "./adapters/storage/index.ts";
import { configFromEnv, ConfigError, startService } from "./services.ts";

const USAGE = `usage: caravan <command> [options]

commands:
  serve      run the API (PORT, HOST, CARAVAN_DB)
  migrate    apply database migrations and exit (CARAVAN_DB)
`;

/** Faults the operator must fix: one clear line, exit code 1, no stack trace. */
function fatal(e: unknown): never {
  if (e instanceof StorageError || e instanceof ConfigError || e instanceof UsageError) {
    console.error(`caravan: ${e.message}`);
  } else {
    console.error(`caravan: unexpected error: ${e instanceof Error ? e.message : String(e)}`);
    if (process.env.CARAVAN_DEBUG) console.error(e);
  }
  process.exit(1);
}

class UsageError extends Error {}

async function serve(): Promise<void> {
  const config = configFromEnv(process.env);
  const service = await startService(config);
  console.log(`caravan listening on ${service.url} (database ${config.dbPath})`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.log("info", "shutting down", { signal });
    try {
      await service.stop();
      process.exit(0);
    } catch (e) {
      fatal(e);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

async function migrateOnly(): Promise<void> {
  const { dbPath, migrationsFolder, busyTimeoutMs } = configFromEnv(process.env);
  const storage = await openStorage(dbPath, { migrationsFolder, busyTimeoutMs });
  storage.close();
  console.log(`caravan: migrations applied to ${dbPath}`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      parseArgs({ args: rest, options: {}, strict: true });
      return serve();
    case "migrate":
      parseArgs({ args: rest, options: {}, strict: true });
      return migrateOnly();
    case undefined:
    case "help":
    case "--help":
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch(fatal);
