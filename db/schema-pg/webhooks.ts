// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Webhook subscriptions and their deliveries (Part 2, "Webhook subscription"); the signing secret is sealed.
import { sql } from "drizzle-orm";
import { pgTable, text, integer, index, bigint } from "drizzle-orm/pg-core";

export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    name: text("name").notNull(),
    url: text("url").notNull(),
    /** JSON array of event types, or ["*"]. */
    events: text("events").notNull(),
    status: text("status", { enum: ["active", "paused", "disabled"] }).notNull(),
    description: text("description"),
    /** The 64-hex signing secret, AES-256-GCM under the secrets key (associated data `webhook:<id>:secret`). */
    secretSealed: text("secret_sealed").notNull(),
    /** Events with a seq above this one are delivered: set at creation and whenever the status becomes active. */
    activeFromSeq: bigint("active_from_seq", { mode: "number" }).notNull().default(0),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** When the first delivery of the current run of failures failed (ms); null after a success. */
    failingSince: bigint("failing_since", { mode: "number" }),
    lastDeliveryAt: text("last_delivery_at"),
    lastSuccessAt: text("last_success_at"),
    /** Kept by triggers on webhook_deliveries (migration 0010), whoever writes. */
    deliveryCount: integer("delivery_count").notNull().default(0),
    sentCount: integer("sent_count").notNull().default(0),
    failedCount: integer("failed_count").notNull().default(0),
    responseMsSum: bigint("response_ms_sum", { mode: "number" }).notNull().default(0),
    responseCount: integer("response_count").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("webhooks_list").on(t.companyId, t.environment, t.createdAt, t.id), index("webhooks_status").on(t.companyId, t.environment, t.status)],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** The events row it carries (null for test.ping); seq orders a subscription's deliveries. */
    eventId: text("event_id"),
    eventSeq: bigint("event_seq", { mode: "number" }),
    eventType: text("event_type").notNull(),
    /** The exact raw JSON body that is signed and sent (retries resend these bytes). */
    body: text("body").notNull(),
    /** The X-Webhook-Signature made at the first attempt; automatic retries resend it (Part 2, Events). */
    signature: text("signature"),
    status: text("status", { enum: ["pending", "sent", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    httpStatus: integer("http_status"),
    responseTimeMs: integer("response_time_ms"),
    lastError: text("last_error"),
    /** ms since epoch; the automatic retry is not sent before it. */
    nextRetryAt: bigint("next_retry_at", { mode: "number" }),
    sentAt: text("sent_at"),
    /** A manual retry in progress holds the delivery until then (ms), so two retries never send it twice at once. */
    retryClaimUntil: bigint("retry_claim_until", { mode: "number" }),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  // Issue 19: a delivery is written twice (insert, then its outcome), so only what the queries need is indexed, and
  // the status lives in partial-index conditions rather than in keys: an outcome removes the queue entry instead of
  // moving three. The queries (repos/webhooks.ts) name the status as a literal so the planner can use them.
  (t) => [
    // Lists newest first; with status=sent (most rows) it is the list index, filtered.
    index("webhook_deliveries_list").on(t.webhookId, t.createdAt, t.id),
    index("webhook_deliveries_type").on(t.webhookId, t.eventType, t.createdAt, t.id),
    // The queue: pending deliveries in send order (dispatcher heads, failPending, restart recovery, status=pending lists).
    index("webhook_deliveries_pending_queue")
      .on(t.webhookId, t.eventSeq, t.id)
      .where(sql`status = 'pending'`),
    // status=failed lists (few rows: a delivery that failed for good).
    index("webhook_deliveries_failed")
      .on(t.webhookId, t.createdAt, t.id)
      .where(sql`status = 'failed'`),
  ],
);
