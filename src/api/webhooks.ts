// Webhooks: subscriptions, their deliveries, the test ping and a manual retry.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Iso, Nullable, OneOf } from "./common.ts";

export const EVENT_TYPES = [
  "transfer.created",
  "transfer.updated",
  "transfer.completed",
  "transfer.accepted",
  "transfer.rejected",
  "transfer.cancelled",
  "transfer.held",
  "transfer.failed",
  "case.created",
  "case.updated",
  "case.resolved",
  "compliance.screening_complete",
  "audit.checkpoint",
  "test.ping",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const SUBSCRIBABLE_EVENTS = EVENT_TYPES.filter((t) => t !== "test.ping");
export const WEBHOOK_STATUSES = ["active", "paused", "disabled"] as const;
export const DELIVERY_STATUSES = ["pending", "sent", "failed"] as const;
export const WEBHOOK_LIMITS = { name: 100, url: 2048, description: 500 } as const;

// ---- requests ----
const fields = {
  name: Type.String({ minLength: 1, maxLength: WEBHOOK_LIMITS.name }),
  url: Type.String({ maxLength: WEBHOOK_LIMITS.url, description: "public https URL; hosts resolving to private, reserved or local addresses are 422 INVALID_URL" }),
  events: Type.Array(OneOf([...SUBSCRIBABLE_EVENTS, "*"]), { minItems: 1, description: 'event types, or ["*"] for all' }),
  description: Nullable(Type.String({ maxLength: WEBHOOK_LIMITS.description })),
};
export const CreateWebhook = Body({ ...fields, description: Type.Optional(fields.description) });
export type CreateWebhook = Static<typeof CreateWebhook>;
export const UpdateWebhook = Type.Partial(Body({ ...fields, status: OneOf(WEBHOOK_STATUSES), regenerateSecret: Type.Boolean() }), { minProperties: 1 });
export type UpdateWebhook = Static<typeof UpdateWebhook>;

export const webhookExamples = {
  create: { name: "Compliance events", url: "https://hooks.example.com/caravan", events: ["transfer.held", "case.created"], description: "To the case tracker" },
  update: { status: "paused" },
};

// ---- answers ----
/** A subscription; `url` is masked (`urlMasked`) for a role that may not see it. The secret is never in it. */
export const Webhook = Answer({
  id: Type.String({ pattern: "^whk_[0-9a-z]{26}$" }),
  name: Type.String(),
  url: Type.String(),
  urlMasked: Type.Boolean(),
  events: Type.Array(Type.String()),
  status: OneOf(WEBHOOK_STATUSES),
  description: Nullable(Type.String()),
  environment: OneOf(["test", "live"]),
  consecutiveFailures: Type.Integer({ minimum: 0 }),
  lastDeliveryAt: Nullable(Iso),
  lastSuccessAt: Nullable(Iso),
  createdAt: Iso,
  updatedAt: Iso,
  deliveryCount: Type.Integer({ minimum: 0 }),
});
export type Webhook = Static<typeof Webhook>;

/** What a delivery's event concerns, as the event was recorded (never read from the payload). */
export const DELIVERY_SUBJECT_TYPES = ["transfer", "case"] as const;
export const DeliverySubject = Answer(
  { type: OneOf(DELIVERY_SUBJECT_TYPES), id: Type.String({ description: "the transfer's ID (trf_…) or the case's ID (cas_…)" }) },
  "The transfer or case the delivery's event concerns, from the event's own record: null for test.ping, for audit.checkpoint (the audit log as a whole), and once the event itself was removed after the retention window",
);
export type DeliverySubject = Static<typeof DeliverySubject>;

/** A delivery: no payload, no signature; `subject` (additive) names the transfer or case its event concerns. */
export const Delivery = Answer({
  id: Type.String({ pattern: "^dlv_[0-9a-z]{26}$" }),
  eventType: Type.String(),
  subject: Nullable(DeliverySubject),
  status: OneOf(DELIVERY_STATUSES),
  attempts: Type.Integer({ minimum: 0 }),
  maxAttempts: Type.Integer({ minimum: 0 }),
  httpStatus: Nullable(Type.Integer()),
  responseTimeMs: Nullable(Type.Number()),
  lastError: Nullable(Type.String()),
  nextRetryAt: Nullable(Iso),
  sentAt: Nullable(Iso),
  createdAt: Iso,
});
export type Delivery = Static<typeof Delivery>;

/** GET /webhooks/:id answers the subscription itself (not wrapped in `data`), with stats and its latest deliveries. */
export const WebhookDetail = Type.Composite([
  Webhook,
  Answer({
    stats: Answer({
      total: Type.Integer({ minimum: 0 }),
      sent: Type.Integer({ minimum: 0 }),
      failed: Type.Integer({ minimum: 0 }),
      pending: Type.Integer({ minimum: 0 }),
      successRate: Nullable(Type.Number()),
      avgResponseTimeMs: Nullable(Type.Number()),
    }),
    recentDeliveries: Type.Array(Delivery),
  }),
]);
export type WebhookDetail = Static<typeof WebhookDetail>;

/** 201 of a create: the subscription and its signing secret, shown this once. */
export const WebhookCreated = Answer({ webhook: Webhook, secret: Type.String() });
