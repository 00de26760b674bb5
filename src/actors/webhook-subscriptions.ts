// The webhook subscriptions actor kind: one actor per company and environment (`webhooks:<companyId>:<environment>`)
// owns its subscriptions' writes. A create and a change are typed commands handled on the runtime's unit of work: the
// decision is the domain's (src/domain/webhooks.ts), and the row, its audit entry and (a status change) the kick of the
// subscription's delivery actor commit with the message, exactly once. Deliveries stay with `webhook:<id>`.
import { iso } from "../domain/ids.ts";
import { decideSubscriptionChange, shouldAutoDisable, type AutoDisableRule, type WebhookChange, type WebhookInput } from "../domain/webhooks.ts";
import type { AttemptOutcome } from "../adapters/webhooks/deliver.ts";
import type { Environment } from "../domain/types.ts";
import type { AuditActor, AuditEntryInput } from "../ports/audit.ts";
import type { EventRepository } from "../ports/events.ts";
import type { WebhookPatch, WebhookRepository } from "../ports/webhooks.ts";
import type { Outcome } from "./outcome.ts";
import type { ActorContext, ActorKind } from "./types.ts";
import { webhookAddress, type WebhookMessage } from "./webhook.ts";

export const subscriptionsAddress = (companyId: string, environment: Environment) => `webhooks:${companyId}:${environment}`;

interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

export type SubscriptionCommand =
  /** `secretSealed`: the signing secret, sealed by the route (the answer shows it this once). */
  | { type: "create"; id: string; input: WebhookInput; secretSealed: string }
  /** `secretSealed`: a new signing secret (regenerateSecret), sealed by the route. Answers false: no such subscription. */
  | { type: "update"; id: string; change: WebhookChange; secretSealed: string | null }
  /** A test ping the route sent (one attempt, never retried): its delivery row and the subscription's health. */
  | { type: "recordPing"; id: string; deliveryId: string; body: string; signature: string; sentAtMs: number; outcome: AttemptOutcome }
  /**
   * A manual retry takes a failed delivery for itself from `atMs` (the request's time) until `untilMs`, committed before
   * the route sends it, so that a second retry meanwhile is refused. Answers false: not failed, or already taken.
   */
  | { type: "claimRetry"; id: string; deliveryId: string; atMs: number; untilMs: number }
  /** A manual retry of a failed delivery the route sent: the attempt, the health, the audit entry. */
  | { type: "recordRetry"; id: string; deliveryId: string; attempts: number; outcome: AttemptOutcome };

export type SubscriptionMsg = Scoped & SubscriptionCommand;

export interface SubscriptionActorDeps {
  repositories: {
    readonly webhooks: WebhookRepository;
    readonly events: EventRepository;
    /** The audit log's writer (its entry commits in the command's unit of work). */
    readonly audit: { record(e: AuditEntryInput, now: number): unknown };
  };
  /** CARAVAN_WEBHOOK_AUTO_DISABLE: when failing attempts switch a subscription off (null: never). */
  autoDisable: AutoDisableRule | null;
}

type Ctx = ActorContext<Record<string, never>>;

