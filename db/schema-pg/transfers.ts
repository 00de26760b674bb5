// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Transfers: one row per transfer, written only by its actors. Person data (IVMS101, rejection details) is sealed.
import { sql } from "drizzle-orm";
import { pgTable, text, integer, index, uniqueIndex, bigint } from "drizzle-orm/pg-core";

export const transfers = pgTable(
  "transfers",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    direction: text("direction", { enum: ["outgoing", "incoming"] }).notNull(),
    state: text("state").notNull(),
    /** Compliance verdict: pending, approved, rejected. */
    status: text("status").notNull(),
    /** The caller's Idempotency-Key, or an incoming transfer's external reference. */
    externalId: text("external_id"),
    /** The asset code as the caller gave it, and the catalog asset it resolved to (CAIP-19). */
    asset: text("asset").notNull(),
    assetId: text("asset_id"),
    amount: text("amount").notNull(),
    network: text("network").notNull(),
    blockchainType: text("blockchain_type"),
    originatorCustomerId: text("originator_customer_id"),
    originatorAddress: text("originator_address"),
    beneficiaryAddress: text("beneficiary_address").notNull(),
    beneficiaryCustomerId: text("beneficiary_customer_id"),
    isUnhostedWallet: integer("is_unhosted_wallet").notNull().default(0),
    /** IVMS101 originator and beneficiary persons, sealed. */
    originatorSealed: text("originator_sealed"),
    beneficiarySealed: text("beneficiary_sealed"),
    originatorVaspId: text("originator_vasp_id"),
    originatorVaspName: text("originator_vasp_name"),
    beneficiaryVaspId: text("beneficiary_vasp_id"),
    beneficiaryVaspName: text("beneficiary_vasp_name"),
    preferredProtocol: text("preferred_protocol"),
    /** The provider that carries it, once one does. */
    protocol: text("protocol"),
    providerExternalId: text("provider_external_id"),
    matchedAt: text("matched_at"),
    oursStatus: text("ours_status"),
    theirsStatus: text("theirs_status"),
    rejectionReason: text("rejection_reason"),
    rejectionDetailsSealed: text("rejection_details_sealed"),
    txHash: text("tx_hash"),
    sanctionsStatus: text("sanctions_status"),
    sanctionsProvider: text("sanctions_provider"),
    /** JSON: thresholdInfo at creation, compliance checks, cascade attempts, messages, history. */
    thresholdInfo: text("threshold_info"),
    fxRateId: text("fx_rate_id"),
    checks: text("checks").notNull().default("[]"),
    attempts: text("attempts").notNull().default("[]"),
    messages: text("messages").notNull().default("[]"),
    history: text("history").notNull().default("[]"),
    expiresAt: text("expires_at"),
    acceptedAt: text("accepted_at"),
    completedAt: text("completed_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Partial indexes (issue 19): a create below the threshold is born completed, without an Idempotency-Key,
    // provider reference or transaction hash, so it adds no entry to these four; every query on them names a value
    // (`= ?`, `IN (...)`), which SQLite knows implies `IS NOT NULL`. NULLs never collided in the unique index anyway.
    uniqueIndex("transfers_external_id").on(t.companyId, t.environment, t.externalId).where(sql`external_id IS NOT NULL`),
    index("transfers_list").on(t.companyId, t.environment, t.createdAt, t.id),
    index("transfers_state").on(t.companyId, t.environment, t.state, t.createdAt, t.id),
    index("transfers_status").on(t.companyId, t.environment, t.status, t.createdAt, t.id),
    // A customer's transfers not yet final, on either side (erasure waits for them: Transfers.activeForCustomer).
    // The WHERE text must stay the same as the query's: that is how SQLite knows the index holds every row it needs.
    index("transfers_active_originator").on(t.originatorCustomerId).where(sql`state NOT IN ('completed', 'rejected', 'cancelled')`),
    index("transfers_active_beneficiary").on(t.beneficiaryCustomerId).where(sql`state NOT IN ('completed', 'rejected', 'cancelled')`),
    // provider_b callbacks ask about outgoing transfers by the provider's transferId and by transaction (Part 3).
    index("transfers_provider_external").on(t.companyId, t.environment, t.providerExternalId).where(sql`provider_external_id IS NOT NULL`),
    index("transfers_tx_hash").on(t.companyId, t.environment, t.txHash).where(sql`tx_hash IS NOT NULL`),
    // The provider sweeps (provider_a poll and stall, provider_e poll and expiry: Part 3) walk one provider's open
    // transfers in (updated_at, id) pages. Each of their queries repeats this WHERE text word for word (SWEEP_OPEN).
    index("transfers_provider_sweep").on(t.protocol, t.updatedAt, t.id).where(sql`state IN ('exchanging', 'awaiting_counterparty', 'accepted')`),
  ],
);

// transfers_search_pending (SQLite's queue for its separate search file) has no twin here: PostgreSQL searches
// transfers with pg_trgm indexes on the rows themselves (docs/architecture.md, "PostgreSQL schema").

/** Jurisdictions' reporting thresholds; they belong to the company, not an environment (Part 2). */
export const thresholds = pgTable(
  "thresholds",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    countryCode: text("country_code").notNull(),
    type: text("type", { enum: ["tr", "str"] }).notNull(),
    name: text("name").notNull(),
    thresholdAmount: text("threshold_amount").notNull(),
    thresholdCurrency: text("threshold_currency").notNull(),
    regulation: text("regulation").notNull(),
    regulatoryBody: text("regulatory_body"),
    effectiveDate: text("effective_date"),
    filingDeadlineDays: integer("filing_deadline_days"),
    isEuMember: integer("is_eu_member").notNull(),
    requiresOriginatorAccount: integer("requires_originator_account").notNull(),
    isActive: integer("is_active").notNull(),
    notes: text("notes"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    createdBy: text("created_by"),
    updatedBy: text("updated_by"),
  },
  (t) => [uniqueIndex("thresholds_jurisdiction_type").on(t.companyId, t.countryCode, t.type), index("thresholds_order").on(t.companyId, t.countryCode, t.type, t.id)],
);

/** Every valuation of an amount: which rate, from where, as of when (the fxRateId of a transfer). */
export const fxValuations = pgTable(
  "fx_valuations",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    assetId: text("asset_id").notNull(),
    amount: text("amount").notNull(),
    currency: text("currency").notNull(),
    rate: text("rate").notNull(),
    value: text("value").notNull(),
    source: text("source").notNull(),
    rateAsOf: text("rate_as_of").notNull(),
    createdAt: text("created_at").notNull(),
  },
  // Read by ID only (a transfer's fxRateId): no other index, so a create appends to one B-tree less (issue 19). Stored
  // WITHOUT ROWID since migration 0020 (written by hand: drizzle has no such option): the table is its ID's B-tree.
);
