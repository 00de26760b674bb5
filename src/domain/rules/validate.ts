// Rule bodies (Part 2 "POST /api/v2/rules", "Condition structure", Limits): every refusal is an issue `{ path, message }`
// with paths like `condition.rules.0.integrationId`. Pure: the company's integrations are passed in.
import Decimal from "decimal.js";
import type { Issue } from "../errors.ts";
import { isCountryCode } from "../ivms101/countries.ts";
import { CURRENCY_CODES } from "../thresholds.ts";
import { parsePath } from "./path.ts";
import { toDecimal } from "./engine.ts";
import {
  BRANCH_OPERATORS,
  BRANCH_TYPES,
  LIMITS,
  NUMERIC_FIELDS,
  RULE_ACTIONS,
  RULE_CATEGORIES,
  RULE_SEVERITIES,
  RULE_STAGES,
  SUBJECT_MATCHES,
  THRESHOLD_OPERATORS,
  TRANSFER_FIELDS,
  type Branch,
  type Rule,
  type RuleMetadata,
} from "./types.ts";
import { isBlank } from "../text.ts";

/** The fields a create or change sets. */
export type RuleInput = Pick<
  Rule,
  "name" | "description" | "category" | "stage" | "action" | "severity" | "isActive" | "threshold" | "thresholdCurrency" | "jurisdictions" | "metadata" | "condition"
>;
export const RULE_FIELDS = [
  "name", "category", "stage", "action", "severity", "isActive", "description", "jurisdictions", "threshold", "thresholdCurrency", "metadata", "condition",
] as const satisfies readonly (keyof RuleInput)[];

/** One of the company's integrations as a rule sees it. */
export interface IntegrationRef {
  id: string;
  name: string;
  enabled: boolean;
}
export type IntegrationLookup = (id: string) => IntegrationRef | undefined;

/** Integrations that rules can read: `screening_a` and `screening_b` screen nothing (Part 3, behaviour not shown). */
export const READABLE_INTEGRATIONS: ReadonlySet<string> = new Set(["screening_c", "screening_d"]);

/** Fiat only: precious metals, bond units, SDR and fund codes are ISO 4217 codes but not currencies a threshold is paid in. */
const NOT_FIAT = new Set("XAG XAU XPD XPT XBA XBB XBC XBD XDR XSU XUA BOV CHE CHW CLF COU MXV USN UYI UYW".split(" "));
export const isFiatCurrency = (v: string) => CURRENCY_CODES.has(v) && !NOT_FIAT.has(v);

/** A largest threshold (designed): 18 integer digits, like threshold amounts. */
const MAX_THRESHOLD = new Decimal("1e18");
const CODE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const BRANCH_KEYS = new Set(["type", "action", "field", "query", "integrationId", "operator", "value", "subjectMatch", "providerId"]);

const chars = (s: string) => Array.from(s).length;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const oneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;

type Check<T> = (v: unknown, path: string, issues: Issue[]) => T | undefined;

function enumField<const V extends string>(values: readonly V[]): Check<V> {
  return (v, path, issues) => {
    if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as V;
    issues.push({ path, message: oneOf(values) });
    return undefined;
  };
}

const checkName: Check<string> = (v, path, issues) => {
  if (typeof v !== "string") return void issues.push({ path, message: `must be text of 1 to ${LIMITS.name} characters` });
  if (isBlank(v)) return void issues.push({ path, message: "must not be empty or blank (it needs a visible character)" });
  if (chars(v) > LIMITS.name) return void issues.push({ path, message: `must be at most ${LIMITS.name} characters` });
  return v;
};

const checkDescription: Check<string | null> = (v, path, issues) => {
  if (v === null) return null;
  if (typeof v !== "string") return void issues.push({ path, message: `must be text of at most ${LIMITS.description} characters, or null` });
  if (chars(v) > LIMITS.description) return void issues.push({ path, message: `must be at most ${LIMITS.description} characters` });
  return v;
};

const checkBool: Check<boolean> = (v, path, issues) => (typeof v === "boolean" ? v : void issues.push({ path, message: "must be true or false" }));

