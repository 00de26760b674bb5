// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Companies (tenants), their members and the members' API keys.
import { pgTable, text, integer, index, uniqueIndex } from "drizzle-orm/pg-core";

export const companies = pgTable("companies", {
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

export const members = pgTable(
  "members",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull().references(() => companies.id),
    email: text("email").notNull(),
    role: text("role", { enum: ["owner", "compliance_officer", "analyst", "developer"] }).notNull(),
    status: text("status", { enum: ["active", "disabled"] }).notNull().default("active"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** `scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>`; null until the member set a passphrase. */
    passphraseHash: text("passphrase_hash"),
    /** The TOTP secret (RFC 6238), sealed under the master key. */
    totpSecretSealed: text("totp_secret_sealed"),
    /** Set once the member proved the second factor with a first code; sign-in needs it. */
    totpConfirmedAt: text("totp_confirmed_at"),
    /** The last time step a code was accepted for: a code is never accepted twice. */
    totpLastStep: integer("totp_last_step"),
    /** SHA-256 of the one-time setup code the CLI printed; cleared when used. */
    setupCodeHash: text("setup_code_hash"),
    setupCodeExpiresAt: text("setup_code_expires_at"),
  },
  (t) => [uniqueIndex("members_company_email").on(t.companyId, t.email)],
);

/** A member's console session: a bearer token (only its SHA-256 kept), bound to the member, its role and its source. */
export const memberSessions = pgTable(
  "member_sessions",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull().references(() => companies.id),
    memberId: text("member_id").notNull().references(() => members.id),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** The member's role at sign-in: a role change ends the session. */
    role: text("role", { enum: ["owner", "compliance_officer", "analyst", "developer"] }).notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    /** The client address that signed in (null when unknown). */
    source: text("source"),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at").notNull(),
    /** Moves forward while the session is used (idle lifetime), never past the absolute lifetime. */
    expiresAt: text("expires_at").notNull(),
    endedAt: text("ended_at"),
    endedReason: text("ended_reason"),
  },
  (t) => [index("member_sessions_member").on(t.memberId, t.endedAt)],
);

export const apiKeys = pgTable(
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
    /** Optional, given at creation: from then on the key is 401 KEY_REVOKED. */
    expiresAt: text("expires_at"),
    /** When the key last authenticated a request (written at most once a minute). */
    lastUsedAt: text("last_used_at"),
  },
  (t) => [index("api_keys_company").on(t.companyId, t.createdAt)],
);
