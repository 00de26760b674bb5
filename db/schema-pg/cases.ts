// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Cases: compliance work items, their notes and history; title, description, notes and free-text history sealed.
import { pgTable, text, integer, index, uniqueIndex, primaryKey, bigint } from "drizzle-orm/pg-core";

export const cases = pgTable(
  "cases",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** Per company and environment, from 1, never reused (cases are never deleted). */
    seq: integer("seq").notNull(),
    /** Readable number, e.g. `CASE-2026-000123` (test: `CASE-TEST-2026-000123`). */
    caseNumber: text("case_number").notNull(),
    titleSealed: text("title_sealed").notNull(),
    descriptionSealed: text("description_sealed"),
    type: text("type").notNull(),
    category: text("category").notNull(),
    priority: text("priority", { enum: ["low", "medium", "high"] }).notNull(),
    status: text("status", { enum: ["open", "closed"] }).notNull(),
    resolution: text("resolution", { enum: ["approved", "rejected"] }),
    resolutionNoteSealed: text("resolution_note_sealed"),
    assigneeId: text("assignee_id"),
    ruleId: text("rule_id"),
    /** JSON array of linked transfer IDs, first linked first. */
    transferIds: text("transfer_ids").notNull().default("[]"),
    /** transferIds[0]: the transfer a resolution acts on; indexed for the hasTransfer filter and lookups. */
    firstTransferId: text("first_transfer_id"),
    /** `api`, `cli` or `screening` (or a provider seam, `provider:<name>`). */
    source: text("source").notNull(),
    noteCount: integer("note_count").notNull().default(0),
    createdById: text("created_by_id"),
    resolvedAt: text("resolved_at"),
    resolvedById: text("resolved_by_id"),
    /** JSON: who resolved (audit actor) and whether the key held strs:write, for the transfer's later outcome. */
    resolutionContext: text("resolution_context"),
    /** `transfer_updated` or `transfer_not_updated` once the transfer actor answered a resolution. */
    transferOutcome: text("transfer_outcome"),
    version: integer("version").notNull().default(1),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("cases_number").on(t.companyId, t.environment, t.seq),
    index("cases_list").on(t.companyId, t.environment, t.createdAt, t.id),
    index("cases_status").on(t.companyId, t.environment, t.status, t.createdAt, t.id),
    index("cases_assignee").on(t.companyId, t.environment, t.assigneeId, t.createdAt, t.id),
    index("cases_transfer").on(t.companyId, t.environment, t.firstTransferId),
  ],
);

/** The next case number per company and environment. */
export const caseCounters = pgTable(
  "case_counters",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment] })],
);

export const caseNotes = pgTable(
  "case_notes",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    id: text("id").notNull().unique(),
    caseId: text("case_id").notNull(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    contentSealed: text("content_sealed").notNull(),
    authorId: text("author_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("case_notes_case").on(t.caseId, t.seq)],
);

export const caseHistory = pgTable(
  "case_history",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    id: text("id").notNull().unique(),
    caseId: text("case_id").notNull(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    action: text("action").notNull(),
    field: text("field"),
    /** Free-text values (title, description, resolution note) are sealed: `sealed` = 1. */
    oldValue: text("old_value"),
    newValue: text("new_value"),
    sealed: integer("sealed").notNull().default(0),
    userId: text("user_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("case_history_case").on(t.caseId, t.seq)],
);

/** Blind index of title and description trigrams: HMAC tags only. */
export const caseTextGrams = pgTable(
  "case_text_grams",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    gram: text("gram").notNull(),
    caseId: text("case_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment, t.gram, t.caseId] }), index("case_text_grams_case").on(t.caseId)],
);