/** Part 2: up to 50 ISO 3166-1 codes, `EU`, or `GLOBAL` alone. Any case is read; `UK` is GB; repeats are kept once. */
const checkJurisdictions: Check<string[]> = (v, path, issues) => {
  if (!Array.isArray(v)) return void issues.push({ path, message: `must be a list of up to ${LIMITS.jurisdictions} ISO 3166-1 alpha-2 codes, EU, or GLOBAL alone` });
  if (v.length > LIMITS.jurisdictions) return void issues.push({ path, message: `must hold at most ${LIMITS.jurisdictions} codes` });
  const out: string[] = [];
  const before = issues.length;
  v.forEach((j, i) => {
    const code = typeof j === "string" ? j.trim().toUpperCase() : "";
    const c = code === "UK" ? "GB" : code;
    if (c === "GLOBAL" || c === "EU" || isCountryCode(c)) {
      if (!out.includes(c)) out.push(c);
    } else issues.push({ path: `${path}.${i}`, message: "must be an ISO 3166-1 alpha-2 country code, EU, or GLOBAL" });
  });
  if (issues.length > before) return undefined;
  if (out.includes("GLOBAL") && out.length > 1) return void issues.push({ path, message: "GLOBAL applies everywhere and must stand alone" });
  return out;
};

/** Part 2: a number from 0, or null; kept as a decimal string. */
const checkThreshold: Check<string | null> = (v, path, issues) => {
  if (v === null) return null;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) return void issues.push({ path, message: "must be a number from 0, or null" });
  const d = new Decimal(v);
  if (d.greaterThan(MAX_THRESHOLD)) return void issues.push({ path, message: "must be at most 1e18" });
  return d.toFixed();
};

const checkCurrency: Check<string | null> = (v, path, issues) => {
  if (v === null) return null;
  const c = typeof v === "string" ? v.trim().toUpperCase() : "";
  if (isFiatCurrency(c)) return c;
  return void issues.push({ path, message: "must be an ISO 4217 fiat currency code (such as USD or EUR), or null" });
};

function checkCode(v: unknown, path: string, issues: Issue[], what: string): string | undefined {
  if (typeof v === "string" && v.trim().toLowerCase() === "all") return "all";
  if (typeof v === "string" && CODE.test(v.trim()) && chars(v.trim()) <= LIMITS.code) return v.trim();
  issues.push({ path, message: `must be ${what} code (letters, digits, '.', '_' or '-', at most ${LIMITS.code} characters) or all` });
  return undefined;
}

/** Part 2: `thresholdOperator`, `asset` and `network`, nothing else; or null. An empty object is stored as null. */
const checkMetadata: Check<RuleMetadata | null> = (v, path, issues) => {
  if (v === null) return null;
  if (!isObject(v)) return void issues.push({ path, message: "must be an object with thresholdOperator, asset or network, or null" });
  const before = issues.length;
  const out: RuleMetadata = {};
  for (const [k, x] of Object.entries(v)) {
    const p = `${path}.${k}`;
    if (k === "thresholdOperator") out.thresholdOperator = enumField(THRESHOLD_OPERATORS)(x, p, issues);
    else if (k === "asset") out.asset = checkCode(x, p, issues, "an asset");
    else if (k === "network") out.network = checkCode(x, p, issues, "a network");
    else issues.push({ path: p, message: "is not accepted (metadata holds thresholdOperator, asset and network only)" });
  }
  if (issues.length > before) return undefined;
  return Object.keys(out).length === 0 ? null : out;
};

