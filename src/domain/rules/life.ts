// The life of a rule as pure decisions (Part 2 "Rule"): a new rule, a change, a promotion from test to live. The rules
// actor (src/actors/rules.ts) takes them and commits the rows and audit entries they name in its unit of work.
import type { Environment } from "../types.ts";
import type { Rule } from "./types.ts";
import { validateCreateRule, type IntegrationLookup, type RuleInput } from "./validate.ts";
import type { Issue } from "../errors.ts";

/** The settings a reader of the log wants to see moved; texts and branches are named, not copied. */
const SHOWN_CHANGES: ReadonlySet<string> = new Set(["category", "stage", "action", "severity", "isActive", "threshold", "thresholdCurrency"]);

/** A new rule made by `memberId` (null: the system) at `at` (ISO 8601). */
export function newRule(id: string, companyId: string, environment: Environment, input: RuleInput, memberId: string | null, at: string): Rule {
  return { id, companyId, environment, ...input, createdById: memberId, createdAt: at, updatedAt: at };
}

/** The `rule.created` entry's detail; `origin` names what it was copied from (a promotion). */
export function createdDetail(input: RuleInput, origin: Record<string, unknown> = {}): Record<string, unknown> {
  return { category: input.category, action: input.action, isActive: input.isActive, ...origin };
}

/**
 * A change to a rule: null when every field sent has its current value (nothing written, nothing audited), else the
 * changed rule (its updatedAt moved) and the audit entry's detail.
 */
export function decideRuleChange(current: Rule, changes: Partial<RuleInput>, at: string): { rule: Rule; detail: Record<string, unknown> } | null {
  const next: Rule = { ...current, ...changes };
  const changed = (Object.keys(changes) as (keyof RuleInput)[]).filter((k) => JSON.stringify(current[k]) !== JSON.stringify(next[k]));
  if (changed.length === 0) return null;
  const moved: Record<string, { from: unknown; to: unknown }> = {};
  for (const k of changed) if (SHOWN_CHANGES.has(k)) moved[k] = { from: current[k], to: next[k] };
  const detail: Record<string, unknown> = { fields: changed };
  if (Object.keys(moved).length) detail.changes = moved;
  return { rule: { ...next, updatedAt: at }, detail };
}

/**
 * A test rule's copy for live, with every field and its conditions, validated as a create in live against the live
 * integrations (integrations are the company's, one switch for both environments).
 */
export function promotionCopy(from: Rule, liveIntegrations: IntegrationLookup): { ok: true; input: RuleInput } | { ok: false; issues: Issue[] } {
  const copy: RuleInput = {
    name: from.name,
    description: from.description,
    category: from.category,
    stage: from.stage,
    action: from.action,
    severity: from.severity,
    isActive: from.isActive,
    threshold: from.threshold,
    thresholdCurrency: from.thresholdCurrency,
    jurisdictions: from.jurisdictions,
    metadata: from.metadata,
    condition: from.condition,
  };
  const v = validateCreateRule({ ...copy, threshold: copy.threshold === null ? null : Number(copy.threshold) }, liveIntegrations);
  return v.ok ? { ok: true, input: copy } : { ok: false, issues: v.issues };
}
