// The rule engine (Part 2 "Rule", Part 3 "screening_c screening" / "screening_d screening" Rules). Pure: the transfer actor
// asks which rules apply at a checkpoint, runs only the integrations they read, then asks for the verdict.
import Decimal from "decimal.js";
import { parsePath, readPath, type PathRead } from "./path.ts";
import {
  DEFAULT_THRESHOLD_CURRENCY,
  DEFAULT_THRESHOLD_OPERATOR,
  type Branch,
  type BranchOperator,
  type MatchedRule,
  type Rule,
  type RuleAction,
  type RuleCheck,
  type Stage,
  type TransferFacts,
  type TransferField,
  type Verdict,
} from "./types.ts";

type Scalar = string | number | boolean;

const RANK: Record<Verdict["action"], number> = { approve: 0, flag: 1, require_review: 2, block: 3 };
export const stronger = <A extends Verdict["action"]>(a: A, b: A): A => (RANK[b] > RANK[a] ? b : a);

const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,6})?$/;

/** A decimal from a number or a plain decimal text (no hex, no `Infinity`), or null. */
export function toDecimal(v: Scalar): Decimal | null {
  if (typeof v === "number") return Number.isFinite(v) ? new Decimal(v) : null;
  if (typeof v === "string") {
    const t = v.trim();
    return DECIMAL_TEXT.test(t) ? new Decimal(t) : null;
  }
  return null;
}

/** Text compared case-insensitively, Unicode-normalized, ends trimmed (docs/rules.md). */
const fold = (v: Scalar) => String(v).normalize("NFKC").toLowerCase().trim();

/**
 * One value against a branch's comparison. Both sides decimals: compared as decimals (`1000` eq `1000.00`).
 * gt/gte/lt/lte hold only between decimals; eq/neq compare text otherwise, any case; contains is a text search, any case.
 */
export function compareValue(actual: Scalar, op: BranchOperator, expected: string): boolean {
  if (op === "contains") return fold(actual).includes(fold(expected));
  const a = toDecimal(actual);
  const e = toDecimal(expected);
  if (a && e) {
    const c = a.comparedTo(e);
    switch (op) {
      case "eq":
        return c === 0;
      case "neq":
        return c !== 0;
      case "gt":
        return c > 0;
      case "gte":
        return c >= 0;
      case "lt":
        return c < 0;
      case "lte":
        return c <= 0;
    }
  }
  if (op === "eq") return fold(actual) === fold(expected);
  if (op === "neq") return fold(actual) !== fold(expected);
  return false;
}

/** A read value against the comparison: a list meets it when any element does, and `neq` when no element equals the value. */
export function meets(read: Extract<PathRead, { found: true }>, op: BranchOperator, expected: string): boolean {
  if (!read.list) return compareValue(read.values[0], op, expected);
  if (op === "neq") return !read.values.some((v) => compareValue(v, "eq", expected));
  return read.values.some((v) => compareValue(v, op, expected));
}

// ---- Which rules apply at a checkpoint -------------------------------------------------------------------------

function sameCode(ruleValue: string | undefined, fact: string): boolean {
  return ruleValue === undefined || ruleValue.toLowerCase() === "all" || ruleValue.toLowerCase() === fact.toLowerCase();
}

function inJurisdiction(rule: Rule, jurisdiction: string | null, euMembers: ReadonlySet<string>): boolean {
  const js = rule.jurisdictions;
  if (js.length === 0 || js.includes("GLOBAL")) return true;
  // A rule limited to jurisdictions does not apply where none was determined (docs/rules.md).
  if (jurisdiction === null) return false;
  const j = jurisdiction.toUpperCase();
  return js.includes(j) || (js.includes("EU") && euMembers.has(j));
}

/**
 * The rule's threshold against the amount in its currency: USD reads `amountUSD`, the transfer's local currency
 * `amountLocal`. When that amount is unknown (no price) or the currency is neither, the rule applies: a rule
 * errs on the side of screening (docs/rules.md).
 */
export function thresholdHolds(rule: Pick<Rule, "threshold" | "thresholdCurrency" | "metadata">, facts: TransferFacts): boolean {
  if (rule.threshold === null) return true;
  const currency = (rule.thresholdCurrency ?? DEFAULT_THRESHOLD_CURRENCY).toUpperCase();
  let amount: string | null;
  if (currency === "USD") amount = facts.amountUSD;
  else if (facts.localCurrency !== null && currency === facts.localCurrency.toUpperCase()) amount = facts.amountLocal;
  else return true;
  const value = amount === null ? null : toDecimal(amount);
  if (value === null) return true;
  const c = value.comparedTo(new Decimal(rule.threshold));
  switch (rule.metadata?.thresholdOperator ?? DEFAULT_THRESHOLD_OPERATOR) {
    case "lt":
      return c < 0;
    case "eq":
      return c === 0;
    case "gt":
      return c > 0;
  }
}

/** Active rules of the stage (or `both`) whose jurisdictions, threshold, asset and network fit the transfer, in the given order. */
export function applicableRules(rules: Rule[], facts: TransferFacts, stage: Stage, euMembers: ReadonlySet<string>): Rule[] {
  return rules.filter(
    (r) =>
      r.isActive &&
      (r.stage === stage || r.stage === "both") &&
      inJurisdiction(r, facts.jurisdiction, euMembers) &&
      sameCode(r.metadata?.asset, facts.asset) &&
      sameCode(r.metadata?.network, facts.network) &&
      thresholdHolds(r, facts),
  );
}

/** The integrations any branch of these rules reads (Part 3: only those are called at the checkpoint), in first-seen order. */
export function integrationsRead(rules: Rule[]): string[] {
  const ids = new Set<string>();
  for (const r of rules) for (const b of r.condition?.rules ?? []) if (b.type !== "else" && b.integrationId) ids.add(b.integrationId);
  return [...ids];
}

