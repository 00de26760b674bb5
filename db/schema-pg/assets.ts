// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). The company's asset policy: which catalog assets new outgoing transfers may use, per environment.
import { pgTable, text, integer, primaryKey } from "drizzle-orm/pg-core";

export const assetPolicies = pgTable(
  "asset_policies",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    assetId: text("asset_id").notNull(),
    enabled: integer("enabled").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment, t.assetId] })],
);
