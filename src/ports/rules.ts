// The rules port: a company's compliance rules per environment, in the domain's records. Written by hand and
// asynchronous like every port (src/ports/store.ts); the SQLite engine implements it, and the storage contract suite
// holds every engine to it. Its writes run inside a caller's unit of work: the company's rules actor (src/actors/rules.ts) is the one writer,
// deciding with src/domain/rules/life.ts. The outcomes below are what that actor answers.
import type { Environment } from "../domain/types.ts";
import type { Rule, RuleCategory, RuleSeverity, RuleStage } from "../domain/rules/types.ts";
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
  active(companyId: string, env: Environment): Promise<Rule[]>;
  get(companyId: string, env: Environment, id: string): Promise<Rule | undefined>;
  /** Newest first; `seq` is the keyset position (pass the last one as `beforeSeq` for the next page). */
  page(companyId: string, env: Environment, f: RuleFilter, beforeSeq: number | null, n: number): Promise<{ seq: number; rule: Rule }[]>;
  count(companyId: string, env: Environment, f: RuleFilter): Promise<number>;
  /** Writes a new rule, inside the caller's unit of work (its audit entry is the caller's too). */
  insert(rule: Rule): Promise<void>;
  /** Writes a rule's fields and its updatedAt, inside the caller's unit of work. */
  save(rule: Rule): Promise<void>;
  /** The live rule a test rule was promoted to, while that live rule exists. */
  promotedTo(companyId: string, testRuleId: string): Promise<string | null>;
}
