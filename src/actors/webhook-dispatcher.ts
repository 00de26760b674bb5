// Reads the events table in seq order and creates one delivery per matching active subscription, with the position, in one transaction.
import { iso, newId } from "../domain/ids.ts";
import { DELIVERY, eventBody, subscribes } from "../domain/webhooks.ts";
import type { ActiveSubscription, NewDelivery, WebhookRepository } from "../ports/webhooks.ts";
import type { EventRepository } from "../ports/events.ts";
import type { ActorRuntime } from "./runtime.ts";
import type { Environment } from "../domain/types.ts";
import type { ActorKind } from "./types.ts";
import { webhookAddress, type WebhookMessage } from "./webhook.ts";

export const DISPATCHER = "webhook-dispatcher:main";
/** Events per handler run; a full batch asks for the next one at once. */
const BATCH = 500;
/** Events and deliveries looked at per retention run; a full one asks for the next at once. */
const PRUNE_BATCH = 5_000;

export type DispatcherMessage = { type: "wake" } | { type: "prune" };

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** The next ID after `prev` (its base32 body plus one), so deliveries made in the same millisecond list in event order. */
function successor(prev: string): string {
  const [prefix, body] = prev.split("_");
  const chars = body.split("");
  for (let i = chars.length - 1; i >= 0; i--) {
    const v = ALPHABET.indexOf(chars[i]);
    if (v < 31) {
      chars[i] = ALPHABET[v + 1];
      break;
    }
    chars[i] = "0";
  }
  return `${prefix}_${chars.join("")}`;
}

export interface DispatcherState {
  /** The seq of the last event dispatched. Saved with the deliveries it led to (the actor's commit): none is made twice or lost. */
  position: number;
}

/**
 * Part 2, Events: an environment's subscription receives that environment's events only; `[*]` receives all;
 * `test.ping` never goes out by subscription. A subscription receives the events committed after it became active.
 */
/** The repositories the dispatcher reads and writes (inside `ctx.write` too: they share the runtime's connection). */
export interface DispatcherRepositories {
  readonly webhooks: WebhookRepository;
  readonly events: EventRepository;
}

export function webhookDispatcher(repos: DispatcherRepositories, onRun: () => void, retentionMs: number | null = null): ActorKind<DispatcherState, DispatcherMessage> {
  return {
    kind: "webhook-dispatcher",
    initialState: () => ({ position: 0 }),
    async handle(ctx, msg) {
      if (msg?.type === "prune") {
        if (retentionMs !== null) await prune(repos, ctx, ctx.state.position, retentionMs);
        return;
      }
      onRun();
      const repo = repos.webhooks;
      const heads = await repos.events.headsAfter(ctx.state.position, BATCH);
      if (heads.length === 0) return;
      // Each environment's active subscriptions, read once per run (one read per environment among the events).
      const subscribers = new Map<string, ActiveSubscription[]>();
      const tenantKey = (e: { companyId: string; environment: Environment }) => `${e.companyId}|${e.environment}`;
      for (const e of heads) {
        const key = tenantKey(e);
        if (!subscribers.has(key)) subscribers.set(key, await repo.active(e.companyId, e.environment));
      }
      const subscribed = (e: { companyId: string; environment: Environment }) => subscribers.get(tenantKey(e)) ?? [];
      // Nobody subscribes to any of these events' environments (no active subscription): passed without reading data.
      if (!heads.some((e) => subscribed(e).length > 0)) {
        ctx.state.position = heads[heads.length - 1].seq;
        if (heads.length === BATCH) ctx.tell(DISPATCHER, { type: "wake" });
        return;
      }
      const events = await repos.events.after(ctx.state.position, BATCH);
      const rows: NewDelivery[] = [];
      const kicked = new Set<string>();
      const now = iso(ctx.now);
      // Lists order deliveries by (createdAt, id): IDs rise with the event order within the batch.
      let lastId = "";
      const nextId = () => {
        const id = newId("dlv", ctx.now);
        return (lastId = lastId && id <= lastId ? successor(lastId) : id);
      };
      for (const e of events) {
        if (e.type === "test.ping") continue;
        const subs = subscribed(e);
        let body: string | undefined;
        for (const w of subs) {
          if (e.seq <= w.activeFromSeq || !subscribes(w.events, e.type)) continue;
          body ??= eventBody(e.type, e.createdAt, JSON.parse(e.dataJson));
          rows.push({
            id: nextId(),
            webhookId: w.id,
            companyId: e.companyId,
            environment: e.environment,
            eventId: e.id,
            eventSeq: e.seq,
            eventType: e.type,
            body,
            signature: null,
            status: "pending",
            attempts: 0,
            maxAttempts: DELIVERY.maxAttempts,
            httpStatus: null,
            responseTimeMs: null,
            lastError: null,
            nextRetryAt: null,
            sentAt: null,
            createdAt: now,
            updatedAt: now,
          });
          kicked.add(w.id);
        }
      }
      if (rows.length) ctx.write(() => repo.insertDeliveries(rows));
      for (const id of kicked) ctx.tell(webhookAddress(id), { type: "kick" } satisfies WebhookMessage);
      ctx.state.position = events[events.length - 1].seq;
      if (events.length === BATCH) ctx.tell(DISPATCHER, { type: "wake" });
    },
  };
}

