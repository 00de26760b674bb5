// The company's asset policy: which catalog assets new outgoing transfers may use, per environment.
import { sqliteTable, text, integer, primaryKey } from "drizzle-orm/sqlite-core";

export const assetPolicies = sqliteTable(
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
