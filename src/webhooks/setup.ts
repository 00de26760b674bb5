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
import { startWebhookDispatch } from "../actors/webhook-dispatcher.ts";
import { Deliverer } from "./deliver.ts";

export class WebhookConfigError extends Error {
  override name = "WebhookConfigError";
}

export interface WebhookServices {
  readonly net: NetPolicy;
  readonly deliverer: Deliverer;
  readonly autoDisable: AutoDisableRule | null;
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
  return {
    net,
    autoDisable,
    deliverer: new Deliverer(net),
    kick: (id) => runtime.tell(webhookAddress(id), { type: "kick" } satisfies WebhookMessage),
  };
}

export function registerWebhooks(w: WebhookServices, s: { storage: Storage; runtime: ActorRuntime; secrets: Sealer; log: Logger; clock: () => number }): void {
  s.runtime.register(
    webhookActor({
      secrets: s.secrets,
      deliverer: w.deliverer,
      tell: (to, msg) => s.runtime.tell(to, msg),
      boot: newId("boot", s.clock()),
      autoDisable: w.autoDisable,
      log: s.log,
      clock: s.clock,
    }),
  );
  startWebhookDispatch(s.runtime, new Webhooks(s.storage), (msg, f) => s.log("warn", msg, f));
}
