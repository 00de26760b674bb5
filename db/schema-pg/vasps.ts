// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Counterparty VASPs seen by an environment (transfers, both sides, and wallet discovery): the VASP search reads it.
import { pgTable, text, primaryKey, index } from "drizzle-orm/pg-core";

export const vaspNames = pgTable(
  "vasp_names",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** A DID or a provider identifier. */
    vaspId: text("vasp_id").notNull(),
    /** A name the VASP has had (the VASP's ID when none is known). */
    name: text("name").notNull(),
    /** `transfer_history`, `discovery` or the resolution method recorded. */
    source: text("source").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment, t.vaspId, t.name] }), index("vasp_names_seen").on(t.companyId, t.environment, t.vaspId, t.lastSeenAt)],
);
