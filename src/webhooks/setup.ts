// Webhook wiring for the composition root: configuration, the deliverer, the actors and the dispatcher.
import { newId } from "../domain/ids.ts";
import { DELIVERY, parseAutoDisable, type AutoDisableRule } from "../domain/webhooks.ts";
import { netPolicyFromEnv, type NetPolicy } from "../adapters/net/index.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Logger } from "../adapters/log.ts";
import type { Storage } from "../adapters/storage/index.ts";
import { Webhooks } from "../adapters/storage/repos/webhooks.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import { webhookActor, webhookAddress, type WebhookMessage } from "../actors/webhook.ts";
import { parseEventsRetention, startWebhookDispatch } from "../actors/webhook-dispatcher.ts";
import { Deliverer } from "./deliver.ts";

export class WebhookConfigError extends Error {
  override name = "WebhookConfigError";
}

export interface WebhookServices {
  readonly net: NetPolicy;
  readonly deliverer: Deliverer;
  readonly autoDisable: AutoDisableRule | null;
  /** CARAVAN_WEBHOOK_RETRY_MS: the automatic retries' delays (default 1 s, then 5 s). */
  readonly retryDelaysMs: readonly number[];
  /** CARAVAN_EVENTS_RETENTION in ms (default 30 days), null for `off`. */
  readonly eventsRetentionMs: number | null;
  /** Asks a subscription's actor to look at its queue (after a status change). */
  kick(webhookId: string): Promise<unknown>;
}

/** CARAVAN_ALLOW_PRIVATE_TARGETS and CARAVAN_WEBHOOK_AUTO_DISABLE; a bad value stops the start (WebhookConfigError). */
export function createWebhookServices(runtime: ActorRuntime, env: Record<string, string | undefined>): WebhookServices {
  let net: NetPolicy;
  let autoDisable: AutoDisableRule | null;
  try {
    net = netPolicyFromEnv(env, DELIVERY.timeoutMs);
  } catch (e) {
    throw new WebhookConfigError(`CARAVAN_ALLOW_PRIVATE_TARGETS: ${(e as Error).message}`);
  }
  try {
    autoDisable = parseAutoDisable(env.CARAVAN_WEBHOOK_AUTO_DISABLE);
  } catch (e) {
    throw new WebhookConfigError(`CARAVAN_WEBHOOK_AUTO_DISABLE: ${(e as Error).message}`);
  }
  const retryDelaysMs = parseRetryDelays(env.CARAVAN_WEBHOOK_RETRY_MS);
  let eventsRetentionMs: number | null;
  try {
    eventsRetentionMs = parseEventsRetention(env.CARAVAN_EVENTS_RETENTION);
  } catch (e) {
    throw new WebhookConfigError((e as Error).message);
  }
  return {
    net,
    eventsRetentionMs,
    autoDisable,
    retryDelaysMs,
    deliverer: new Deliverer(net),
    kick: (id) => runtime.tell(webhookAddress(id), { type: "kick" } satisfies WebhookMessage),
  };
}

/**
 * `CARAVAN_WEBHOOK_RETRY_MS`: the delays of the automatic retries in milliseconds, one per retry (`1000,5000` by
 * default: 1 s after the first attempt, 5 s after the second). Tests shorten them; production keeps the default.
 */
export function parseRetryDelays(text: string | undefined): readonly number[] {
  if (text === undefined || text.trim() === "") return DELIVERY.retryDelaysMs;
  const parts = text.split(",").map((p) => p.trim());
  const want = DELIVERY.maxAttempts - 1;
  const ms = parts.map(Number);
  if (parts.length !== want || ms.some((n, i) => parts[i] === "" || !Number.isInteger(n) || n < 0 || n > 3_600_000))
    throw new WebhookConfigError(`CARAVAN_WEBHOOK_RETRY_MS must be ${want} whole numbers of milliseconds (0..3600000) separated by a comma, like "1000,5000"; got "${text}"`);
  return ms;
}

export function registerWebhooks(w: WebhookServices, s: { storage: Storage; runtime: ActorRuntime; secrets: Sealer; log: Logger; clock: () => number }): void {
  s.runtime.register(
    webhookActor({
      secrets: s.secrets,
      deliverer: w.deliverer,
      tell: (to, msg) => s.runtime.tell(to, msg),
      boot: newId("boot", s.clock()),
      autoDisable: w.autoDisable,
      retryDelaysMs: w.retryDelaysMs,
      log: s.log,
      clock: s.clock,
    }),
  );
  startWebhookDispatch(s.runtime, new Webhooks(s.storage), (msg, f) => s.log("warn", msg, f), w.eventsRetentionMs);
}
