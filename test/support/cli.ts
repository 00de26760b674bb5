// The CLI's storage commands run inside the test process: the same command functions `src/main.ts` dispatches to
// (keys, members, companies, assets, customers, wallets, cases, reports, rules, migrate), on the same database file,
// with the same configuration reading, instead of a new `bun` process each time (about 0.7 s a run on two cores).
// A server under test sees these writes exactly as it sees the CLI's (another connection to the file, picked up by
// its poll). Tests that prove the CLI as a program (exit codes, one-line errors, help, the binary) keep `runCli`
// from ./server.ts; CARAVAN_TEST_CLI=process sends every call here to a real process too.
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { configFromEnv } from "../../src/services.ts";
import { runAssets } from "../../src/cli/assets.ts";
import { runCases } from "../../src/cli/cases.ts";
import { runCustomers } from "../../src/cli/customers.ts";
import { runReports } from "../../src/cli/reports.ts";
import { runRules } from "../../src/cli/rules.ts";
import { runCompanies, runKeys, runMembers } from "../../src/cli/tenancy.ts";
import { runWallets } from "../../src/cli/wallets.ts";
import { runCli } from "./server.ts";

type Out = (line: string) => void;
const COMMANDS: Record<string, (s: Storage, argv: string[], out: Out) => void> = {
  migrate: (s, _argv, out) => out(`caravan: migrations applied to ${s.path}`),
  keys: runKeys,
  members: runMembers,
  companies: runCompanies,
  assets: runAssets,
  customers: runCustomers,
  wallets: runWallets,
  cases: runCases,
  reports: runReports,
  rules: runRules,
};

/** `caravan <args>` with `env` over the test's own environment: exit code and output, as `runCli` answers them. */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const [command, ...rest] = args;
  const run = command === undefined ? undefined : COMMANDS[command];
  // Help, unknown commands and (on request) everything: the real program.
  if (!run || rest.some((a) => a === "--help" || a === "-h" || a === "help") || process.env.CARAVAN_TEST_CLI === "process") return runCli(args, env);
  const lines: string[] = [];
  let storage: Storage | undefined;
  try {
    const { dbPath, migrationsFolder, busyTimeoutMs } = configFromEnv({ ...process.env, ...env });
    storage = await openStorage(dbPath, { migrationsFolder, busyTimeoutMs });
    run(storage, rest, (line) => lines.push(line));
    return { code: 0, stdout: lines.map((l) => `${l}\n`).join(""), stderr: "" };
  } catch (e) {
    // src/main.ts answers every refusal as one line `caravan: <message>` and exit code 1.
    return { code: 1, stdout: lines.map((l) => `${l}\n`).join(""), stderr: `caravan: ${e instanceof Error ? e.message : String(e)}\n` };
  } finally {
    storage?.close();
  }
}
