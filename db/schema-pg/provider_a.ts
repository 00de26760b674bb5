// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). provider_a callbacks: webhook messages recorded as processed after success (Part 3 "provider_a callback").
import { pgTable, text, primaryKey } from "drizzle-orm/pg-core";

export const providerAMessages = pgTable(
  "provider_a_messages",
  {
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** The entity (`vaspDid`) the event was for. */
    entity: text("entity").notNull(),
    /** The Standard Webhooks message ID (`svix-id` / `webhook-id`). */
    messageId: text("message_id").notNull(),
    /** SHA-256 (hex) of the raw body: the body is matched, never stored (it may carry personal data). */
    bodySha256: text("body_sha256").notNull(),
    /** The provider transfer ID of the event and the service's transfer it touched (null when ignored before one existed). */
    providerTransferId: text("provider_transfer_id").notNull(),
    transferId: text("transfer_id"),
    processedAt: text("processed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.environment, t.entity, t.messageId, t.bodySha256] })],
);
