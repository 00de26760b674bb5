// The webhook subscriptions actor kind: one actor per company and environment (`webhooks:<companyId>:<environment>`)
// owns its subscriptions' writes. A create and a change are typed commands handled on the runtime's unit of work: the
// decision is the domain's (src/domain/webhooks.ts), and the row, its audit entry and (a status change) the kick of the
// subscription's delivery actor commit with the message, exactly once. Deliveries stay with `webhook:<id>`.
import { iso } from "../domain/ids.ts";
import { decideSubscriptionChange, type WebhookChange, type WebhookInput, type WebhookStatus } from "../domain/webhooks.ts";
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
  | { type: "update"; id: string; change: WebhookChange; secretSealed: string | null };

export type SubscriptionMsg = Scoped & SubscriptionCommand;

export interface SubscriptionActorDeps {
  repositories: Pick<Repositories, "webhooks" | "audit">;
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
      record(ctx, msg, "webhook.created", msg.id, { events: msg.input.events });
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
      record(ctx, msg, "webhook.updated", w.id, d.detail);
    });
    if (d.set.status) ctx.tell(webhookAddress(w.id), { type: "kick" } satisfies WebhookMessage);
    return true;
  }

  return {
    kind: "webhooks",
    initialState: () => ({}),
    handle(ctx, msg) {
      const found = msg.type === "create" ? create(ctx, msg) : update(ctx, msg);
      ctx.reply({ ok: true, data: found } satisfies Outcome<boolean>);
    },
  };
}
