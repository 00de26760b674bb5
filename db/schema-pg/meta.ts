// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Facts about the database itself (not about any company): small named values written by the service.
import { pgTable, text } from "drizzle-orm/pg-core";

/** One row per fact, e.g. `master_key_check`: a short text sealed with the master key, to tell a wrong key at start. */
export const databaseMeta = pgTable("database_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
