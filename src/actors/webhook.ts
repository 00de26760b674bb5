// One actor per subscription (`webhook:<id>`): sends its deliveries one at a time in event order, retries 1 s then 5 s, keeps its health.
import { iso } from "../domain/ids.ts";
import { retryDelayMs, shouldAutoDisable, signatureHeader, type AutoDisableRule } from "../domain/webhooks.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Logger } from "../adapters/log.ts";
import type { Storage } from "../adapters/storage/index.ts";
import { AuditLog } from "../adapters/storage/repos/audit.ts";
import { Webhooks, type DeliveryRow, type WebhookRow } from "../adapters/storage/repos/webhooks.ts";
import type { AttemptOutcome, Deliverer } from "../webhooks/deliver.ts";
import type { ActorContext, ActorKind } from "./types.ts";

export type WebhookMessage =
  /** Look at the queue: new deliveries (dispatcher), a retry became due (timer), a status change, recovery. */
  | { type: "kick" }
  /** How an attempt started by this actor went. */
  | { type: "result"; deliveryId: string; boot: string; signature: string; outcome: AttemptOutcome };

export interface WebhookState {
  /** The attempt on the wire, and which process started it: after a restart it is lost and sent again (at least once). */
  inflight: { deliveryId: string; boot: string; startedAt: number } | null;
}

export interface WebhookActorDeps {
  secrets: Sealer;
  deliverer: Deliverer;
  /** Durable tell from outside a handler (the attempt's report arrives after the handler returned). */
  tell(to: string, msg: WebhookMessage): Promise<unknown>;
  /** This process's identity, to recognize attempts of a process that died. */
  boot: string;
  autoDisable: AutoDisableRule | null;
  log: Logger;
}

/**
 * The automatic disabling (README, Webhooks): status disabled, a system entry in the audit log, the subscription's
 * pending deliveries end failed. Runs in the transaction that recorded the failure.
 */
export function disableAutomatically(s: Storage, w: WebhookRow, failures: number, nowMs: number): void {
  const repo = new Webhooks(s);
  const now = iso(nowMs);
  repo.update(w.id, { status: "disabled", updated_at: now });
  new AuditLog(s).record(
    {
      companyId: w.company_id,
      environment: w.environment,
      actor: { type: "system" },
      action: "webhook.disabled",
      entityType: "webhook",
      entityId: w.id,
      detail: { reason: "automatic", consecutiveFailures: failures, failingSince: iso(w.failing_since ?? nowMs) },
    },
    nowMs,
  );
  repo.failPending(w.id, "not sent: the subscription was disabled automatically after repeated failures", now);
}

export const webhookAddress = (id: string) => `webhook:${id}`;
export const secretAad = (id: string) => `webhook:${id}:secret`;

/** An attempt this process started and never reported is considered lost after this long (the timeout is 10 s). */
const LOST_AFTER_MS = 60_000;

/**
 * The HTTP request runs outside the handler: the actor records what it started and returns, so a slow receiver holds
 * neither the runtime's handler slots nor any other subscription; its report comes back as a `result` message.
 * Strict order: the queue head (lowest event seq still pending) is sent alone; a delivery waiting for its retry
 * holds the ones behind it until it is sent or has failed for good.
 */