function checkBranch(v: unknown, i: number, last: boolean, path: string, issues: Issue[], integrations: IntegrationLookup): Branch | undefined {
  if (!isObject(v)) return void issues.push({ path, message: "must be a branch object with type and action" });
  const before = issues.length;
  for (const k of Object.keys(v)) if (!BRANCH_KEYS.has(k)) issues.push({ path: `${path}.${k}`, message: "is not an accepted branch field" });
  const type = enumField(BRANCH_TYPES)(v.type, `${path}.type`, issues);
  const action = enumField(RULE_ACTIONS)(v.action, `${path}.action`, issues);
  if (type !== undefined) {
    if (i === 0 && type !== "if") issues.push({ path: `${path}.type`, message: "the first branch must be if" });
    else if (i > 0 && type === "if") issues.push({ path: `${path}.type`, message: "only the first branch is if; use elseIf" });
    else if (type === "else" && !last) issues.push({ path: `${path}.type`, message: "else must be the last branch" });
  }
  // A `providerId` is not read (Part 2); it is dropped.
  if (type === "else") {
    for (const k of ["field", "query", "integrationId", "operator", "value", "subjectMatch"]) if (k in v) issues.push({ path: `${path}.${k}`, message: "an else branch compares nothing" });
    return issues.length > before || action === undefined ? undefined : { type, action };
  }

  const hasField = v.field !== undefined && v.field !== null;
  const hasQuery = v.query !== undefined && v.query !== null;
  const integrationId = v.integrationId === undefined || v.integrationId === null ? undefined : v.integrationId;
  if (hasField && hasQuery) issues.push({ path, message: "compares either a field or a query, not both" });
  else if (!hasField && !hasQuery) issues.push({ path, message: "needs a field (a transfer attribute, or a dotted path with integrationId) or a query with integrationId" });

  // The integration, when named: one of the company's enabled integrations that screens something.
  if (integrationId !== undefined) {
    const ref = typeof integrationId === "string" ? integrations(integrationId) : undefined;
    if (!ref) issues.push({ path: `${path}.integrationId`, message: "must be the ID of one of the company's enabled integrations" });
    else if (!ref.enabled) issues.push({ path: `${path}.integrationId`, message: `${ref.name} is not enabled; enable it before a rule reads it` });
    else if (!READABLE_INTEGRATIONS.has(ref.name))
      issues.push({ path: `${path}.integrationId`, message: `${ref.name} screens nothing, so no rule can read it; use screening_c (names) or screening_d (addresses)` });
  } else if (hasQuery) {
    issues.push({
      path: `${path}.integrationId`,
      message: "a query branch needs the integrationId of an enabled integration" + ("providerId" in v ? " (providerId is not read)" : ""),
    });
  }

  let field: string | undefined;
  let query: string | undefined;
  if (hasField) {
    const p = `${path}.field`;
    if (typeof v.field !== "string") issues.push({ path: p, message: "must be text" });
    else if (integrationId === undefined) {
      if ((TRANSFER_FIELDS as readonly string[]).includes(v.field)) field = v.field;
      else issues.push({ path: p, message: `${oneOf(TRANSFER_FIELDS)}, or a dotted path into an integration's response with integrationId` });
    } else if (chars(v.field) > LIMITS.path || !parsePath(v.field)) issues.push({ path: p, message: `must be a dotted path such as data.counterparty.riskscore (at most ${LIMITS.path} characters)` });
    else field = v.field;
  }
  if (hasQuery) {
    const p = `${path}.query`;
    if (typeof v.query !== "string" || chars(v.query) > LIMITS.path || !parsePath(v.query))
      issues.push({ path: p, message: `must be a JSON response query such as content.data.total_hits or content.data.hits[].doc.types[] (at most ${LIMITS.path} characters)` });
    else query = v.query;
  }

  const operator = v.operator === undefined ? void issues.push({ path: `${path}.operator`, message: `is required: ${oneOf(BRANCH_OPERATORS)}` }) : enumField(BRANCH_OPERATORS)(v.operator, `${path}.operator`, issues);
  let value: string | undefined;
  if (v.value === undefined) issues.push({ path: `${path}.value`, message: `is required: text of at most ${LIMITS.value} characters` });
  else if (typeof v.value === "number" && Number.isFinite(v.value)) value = String(v.value);
  else if (typeof v.value !== "string") issues.push({ path: `${path}.value`, message: `must be text of at most ${LIMITS.value} characters` });
  else if (chars(v.value) > LIMITS.value) issues.push({ path: `${path}.value`, message: `must be at most ${LIMITS.value} characters` });
  else value = v.value;

  const ordering = operator === "gt" || operator === "gte" || operator === "lt" || operator === "lte";
  if (ordering && value !== undefined && toDecimal(value) === null) issues.push({ path: `${path}.value`, message: `${operator} compares decimals: the value must be a number` });
  if (ordering && field !== undefined && integrationId === undefined && !NUMERIC_FIELDS.has(field))
    issues.push({ path: `${path}.operator`, message: `${field} is text: use eq, neq or contains` });

  let subjectMatch: Branch["subjectMatch"];
  if (v.subjectMatch !== undefined) {
    if (integrationId === undefined) issues.push({ path: `${path}.subjectMatch`, message: "applies only to a branch that reads an integration" });
    else subjectMatch = enumField(SUBJECT_MATCHES)(v.subjectMatch, `${path}.subjectMatch`, issues);
  }

  if (issues.length > before || type === undefined || action === undefined || operator === undefined || value === undefined) return undefined;
  const b: Branch = { type, action };
  if (field !== undefined) b.field = field;
  if (query !== undefined) b.query = query;
  if (integrationId !== undefined) b.integrationId = integrationId as string;
  b.operator = operator;
  b.value = value;
  if (subjectMatch !== undefined) b.subjectMatch = subjectMatch;
  return b;
}

