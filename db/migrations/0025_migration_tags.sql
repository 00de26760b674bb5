-- Each applied migration's tag beside drizzle's hash and journal time (docs/operations.md#upgrading-several-nodes):
-- a build that finds a migration newer than it knows names it in its refusal to start. Filled by the migrator after
-- each run (src/adapters/storage/index.ts), for the rows before this one too.
ALTER TABLE `__drizzle_migrations` ADD `tag` text;
