// CLI for compliance officers until the console exists: cases list|show|note|assign|resolve, as a named member.
import process from "node:process";
import { TenancyError, type Member, type TenancyRepository } from "../ports/tenancy.ts";
import type { CaseRecord } from "../ports/cases.ts";
import { loadMasterKey } from "../adapters/crypto/master-key.ts";
import { Sealer } from "../adapters/crypto/envelope.ts";
import type { CaseCommand, CaseMsg } from "../actors/case.ts";
import { CasePresenter, type CaseViewer } from "../actors/case-presenter.ts";
import type { Outcome } from "../actors/outcome.ts";
import { roleHas, type Permission } from "../domain/access.ts";
import { CASE_RESOLUTIONS, CASE_STATUSES, validateNote, validateResolve } from "../domain/cases.ts";
import type { Environment } from "../domain/types.ts";
import { UsageError, actingMember, parseOptions, need as required } from "./usage.ts";
import type { CliContext } from "./context.ts";

type Out = (line: string) => void;
type Values = Record<string, string | boolean | undefined>;

export interface CaseCliDeps {
  clock?: () => number;
}

const USAGE = `usage: cases list --env test|live [--status open|closed] [--mine] [--limit N] --member <email>
       cases show --id <caseId> --member <email>
       cases note --id <caseId> --text <note> --member <email>
       cases assign --id <caseId> --to <email>|--unassign --member <email>
       cases resolve --id <caseId> --resolution approved|rejected [--note <text>] --member <email>
every command takes [--company <slug>] [--json]`;

const OPTIONS = {
  list: { env: { type: "string" }, status: { type: "string" }, mine: { type: "boolean" }, limit: { type: "string" } },
  show: { id: { type: "string" } },
  note: { id: { type: "string" }, text: { type: "string" } },
  assign: { id: { type: "string" }, to: { type: "string" }, unassign: { type: "boolean" } },
  resolve: { id: { type: "string" }, resolution: { type: "string" }, note: { type: "string" } },
} as const;

function args(sub: keyof typeof OPTIONS, argv: string[]): Values {
  return parseOptions(argv, { ...OPTIONS[sub], member: { type: "string" } }, USAGE) as Values;
}

function need(v: Values, name: string): string {
  return required(v, name, USAGE);
}

const acting = (t: TenancyRepository, companyId: string, email: string, env: Environment, permission: Permission): Promise<Member> => actingMember(t, companyId, email, env, [permission]);

const viewer = (m: Member): CaseViewer => ({
  piiView: roleHas(m.role, "pii:view"),
  transfersRead: roleHas(m.role, "transfers:view"),
  strsRead: roleHas(m.role, "reports:view") && roleHas(m.role, "strs:view"),
});

