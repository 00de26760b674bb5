// CLI for suspicion reports (the dashboard's part, Part 2 "Report"): draft by hand, show, edit, and the life
// draft → pending_review → submitted → filed. Each step by a named member, in one audited transaction, through the
// same core and permission table as the operator routes (src/http/reports.ts).
import process from "node:process";
import { readFileSync } from "node:fs";
import { TenancyError, type Member, type TenancyRepository } from "../ports/tenancy.ts";
import type { DraftAnswer, ReportChange, ReportContent, ReportRecord, StepAnswer } from "../ports/reports.ts";
import type { ReportMsg } from "../actors/reports.ts";
import type { CliContext } from "./context.ts";
import { loadMasterKey } from "../adapters/crypto/master-key.ts";
import { Sealer } from "../adapters/crypto/envelope.ts";
import { deadlineRule, filingDeadline, jurisdictionOut, missingLabels, REPORT_ACTION_NEEDS, REPORT_STATUSES, resolveReportType, type ReportAction, type ReportStatus } from "../domain/reports/report.ts";
import { isEnvironment, type Environment } from "../domain/types.ts";
import { UsageError, actingMember, parseOptions, need as required } from "./usage.ts";

type Out = (line: string) => void;
type Values = Record<string, string | boolean | string[] | undefined>;

export interface ReportCliDeps {
  clock?: () => number;
  pii?: () => Sealer;
}

const USAGE = `usage: reports list [--env test|live] [--status <status>]
       reports show --id <reportId|number> [--env test|live]
       reports draft --transfer <transferId> [--jurisdiction <CC>] --env test|live --member <email>
       reports edit --id <reportId|number> [--narrative-file <file>] [--field key=value ...] [--indicator <text> ...] [--jurisdiction <CC>] --member <email>
       reports submit --id <reportId|number> --member <email>
       reports approve --id <reportId|number> --member <email>
       reports file --id <reportId|number> --reference <FIU reference> --member <email>
every command takes [--company <slug>] [--json]; --env defaults to live (a report number names its environment)`;

const OPTIONS = {
  list: { status: { type: "string" } },
  show: {},
  draft: { transfer: { type: "string" }, jurisdiction: { type: "string" }, member: { type: "string" } },
  edit: { "narrative-file": { type: "string" }, field: { type: "string", multiple: true }, indicator: { type: "string", multiple: true }, jurisdiction: { type: "string" }, member: { type: "string" } },
  submit: { member: { type: "string" } },
  approve: { member: { type: "string" } },
  file: { reference: { type: "string" }, member: { type: "string" } },
} as const;


function args(sub: keyof typeof OPTIONS, argv: string[]): Values {
  return parseOptions(argv, { ...OPTIONS[sub], id: { type: "string" }, env: { type: "string" } }, USAGE) as Values;
}

function need(v: Values, name: string): string {
  return required(v, name, USAGE);
}

const actingFor = (t: TenancyRepository, companyId: string, email: string, env: Environment, action: ReportAction | "show" | "draft"): Promise<Member> =>
  actingMember(t, companyId, email, env, REPORT_ACTION_NEEDS[action], (m, p) => `INSUFFICIENT_PERMISSION: member ${m.email} has role ${m.role}, which lacks ${p} (needed to ${action} a report)`);

