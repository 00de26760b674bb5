// The one CLI: serve, migrate, keys, members, companies (console and demo arrive with their issues).
import process from "node:process";
import { parseArgs } from "node:util";
import { openStorage, StorageError, type Storage } from "./adapters/storage/index.ts";
import { TenancyError } from "./adapters/storage/repos/tenancy.ts";
import { configFromEnv, ConfigError, startService } from "./services.ts";
import { runCompanies, runKeys, runMembers } from "./cli/tenancy.ts";
import { runAssets } from "./cli/assets.ts";
import { UsageError } from "./cli/usage.ts";
import { runCustomers } from "./cli/customers.ts";
import { runWallets } from "./cli/wallets.ts";

const USAGE = `usage: caravan <command> [options]

commands:
  serve                 run the API (PORT, HOST, CARAVAN_DB, see README)
  migrate               apply database migrations and exit
  keys create|list|revoke
  members create|list|disable|enable|role
  companies create|list|suspend|reactivate|feature|profile
  customers hold --id <customerId> [--release]
  wallets challenge|prove|attest|proofs|revoke-proof   ownership proofs (see README)
Every command but serve takes --json for machine-readable output.`;

/** Faults the operator must fix: one clear line, exit code 1, no stack trace. */
function fatal(e: unknown): never {
  if (e instanceof StorageError || e instanceof ConfigError || e instanceof UsageError || e instanceof TenancyError) {
    console.error(`caravan: ${e.message}`);
  } else {
    console.error(`caravan: unexpected error: ${e instanceof Error ? e.message : String(e)}`);
    if (process.env.CARAVAN_DEBUG) console.error(e);
  }
  process.exit(1);
}

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

async function withStorage(fn: (s: Storage) => void): Promise<void> {
  const { dbPath, migrationsFolder, busyTimeoutMs } = configFromEnv(process.env);
  const storage = await openStorage(dbPath, { migrationsFolder, busyTimeoutMs });
  try {
    fn(storage);
  } finally {
    storage.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const out = (line: string) => console.log(line);
  switch (command) {
    case "serve":
      parseArgs({ args: rest, options: {}, strict: true });
      return serve();
    case "migrate":
      parseArgs({ args: rest, options: {}, strict: true });
      return withStorage((s) => out(`caravan: migrations applied to ${s.path}`));
    case "keys":
      return withStorage((s) => runKeys(s, rest, out));
    case "members":
      return withStorage((s) => runMembers(s, rest, out));
    case "companies":
      return withStorage((s) => runCompanies(s, rest, out));
    case "assets":
      return withStorage((s) => runAssets(s, rest, out));
    case "customers":
      return withStorage((s) => runCustomers(s, rest, out));
    case "wallets":
      return withStorage((s) => runWallets(s, rest, out));
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
