// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). The wallet registry: customers' hosted addresses. No personal data.
import { pgTable, text, integer, index, uniqueIndex } from "drizzle-orm/pg-core";
import { customers } from "./customers.ts";

export const wallets = pgTable(
  "wallets",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    customerId: text("customer_id").notNull().references(() => customers.id),
    /** As registered, with its destination tag in canonical form (`r…?dt=12`). */
    address: text("address").notNull(),
    network: text("network").notNull(),
    label: text("label"),
    /** Derived from ownership proofs, changed in the proof's transaction. */
    verified: integer("verified").notNull().default(0),
    verifiedAt: text("verified_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("wallets_address").on(t.companyId, t.environment, t.address),
    index("wallets_list").on(t.companyId, t.environment, t.createdAt, t.id),
    index("wallets_customer").on(t.companyId, t.environment, t.customerId, t.createdAt, t.id),
    index("wallets_network").on(t.companyId, t.environment, t.network, t.createdAt, t.id),
  ],
);
