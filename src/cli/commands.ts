// The CLI's commands that work on the database, by name: each command's module is loaded on its first use (the
// program, and a test that runs one command in its own process, pay only for what they run). The CLI's entry
// (src/cli/entry.ts) opens the store and hands each command what it receives (./context.ts), never the engine.
import { parseArgs } from "node:util";
import type { CliCommand } from "./context.ts";

export type { CliCommand };

export const CLI_COMMANDS: Readonly<Record<string, () => Promise<CliCommand>>> = {
  migrate: async () => (cli, argv, out) => {
    parseArgs({ args: argv, options: {}, strict: true });
    out(`caravan: migrations applied to ${cli.where}`);
  },
  keys: async () => (await import("./tenancy.ts")).runKeys,
  members: async () => (await import("./tenancy.ts")).runMembers,
  companies: async () => (await import("./tenancy.ts")).runCompanies,
  assets: async () => (await import("./assets.ts")).runAssets,
  customers: async () => (await import("./customers.ts")).runCustomers,
  audit: async () => (await import("./audit.ts")).runAudit,
  wallets: async () => (await import("./wallets.ts")).runWallets,
  cases: async () => (await import("./cases.ts")).runCases,
  reports: async () => (await import("./reports.ts")).runReports,
  rules: async () => (await import("./rules.ts")).runRules,
  "dead-letters": async () => (await import("./dead-letters.ts")).runDeadLetters,
};
