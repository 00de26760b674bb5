// The rules port: a company's compliance rules per environment, in the domain's records. Written by hand; the SQLite
// engine implements it in src/adapters/storage/repos/rules.ts, and the storage contract suite holds every engine to it.
import type { Environment } from "../domain/types.ts";
import type { Rule, RuleCategory, RuleSeverity, RuleStage } from "../domain/rules/types.ts";
import type { IntegrationLookup, RuleInput } from "../domain/rules/validate.ts";
import type { Issue } from "../domain/errors.ts";
import type { AuditActor } from "./audit.ts";

export interface RuleFilter {
  category?: RuleCategory | null;
  isActive?: boolean | null;
  severity?: RuleSeverity | null;
  stage?: RuleStage | null;
  /** Folded text (normalizeForSearch) found in the name or description. */
  search?: string;
}

/** Who changes a rule (memberId null: the system). */
export interface RuleChanger {
  actor: AuditActor;
  memberId: string | null;
}

export type PromoteOutcome =
  | { ok: true; rule: Rule; from: Rule }
  | { ok: false; code: "RULE_NOT_FOUND" }
  | { ok: false; code: "RULE_ALREADY_PROMOTED"; liveRuleId: string }
  | { ok: false; code: "VALIDATION_ERROR"; issues: Issue[] };

export interface RuleRepository {
  /** The environment's active rules, as the rule checkpoints evaluate them. */
  active(companyId: string, env: Environment): Rule[];
  get(companyId: string, env: Environment, id: string): Rule | undefined;
  /** Newest first; `seq` is the keyset position (pass the last one as `beforeSeq` for the next page). */
  page(companyId: string, env: Environment, f: RuleFilter, beforeSeq: number | null, n: number): { seq: number; rule: Rule }[];
  count(companyId: string, env: Environment, f: RuleFilter): number;
  /** `origin` is added to the `rule.created` entry (a promotion names the test rule it copies). */
  create(companyId: string, env: Environment, input: RuleInput, by: RuleChanger, now: number, origin?: Record<string, unknown>): Rule;
  /** Fields sent with their current value are not counted as changed; undefined: no such rule. */
  update(companyId: string, env: Environment, id: string, changes: Partial<RuleInput>, by: RuleChanger, now: number, action?: string): Rule | undefined;
  /** The live rule a test rule was promoted to, while that live rule exists. */
  promotedTo(companyId: string, testRuleId: string): string | null;
  /** A test rule copied to live with its conditions, audited in both environments: all or nothing. */
  promote(companyId: string, testRuleId: string, by: RuleChanger, now: number, liveIntegrations: IntegrationLookup): PromoteOutcome;
  /** The rule kept, inactive; deactivating an inactive rule changes nothing and records nothing. */
  deactivate(companyId: string, env: Environment, id: string, by: RuleChanger, now: number): Rule | undefined;
}
