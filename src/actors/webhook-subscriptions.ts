// The webhook subscriptions actor kind: one actor per company and environment (`webhooks:<companyId>:<environment>`)
// owns its subscriptions' writes. A create and a change are typed commands handled on the runtime's unit of work: the
// decision is the domain's (src/domain/webhooks.ts), and the row, its audit entry and (a status change) the kick of the
// subscription's delivery actor commit with the message, exactly once. Deliveries stay with `webhook:<id>`.
import { iso } from "../domain/ids.ts";
import { decideSubscriptionChange, shouldAutoDisable, type AutoDisableRule, type WebhookChange, type WebhookInput, type WebhookStatus } from "../domain/webhooks.ts";
import type { AttemptOutcome } from "../adapters/webhooks/deliver.ts";
import type { Environment } from "../domain/types.ts";
import type { Repositories } from "../adapters/storage/repositories.ts";
import type { AuditActor } from "../ports/audit.ts";
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
  /** A manual retry of a failed delivery the route sent: the attempt, the health, the audit entry. */
  | { type: "recordRetry"; id: string; deliveryId: string; attempts: number; outcome: AttemptOutcome };

export type SubscriptionMsg = Scoped & SubscriptionCommand;

export interface SubscriptionActorDeps {
  repositories: Pick<Repositories, "webhooks" | "audit">;
  /** CARAVAN_WEBHOOK_AUTO_DISABLE: when failing attempts switch a subscription off (null: never). */
  autoDisable: AutoDisableRule | null;
}

type Ctx = ActorContext<Record<string, never>>;

export function subscriptionsActor(deps: SubscriptionActorDeps): ActorKind<Record<string, never>, SubscriptionMsg> {
  const { webhooks: repo, audit } = deps.repositories;
  const record = (ctx: Ctx, msg: Scoped, action: string, entityId: string, detail: Record<string, unknown>) =>
    audit.record({ companyId: msg.companyId, environment: msg.environment, actor: msg.actor, action, entityType: "webhook", entityId, detail }, ctx.now);

  function create(ctx: Ctx, msg: Scoped & { id: string; input: WebhookInput; secretSealed: string }): boolean {
    const at = iso(ctx.now);
    ctx.write(() => {
      repo.insert({
        id: msg.id,
        company_id: msg.companyId,
        environment: msg.environment,
        name: msg.input.name,
        url: msg.input.url,
        events: JSON.stringify(msg.input.events),
        status: "active",
        description: msg.input.description,
        secret_sealed: msg.secretSealed,
        // Events committed from now on: a new subscription does not receive the backlog.
        active_from_seq: repo.lastEventSeq(),
        created_at: at,
        updated_at: at,
      });
      return record(ctx, msg, "webhook.created", msg.id, { events: msg.input.events });
    });
    return true;
  }

  function update(ctx: Ctx, msg: Scoped & { id: string; change: WebhookChange; secretSealed: string | null }): boolean {
    const w = repo.get(msg.companyId, msg.environment, msg.id);
    if (!w) return false;
    const current = { name: w.name, url: w.url, events: JSON.parse(w.events) as string[], status: w.status as WebhookStatus, description: w.description };
    const d = decideSubscriptionChange(current, { ...msg.change, regenerateSecret: msg.secretSealed !== null });
    if (!d) return true;
    const { events, ...rest } = d.set;
    const set: Record<string, unknown> = { ...rest, ...(events !== undefined ? { events: JSON.stringify(events) } : {}) };
    if (msg.secretSealed !== null) set.secret_sealed = msg.secretSealed;
    set.updated_at = iso(ctx.now);
    ctx.write(() => {
      // Reactivated: events from now on, not those committed while it was paused or disabled.
      if (d.set.status === "active") set.active_from_seq = repo.lastEventSeq();
      repo.update(w.id, set);
      return record(ctx, msg, "webhook.updated", w.id, d.detail);
    });
    if (d.set.status) ctx.tell(webhookAddress(w.id), { type: "kick" } satisfies WebhookMessage);
    return true;
  }

  /** The subscription's health after an attempt made from a request: it counts like any delivery. */
  function recordHealth(webhookId: string, o: AttemptOutcome, nowMs: number) {
    repo.recordHealth(webhookId, o.ok ? "sent" : "failed", nowMs, iso(nowMs));
    if (o.ok) return;
    const w = repo.byId(webhookId)!;
    if (w.status === "active" && shouldAutoDisable(w.consecutive_failures, w.failing_since, nowMs, deps.autoDisable)) repo.disableAutomatically(w, w.consecutive_failures, nowMs);
  }

  function recordPing(ctx: Ctx, msg: Scoped & Extract<SubscriptionCommand, { type: "recordPing" }>): boolean {
    const w = repo.get(msg.companyId, msg.environment, msg.id);
    if (!w) return false;
    const o = msg.outcome;
    const now = iso(ctx.now);
    ctx.write(() => {
      repo.insertDelivery({
        id: msg.deliveryId,
        webhook_id: w.id,
        company_id: w.company_id,
        environment: w.environment,
        event_id: null,
        event_seq: null,
        event_type: "test.ping",
        body: msg.body,
        signature: msg.signature,
        status: o.ok ? "sent" : "failed",
        attempts: 1,
        // A test ping is one attempt, answered at once: no automatic retry.
        max_attempts: 1,
        http_status: o.httpStatus,
        response_time_ms: o.responseTimeMs,
        last_error: o.error,
        next_retry_at: null,
        sent_at: o.ok ? now : null,
        created_at: iso(msg.sentAtMs),
        updated_at: now,
      });
      recordHealth(w.id, o, ctx.now);
    });
    return true;
  }

  function recordRetry(ctx: Ctx, msg: Scoped & Extract<SubscriptionCommand, { type: "recordRetry" }>): boolean {
    const w = repo.get(msg.companyId, msg.environment, msg.id);
    if (!w) return false;
    const o = msg.outcome;
    const now = iso(ctx.now);
    ctx.write(() => {
      repo.recordAttempt(
        msg.deliveryId,
        { status: o.ok ? "sent" : "failed", attempts: msg.attempts + 1, httpStatus: o.httpStatus, responseTimeMs: o.responseTimeMs, lastError: o.error, nextRetryAt: null, sentAt: o.ok ? now : null },
        now,
      );
      recordHealth(w.id, o, ctx.now);
      return record(ctx, msg, "webhook.delivery_retried", w.id, { deliveryId: msg.deliveryId, delivered: o.ok });
    });
    return true;
  }

  return {
    kind: "webhooks",
    initialState: () => ({}),
    handle(ctx, msg) {
      const found =
        msg.type === "create" ? create(ctx, msg) : msg.type === "update" ? update(ctx, msg) : msg.type === "recordPing" ? recordPing(ctx, msg) : recordRetry(ctx, msg);
      ctx.reply({ ok: true, data: found } satisfies Outcome<boolean>);
    },
  };
}
