// Rules: create, change, deactivate and (operator, live key) promote a test rule to live; list items and the detail.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Iso, MemberRef, Nullable, OneOf } from "./common.ts";

export const RULE_CATEGORIES = ["aml", "sanctions"] as const;
export const RULE_STAGES = ["precheck", "postcheck", "both"] as const;
export const RULE_ACTIONS = ["flag", "require_review", "block"] as const;
export const RULE_SEVERITIES = ["low", "medium", "high"] as const;
export const THRESHOLD_OPERATORS = ["lt", "eq", "gt"] as const;
export const BRANCH_TYPES = ["if", "elseIf", "else"] as const;
export const BRANCH_OPERATORS = ["eq", "neq", "contains", "gt", "gte", "lt", "lte"] as const;
export const SUBJECT_MATCHES = ["any", "all"] as const;
export const RULE_LIMITS = { name: 200, description: 500, branches: 20, jurisdictions: 50, value: 100, path: 200 } as const;

// ---- requests ----
const Branch = Body({
  type: OneOf(BRANCH_TYPES),
  action: OneOf(RULE_ACTIONS),
  field: Type.Optional(Type.String({ description: "a transfer attribute, or with integrationId a dotted path into that integration's response" })),
  query: Type.Optional(Type.String({ maxLength: RULE_LIMITS.path, description: "JSON response query run on each screened subject's response; needs integrationId" })),
  integrationId: Type.Optional(Type.String({ description: "int_… of an enabled screening_c or screening_d integration" })),
  operator: Type.Optional(OneOf(BRANCH_OPERATORS)),
  value: Type.Optional(Type.String({ maxLength: RULE_LIMITS.value })),
  subjectMatch: Type.Optional(OneOf(SUBJECT_MATCHES)),
});

const fields = {
  name: Type.String({ minLength: 1, maxLength: RULE_LIMITS.name }),
  category: OneOf(RULE_CATEGORIES),
  stage: OneOf(RULE_STAGES),
  action: OneOf(RULE_ACTIONS),
  severity: OneOf(RULE_SEVERITIES),
  isActive: Type.Boolean(),
  description: Nullable(Type.String({ maxLength: RULE_LIMITS.description })),
  jurisdictions: Type.Array(Type.String(), { maxItems: RULE_LIMITS.jurisdictions, description: "ISO 3166-1 alpha-2 codes, EU, or GLOBAL alone" }),
  threshold: Nullable(Type.Number({ minimum: 0 })),
  thresholdCurrency: Nullable(Type.String({ description: "ISO 4217 fiat code" })),
  metadata: Nullable(Body({ thresholdOperator: Type.Optional(OneOf(THRESHOLD_OPERATORS)), asset: Type.Optional(Type.String()), network: Type.Optional(Type.String()) })),
  condition: Nullable(Body({ rules: Type.Array(Branch, { minItems: 1, maxItems: RULE_LIMITS.branches }) })),
};
const { name, category, ...optional } = fields;
export const CreateRule = Body({
  name,
  category,
  stage: Type.Optional(optional.stage),
  action: Type.Optional(optional.action),
  severity: Type.Optional(optional.severity),
  isActive: Type.Optional(optional.isActive),
  description: Type.Optional(optional.description),
  jurisdictions: Type.Optional(optional.jurisdictions),
  threshold: Type.Optional(optional.threshold),
  thresholdCurrency: Type.Optional(optional.thresholdCurrency),
  metadata: Type.Optional(optional.metadata),
  condition: Type.Optional(optional.condition),
});
export type CreateRule = Static<typeof CreateRule>;
export const UpdateRule = Type.Partial(Type.Object(fields, { additionalProperties: false }), { minProperties: 1 });
export type UpdateRule = Static<typeof UpdateRule>;

export const ruleExamples = {
  create: { name: "Large ETH transfers need review", category: "aml", stage: "precheck", action: "require_review", severity: "high", threshold: 10000, thresholdCurrency: "USD", metadata: { thresholdOperator: "gt", asset: "ETH", network: "all" } },
  update: { isActive: false },
};

// ---- answers ----
export const RuleListItem = Answer({
  id: Type.String({ pattern: "^rul_[0-9a-z]{26}$" }),
  name: Type.String(),
  description: Nullable(Type.String()),
  category: OneOf(RULE_CATEGORIES),
  stage: OneOf(RULE_STAGES),
  action: OneOf(RULE_ACTIONS),
  severity: OneOf(RULE_SEVERITIES),
  isActive: Type.Boolean(),
  threshold: Nullable(Type.Number()),
  thresholdCurrency: Nullable(Type.String()),
  jurisdictions: Type.Array(Type.String()),
  asset: Nullable(Type.String()),
  network: Nullable(Type.String()),
  thresholdOperator: Nullable(OneOf(THRESHOLD_OPERATORS)),
  conditionCount: Type.Integer({ minimum: 0 }),
  environment: OneOf(["test", "live"]),
  createdAt: Iso,
  updatedAt: Iso,
});
export type RuleListItem = Static<typeof RuleListItem>;

/** One branch of a rule's condition as answered. */
export const RuleBranch = Answer({
  type: OneOf(BRANCH_TYPES),
  action: Type.String(),
  field: Nullable(Type.String()),
  query: Nullable(Type.String()),
  integrationId: Nullable(Type.String()),
  integrationName: Type.Optional(Nullable(Type.String())),
  operator: Nullable(Type.String()),
  value: Nullable(Type.String()),
  subjectMatch: Type.Optional(OneOf(SUBJECT_MATCHES)),
});
export type RuleBranch = Static<typeof RuleBranch>;

export const RuleDetail = Type.Composite([
  RuleListItem,
  Answer({ createdBy: Nullable(MemberRef), conditions: Nullable(Type.Array(RuleBranch)), hasLegacyConditions: Type.Boolean() }),
]);
export type RuleDetail = Static<typeof RuleDetail>;

/** A test rule a live key may promote, with the live rule it was promoted to (null before). */
export const PromotableRule = Type.Composite([RuleListItem, Answer({ promotedTo: Nullable(Type.String({ description: "the live rule it was promoted to, while that rule exists" })) })]);
export type PromotableRule = Static<typeof PromotableRule>;
