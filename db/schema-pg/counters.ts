// PostgreSQL twin of SQLite's list_counts (migration 0004, kept out of db/schema because drizzle-kit does not model the
// triggers that keep it): list totals per company, environment and list, so unfiltered lists answer meta.total
// without counting. The triggers that keep it are PL/pgSQL on PostgreSQL (db/migrations-pg, after the baseline).
import { pgTable, text, integer, primaryKey } from "drizzle-orm/pg-core";

export const listCounts = pgTable(
  "list_counts",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment").notNull(),
    list: text("list").notNull(),
    n: integer("n").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment, t.list] })],
);
