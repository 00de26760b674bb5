// The reports actor kind: one actor per company and environment (`reports:<companyId>:<environment>`) owns its
// suspicion reports' life by hand: a draft for a transfer and each step (edit, submit, approve, file) are typed
// commands handled one at a time, decided by the repository against the report as it is (the life's rules are
// src/domain/reports/report.ts), and committed with their audit entry in the runtime's unit of work, exactly once.
// A case's rejection drafts its report in the case actor's own unit of work (src/actors/case.ts).
import type { ReportAction } from "../domain/reports/report.ts";
import type { Environment } from "../domain/types.ts";
import type { Repositories } from "../adapters/storage/repositories.ts";
import type { DraftDecision, ReportChange, StepDecision } from "../adapters/storage/repos/reports.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { Outcome } from "./outcome.ts";
import type { ActorKind } from "./types.ts";

export const reportsAddress = (companyId: string, environment: Environment) => `reports:${companyId}:${environment}`;

interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
  memberId: string;
}

export type ReportCommand =
  | { type: "draft"; transferId: string; jurisdiction?: string }
  | { type: "step"; reportId: string; action: ReportAction; change: ReportChange };

export type ReportMsg = Scoped & ReportCommand;

export interface ReportActorDeps {
  repositories: Pick<Repositories, "reports">;
}

export function reportsActor(deps: ReportActorDeps): ActorKind<Record<string, never>, ReportMsg> {
  const repo = deps.repositories.reports;
  return {
    kind: "reports",
    initialState: () => ({}),
    handle(ctx, msg) {
      const by = { memberId: msg.memberId, actor: msg.actor };
      const plan =
        msg.type === "draft"
          ? repo.planDraft(msg.companyId, msg.environment, { transferId: msg.transferId, jurisdiction: msg.jurisdiction, ...by }, ctx.now)
          : repo.planAct(msg.companyId, msg.environment, msg.reportId, msg.action, by, msg.change, ctx.now);
      if (plan.outcome.ok) ctx.write(plan.apply);
      ctx.reply({ ok: true, data: plan.outcome } satisfies Outcome<DraftDecision | StepDecision>);
    },
  };
}
