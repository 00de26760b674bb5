// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Customers: personal data (name, metadata, identity, reasons) sealed with AES-256-GCM; names searchable by blind trigrams.
import { pgTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/pg-core";

export const customers = pgTable(
  "customers",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    externalId: text("external_id"),
    /** externalId lower-cased (Unicode) at write time: SQLite's lower() folds ASCII only. */
    externalIdSearch: text("external_id_search"),
    nameSealed: text("name_sealed"),
    metadataSealed: text("metadata_sealed"),
    /** IVMS101 persons, sealed; never returned. */
    identitySealed: text("identity_sealed"),
    identityStatus: text("identity_status", { enum: ["verified", "unverified", "blocked"] }),
    /** Country of the identity (ISO 3166-1), kept for jurisdiction rules. */
    identityCountry: text("identity_country"),
    /** secp256k1 public key, compressed, hex. */
    publicKey: text("public_key"),
    privateKeySealed: text("private_key_sealed"),
    status: text("status", { enum: ["active", "deactivated", "erased"] }).notNull(),
    deactivatedAt: text("deactivated_at"),
    deactivatedBy: text("deactivated_by"),
    deactivationReasonSealed: text("deactivation_reason_sealed"),
    erasedAt: text("erased_at"),
    erasedBy: text("erased_by"),
    erasureReasonSealed: text("erasure_reason_sealed"),
    legalHold: integer("legal_hold").notNull().default(0),
    version: integer("version").notNull().default(1),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("customers_external_id").on(t.companyId, t.environment, t.externalId),
    index("customers_list_all").on(t.companyId, t.environment, t.createdAt, t.id),
    index("customers_list_status").on(t.companyId, t.environment, t.status, t.createdAt, t.id),
  ],
);

/** Blind index of name trigrams: HMAC tags only, so a name cannot be read back from it. */
export const customerNameGrams = pgTable(
  "customer_name_grams",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    gram: text("gram").notNull(),
    customerId: text("customer_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment, t.gram, t.customerId] }), index("customer_name_grams_customer").on(t.customerId)],
);
