// Every table of the database, one file per aggregate.
export * from "./actors.ts";
export * from "./events.ts";
export * from "./tenancy.ts";
export * from "./audit.ts";
