// The reports actor kind: one actor per company and environment (`reports:<companyId>:<environment>`) owns its
// suspicion reports' life by hand: a draft for a transfer and each step (edit, submit, approve, file) are typed
// commands handled one at a time, decided against the report as it is by the domain's pure step
// (src/domain/reports/life.ts), and committed with their audit entry in the runtime's unit of work, exactly once:
// storage only writes the report the step decided. A case's rejection drafts its report in the case actor's own unit
// of work (src/actors/case.ts).
import { decideStep, type ReportChange } from "../domain/reports/life.ts";
import type { ReportAction } from "../domain/reports/report.ts";
import type { Environment } from "../domain/types.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { DraftAnswer, ReportContent, ReportRecord, ReportRepository, StepAnswer } from "../ports/reports.ts";
import { iso } from "../domain/ids.ts";
import type { Outcome } from "./outcome.ts";
import type { ActorContext, ActorKind } from "./types.ts";

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
  repositories: { reports: ReportRepository };
}

export function reportsActor(deps: ReportActorDeps): ActorKind<Record<string, never>, ReportMsg> {
  const repo = deps.repositories.reports;

  // The answer carries the record the command committed: the write fills it in inside the commit, and the reply goes
  // out only once that commit is done (src/actors/runtime.ts), so the asker never sees it unfilled.
  async function draft(ctx: ActorContext<Record<string, never>>, msg: Scoped & Extract<ReportCommand, { type: "draft" }>): Promise<DraftAnswer> {
    const plan = await repo.planDraft(msg.companyId, msg.environment, { transferId: msg.transferId, jurisdiction: msg.jurisdiction, memberId: msg.memberId, actor: msg.actor }, ctx.now);
    if (!plan.outcome.ok) return plan.outcome;
    const answer: { ok: true; id: string; report?: ReportRecord } = { ok: true, id: plan.outcome.id };
    ctx.write(async () => {
      answer.report = await plan.apply();
    });
    return answer as DraftAnswer;
  }

  async function step(ctx: ActorContext<Record<string, never>>, msg: Scoped & Extract<ReportCommand, { type: "step" }>): Promise<StepAnswer> {
    const r = await repo.get(msg.companyId, msg.environment, msg.reportId);
    if (!r) return { ok: false, refusal: { code: "REPORT_NOT_FOUND", message: `no report ${msg.reportId} in the ${msg.environment} environment` } };
    // Only an edit opens the content, and only once it is found valid: a seal another key made fails it there, as before.
    let content: ReportContent | undefined;
    let unreadable: unknown;
    if (msg.action === "edit")
      try {
        content = await repo.content(r);
      } catch (e) {
        unreadable = e;
      }
    const d = decideStep(
      { id: r.id, reportNumber: r.reportNumber, status: r.status, jurisdiction: r.jurisdiction, filingReady: r.filingReady, generatedBy: r.generatedBy, submittedBy: r.submittedBy, lastEditedBy: r.lastEditedBy },
      msg.action,
      { memberId: msg.memberId, viaConsole: !!msg.actor.sessionId },
      msg.change,
      iso(ctx.now),
      () => {
        if (unreadable !== undefined) throw unreadable;
        return content!;
      },
    );
    if (!d.ok) return d;
    const answer: { ok: true; report: ReportRecord; content?: ReportContent } = { ok: true, report: r, ...(d.step.content ? { content: d.step.content } : {}) };
    ctx.write(async () => {
      answer.report = await repo.saveStep(r, d.step, msg.actor, ctx.now);
    });
    return answer;
  }

  return {
    kind: "reports",
    initialState: () => ({}),
    async handle(ctx, msg) {
      const outcome = msg.type === "draft" ? await draft(ctx, msg) : await step(ctx, msg);
      ctx.reply({ ok: true, data: outcome } satisfies Outcome<DraftAnswer | StepAnswer>);
    },
  };
}
