// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Settings of the Travel Rule providers and screening integrations (Part 2 "Provider and integration settings"):
// one row per company and name (the stable ID and the one enabled switch), one per environment with the sealed credentials.
import { pgTable, text, integer, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";

export const providerSettings = pgTable(
  "provider_settings",
  {
    /** `prv_…` for a provider, `int_…` for an integration; created at the first save in either environment, the same in both. */
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    /** `provider_a` … `provider_e`, `screening_a` … `screening_d`. */
    name: text("name").notNull(),
    /** One switch for both environments (Part 2). */
    enabled: integer("enabled").notNull().default(0),
    /** When the switch last changed; null while it never did. */
    enabledChangedAt: text("enabled_changed_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("provider_settings_company_name").on(t.companyId, t.name)],
);

export const providerCredentials = pgTable(
  "provider_credentials",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    name: text("name").notNull(),
    /** Every saved value, as one JSON object sealed with AES-256-GCM (associated data `settings:<company>:<env>:<name>`). */
    credentialsSealed: text("credentials_sealed").notNull(),
    /** JSON array of the field keys that hold a value (names only, never values). */
    configuredFields: text("configured_fields").notNull(),
    notes: text("notes"),
    lastTestedAt: text("last_tested_at"),
    /** `success` or `error`. */
    lastTestResult: text("last_test_result"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment, t.name] })],
);
