// The webhooks port: a company's subscriptions per environment, their deliveries (one per event and subscription, and
// the test pings) and each delivery's attempts, in the domain's records. Written by hand; the SQLite engine implements it
// in storage's repos/webhooks.ts, and the storage contract suite holds every engine to it. Its writes run
// inside a caller's unit of work: the environment's subscriptions actor (src/actors/webhook-subscriptions.ts) creates and
// changes subscriptions, the dispatcher (src/actors/webhook-dispatcher.ts) makes deliveries, and each subscription's
// actor (src/actors/webhook.ts) records their attempts. The signing secret is only ever here sealed (under the secrets
// key, associated data `webhook:<id>:secret`): a record carries it only where a caller signs with it.
import type { Environment } from "../domain/types.ts";
import type { DeliveryStatus, WebhookStatus } from "../domain/webhooks.ts";

/** A subscription as it is listed and shown (no secret). Times are ISO 8601 UTC with ms unless named `…Ms`. */
export interface Webhook {
  id: string;
  companyId: string;
  environment: Environment;
  name: string;
  url: string;
  /** The event types it receives, or ["*"]. */
  events: string[];
  status: WebhookStatus;
  description: string | null;
  /** Events with a seq above this one are delivered: set at creation and whenever the status becomes active. */
  activeFromSeq: number;
  consecutiveFailures: number;
  /** When the first delivery of the current run of failures failed (ms since epoch); null after a success. */
  failingSince: number | null;
  lastDeliveryAt: string | null;
  lastSuccessAt: string | null;
  /** Counters kept by the engine whoever writes a delivery (they survive the deliveries' retention). */
  deliveryCount: number;
  sentCount: number;
  failedCount: number;
  /** The sum and count of the response times recorded: the average is theirs. */
  responseMsSum: number;
  responseCount: number;
  createdAt: string;
  updatedAt: string;
}

/** A subscription with its signing secret, sealed: what a sender of its deliveries reads. */
export interface SealedWebhook extends Webhook {
  secretSealed: string;
}

/** A new subscription: the counters start at zero, health clear. */
export type NewWebhook = Pick<
  SealedWebhook,
  "id" | "companyId" | "environment" | "name" | "url" | "events" | "status" | "description" | "secretSealed" | "activeFromSeq" | "createdAt" | "updatedAt"
>;

/** The fields a change may write (the others are the engine's or the attempts'). */
export type WebhookPatch = Partial<Pick<SealedWebhook, "name" | "url" | "events" | "status" | "description" | "secretSealed" | "activeFromSeq" | "updatedAt">>;

/** A subscription the dispatcher may deliver to: what it matches events against. */
export interface ActiveSubscription {
  id: string;
  events: string[];
  activeFromSeq: number;
}

/** One delivery: an event (or a test ping) for one subscription, with its last attempt. */
export interface Delivery {
  id: string;
  webhookId: string;
  companyId: string;
  environment: Environment;
  /** The event it carries and its place in the sequence (null for a test ping); the seq orders a subscription's deliveries. */
  eventId: string | null;
  eventSeq: number | null;
  eventType: string;
  /** The exact raw JSON body that is signed and sent (retries resend these bytes). */
  body: string;
  /** The signature made at the first attempt; automatic retries resend it. */
  signature: string | null;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  httpStatus: number | null;
  responseTimeMs: number | null;
  lastError: string | null;
  /** ms since epoch; the automatic retry is not sent before it. */
  nextRetryAt: number | null;
  sentAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A new delivery (a manual retry's claim on it starts empty). */
export type NewDelivery = Delivery;

/** The result of one attempt, as written to the delivery. */
export interface AttemptRecord {
  status: DeliveryStatus;
  attempts: number;
  httpStatus: number | null;
  responseTimeMs: number | null;
  lastError: string | null;
  nextRetryAt: number | null;
  sentAt: string | null;
  /** Kept as it was when absent. */
  signature?: string;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
}

/** A subscription's place in its queue: the event seq and ID of a delivery (send order). */
export type QueuePosition = [eventSeq: number, id: string];

/** A list's place: the createdAt and ID of the last delivery given (newest first). */
export type ListPosition = [createdAt: string, id: string];

export interface WebhookRepository {
  insert(w: NewWebhook): Promise<void>;
  /** The subscription of this company and environment, or undefined. */
  get(companyId: string, env: Environment, id: string): Promise<Webhook | undefined>;
  /** The subscription with its sealed secret, whichever company it belongs to (its own delivery actor; a signing route after `get`). */
  byId(id: string): Promise<SealedWebhook | undefined>;
  /** The environment's subscriptions, newest first (createdAt, then ID); only those of `status` when given. */
  all(companyId: string, env: Environment, status?: WebhookStatus): Promise<Webhook[]>;
  /** Writes the given fields (none: nothing). */
  update(id: string, set: WebhookPatch): Promise<void>;
  /** The environment's active subscriptions. */
  active(companyId: string, env: Environment): Promise<ActiveSubscription[]>;
  /** New deliveries, in the order given (one call for a dispatcher run's batch). */
  insertDeliveries(ds: readonly NewDelivery[]): Promise<void>;
  /** The subscription's delivery, or undefined (a delivery of another subscription is not found). */
  delivery(webhookId: string, id: string): Promise<Delivery | undefined>;
  /** The next `limit` pending deliveries in send order (event seq, then ID), after `after` when given. */
  heads(webhookId: string, after: QueuePosition | null, limit: number): Promise<Delivery[]>;
  /** Writes an attempt's result; it ends any manual retry's claim. */
  recordAttempt(id: string, r: AttemptRecord, now: string): Promise<void>;
  /**
   * Subscription health after an attempt: a success clears the run of failures; a delivery that failed for good
   * extends it (`failingSince` keeps the time of its first failure); an attempt that will be retried changes neither.
   */
  recordHealth(webhookId: string, outcome: "sent" | "failed" | "retrying", nowMs: number, now: string): Promise<void>;
  /** The subscription's pending deliveries end failed with the reason, without counting against its health; how many. */
  failPending(webhookId: string, reason: string, now: string): Promise<number>;
  /** Subscriptions with a pending delivery due by `nowMs` (restart recovery). */
  withDuePending(nowMs: number): Promise<string[]>;
  /** A manual retry takes a failed delivery for itself until `untilMs`; false when it is not failed or already taken. */
  claimFailed(webhookId: string, id: string, nowMs: number, untilMs: number): Promise<boolean>;
  /** The subscription's deliveries newest first (createdAt, then ID), before `after` when given. */
  deliveries(webhookId: string, f: DeliveryFilter, after: ListPosition | null, limit: number): Promise<Delivery[]>;
  /** How many deliveries of the subscription match (the counters answer without a filter on the event type). */
  countDeliveries(w: Webhook, f: DeliveryFilter): Promise<number>;
  /**
   * Retention: the IDs of deliveries that are done (sent or failed) and last changed before `cutoff` (ISO time), among
   * the oldest `limit` in insert order, stopping at the first one created at or after `cutoff`. Pending ones never.
   */
  prunableDeliveries(cutoff: string, limit: number): Promise<string[]>;
  /** Removes these deliveries unless pending (the subscriptions' counters are kept). */
  deleteDeliveries(ids: readonly string[]): Promise<void>;
  /**
   * The automatic disabling: status disabled, a system entry in the audit log, the subscription's pending deliveries
   * end failed; inside the caller's unit of work (the one that recorded the failure).
   */
  disableAutomatically(w: Webhook, failures: number, nowMs: number): Promise<void>;
}
