// One actor per subscription (`webhook:<id>`): sends its deliveries one at a time in event order, retries 1 s then 5 s, keeps its health.
import { iso } from "../domain/ids.ts";
import { retryDelayMs, shouldAutoDisable, type AutoDisableRule } from "../domain/webhooks.ts";
import { signDelivery } from "../adapters/webhooks/sign.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Logger } from "../adapters/log.ts";
import type { Delivery, SealedWebhook, WebhookRepository } from "../ports/webhooks.ts";
import type { AttemptOutcome, Deliverer } from "../adapters/webhooks/deliver.ts";
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
  /** The subscriptions and their deliveries (inside `ctx.write` too: the repository shares the runtime's connection). */
  repositories: { readonly webhooks: WebhookRepository };
  secrets: Sealer;
  deliverer: Deliverer;
  /** Durable tell from outside a handler (the attempt's report arrives after the handler returned). */
  tell(to: string, msg: WebhookMessage): Promise<unknown>;
  /** This process's identity, to recognize attempts of a process that died. */
  boot: string;
  autoDisable: AutoDisableRule | null;
  /** The automatic retries' delays (CARAVAN_WEBHOOK_RETRY_MS); the default schedule when absent. */
  retryDelaysMs?: readonly number[];
  log: Logger;
  clock?: () => number;
}

export const webhookAddress = (id: string) => `webhook:${id}`;
export const secretAad = (id: string) => `webhook:${id}:secret`;

/** An attempt this process started and never reported is considered lost after this long (the timeout is 10 s). */
const LOST_AFTER_MS = 60_000;
/** An answer within this long is recorded by the handler that sent it; a slower one comes back as a `result` message. */
const FAST_ANSWER_MS = 50;
/** Pending deliveries read at once by a handler; a run of fast sends reads the queue once per this many. */
const HEADS_PER_READ = 16;
/** A handler sends deliveries back to back for at most this long, then yields its slot (and asks to be called again). */
const HANDLER_BUDGET_MS = 200;

/**
 * Strict order: the queue head (lowest event seq still pending) is sent alone; a delivery waiting for its retry holds
 * the ones behind it until it is sent or has failed for good. A receiver that answers fast is served back to back in
 * one handler (one commit for several deliveries); a slow one is detached: the handler records what is on the wire and
 * returns, so a slow receiver holds neither a runtime handler slot nor any other subscription, and its answer arrives
 * as a `result` message.
 */