export function webhookActor(deps: WebhookActorDeps): ActorKind<WebhookState, WebhookMessage> {
  return {
    kind: "webhook",
    initialState: () => ({ inflight: null }),
    handle(ctx, msg) {
      const repo = new Webhooks(ctx.storage);
      if (msg.type === "result") {
        const inf = ctx.state.inflight;
        // A report of an attempt this actor no longer waits for (it was declared lost): the delivery was or will be sent again.
        if (!inf || inf.deliveryId !== msg.deliveryId || inf.boot !== msg.boot) return;
        ctx.state.inflight = null;
        const done = record(ctx, repo, msg);
        if (done === "retrying" || done === "disabled") return;
        return advance(ctx, repo, msg.deliveryId);
      }
      const inf = ctx.state.inflight;
      if (inf && inf.boot === deps.boot && ctx.now - inf.startedAt < LOST_AFTER_MS) return;
      ctx.state.inflight = null;
      return advance(ctx, repo);
    },
  };

  /** Writes the attempt's result and the subscription's health; schedules the automatic retry. */
  function record(ctx: ActorContext<WebhookState>, repo: Webhooks, msg: Extract<WebhookMessage, { type: "result" }>): "sent" | "failed" | "retrying" | "disabled" | "gone" {
    const d = repo.delivery(ctx.id, msg.deliveryId);
    const w = repo.byId(ctx.id);
    if (!d || !w || d.status !== "pending") return "gone";
    const o = msg.outcome;
    const attempts = d.attempts + 1;
    const now = iso(ctx.now);
    const base = { attempts, httpStatus: o.httpStatus, responseTimeMs: o.responseTimeMs, signature: msg.signature };
    if (o.ok) {
      ctx.write(() => {
        repo.recordAttempt(d.id, { ...base, status: "sent", lastError: null, nextRetryAt: null, sentAt: now }, now);
        repo.recordHealth(w.id, "sent", ctx.now, now);
      });
      return "sent";
    }
    const delay = retryDelayMs(attempts);
    if (delay !== null && w.status === "active") {
      // Part 2: 1 s after the first attempt, 5 s after the second; the timer is a durable message, so it survives a restart.
      const dueAt = ctx.now + delay;
      ctx.write(() => {
        repo.recordAttempt(d.id, { ...base, status: "pending", lastError: o.error, nextRetryAt: dueAt, sentAt: null }, now);
        repo.recordHealth(w.id, "retrying", ctx.now, now);
      });
      ctx.tell(ctx.address, { type: "kick" }, { dueAt });
      return "retrying";
    }
    const failures = w.consecutive_failures + 1;
    const disable = w.status === "active" && shouldAutoDisable(failures, w.failing_since ?? ctx.now, ctx.now, deps.autoDisable);
    ctx.write((s) => {
      repo.recordAttempt(d.id, { ...base, status: "failed", lastError: o.error, nextRetryAt: null, sentAt: null }, now);
      repo.recordHealth(w.id, "failed", ctx.now, now);
      if (disable) disableAutomatically(s, w, failures, ctx.now);
    });
    if (disable) deps.log("warn", "webhook subscription disabled automatically", { webhookId: w.id, consecutiveFailures: failures });
    return disable ? "disabled" : "failed";
  }

  /** Starts the queue head if it is due; a subscription that is not active ends its pending deliveries failed. */
  function advance(ctx: ActorContext<WebhookState>, repo: Webhooks, exceptId?: string): void {
    const w = repo.byId(ctx.id);
    if (!w) return;
    const head = repo.head(ctx.id, exceptId);
    if (!head) return;
    if (w.status !== "active") {
      const now = iso(ctx.now);
      ctx.write(() => repo.failPending(w.id, `not sent: the subscription is ${w.status}`, now));
      return;
    }
    // Waiting for its retry: the due-time kick comes then (a durable message).
    if (head.next_retry_at !== null && head.next_retry_at > ctx.now) return;
    start(ctx, w, head);
  }

  function start(ctx: ActorContext<WebhookState>, w: WebhookRow, d: DeliveryRow): void {
    // Part 2: an automatic retry resends the signature made at dispatch (the first attempt) with its timestamp.
    const signature = d.signature ?? signatureHeader(deps.secrets.open(w.secret_sealed, secretAad(w.id)), Math.floor(ctx.now / 1000), d.body);
    const address = ctx.address;
    const boot = deps.boot;
    const started = deps.deliverer.start({ url: w.url, deliveryId: d.id, eventType: d.event_type, body: d.body, signature }, async (outcome) => {
      try {
        await deps.tell(address, { type: "result", deliveryId: d.id, boot, signature, outcome });
      } catch (e) {
        // Shutting down: the delivery stays pending and is sent again after the restart.
        deps.log("warn", "webhook attempt report not recorded", { webhookId: w.id, deliveryId: d.id, error: String(e) });
      }
    });
    if (started) ctx.state.inflight = { deliveryId: d.id, boot, startedAt: ctx.now };
  }
}
