// /api/v2/webhooks: subscriptions, test ping, deliveries and manual retry (Part 2, "Webhooks"); VALIDATION_ERROR is 422 here.
import { apiError, type Issue } from "../domain/errors.ts";
import { iso, newId } from "../domain/ids.ts";
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  LIMITS,
  RECENT_DELIVERIES,
  WEBHOOK_STATUSES,
  eventBody,
  maskUrl,
  newSecret,
  searchMatches,
  signatureHeader,
  validateCreateWebhook,
  validateUpdateWebhook,
} from "../domain/webhooks.ts";
import { checkTarget, TargetRefused } from "../adapters/net/index.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Delivery, Webhook, WebhookRepository } from "../ports/webhooks.ts";
import type { EventEntity, EventRepository } from "../ports/events.ts";
import { secretAad } from "../actors/webhook.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import { subscriptionsAddress, type SubscriptionCommand, type SubscriptionMsg } from "../actors/webhook-subscriptions.ts";
import { askActor, unwrap } from "./outcome.ts";
import type { WebhookServices } from "../adapters/webhooks/settings.ts";
import { created, json, ok, page, invalid, type ApiKit, type RouteContext } from "./kit.ts";
import { keysetPage, keysetPageAsync } from "./paging.ts";
import { q } from "./query.ts";
import * as api from "../api/webhooks.ts";

export interface WebhookRouteDeps {
  /** `events` names each delivery's subject (the entity its event row was recorded for). */
  repositories: { readonly webhooks: WebhookRepository; readonly events: EventRepository };
  secrets: Sealer;
  cursorKey: Uint8Array;
  webhooks: WebhookServices;
  /** Creates and changes are commands to the subscriptions actor of the key's company and environment. */
  runtime: ActorRuntime;
}

const ID = /^whk_[0-9a-z]{26}$/;
const DELIVERY_ID = /^dlv_[0-9a-z]{26}$/;
const read = { scope: "webhooks:read", permission: "webhooks:view" } as const;
const create = { scope: "webhooks:write", permission: "webhooks:create" } as const;
const update = { scope: "webhooks:write", permission: "webhooks:update" } as const;
const test = { scope: "webhooks:write", permission: "webhooks:test" } as const;
/** How long a manual retry holds its delivery against a second one (the attempt itself ends within 10 s). */
const RETRY_CLAIM_MS = 30_000;
/** Resolution at save gets this long, then the URL is refused as not resolving. */
const SAVE_CHECK_MS = 5_000;

function notFound(id: string): never {
  throw apiError("WEBHOOK_NOT_FOUND", { details: { resource: "Webhook", id } });
}

function invalidUrl(reason: string): never {
  throw apiError("INVALID_URL", { message: `The URL is not allowed: ${reason}`, details: { field: "url", reason } });
}

/** A subscription's body as the webhook rules read it: its value, or INVALID_URL, or VALIDATION_ERROR with the issues. */
function readWebhook<T>(v: { ok: true; value: T } | { ok: false; invalidUrl: string } | { ok: false; issues: Issue[] }): T {
  if (v.ok) return v.value;
  return "invalidUrl" in v ? invalidUrl(v.invalidUrl) : invalid(v.issues);
}

/** Part 2: only a key that may change webhooks (scope webhooks:write and role webhooks:update) sees URLs unmasked. */
const seesUrls = (c: RouteContext) => c.auth.key.scopes.has("webhooks:write") && c.auth.can("webhooks:update");

function present(c: RouteContext, w: Webhook) {
  const show = seesUrls(c);
  return {
    id: w.id,
    name: w.name,
    url: show ? w.url : maskUrl(w.url),
    urlMasked: !show,
    events: w.events,
    status: w.status,
    description: w.description,
    environment: w.environment,
    consecutiveFailures: w.consecutiveFailures,
    lastDeliveryAt: w.lastDeliveryAt,
    lastSuccessAt: w.lastSuccessAt,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
    deliveryCount: w.deliveryCount,
  };
}

/** An event's entity as a delivery's subject: a transfer or a case; anything else (the audit log) is none. */
function subjectOf(e: EventEntity | undefined): api.DeliverySubject | null {
  if (e?.entityType === "transfer" || e?.entityType === "case") return { type: e.entityType, id: e.entityId };
  return null;
}

/**
 * Part 2, Delivery: no payload, no signature. `subject` is additive: the transfer or case the event concerns, read
 * from the event's own row (its entity), never from the payload.
 */
function presentDelivery(d: Delivery, subjects: Map<number, EventEntity>) {
  return {
    id: d.id,
    eventType: d.eventType,
    subject: d.eventSeq === null ? null : subjectOf(subjects.get(d.eventSeq)),
    status: d.status,
    attempts: d.attempts,
    maxAttempts: d.maxAttempts,
    httpStatus: d.httpStatus,
    responseTimeMs: d.responseTimeMs,
    lastError: d.lastError,
    nextRetryAt: d.nextRetryAt === null ? null : iso(d.nextRetryAt),
    sentAt: d.sentAt,
    createdAt: d.createdAt,
  };
}