function checkCondition(v: unknown, path: string, issues: Issue[], integrations: IntegrationLookup): { rules: Branch[] } | null | undefined {
  if (v === null) return null;
  if (!isObject(v)) return void issues.push({ path, message: "must be an object { rules: [...] }, or null" });
  const before = issues.length;
  for (const k of Object.keys(v)) if (k !== "rules") issues.push({ path: `${path}.${k}`, message: "is not accepted (a condition holds rules only)" });
  const list = v.rules;
  const p = `${path}.rules`;
  if (!Array.isArray(list)) return void issues.push({ path: p, message: "must be a list of branches: one if, any elseIf, at most one else last" });
  if (list.length === 0) return void issues.push({ path: p, message: "needs at least one branch (an if first); send condition null for a rule without conditions" });
  if (list.length > LIMITS.branches) return void issues.push({ path: p, message: `must hold at most ${LIMITS.branches} branches` });
  const rules = list.map((b, i) => checkBranch(b, i, i === list.length - 1, `${p}.${i}`, issues, integrations));
  if (issues.length > before) return undefined;
  return { rules: rules as Branch[] };
}

const CHECKS: { [K in keyof RuleInput]: (v: unknown, path: string, issues: Issue[], integrations: IntegrationLookup) => RuleInput[K] | undefined } = {
  name: checkName,
  category: enumField(RULE_CATEGORIES),
  stage: enumField(RULE_STAGES),
  action: enumField(RULE_ACTIONS),
  severity: enumField(RULE_SEVERITIES),
  isActive: checkBool,
  description: checkDescription,
  jurisdictions: checkJurisdictions,
  threshold: checkThreshold,
  thresholdCurrency: checkCurrency,
  metadata: checkMetadata,
  condition: checkCondition,
};

function readFields(body: unknown, integrations: IntegrationLookup): { issues: Issue[]; out: Partial<RuleInput> } {
  const issues: Issue[] = [];
  const out: Record<string, unknown> = {};
  if (!isObject(body)) return { issues: [{ path: "", message: "the body must be a JSON object" }], out };
  for (const [k, v] of Object.entries(body)) {
    if (!(RULE_FIELDS as readonly string[]).includes(k)) {
      issues.push({ path: k, message: "is not an accepted field" });
      continue;
    }
    const value = CHECKS[k as keyof RuleInput](v, k, issues, integrations);
    if (value !== undefined) out[k] = value;
  }
  return { issues, out: out as Partial<RuleInput> };
}

export type RuleValidation<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** POST: name and category required; Part 2 defaults for the rest. */
export function validateCreateRule(body: unknown, integrations: IntegrationLookup): RuleValidation<RuleInput> {
  const { issues, out } = readFields(body, integrations);
  if (isObject(body)) {
    if (!("name" in body)) issues.push({ path: "name", message: `is required: 1 to ${LIMITS.name} characters` });
    if (!("category" in body)) issues.push({ path: "category", message: `is required: ${oneOf(RULE_CATEGORIES)}` });
  }
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    value: {
      name: out.name!,
      category: out.category!,
      stage: out.stage ?? "both",
      action: out.action ?? "flag",
      severity: out.severity ?? "medium",
      isActive: out.isActive ?? true,
      description: out.description ?? null,
      jurisdictions: out.jurisdictions ?? [],
      threshold: out.threshold ?? null,
      thresholdCurrency: out.thresholdCurrency ?? null,
      metadata: out.metadata ?? null,
      condition: out.condition ?? null,
    },
  };
}

/** PATCH: any create field, at least one; `metadata` and `condition` are replaced whole (null clears). */
export function validateUpdateRule(body: unknown, integrations: IntegrationLookup): RuleValidation<Partial<RuleInput>> {
  const { issues, out } = readFields(body, integrations);
  if (isObject(body) && Object.keys(body).length === 0) issues.push({ path: "", message: "send at least one field to change" });
  if (issues.length) return { ok: false, issues };
  return { ok: true, value: out };
}