/**
 * Retention (CARAVAN_EVENTS_RETENTION): events committed before now − window that the dispatcher has already passed
 * (seq ≤ its position: every delivery they lead to exists) are deleted as a prefix of the sequence, and the last seq
 * pruned is recorded, so a stream resume point before it is refused rather than silently shortened. Deliveries that are
 * done (sent or failed) and unchanged since before the window are deleted; pending ones are kept whatever their age
 * (at-least-once). Runs in the dispatcher's turn, so its deletes commit with its acknowledgement (durable and in order
 * with its dispatching); a full batch asks for another run at once.
 */
async function prune(repos: DispatcherRepositories, ctx: { now: number; write(fn: () => unknown): void; tell(to: string, body: unknown): void }, position: number, retentionMs: number): Promise<void> {
  const cutoff = iso(ctx.now - retentionMs);
  const log = repos.events;
  const repo = repos.webhooks;
  const from = await log.prunedThrough();
  const through = await log.prunableThrough(from, position, cutoff, PRUNE_BATCH);
  const deliveries = await repo.prunableDeliveries(cutoff, PRUNE_BATCH);
  if (through > from || deliveries.length)
    ctx.write(async () => {
      await log.pruneThrough(from, through);
      await repo.deleteDeliveries(deliveries);
    });
  if (through - from >= PRUNE_BATCH || deliveries.length >= PRUNE_BATCH) ctx.tell(DISPATCHER, { type: "prune" } satisfies DispatcherMessage);
}

/**
 * Wakes the dispatcher after each committed event (one wake message at a time), every 5 s for events other
 * processes wrote, and kicks subscriptions with due deliveries at start and every 30 s (a restart resends what was due).
 */
export function startWebhookDispatch(runtime: ActorRuntime, repos: DispatcherRepositories, retentionMs: number | null = null): void {
  let wakePending = false;
  const wake = () => {
    if (wakePending) return;
    wakePending = true;
    runtime.tell(DISPATCHER, { type: "wake" }).then(
      () => {
        // Several nodes: the dispatcher's run clears the flag on the node that holds it only; elsewhere the wake is
        // recorded (its holder handles it), so the next event here may wake it again.
        if (!runtime.handles(DISPATCHER)) wakePending = false;
      },
      (e) => {
        wakePending = false;
        // Once per fault class per interval (a full disk fails every wake until space returns).
        runtime.reportFault("webhook dispatcher wake not recorded", e);
      },
    );
  };
  const recover = (now: number) => {
    repos.webhooks.withDuePending(now).then(
      (ids) => {
        for (const id of ids) runtime.tell(webhookAddress(id), { type: "kick" } satisfies WebhookMessage).catch(() => {});
      },
      (e) => runtime.reportFault("webhook recovery not read", e),
    );
  };
  runtime.register(webhookDispatcher(repos, () => (wakePending = false), retentionMs));
  runtime.onEvent(wake);
  // The sweep always tells (a wake still pending here, for a dispatcher that moved before running it, is not waited on).
  runtime.sweep("webhook-dispatch", "*/5 * * * * *", () => {
    wakePending = false;
    wake();
  });
  runtime.sweep("webhook-recovery", "*/30 * * * * *", recover);
  if (retentionMs !== null)
    runtime.sweep("events-retention", "0 * * * * *", () => {
      runtime.tell(DISPATCHER, { type: "prune" } satisfies DispatcherMessage).catch((e) => runtime.reportFault("events retention run not recorded", e));
    });
  wake();
  recover(Date.now());
}
