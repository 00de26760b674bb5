// The rules actor kind: one actor per company (`rules:<companyId>`) owns its rules' writes in both environments (a
// promotion writes in both). Creates, changes, deactivations and promotions are typed commands handled one at a time
// per company on the runtime's unit of work: the decisions are the domain's (src/domain/rules/life.ts), and the rows
// and audit entries commit with the message, exactly once.
import { iso, newId } from "../domain/ids.ts";
import { createdDetail, decideRuleChange, newRule, promotionCopy } from "../domain/rules/life.ts";
import type { Rule } from "../domain/rules/types.ts";
import type { IntegrationLookup, RuleInput } from "../domain/rules/validate.ts";
import type { Environment } from "../domain/types.ts";
import type { Repositories } from "../ports/repositories.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { PromoteOutcome, RuleRepository } from "../ports/rules.ts";
import type { Outcome } from "./outcome.ts";
import type { ActorContext, ActorKind } from "./types.ts";

export const rulesAddress = (companyId: string) => `rules:${companyId}`;

interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
  memberId: string | null;
}

export type RuleCommand =
  | { type: "create"; input: RuleInput }
  /** Undefined answer: no such rule. */
  | { type: "update"; id: string; changes: Partial<RuleInput> }
  | { type: "deactivate"; id: string }
  /** A test rule (the message's environment is the key's, live) copied to live. */
  | { type: "promote"; testRuleId: string };

export type RuleMsg = Scoped & RuleCommand;

export interface RuleActorDeps {
  repositories: { rules: RuleRepository } & Pick<Repositories, "audit" | "providerSettings">;
}

type Ctx = ActorContext<Record<string, never>>;

export function rulesActor(deps: RuleActorDeps): ActorKind<Record<string, never>, RuleMsg> {
  const { rules, audit, providerSettings } = deps.repositories;

  /** The company's integrations as live rules see them (IDs and the one switch are shared by both environments). */
  const liveIntegrations = async (companyId: string): Promise<IntegrationLookup> => {
    const refs = (await providerSettings.list(companyId, "live", "integration"))
      .filter((x) => x.id !== null)
      .map((x) => ({ id: x.id!, name: x.name, enabled: x.enabled }));
    return (id) => refs.find((x) => x.id === id);
  };

  function create(ctx: Ctx, msg: Scoped, env: Environment, input: RuleInput, origin?: Record<string, unknown>): Rule {
    const rule = newRule(newId("rul", ctx.now), msg.companyId, env, input, msg.memberId, iso(ctx.now));
    ctx.write(async () => {
      await rules.insert(rule);
      await audit.record({ companyId: msg.companyId, environment: env, actor: msg.actor, action: "rule.created", entityType: "Rule", entityId: rule.id, detail: createdDetail(input, origin) }, ctx.now);
    });
    return rule;
  }

  /** `action` names the audit entry (`rule.updated`, or `rule.deactivated` for DELETE). */
  async function change(ctx: Ctx, msg: Scoped, id: string, changes: Partial<RuleInput>, action: string): Promise<Rule | undefined> {
    const current = await rules.get(msg.companyId, msg.environment, id);
    if (!current) return undefined;
    const d = decideRuleChange(current, changes, iso(ctx.now));
    if (!d) return current;
    ctx.write(async () => {
      await rules.save(d.rule);
      await audit.record({ companyId: msg.companyId, environment: msg.environment, actor: msg.actor, action, entityType: "Rule", entityId: id, detail: d.detail }, ctx.now);
    });
    return d.rule;
  }

  /** All or nothing: the live copy and an entry in each environment (`rule.promoted` in test, `rule.created` in live). */
  async function promote(ctx: Ctx, msg: Scoped, testRuleId: string): Promise<PromoteOutcome> {
    const from = await rules.get(msg.companyId, "test", testRuleId);
    if (!from) return { ok: false, code: "RULE_NOT_FOUND" };
    const already = await rules.promotedTo(msg.companyId, testRuleId);
    if (already) return { ok: false, code: "RULE_ALREADY_PROMOTED", liveRuleId: already };
    const copy = promotionCopy(from, await liveIntegrations(msg.companyId));
    if (!copy.ok) return { ok: false, code: "VALIDATION_ERROR", issues: copy.issues };
    const rule = create(ctx, msg, "live", copy.input, { promotedFrom: from.id });
    const detail = { liveRuleId: rule.id, conditionCount: from.condition?.rules.length ?? 0, via: msg.actor.sessionId ? "console" : "cli" };
    ctx.write(async () => audit.record({ companyId: msg.companyId, environment: "test", actor: msg.actor, action: "rule.promoted", entityType: "Rule", entityId: from.id, detail }, ctx.now));
    return { ok: true, rule, from };
  }

  return {
    kind: "rules",
    initialState: () => ({}),
    async handle(ctx, msg) {
      let data: Rule | undefined | PromoteOutcome;
      switch (msg.type) {
        case "create":
          data = create(ctx, msg, msg.environment, msg.input);
          break;
        case "update":
          data = await change(ctx, msg, msg.id, msg.changes, "rule.updated");
          break;
        case "deactivate":
          data = await change(ctx, msg, msg.id, { isActive: false }, "rule.deactivated");
          break;
        case "promote":
          data = await promote(ctx, msg, msg.testRuleId);
          break;
      }
      // JSON carries no undefined: "no such rule" is null on the way back.
      ctx.reply({ ok: true, data: data ?? null } satisfies Outcome<Rule | PromoteOutcome | null>);
    },
  };
}
