// Webhook delivery settings (CARAVAN_ALLOW_PRIVATE_TARGETS, CARAVAN_WEBHOOK_AUTO_DISABLE, CARAVAN_WEBHOOK_RETRY_MS) and
// the deliverer over them. The composition root (src/services.ts) registers the subscription actors over this.
import { DELIVERY, parseAutoDisable, parseEventsRetention, type AutoDisableRule } from "../../domain/webhooks.ts";
import { netPolicyFromEnv, type NetPolicy } from "../net/index.ts";
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
/** `kick` asks a subscription's actor to look at its queue; the composition root supplies it. */
export function createWebhookServices(kick: (webhookId: string) => Promise<unknown>, env: Record<string, string | undefined>): WebhookServices {
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
    kick,
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
