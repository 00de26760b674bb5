// The thresholds actor kind: one actor per company (`thresholds:<companyId>`) owns its thresholds' writes. Creates and
// changes are typed commands handled one at a time per company on the runtime's unit of work: the decision is the
// domain's (src/domain/thresholds.ts), and the row and its audit entry commit with the message, exactly once.
import { iso, newId } from "../domain/ids.ts";
import { createdDetail, decideChange, newThreshold, type ThresholdInput } from "../domain/thresholds.ts";
import type { Repositories } from "../adapters/storage/repositories.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { CreateThresholdOutcome, UpdateThresholdOutcome } from "../ports/thresholds.ts";
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
  repositories: Pick<Repositories, "thresholds" | "audit">;
}

export function thresholdsActor(deps: ThresholdActorDeps): ActorKind<Record<string, never>, ThresholdMsg> {
  const { thresholds, audit } = deps.repositories;

  function create(ctx: ActorContext<Record<string, never>>, msg: Scoped & { input: ThresholdInput }): CreateThresholdOutcome {
    const existingId = thresholds.idByJurisdiction(msg.companyId, msg.input.countryCode, msg.input.type);
    if (existingId) return { ok: false, kind: "exists", existingId };
    const t = newThreshold(newId("thr", ctx.now), msg.input, msg.memberId, iso(ctx.now));
    ctx.write(() => {
      thresholds.insert(msg.companyId, t);
      return audit.record({ companyId: msg.companyId, environment: "live", actor: msg.actor, action: "threshold.created", entityType: "Threshold", entityId: t.id, detail: createdDetail(t) }, ctx.now);
    });
    return { ok: true, threshold: t };
  }

  function update(ctx: ActorContext<Record<string, never>>, msg: Scoped & { id: string; body: unknown; canDisable: boolean }): UpdateThresholdOutcome {
    const current = thresholds.get(msg.companyId, msg.id);
    if (!current) return { ok: false, kind: "not_found" };
    const d = decideChange(current, msg.body, { memberId: msg.memberId, canDisable: msg.canDisable }, iso(ctx.now));
    if (!d.ok) return d;
    const change = d.change;
    if (change)
      ctx.write(() => {
        thresholds.save(msg.companyId, d.threshold, change.fields);
        return audit.record({ companyId: msg.companyId, environment: "live", actor: msg.actor, action: change.action, entityType: "Threshold", entityId: msg.id, detail: change.detail }, ctx.now);
      });
    return { ok: true, threshold: d.threshold };
  }

  return {
    kind: "thresholds",
    initialState: () => ({}),
    handle(ctx, msg) {
      const data = msg.type === "create" ? create(ctx, msg) : update(ctx, msg);
      ctx.reply({ ok: true, data } satisfies Outcome<CreateThresholdOutcome | UpdateThresholdOutcome>);
    },
  };
}
