// The CLI's commands that work on the database, by name: each command's module is loaded on its first use (the
// program, and a test that runs one command in its own process, pay only for what they run). src/main.ts dispatches
// through this table; test/support/cli.ts runs the same entries in the test process.
import { parseArgs } from "node:util";
import type { Storage } from "../adapters/storage/index.ts";

export type StorageCommand = (s: Storage, argv: string[], out: (line: string) => void) => void | Promise<void>;

export const STORAGE_COMMANDS: Readonly<Record<string, () => Promise<StorageCommand>>> = {
  migrate: async () => (s, argv, out) => {
    parseArgs({ args: argv, options: {}, strict: true });
    out(`caravan: migrations applied to ${s.path}`);
  },
  keys: async () => (await import("./tenancy.ts")).runKeys,
  members: async () => (await import("./tenancy.ts")).runMembers,
  companies: async () => (await import("./tenancy.ts")).runCompanies,
  assets: async () => (await import("./assets.ts")).runAssets,
  customers: async () => (await import("./customers.ts")).runCustomers,
  wallets: async () => (await import("./wallets.ts")).runWallets,
  cases: async () => (await import("./cases.ts")).runCases,
  reports: async () => (await import("./reports.ts")).runReports,
  rules: async () => (await import("./rules.ts")).runRules,
  "dead-letters": async () => (await import("./dead-letters.ts")).runDeadLetters,
  audit: async () => (await import("./audit.ts")).runAudit,
};