export function webhookActor(deps: WebhookActorDeps): ActorKind<WebhookState, WebhookMessage> {
  const clock = deps.clock ?? Date.now;
  // Opened secrets by sealed text (AES-GCM in JS costs more than the rest of an attempt); a new secret has a new sealed text.
  const secrets = new Map<string, string>();
  const secretOf = (w: SealedWebhook) => {
    let plain = secrets.get(w.secretSealed);
    if (plain === undefined) {
      if (secrets.size >= 10_000) secrets.clear();
      secrets.set(w.secretSealed, (plain = deps.secrets.open(w.secretSealed, secretAad(w.id))));
    }
    return plain;
  };

  return {
    kind: "webhook",
    initialState: () => ({ inflight: null }),
    async handle(ctx, msg) {
      const repo = deps.repositories.webhooks;
      const w = await repo.byId(ctx.id);
      let after: Delivery | undefined;
      if (msg.type === "result") {
        const inf = ctx.state.inflight;
        // A report of an attempt this actor no longer waits for (it was declared lost): the delivery was or will be sent again.
        if (!inf || inf.deliveryId !== msg.deliveryId || inf.boot !== msg.boot) return;
        ctx.state.inflight = null;
        const d = await repo.delivery(ctx.id, msg.deliveryId);
        if (!w || !d || d.status !== "pending") return run(ctx, repo, w);
        const done = record(ctx, w, d, msg.outcome, msg.signature, clock());
        if (done !== "sent" && done !== "failed") return;
        after = d;
      } else {
        const inf = ctx.state.inflight;
        if (inf && inf.boot === deps.boot && clock() - inf.startedAt < LOST_AFTER_MS) return;
        ctx.state.inflight = null;
      }
      return run(ctx, repo, w, after);
    },
  };

  /** Sends due queue heads one after the other while they answer fast and the budget lasts. */
  async function run(ctx: ActorContext<WebhookState>, repo: WebhookRepository, w: SealedWebhook | undefined, after?: Delivery): Promise<void> {
    if (!w) return;
    const until = clock() + HANDLER_BUDGET_MS;
    // The queue is read a few heads at a time (one query for a run of fast sends, not one per delivery).
    let batch: Delivery[] = [];
    let i = 0;
    for (;;) {
      if (i === batch.length) {
        // Deliveries finished in this handler are still pending in the database until it commits: read past them.
        batch = await repo.heads(w.id, after ? [after.eventSeq ?? 0, after.id] : null, HEADS_PER_READ);
        i = 0;
      }
      const head = batch[i++];
      if (!head) return;
      if (w.status !== "active") {
        const now = iso(clock());
        ctx.write(() => repo.failPending(w.id, `not sent: the subscription is ${w.status}`, now));
        return;
      }
      const t = clock();
      // Waiting for its retry: the due-time kick comes then (a durable message).
      if (head.nextRetryAt !== null && head.nextRetryAt > t) return;
      if (!deps.deliverer.accepting) return;
      // Part 2: an automatic retry resends the signature made at dispatch (the first attempt) with its timestamp.
      const signature = head.signature ?? signDelivery(secretOf(w), Math.floor(t / 1000), head.body);
      const attempt = deps.deliverer.attempt({ url: w.url, deliveryId: head.id, eventType: head.eventType, body: head.body, signature });
      const outcome = await within(attempt, Math.min(FAST_ANSWER_MS, Math.max(0, until - t)));
      if (!outcome) return detach(ctx, head, signature, attempt);
      const done = record(ctx, w, head, outcome, signature, clock());
      if (done !== "sent" && done !== "failed") return;
      after = head;
      if (clock() >= until) {
        ctx.tell(ctx.address, { type: "kick" });
        return;
      }
    }
  }

  /** The receiver is slow: the handler returns; the answer comes back as a `result` message. */
  function detach(ctx: ActorContext<WebhookState>, d: Delivery, signature: string, attempt: Promise<AttemptOutcome>): void {
    const address = ctx.address;
    const boot = deps.boot;
    ctx.state.inflight = { deliveryId: d.id, boot, startedAt: clock() };
    deps.deliverer.track(
      attempt.then(async (outcome) => {
        try {
          await deps.tell(address, { type: "result", deliveryId: d.id, boot, signature, outcome });
        } catch (e) {
          // Shutting down: the delivery stays pending and is sent again after the restart.
          deps.log("warn", "webhook attempt report not recorded", { webhookId: d.webhookId, deliveryId: d.id, error: String(e) });
        }
      }),
    );
  }

  /** Writes the attempt's result and the subscription's health (at the handler's commit); schedules the automatic retry. */
  function record(ctx: ActorContext<WebhookState>, w: SealedWebhook, d: Delivery, o: AttemptOutcome, signature: string, at: number): "sent" | "failed" | "retrying" | "disabled" {
    const repo = deps.repositories.webhooks;
    const attempts = d.attempts + 1;
    const now = iso(at);
    const base = { attempts, httpStatus: o.httpStatus, responseTimeMs: o.responseTimeMs, signature };
    if (o.ok) {
      ctx.write(async () => {
        await repo.recordAttempt(d.id, { ...base, status: "sent", lastError: null, nextRetryAt: null, sentAt: now }, now);
        await repo.recordHealth(w.id, "sent", at, now);
      });
      w.consecutiveFailures = 0;
      w.failingSince = null;
      return "sent";
    }
    const delay = deps.retryDelaysMs ? (retryDelayMs(attempts) === null ? null : (deps.retryDelaysMs[attempts - 1] ?? null)) : retryDelayMs(attempts);
    if (delay !== null && w.status === "active") {
      // Part 2: 1 s after the first attempt, 5 s after the second; the timer is a durable message, so it survives a restart.
      const dueAt = at + delay;
      ctx.write(async () => {
        await repo.recordAttempt(d.id, { ...base, status: "pending", lastError: o.error, nextRetryAt: dueAt, sentAt: null }, now);
        await repo.recordHealth(w.id, "retrying", at, now);
      });
      ctx.tell(ctx.address, { type: "kick" }, { dueAt });
      return "retrying";
    }
    const failures = w.consecutiveFailures + 1;
    const disable = w.status === "active" && shouldAutoDisable(failures, w.failingSince ?? at, at, deps.autoDisable);
    const snapshot = { ...w };
    ctx.write(async () => {
      await repo.recordAttempt(d.id, { ...base, status: "failed", lastError: o.error, nextRetryAt: null, sentAt: null }, now);
      await repo.recordHealth(w.id, "failed", at, now);
      // The automatic disabling (README, Webhooks): status disabled, a system audit entry, pending deliveries failed.
      if (disable) await repo.disableAutomatically(snapshot, failures, at);
    });
    w.consecutiveFailures = failures;
    w.failingSince ??= at;
    if (disable) deps.log("warn", "webhook subscription disabled automatically", { webhookId: w.id, consecutiveFailures: failures });
    return disable ? "disabled" : "failed";
  }
}

/** The promise's value if it settles within `ms`, else undefined (the promise keeps running). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