// ---- The verdict ----------------------------------------------------------------------------------------------

/** A branch either decides the rule (an action and why) or passes to the next branch. */
type Outcome = { decided: false } | { decided: true; action: RuleAction; reason: string; unscreened?: true };
const pass: Outcome = { decided: false };
const review = (reason: string): Outcome => ({ decided: true, action: "require_review", reason });
/** Review because the check the branch reads did not run (failed or skipped): "could not check", never a match. */
const unchecked = (reason: string): Outcome => ({ decided: true, action: "require_review", reason, unscreened: true });

function describe(b: Branch): string {
  const what = b.query !== undefined ? `query ${b.query}` : `field ${b.field}`;
  return `${what} ${b.operator} "${b.value}"`;
}

function checkProblem(check: RuleCheck | undefined, integrationId: string): string | null {
  if (!check) return `integration ${integrationId} was not run`;
  if (check.status === "skipped") return `the ${integrationId} check was skipped`;
  if (check.status !== "success") return `the ${integrationId} check failed`;
  return null;
}

function transferValue(facts: TransferFacts, field: TransferField): Scalar | null {
  return facts[field];
}

function branchOutcome(b: Branch, facts: TransferFacts, checks: ReadonlyMap<string, RuleCheck>): Outcome {
  if (b.type === "else") return { decided: true, action: b.action, reason: "no earlier branch matched" };
  const op = b.operator!;
  const expected = b.value!;

  // A transfer attribute.
  if (b.integrationId === undefined) {
    const v = transferValue(facts, b.field as TransferField);
    if (v === null || v === undefined) return review(`the transfer has no ${b.field} for ${describe(b)}`);
    return compareValue(v, op, expected) ? { decided: true, action: b.action, reason: describe(b) } : pass;
  }

  const check = checks.get(b.integrationId);
  const problem = checkProblem(check, b.integrationId);
  if (problem) return unchecked(`${problem} (${describe(b)})`);
  const screenings = check!.screenings;
  const segments = parsePath((b.query ?? b.field)!);
  if (!segments) return review(`${describe(b)} is not a readable path`);

  // A dotted field reads one subject's response; a check that screened several cannot answer it (Part 3).
  if (b.query === undefined) {
    if (screenings.length > 1) return review(`${describe(b)} reads one response, but the check screened ${screenings.length} subjects`);
    const read = screenings.length === 1 ? readPath(screenings[0].response, segments) : ({ found: false } as const);
    if (!read.found) return review(`${describe(b)} found no value`);
    return meets(read, op, expected) ? { decided: true, action: b.action, reason: describe(b) } : pass;
  }

  // A query runs on each subject's response: any (default) or all of them must meet the comparison.
  if (screenings.length === 0) return review(`${describe(b)} found no value: the check screened no subject`);
  let met = 0;
  let missing = 0;
  for (const s of screenings) {
    const read = readPath(s.response, segments);
    if (!read.found) missing++;
    else if (meets(read, op, expected)) met++;
  }
  const all = b.subjectMatch === "all";
  const matched = all ? met === screenings.length : met > 0;
  const how = all ? "for every subject" : `for ${met} of ${screenings.length} subjects`;
  if (missing > 0) {
    const why = `${describe(b)} found no value for ${missing} of ${screenings.length} subjects`;
    // A match elsewhere that is stronger than a review still stands.
    if (matched && RANK[b.action] > RANK.require_review) return { decided: true, action: b.action, reason: `${describe(b)} ${how}` };
    return review(why);
  }
  return matched ? { decided: true, action: b.action, reason: `${describe(b)} ${how}` } : pass;
}

function evaluateRule(rule: Rule, facts: TransferFacts, checks: ReadonlyMap<string, RuleCheck>): MatchedRule | null {
  const base = { ruleId: rule.id, name: rule.name, category: rule.category, severity: rule.severity };
  const branches = rule.condition?.rules ?? [];
  if (branches.length === 0) return { ...base, action: rule.action, branch: null, reason: "the rule applies (no conditions)" };
  for (let i = 0; i < branches.length; i++) {
    const o = branchOutcome(branches[i], facts, checks);
    if (o.decided) return { ...base, action: o.action, branch: i, reason: `${branches[i].type} branch ${i}: ${o.reason}`, ...(o.unscreened ? { unscreened: true as const } : {}) };
  }
  return null;
}

/**
 * The verdict over rules that apply (see applicableRules): each rule's first deciding branch gives its action,
 * the strongest action wins (block > require_review > flag > approve), and every rule that fired is recorded.
 * `checks` are keyed by integration ID; a missing key means the integration was not run (the rule requires review).
 */
export function evaluate(rules: Rule[], facts: TransferFacts, checks: ReadonlyMap<string, RuleCheck>): Verdict {
  let action: Verdict["action"] = "approve";
  const matched: MatchedRule[] = [];
  for (const r of rules) {
    const m = evaluateRule(r, facts, checks);
    if (!m) continue;
    matched.push(m);
    action = stronger<Verdict["action"]>(action, m.action);
  }
  return { action, matched };
}

/**
 * True when the verdict holds the transfer only because screening could not run: every rule behind the verdict's
 * action decided on a check that failed or was skipped (docs/screening.md "Could not check"). Such a hold is not a
 * match, and its transfer has not been screened.
 */
export function verdictUnscreened(v: Verdict): boolean {
  if (v.action === "approve" || v.action === "flag") return false;
  const behind = v.matched.filter((m) => m.action === v.action);
  return behind.length > 0 && behind.every((m) => m.unscreened === true);
}
