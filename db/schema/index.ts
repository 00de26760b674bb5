// Every table of the database, one file per aggregate.
export * from "./actors.ts";
export * from "./events.ts";
export * from "./tenancy.ts";
export * from "./audit.ts";
export * from "./customers.ts";
export * from "./wallets.ts";
export * from "./assets.ts";
export * from "./vasps.ts";
export * from "./transfers.ts";
export * from "./providers.ts";
export * from "./webhooks.ts";
export * from "./proofs.ts";
export * from "./provider_b.ts";
export * from "./provider_a.ts";
export * from "./cases.ts";
export * from "./reports.ts";
export * from "./rules.ts";
