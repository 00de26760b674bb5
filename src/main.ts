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
  demo [--count N]      the API plus sandbox peers, demo customers and a stream of transfers
  sandbox [--port P]    the provider_b sandbox network alone
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

async function demo(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { count: { type: "string" }, interval: { type: "string" } }, strict: true });
  const { runDemo } = await import("./demo.ts");
  const config = configFromEnv(process.env);
  const d = await runDemo({
    port: config.port,
    dbPath: process.env.CARAVAN_DB || undefined,
    count: values.count ? Number(values.count) : undefined,
    intervalMs: values.interval ? Number(values.interval) : undefined,
  });
  const stop = async () => {
    await d.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  await d.done;
  if (values.count) await stop();
}

async function sandbox(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { port: { type: "string" } }, strict: true });
  const { startProviderBPeer } = await import("./sandbox/provider_b/index.ts");
  const peer = await startProviderBPeer({
    port: values.port ? Number(values.port) : 0,
    vasps: [{ entityId: "VASP-ALPINE", name: "Alpine Exchange", country: "CH", wallets: [{ address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", customer: "ruth" }], customers: { ruth: [] } }],
  });
  console.log(`provider_b sandbox network at ${peer.url}`);
  for (const v of peer.directory.vasps.values()) console.log(`  VASP ${v.entityId} (${v.name}) public key ${v.publicKeyBase64}`);
  const stop = async () => {
    await peer.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
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
    case "demo":
      return demo(rest);
    case "sandbox":
      return sandbox(rest);
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
