// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Compliance rules (Part 2 "Rule"): per company and environment; branches, jurisdictions and metadata as JSON text.
import { pgTable, text, integer, bigint, index } from "drizzle-orm/pg-core";

export const rules = pgTable(
  "rules",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    name: text("name").notNull(),
    description: text("description"),
    category: text("category", { enum: ["aml", "sanctions"] }).notNull(),
    stage: text("stage", { enum: ["precheck", "postcheck", "both"] }).notNull(),
    action: text("action", { enum: ["flag", "require_review", "block"] }).notNull(),
    severity: text("severity", { enum: ["low", "medium", "high"] }).notNull(),
    isActive: integer("is_active").notNull(),
    /** Decimal string, or null. */
    threshold: text("threshold"),
    thresholdCurrency: text("threshold_currency"),
    /** JSON array of codes. */
    jurisdictions: text("jurisdictions").notNull(),
    /** JSON `{ thresholdOperator?, asset?, network? }`, or null. */
    metadata: text("metadata"),
    /** JSON `{ rules: Branch[] }`, or null. */
    condition: text("condition"),
    conditionCount: integer("condition_count").notNull().default(0),
    /** Name and description folded for `search` (any case, accents ignored). */
    searchText: text("search_text").notNull(),
    createdById: text("created_by_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** Insertion order (SQLite's rowid): the keyset of the lists and the order of active() (migration 0009). */
    seq: bigint("seq", { mode: "number" }).notNull().generatedByDefaultAsIdentity(),
  },
  // Lists and active() walk seq (insertion order) within company and environment: an index on the pair and seq carries it.
  (t) => [index("rules_by_environment").on(t.companyId, t.environment, t.seq), index("rules_active").on(t.companyId, t.environment, t.isActive)],
);
