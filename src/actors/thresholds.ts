// The thresholds actor kind: one actor per company (`thresholds:<companyId>`) owns its thresholds' writes. Creates and
// changes are typed commands handled one at a time per company on the runtime's unit of work: the decision is the
// domain's (src/domain/thresholds.ts), and the row and its audit entry commit with the message, exactly once.
import { iso, newId } from "../domain/ids.ts";
import { createdDetail, decideChange, newThreshold, type ThresholdInput } from "../domain/thresholds.ts";
import type { Repositories } from "../ports/repositories.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { CreateThresholdOutcome, ThresholdRepository, UpdateThresholdOutcome } from "../ports/thresholds.ts";
import type { Outcome } from "./outcome.ts";
import type { ActorContext, ActorKind } from "./types.ts";

export const thresholdsAddress = (companyId: string) => `thresholds:${companyId}`;

/** Thresholds are the company's, recorded in the live audit log (Part 2). */
interface Scoped {
  companyId: string;
  environment: "live";
  actor: AuditActor;
  memberId: string;
}

export type ThresholdCommand =
  | { type: "create"; input: ThresholdInput }
  /** `body` is the PATCH body the route read; the decision is taken against the threshold as it is now. */
  | { type: "update"; id: string; body: unknown; canDisable: boolean };

export type ThresholdMsg = Scoped & ThresholdCommand;

export interface ThresholdActorDeps {
  repositories: { thresholds: ThresholdRepository } & Pick<Repositories, "audit">;
}

export function thresholdsActor(deps: ThresholdActorDeps): ActorKind<Record<string, never>, ThresholdMsg> {
  const { thresholds, audit } = deps.repositories;

  async function create(ctx: ActorContext<Record<string, never>>, msg: Scoped & { input: ThresholdInput }): Promise<CreateThresholdOutcome> {
    const existingId = await thresholds.idByJurisdiction(msg.companyId, msg.input.countryCode, msg.input.type);
    if (existingId) return { ok: false, kind: "exists", existingId };
    const t = newThreshold(newId("thr", ctx.now), msg.input, msg.memberId, iso(ctx.now));
    ctx.write(async () => {
      await thresholds.insert(msg.companyId, t);
      await audit.record({ companyId: msg.companyId, environment: "live", actor: msg.actor, action: "threshold.created", entityType: "Threshold", entityId: t.id, detail: createdDetail(t) }, ctx.now);
    });
    return { ok: true, threshold: t };
  }

  async function update(ctx: ActorContext<Record<string, never>>, msg: Scoped & { id: string; body: unknown; canDisable: boolean }): Promise<UpdateThresholdOutcome> {
    const current = await thresholds.get(msg.companyId, msg.id);
    if (!current) return { ok: false, kind: "not_found" };
    const d = decideChange(current, msg.body, { memberId: msg.memberId, canDisable: msg.canDisable }, iso(ctx.now));
    if (!d.ok) return d;
    const change = d.change;
    if (change)
      ctx.write(async () => {
        await thresholds.save(msg.companyId, d.threshold, change.fields);
        await audit.record({ companyId: msg.companyId, environment: "live", actor: msg.actor, action: change.action, entityType: "Threshold", entityId: msg.id, detail: change.detail }, ctx.now);
      });
    return { ok: true, threshold: d.threshold };
  }

  return {
    kind: "thresholds",
    initialState: () => ({}),
    async handle(ctx, msg) {
      const data = msg.type === "create" ? await create(ctx, msg) : await update(ctx, msg);
      ctx.reply({ ok: true, data } satisfies Outcome<CreateThresholdOutcome | UpdateThresholdOutcome>);
    },
  };
}