export function subscriptionsActor(deps: SubscriptionActorDeps): ActorKind<Record<string, never>, SubscriptionMsg> {
  const { webhooks: repo, events, audit } = deps.repositories;
  const record = (ctx: Ctx, msg: Scoped, action: string, entityId: string, detail: Record<string, unknown>) =>
    audit.record({ companyId: msg.companyId, environment: msg.environment, actor: msg.actor, action, entityType: "webhook", entityId, detail }, ctx.now);

  function create(ctx: Ctx, msg: Scoped & { id: string; input: WebhookInput; secretSealed: string }): boolean {
    const at = iso(ctx.now);
    ctx.write(async () => {
      await repo.insert({
        id: msg.id,
        companyId: msg.companyId,
        environment: msg.environment,
        name: msg.input.name,
        url: msg.input.url,
        events: msg.input.events,
        status: "active",
        description: msg.input.description,
        secretSealed: msg.secretSealed,
        // Events committed from now on: a new subscription does not receive the backlog.
        activeFromSeq: await events.newestSeq(),
        createdAt: at,
        updatedAt: at,
      });
      await record(ctx, msg, "webhook.created", msg.id, { events: msg.input.events });
    });
    return true;
  }

  async function update(ctx: Ctx, msg: Scoped & { id: string; change: WebhookChange; secretSealed: string | null }): Promise<boolean> {
    const w = await repo.get(msg.companyId, msg.environment, msg.id);
    if (!w) return false;
    const current = { name: w.name, url: w.url, events: w.events, status: w.status, description: w.description };
    const d = decideSubscriptionChange(current, { ...msg.change, regenerateSecret: msg.secretSealed !== null });
    if (!d) return true;
    const set: WebhookPatch = { ...d.set, updatedAt: iso(ctx.now) };
    if (msg.secretSealed !== null) set.secretSealed = msg.secretSealed;
    ctx.write(async () => {
      // Reactivated: events from now on, not those committed while it was paused or disabled.
      if (d.set.status === "active") set.activeFromSeq = await events.newestSeq();
      await repo.update(w.id, set);
      await record(ctx, msg, "webhook.updated", w.id, d.detail);
    });
    if (d.set.status) ctx.tell(webhookAddress(w.id), { type: "kick" } satisfies WebhookMessage);
    return true;
  }

  /** The subscription's health after an attempt made from a request: it counts like any delivery. */
  async function recordHealth(webhookId: string, o: AttemptOutcome, nowMs: number): Promise<void> {
    await repo.recordHealth(webhookId, o.ok ? "sent" : "failed", nowMs, iso(nowMs));
    if (o.ok) return;
    const w = (await repo.byId(webhookId))!;
    if (w.status === "active" && shouldAutoDisable(w.consecutiveFailures, w.failingSince, nowMs, deps.autoDisable)) await repo.disableAutomatically(w, w.consecutiveFailures, nowMs);
  }

  async function recordPing(ctx: Ctx, msg: Scoped & Extract<SubscriptionCommand, { type: "recordPing" }>): Promise<boolean> {
    const w = await repo.get(msg.companyId, msg.environment, msg.id);
    if (!w) return false;
    const o = msg.outcome;
    const now = iso(ctx.now);
    ctx.write(async () => {
      await repo.insertDeliveries([
        {
          id: msg.deliveryId,
          webhookId: w.id,
          companyId: w.companyId,
          environment: w.environment,
          eventId: null,
          eventSeq: null,
          eventType: "test.ping",
          body: msg.body,
          signature: msg.signature,
          status: o.ok ? "sent" : "failed",
          attempts: 1,
          // A test ping is one attempt, answered at once: no automatic retry.
          maxAttempts: 1,
          httpStatus: o.httpStatus,
          responseTimeMs: o.responseTimeMs,
          lastError: o.error,
          nextRetryAt: null,
          sentAt: o.ok ? now : null,
          createdAt: iso(msg.sentAtMs),
          updatedAt: now,
        },
      ]);
      await recordHealth(w.id, o, ctx.now);
    });
    return true;
  }

  async function claimRetry(ctx: Ctx, msg: Scoped & Extract<SubscriptionCommand, { type: "claimRetry" }>): Promise<boolean> {
    const w = await repo.get(msg.companyId, msg.environment, msg.id);
    if (!w) return false;
    // Decided by the store (the delivery is failed and unclaimed, or the claim lapsed) and committed on its own before
    // the answer, as the route sends the attempt only after it: a second retry meanwhile finds it taken.
    return ctx.store.transaction(() => repo.claimFailed(w.id, msg.deliveryId, msg.atMs, msg.untilMs));
  }

  async function recordRetry(ctx: Ctx, msg: Scoped & Extract<SubscriptionCommand, { type: "recordRetry" }>): Promise<boolean> {
    const w = await repo.get(msg.companyId, msg.environment, msg.id);
    if (!w) return false;
    const o = msg.outcome;
    const now = iso(ctx.now);
    ctx.write(async () => {
      await repo.recordAttempt(
        msg.deliveryId,
        { status: o.ok ? "sent" : "failed", attempts: msg.attempts + 1, httpStatus: o.httpStatus, responseTimeMs: o.responseTimeMs, lastError: o.error, nextRetryAt: null, sentAt: o.ok ? now : null },
        now,
      );
      await recordHealth(w.id, o, ctx.now);
      await record(ctx, msg, "webhook.delivery_retried", w.id, { deliveryId: msg.deliveryId, delivered: o.ok });
    });
    return true;
  }

  return {
    kind: "webhooks",
    initialState: () => ({}),
    async handle(ctx, msg) {
      const found =
        msg.type === "create"
          ? create(ctx, msg)
          : msg.type === "update"
            ? await update(ctx, msg)
            : msg.type === "recordPing"
              ? await recordPing(ctx, msg)
              : msg.type === "claimRetry"
                ? await claimRetry(ctx, msg)
                : await recordRetry(ctx, msg);
      ctx.reply({ ok: true, data: found } satisfies Outcome<boolean>);
    },
  };
}