export async function runCases(cli: CliContext, argv: string[], out: Out, deps: CaseCliDeps = {}): Promise<void> {
  const [sub, ...rest] = argv;
  if (!sub || !(sub in OPTIONS)) throw new UsageError(USAGE);
  const v = args(sub as keyof typeof OPTIONS, rest);
  const clock = deps.clock ?? Date.now;
  const master = loadMasterKey(cli.path, process.env);
  const pii = new Sealer(master.derive("pii"));
  const repositories = cli.repositories(clock, { pii: () => pii, secrets: () => new Sealer(master.derive("secrets")) });
  const tenancy = repositories.tenancy;
  const company = await tenancy.requireCompany((v.company as string) ?? "default");
  const repo = repositories.cases;
  const presenter = new CasePresenter(repositories.cases, pii);
  const email = need(v, "member");
  const print = (data: unknown, text: string) => out(v.json ? JSON.stringify(data) : text);

  const caseOf = async (): Promise<CaseRecord> => {
    const id = need(v, "id");
    const environment = await repo.environmentOf(company.id, id);
    const c = environment && (await repo.get(company.id, environment, id));
    if (!c) throw new TenancyError(`no case ${id}`);
    return c;
  };

  /**
   * A command to the case's actor through the CLI's entry to the runtime (src/cli/runtime.ts): the case is read under
   * the write lock, and its writes, its outgoing messages (the server's runtime picks them up) and its events commit
   * together.
   */
  const runtime = cli.runtime({ clock, repositories, masterKey: () => master });
  const act = (c: CaseRecord, m: Member, msg: CaseCommand): Promise<Outcome<Record<string, unknown>>> => {
    const full = { ...msg, companyId: company.id, environment: c.environment, actor: { type: "member", memberId: m.id, apiKeyId: null } } as CaseMsg;
    return runtime.caseCommand(c.id, full);
  };

  const check = (o: Outcome<Record<string, unknown>>) => {
    if (!o.ok) throw new TenancyError(`${o.code}: ${o.message ?? "refused"}`);
    return o.data;
  };

  /** The case in detail: as a command answered it (the record it committed), or as read. */
  const detail = (c: CaseRecord, m: Member) => presenter.detail(company.id, c.environment, c, viewer(m));

  switch (sub) {
    case "list": {
      const env = need(v, "env");
      if (env !== "test" && env !== "live") throw new UsageError(`--env must be test or live\n${USAGE}`);
      const m = await acting(tenancy, company.id, email, env, "cases:view");
      const status = v.status as string | undefined;
      if (status !== undefined && !(CASE_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status must be open or closed\n${USAGE}`);
      const limit = v.limit === undefined ? 50 : Number(v.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError(`--limit must be 1 to 200\n${USAGE}`);
      const rows = await repo.page(company.id, env, { status, assigneeId: v.mine ? m.id : undefined }, null, limit);
      const items = await presenter.items(company.id, rows, viewer(m));
      print(items, items.map((c) => `${c.caseNumber}  ${c.id}  ${c.status.padEnd(6)}  ${c.priority.padEnd(6)}  ${c.type.padEnd(18)}  ${c.assignee?.email ?? "-"}  ${c.title}`).join("\n") || "no cases");
      return;
    }
    case "show": {
      const c = await caseOf();
      const m = await acting(tenancy, company.id, email, c.environment, "cases:view");
      const d = (await detail(c, m)) as Record<string, any>;
      const lines = [
        `${d.caseNumber} (${d.id}) ${d.status}${d.resolution ? ` ${d.resolution}` : ""}, ${d.type}/${d.category}, priority ${d.priority}`,
        `title: ${d.title}`,
        ...(d.description ? [`description: ${d.description}`] : []),
        `assignee: ${d.assignee?.email ?? "-"}; transfers: ${d.transferIds.join(", ") || "-"}; source: ${d.source}`,
        ...d.history.map((h: any) => `  ${h.createdAt} ${h.action} ${h.field ?? ""} ${h.oldValue ?? ""} → ${h.newValue ?? ""} (${h.user?.email ?? "system"})`),
        ...d.notes.map((n: any) => `  note ${n.createdAt} ${n.author?.email ?? "-"}: ${n.content}`),
      ];
      print(d, lines.join("\n"));
      return;
    }
    case "note": {
      const c = await caseOf();
      const m = await acting(tenancy, company.id, email, c.environment, "cases:update");
      const body = validateNote({ content: need(v, "text") });
      if (!body.ok) throw new UsageError(body.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
      const { note: _written, ...data } = check(await act(c, m, { type: "addNote", content: body.value.content }));
      print(data, `note ${data.id} added to ${c.caseNumber}`);
      return;
    }
    case "assign": {
      const c = await caseOf();
      const m = await acting(tenancy, company.id, email, c.environment, "cases:assign");
      let to: string | null;
      if (v.unassign) to = null;
      else {
        const target = await tenancy.memberByEmail(company.id, need(v, "to"));
        if (!target) throw new TenancyError(`no member with email ${v.to}`);
        to = target.id;
      }
      const data = check(await act(c, m, { type: "update", patch: { assigneeId: to } }));
      const d = (await detail(data.case as CaseRecord, m)) as Record<string, any>;
      print(d, `${c.caseNumber} assigned to ${d.assignee?.email ?? "nobody"}`);
      return;
    }
    case "resolve": {
      const c = await caseOf();
      const m = await acting(tenancy, company.id, email, c.environment, "cases:resolve");
      const resolution = need(v, "resolution");
      if (!(CASE_RESOLUTIONS as readonly string[]).includes(resolution)) throw new UsageError(`--resolution must be approved or rejected\n${USAGE}`);
      const body = validateResolve({ resolution, resolutionNote: (v.note as string | undefined) ?? null });
      if (!body.ok) throw new UsageError(body.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
      // The member's role decides what a key of theirs could do: transfers:update moves the transfer, strs:update drafts.
      const data = check(
        await act(c, m, { type: "resolve", ...body.value, mayWriteTransfers: roleHas(m.role, "transfers:update"), mayWriteStrs: roleHas(m.role, "strs:update") }),
      );
      const d = await detail(data.case as CaseRecord, m);
      print({ ...d, transferAction: data.transferAction ?? null }, `${c.caseNumber} resolved ${resolution}; transfer action: ${JSON.stringify(data.transferAction ?? null)}`);
      return;
    }
  }
}