export async function runReports(cli: CliContext, argv: string[], out: Out, deps: ReportCliDeps = {}): Promise<void> {
  const [sub, ...rest] = argv;
  if (!sub || !(sub in OPTIONS)) throw new UsageError(USAGE);
  const v = args(sub as keyof typeof OPTIONS, rest);
  const clock = deps.clock ?? Date.now;
  const pii = deps.pii ? deps.pii() : new Sealer(loadMasterKey(cli.path, process.env).derive("pii"));
  const repositories = cli.repositories(clock, { pii: () => pii });
  const tenancy = repositories.tenancy;
  const company = await tenancy.requireCompany((v.company as string) ?? "default");
  const repo = repositories.reports;
  const now = clock();
  /** A draft or a step of the life: a command to the environment's reports actor, through the CLI's runtime entry. */
  const command = async <T>(msg: ReportMsg): Promise<T> => {
    const o = await cli.runtime({ clock, repositories, masterKey: () => loadMasterKey(cli.path, process.env) }).reportCommand<T>(msg);
    if (!o.ok) throw new TenancyError(`${o.code}: ${o.message ?? "refused"}`);
    return o.data;
  };
  const print = (value: unknown, human: string) => out(v.json ? JSON.stringify(value) : human);
  const envArg = typeof v.env === "string" ? v.env : undefined;
  if (envArg !== undefined && !isEnvironment(envArg)) throw new UsageError(`--env must be test or live\n${USAGE}`);

  const find = async (): Promise<ReportRecord> => {
    const key = need(v, "id");
    // A report number names its environment (`-TEST-`); an ID is looked up in both unless --env says which.
    const envs: Environment[] = envArg ? [envArg] : /-TEST-/i.test(key) ? ["test"] : ["live", "test"];
    for (const env of envs) {
      const r = key.startsWith("rpt_") ? await repo.get(company.id, env, key) : await repo.byNumber(company.id, env, key);
      if (r) return r;
    }
    throw new TenancyError(`REPORT_NOT_FOUND: no report ${key}`);
  };
  const detail = async (r: ReportRecord, opened?: ReportContent) => {
    const type = resolveReportType(r.jurisdiction);
    const ths = (await repositories.thresholds.all(company.id)).filter((t) => t.type === "str");
    // Opened once (or not at all: the content an edit just sealed): the content and what filing still misses come from it.
    const c = opened ?? (await repo.content(r));
    const missing = await repo.missing(r, c);
    return {
      id: r.id,
      reportNumber: r.reportNumber,
      environment: r.environment,
      jurisdiction: jurisdictionOut(r.jurisdiction),
      label: type.definition.label,
      reportTo: type.definition.reportTo,
      status: r.status,
      transferId: r.transferId,
      caseId: r.caseId,
      filingReady: r.filingReady,
      missing,
      missingLabels: missingLabels(type, missing),
      reportingThreshold: r.jurisdiction ? await repo.threshold(company.id, r.environment, r.transferId, r.jurisdiction, ths) : null,
      filingDeadline: filingDeadline(r.generatedAt, r.status, deadlineRule(type, ths), now),
      submittedBy: r.submittedBy,
      approvedBy: r.approvedBy,
      filedBy: r.filedBy,
      filingReference: r.filingReference,
      narrative: c.narrative,
      riskIndicators: c.riskIndicators,
      regulatoryData: c.regulatoryData,
    };
  };
  const summary = (d: Awaited<ReturnType<typeof detail>>) =>
    [
      `${d.reportNumber} (${d.id}) ${d.label} → ${d.reportTo ?? "no FIU of its own"}`,
      `  jurisdiction ${d.jurisdiction ?? "not set (set it with reports edit --jurisdiction before filing)"}`,
      `  status ${d.status}; filing-ready: ${d.filingReady ? "yes" : `no, missing for filing:\n${d.missingLabels.map((l) => `    - ${l}`).join("\n")}`}`,
      `  deadline ${d.filingDeadline.deadline} (${d.filingDeadline.daysRemaining} days left${d.filingDeadline.isOverdue ? ", OVERDUE" : ""})`,
      ...(d.filingReference ? [`  filed as ${d.filingReference}`] : []),
    ].join("\n");

  if (sub === "list") {
    const env = envArg ?? "live";
    const status = v.status as string | undefined;
    if (status !== undefined && !(REPORT_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status must be one of ${REPORT_STATUSES.join(", ")}`);
    const rows = await repo.page(company.id, env, { status: status as ReportStatus | undefined }, null, 200);
    const items = rows.map((r) => ({ id: r.id, reportNumber: r.reportNumber, jurisdiction: jurisdictionOut(r.jurisdiction), status: r.status, filingReady: r.filingReady, transferId: r.transferId, createdAt: r.createdAt }));
    return print(items, items.length ? items.map((i) => `${i.reportNumber}  ${i.status.padEnd(14)} ${i.jurisdiction ?? "--"}  ${i.filingReady ? "ready" : "not ready"}  ${i.id}`).join("\n") : `no reports in ${env}`);
  }
  if (sub === "show") {
    const r = await find();
    if (typeof v.member === "string") await actingFor(tenancy, company.id, v.member, r.environment, "show");
    const d = await detail(r);
    return print(d, `${summary(d)}\n  narrative: ${d.narrative ?? "(none)"}\n  fields: ${JSON.stringify(d.regulatoryData)}`);
  }

  if (sub === "draft") {
    if (!envArg) throw new UsageError(`draft needs --env test|live (the transfer's environment)\n${USAGE}`);
    const m = await actingFor(tenancy, company.id, need(v, "member"), envArg, "draft");
    const jurisdiction = typeof v.jurisdiction === "string" ? v.jurisdiction : undefined;
    const res = await command<DraftAnswer>({ type: "draft", transferId: need(v, "transfer"), jurisdiction, companyId: company.id, environment: envArg, actor: { type: "member", memberId: m.id }, memberId: m.id });
    if (!res.ok) throw new TenancyError(`${res.refusal.code}: ${res.refusal.message}`);
    const d = await detail(res.report);
    return print(d, `Drafted by ${m.email}\n${summary(d)}`);
  }

  const action = sub as ReportAction;
  const r = await find();
  const m = await actingFor(tenancy, company.id, need(v, "member"), r.environment, action);
  const change: ReportChange = {};
  if (action === "edit") {
    if (typeof v["narrative-file"] === "string") change.narrative = readFileSync(v["narrative-file"], "utf8");
    for (const kv of (v.field as string[] | undefined) ?? []) {
      const i = kv.indexOf("=");
      if (i <= 0) throw new UsageError(`--field takes key=value, got "${kv}"`);
      (change.fields ??= {})[kv.slice(0, i)] = kv.slice(i + 1);
    }
    if (v.indicator) change.riskIndicators = v.indicator as string[];
    if (typeof v.jurisdiction === "string") change.jurisdiction = v.jurisdiction;
    if (change.narrative === undefined && !change.fields && !change.riskIndicators && change.jurisdiction === undefined)
      throw new UsageError(`edit needs --narrative-file, --field, --indicator or --jurisdiction\n${USAGE}`);
  }
  if (action === "file") change.reference = need(v, "reference");
  const res = await command<StepAnswer>({ type: "step", reportId: r.id, action, change, companyId: company.id, environment: r.environment, actor: { type: "member", memberId: m.id }, memberId: m.id });
  if (!res.ok) throw new TenancyError(`${res.refusal.code}: ${res.refusal.message}`);
  const d = await detail(res.report, res.content);
  return print(d, `${action === "edit" ? "Edited" : action === "submit" ? "Submitted for review" : action === "approve" ? "Approved" : "Filed"} by ${m.email}\n${summary(d)}`);
}
