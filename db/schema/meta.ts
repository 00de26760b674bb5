// Facts about the database itself (not about any company): small named values written by the service.
import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per fact, e.g. `master_key_check`: a short text sealed with the master key, to tell a wrong key at start. */
export const databaseMeta = sqliteTable("database_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
