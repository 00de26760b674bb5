// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Suspicion reports (STR/SAR/SMR): one row per report, never deleted; narrative, indicators and regulatory data sealed.
import { pgTable, text, integer, index, uniqueIndex } from "drizzle-orm/pg-core";

export const reports = pgTable(
  "reports",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    kind: text("kind", { enum: ["suspicion"] }).notNull(),
    /** Per company and environment, from 1, never reused (reports are never deleted). */
    seq: integer("seq").notNull(),
    /** Readable number, e.g. `SAR-2026-000001` (test: `SAR-TEST-2026-000001`). */
    reportNumber: text("report_number").notNull(),
    /** report_number lower-cased, for search in any case. */
    reportNumberSearch: text("report_number_search").notNull(),
    /** Upper-case ISO 3166-1 alpha-2. */
    jurisdiction: text("jurisdiction").notNull(),
    transferId: text("transfer_id").notNull(),
    caseId: text("case_id"),
    status: text("status", { enum: ["draft", "pending_review", "submitted", "filed"] }).notNull(),
    detectionMethod: text("detection_method", { enum: ["screening", "manual"] }).notNull(),
    /** `system` or a member ID. */
    generatedBy: text("generated_by").notNull(),
    generatedAt: text("generated_at").notNull(),
    narrativeSealed: text("narrative_sealed"),
    riskIndicatorsSealed: text("risk_indicators_sealed").notNull(),
    regulatoryDataSealed: text("regulatory_data_sealed").notNull(),
    /** Computed at every write from the report type's required fields and narrative rule. */
    filingReady: integer("filing_ready").notNull().default(0),
    /** Characters of narrative, indicators and regulatory data: the PDF limit is checked without opening them. */
    textLength: integer("text_length").notNull().default(0),
    /** Whether the sealed text holds Chinese, Japanese or Korean characters (one such render at a time). */
    hasCjk: integer("has_cjk").notNull().default(0),
    submittedAt: text("submitted_at"),
    submittedBy: text("submitted_by"),
    approvedAt: text("approved_at"),
    approvedBy: text("approved_by"),
    filedAt: text("filed_at"),
    filedBy: text("filed_by"),
    /** The member who last edited the narrative, fields or indicators (four eyes: may not approve). */
    lastEditedBy: text("last_edited_by"),
    filingReference: text("filing_reference"),
    filingReferenceSearch: text("filing_reference_search"),
    version: integer("version").notNull().default(1),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("reports_number").on(t.companyId, t.environment, t.seq),
    index("reports_list").on(t.companyId, t.environment, t.createdAt, t.id),
    index("reports_status").on(t.companyId, t.environment, t.status, t.createdAt, t.id),
    index("reports_transfer").on(t.companyId, t.environment, t.transferId),
  ],
);
