// Companies (tenants), their members and the members' API keys.
import { sqliteTable, text, index, uniqueIndex } from "drizzle-orm/sqlite-core";

export const companies = sqliteTable("companies", {
  id: text("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  status: text("status", { enum: ["active", "suspended"] }).notNull().default("active"),
  /** JSON array of plan features turned off for this company. */
  disabledFeatures: text("disabled_features").notNull().default("[]"),
  /** JSON company profile (legal name, country, identifiers); null until set. */
  profile: text("profile"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const members = sqliteTable(
  "members",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull().references(() => companies.id),
    email: text("email").notNull(),
    role: text("role", { enum: ["owner", "compliance_officer", "analyst", "developer"] }).notNull(),
    status: text("status", { enum: ["active", "disabled"] }).notNull().default("active"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("members_company_email").on(t.companyId, t.email)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull().references(() => companies.id),
    memberId: text("member_id").notNull().references(() => members.id),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** SHA-256 of the whole key, hex. The key itself is shown once and never stored. */
    keyHash: text("key_hash").notNull().unique(),
    hint: text("hint").notNull(),
    /** JSON array of scopes. */
    scopes: text("scopes").notNull(),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("api_keys_company").on(t.companyId, t.createdAt)],
);
