// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). provider_b callbacks: authorization requests and transfer-data requests recorded for idempotency (Part 3 "provider_b callbacks").
import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";

export const providerBRequests = pgTable(
  "provider_b_requests",
  {
    /** `pbr_…`: the service's ID for the request; an incoming transfer's `cascade.externalId` is `provider_b-inbound:<id>`. */
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** The sender's `X-Request-Origin` (`code:<entity ID>`). */
    sender: text("sender").notNull(),
    /** The provider's `transferId`, chosen by the sender. */
    transferId: text("transfer_id").notNull(),
    /** `transfer` (POST v1/beneficiary/transfer) or `transfer_data` (PUT v1/verification/tx). */
    kind: text("kind", { enum: ["transfer", "transfer_data"] }).notNull(),
    /** SHA-256 (hex) of the request's fields and decrypted payload: the same transferId with other content is DUPLICATE_TRANSFER_ID. */
    contentHash: text("content_hash").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    /** When processing (last) started; after five minutes in progress it may be processed again (Part 3, Limits). */
    startedAt: text("started_at").notNull(),
    completedAt: text("completed_at"),
    /** The answer (status, body, payload plaintext), sealed with the secrets key: it holds personal data. */
    answerSealed: text("answer_sealed"),
    /** The incoming transfer the request created, if any. */
    transferRef: text("transfer_ref"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  // One record per environment, sender and transferId: concurrent duplicates cannot both claim it.
  (t) => [uniqueIndex("provider_b_requests_key").on(t.companyId, t.environment, t.sender, t.transferId)],
);
