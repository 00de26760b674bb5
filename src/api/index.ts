// The API contract: request and answer schemas of every resource (TypeBox), their static types, the envelopes, the
// error codes and the paths. The server validates and documents with it; the console is typed by it. It imports
// nothing but TypeBox, so any client can take it whole.
export * from "./common.ts";
export * from "./errors.ts";
export * from "./persons.ts";
export * from "./customers.ts";
export * from "./wallets.ts";
export * from "./transfers.ts";
export * from "./cases.ts";
export * from "./rules.ts";
export * from "./thresholds.ts";
export * from "./webhooks.ts";
export * from "./reports.ts";
export * from "./providers.ts";
export * from "./audit.ts";
export * from "./me.ts";
export * from "./team.ts";
export * from "./dead-letters.ts";
export * from "./events.ts";
export * from "./paths.ts";
export * from "./routes.ts";
export * from "./refusals.ts";
export * from "./usage.ts";
