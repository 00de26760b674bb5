// CLI for promoting rules: `rules list` shows an environment's rules (and, for test, where each went live);
// `rules promote` copies a rule proven in test to live with its conditions, by a named member, audited in both
// environments, all or nothing: the same command to the company's rules actor as POST /api/v2/rules/:id/promote, through
// the CLI's entry to the runtime (src/cli/runtime.ts).
import { TenancyError } from "../ports/tenancy.ts";
import type { CliContext } from "./context.ts";
import { Sealer } from "../adapters/crypto/envelope.ts";
import process from "node:process";
import { loadMasterKey } from "../adapters/crypto/master-key.ts";
import type { PromoteOutcome } from "../ports/rules.ts";
import { isEnvironment } from "../domain/types.ts";
import { UsageError, actingMember, parseOptions, need as required } from "./usage.ts";

type Out = (line: string) => void;

export interface RuleCliDeps {
  clock?: () => number;
  secrets?: () => Sealer;
}

const USAGE = `usage: rules list [--env test|live]
       rules promote --id <test rule ID> --member <email>
every command takes [--company <slug>] [--json]; list defaults to --env test`;

const OPTIONS = {
  list: { env: { type: "string" } },
  promote: { id: { type: "string" }, member: { type: "string" } },
} as const;

export async function runRules(cli: CliContext, argv: string[], out: Out, deps: RuleCliDeps = {}): Promise<void> {
  const [sub, ...rest] = argv;
  if (!sub || !(sub in OPTIONS)) throw new UsageError(USAGE);
  const v = parseOptions(rest, { ...OPTIONS[sub as keyof typeof OPTIONS], company: { type: "string" }, json: { type: "boolean" } }, USAGE);
  const clock = deps.clock ?? Date.now;
  const repositories = cli.repositories(clock, { secrets: deps.secrets });
  const tenancy = repositories.tenancy;
  const company = await tenancy.requireCompany((v.company as string) ?? "default");
  const repo = repositories.rules;
  const print = (value: unknown, human: string) => out(v.json ? JSON.stringify(value) : human);

  if (sub === "list") {
    const env = (v.env as string | undefined) ?? "test";
    if (!isEnvironment(env)) throw new UsageError(`--env must be test or live\n${USAGE}`);
    const rows = await repo.page(company.id, env, {}, null, 500);
    const items = await Promise.all(
      rows.map(async ({ rule }) => ({
        id: rule.id,
        name: rule.name,
        action: rule.action,
        isActive: rule.isActive,
        conditionCount: rule.condition?.rules.length ?? 0,
        ...(env === "test" ? { promotedTo: await repo.promotedTo(company.id, rule.id) } : {}),
      })),
    );
    return print(
      items,
      items.length
        ? items.map((i) => `${i.id}  ${i.isActive ? "active  " : "inactive"} ${i.action.padEnd(15)} ${i.name}${"promotedTo" in i && i.promotedTo ? `  → live ${i.promotedTo}` : ""}`).join("\n")
        : `no rules in ${env}`,
    );
  }

  // promote: the member must be able to create rules in live (the environment the copy lands in).
  const m = await actingMember(tenancy, company.id, required(v, "member", USAGE), "live", ["rules:create"], (mm, p) => `INSUFFICIENT_PERMISSION: member ${mm.email} has role ${mm.role}, which lacks ${p} (needed to promote a rule)`);
  const id = required(v, "id", USAGE);
  const runtime = cli.runtime({ clock, repositories, masterKey: () => loadMasterKey(cli.path, process.env) });
  const o = await runtime.ruleCommand<PromoteOutcome>({ type: "promote", testRuleId: id, companyId: company.id, environment: "live", actor: { type: "member", memberId: m.id }, memberId: m.id });
  if (!o.ok) throw new TenancyError(`${o.code}: ${o.message ?? "refused"}`);
  const res = o.data;
  if (!res.ok) {
    if (res.code === "RULE_NOT_FOUND") throw new TenancyError(`RULE_NOT_FOUND: no rule ${id} in the test environment`);
    if (res.code === "RULE_ALREADY_PROMOTED") throw new TenancyError(`RULE_ALREADY_PROMOTED: ${id} is live already as ${res.liveRuleId}; change that rule instead`);
    throw new TenancyError(`VALIDATION_ERROR: the copy is not valid in live: ${res.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  }
  return print(
    { id: res.rule.id, promotedFrom: res.from.id, name: res.rule.name, isActive: res.rule.isActive, conditionCount: res.rule.condition?.rules.length ?? 0 },
    `Promoted ${res.from.id} "${res.from.name}" to live as ${res.rule.id} (${res.rule.condition?.rules.length ?? 0} conditions, ${res.rule.isActive ? "active" : "inactive"}) by ${m.email}`,
  );
}