/** From the trigger-kept counters: successRate is the percentage of finished deliveries that were sent (null before any finished). */
function stats(w: Webhook) {
  const finished = w.sentCount + w.failedCount;
  return {
    total: w.deliveryCount,
    sent: w.sentCount,
    failed: w.failedCount,
    pending: w.deliveryCount - finished,
    successRate: finished === 0 ? null : Math.round((w.sentCount / finished) * 10_000) / 100,
    avgResponseTimeMs: w.responseCount === 0 ? null : Math.round(w.responseMsSum / w.responseCount),
  };
}

export function webhookRoutes(kit: ApiKit, deps: WebhookRouteDeps) {
  const repo = deps.repositories.webhooks;
  const { deliverer, net } = deps.webhooks;
  /** The deliveries as the API shows them, each with the subject of its event (one read for the page). */
  const presentDeliveries = async (w: Webhook, rows: Delivery[]) => {
    const seqs = rows.flatMap((d) => (d.eventSeq === null ? [] : [d.eventSeq]));
    const subjects = await deps.repositories.events.entities(w.companyId, w.environment, seqs);
    return rows.map((d) => presentDelivery(d, subjects));
  };

  const load = async (c: RouteContext, id: string): Promise<Webhook> => (ID.test(id) ? await repo.get(c.auth.company.id, c.auth.environment, id) : undefined) ?? notFound(id);
  /** The sealed signing secret, opened for one signature (the subscription was just loaded: it exists). */
  const secretOf = async (w: Webhook): Promise<string> => {
    const sealed = await repo.byId(w.id);
    if (!sealed) notFound(w.id);
    return deps.secrets.open(sealed.secretSealed, secretAad(w.id));
  };

  /** At save: the host must resolve, and only to public addresses (or the operator's exceptions). */
  async function checkReachable(url: string): Promise<void> {
    try {
      await checkTarget(url, net, AbortSignal.timeout(SAVE_CHECK_MS));
    } catch (e) {
      if (e instanceof TargetRefused) invalidUrl(e.message);
      invalidUrl("the host could not be resolved in time");
    }
  }

  /** One typed command to the environment's subscriptions actor (src/actors/webhook-subscriptions.ts), with who acts. */
  async function command<T = boolean>(c: RouteContext, cmd: SubscriptionCommand): Promise<T> {
    const msg = { ...cmd, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor } as SubscriptionMsg;
    return unwrap(await askActor<T>(deps.runtime, subscriptionsAddress(c.auth.company.id, c.auth.environment), msg)).data;
  }

  return kit.group("/api/v2/webhooks", (r) =>
    r
      .get(
        "/",
        {
          summary: "List the environment's webhook subscriptions, newest first",
          access: read,
          tags: ["webhooks"],
          query: { status: q.enumOf(WEBHOOK_STATUSES), search: q.string(LIMITS.search), limit: q.limit(200), cursor: q.cursor() },
        },
        async (c) => {
          const { status, search, limit, cursor } = c.query;
          const shown = (await repo.all(c.auth.company.id, c.auth.environment, status)).map((w) => present(c, w));
          // The URL is searched as the caller sees it: a masked key cannot probe the hidden path.
          const rows = search === undefined ? shown : shown.filter((w) => searchMatches(w, search));
          const res = keysetPage({
            key: deps.cursorKey,
            scope: c.auth,
            list: `webhooks|${JSON.stringify([status ?? null, search ?? null, seesUrls(c)])}`,
            cursor,
            limit,
            fetch: (after, n) => {
              const start = after ? rows.findIndex((w) => w.createdAt < (after[0] as string) || (w.createdAt === after[0] && w.id < (after[1] as string))) : 0;
              return start < 0 ? [] : rows.slice(start, start + n);
            },
            position: (w) => [w.createdAt, w.id],
            total: () => rows.length,
          });
          return page(res.rows, res.meta);
        },
      )
      .post("/", { summary: "Create a subscription; the answer carries its signing secret, shown this once", access: create, body: api.CreateWebhook, read: (b) => readWebhook(validateCreateWebhook(b)), validationStatus: 422, tags: ["webhooks"] }, async (c) => {
        const input = c.body;
        await checkReachable(input.url);
        const id = newId("whk", c.now);
        const secret = newSecret();
        await command(c, { type: "create", id, input, secretSealed: deps.secrets.seal(secret, secretAad(id)) });
        return created({ webhook: present(c, (await repo.get(c.auth.company.id, c.auth.environment, id))!), secret });
      })
      .get("/:id", { summary: "One subscription with stats and its 20 latest deliveries (answered as is, not wrapped in data)", access: read, tags: ["webhooks"] }, async (c) => {
        const w = await load(c, c.params.id);
        const recent = await presentDeliveries(w, await repo.deliveries(w.id, {}, null, RECENT_DELIVERIES));
        return json(200, { ...present(c, w), stats: stats(w), recentDeliveries: recent });
      })
      .patch("/:id", { summary: "Change a subscription; regenerateSecret answers the new secret, this once", access: update, body: api.UpdateWebhook, read: async (b, c) => ({ w: await load(c, c.params.id), change: readWebhook(validateUpdateWebhook(b)) }), validationStatus: 422, tags: ["webhooks"] }, async (c) => {
        const { w, change } = c.body;
        if (change.url !== undefined && change.url !== w.url) await checkReachable(change.url);
        const secret = change.regenerateSecret ? newSecret() : undefined;
        const found = await command<boolean>(c, { type: "update", id: w.id, change, secretSealed: secret ? deps.secrets.seal(secret, secretAad(w.id)) : null });
        if (!found) notFound(w.id);
        const webhook = present(c, (await repo.get(c.auth.company.id, c.auth.environment, w.id))!);
        return ok(secret ? { webhook, secret } : { webhook });
      })
      .post("/:id/test", { summary: "Send a signed test.ping to the subscription now", access: test, tags: ["webhooks"] }, async (c) => {
        const w = await load(c, c.params.id);
        const deliveryId = newId("dlv", c.now);
        const body = eventBody("test.ping", iso(c.now), { webhookId: w.id });
        const signature = signatureHeader(await secretOf(w), Math.floor(c.now / 1000), body);
        const o = await deliverer.attempt({ url: w.url, deliveryId, eventType: "test.ping", body, signature });
        await command(c, { type: "recordPing", id: w.id, deliveryId, body, signature, sentAtMs: c.now, outcome: o });
        return ok(o.ok ? { success: true, deliveryId } : { success: false, deliveryId, error: o.error });
      })
      .get(
        "/:id/deliveries",
        {
          summary: "The subscription's deliveries, newest first (no payloads or signatures)",
          access: read,
          tags: ["webhooks"],
          query: { status: q.enumOf(DELIVERY_STATUSES), eventType: q.enumOf(EVENT_TYPES), limit: q.limit(200), cursor: q.cursor() },
        },
        async (c) => {
          const w = await load(c, c.params.id);
          const filter = { status: c.query.status, eventType: c.query.eventType };
          const res = await keysetPageAsync<Delivery>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `webhook-deliveries|${w.id}|${JSON.stringify([filter.status ?? null, filter.eventType ?? null])}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.deliveries(w.id, filter, after as [string, string] | null, n),
            position: (d) => [d.createdAt, d.id],
            total: () => repo.countDeliveries(w, filter),
          });
          return page(await presentDeliveries(w, res.rows), res.meta);
        },
      )
      .post("/:id/deliveries/:deliveryId/retry", { summary: "Send a failed delivery again, signed anew", access: update, tags: ["webhooks"] }, async (c) => {
        const w = await load(c, c.params.id);
        const did = c.params.deliveryId;
        // A delivery of another subscription is not found here (Part 2).
        const d = DELIVERY_ID.test(did) ? await repo.delivery(w.id, did) : undefined;
        if (!d) throw apiError("DELIVERY_NOT_FOUND", { details: { resource: "Delivery", id: did } });
        if (d.status !== "failed") throw apiError("DELIVERY_NOT_FAILED", { message: `Only a failed delivery can be retried; this one is ${d.status}`, details: { status: d.status } });
        if (w.status !== "active") throw apiError("WEBHOOK_NOT_ACTIVE", { message: `The subscription is ${w.status}; activate it to retry deliveries`, details: { status: w.status } });
        // The claim is the subscriptions actor's write, committed before the attempt (a second retry meanwhile is refused).
        if (!(await command<boolean>(c, { type: "claimRetry", id: w.id, deliveryId: d.id, atMs: c.now, untilMs: c.now + RETRY_CLAIM_MS })))
          throw apiError("DELIVERY_NOT_FAILED", { message: "This delivery is being retried by another request", details: { status: "pending" } });
        // Part 2: a manual retry is signed again with a new timestamp.
        const signature = signatureHeader(await secretOf(w), Math.floor(c.now / 1000), d.body);
        const o = await deliverer.attempt({ url: w.url, deliveryId: d.id, eventType: d.eventType, body: d.body, signature });
        await command(c, { type: "recordRetry", id: w.id, deliveryId: d.id, attempts: d.attempts, outcome: o });
        return ok({ deliveryId: d.id, delivered: o.ok });
      }),
  );
}
