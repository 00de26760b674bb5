// Rule vocabulary (Part 2 "Rule"): the enumerations, the stored rule, its branches, and what a rule can read of a transfer.
import type { Environment } from "../types.ts";

export const RULE_CATEGORIES = ["aml", "sanctions"] as const;
export const RULE_STAGES = ["precheck", "postcheck", "both"] as const;
export const RULE_ACTIONS = ["flag", "require_review", "block"] as const;
export const RULE_SEVERITIES = ["low", "medium", "high"] as const;
export const THRESHOLD_OPERATORS = ["lt", "eq", "gt"] as const;
export const BRANCH_TYPES = ["if", "elseIf", "else"] as const;
export const BRANCH_OPERATORS = ["eq", "neq", "contains", "gt", "gte", "lt", "lte"] as const;
export const SUBJECT_MATCHES = ["any", "all"] as const;

/** Part 2: the transfer attributes a `field` branch without an integration compares. */
export const TRANSFER_FIELDS = [
  "amount",
  "amountUSD",
  "amountLocal",
  "asset",
  "network",
  "jurisdiction",
  "direction",
  "walletType",
  "originatorName",
  "beneficiaryName",
  "originatorAddress",
  "beneficiaryAddress",
] as const;
/** The attributes that hold decimals: the only ones gt/gte/lt/lte make sense on. */
export const NUMERIC_FIELDS: ReadonlySet<string> = new Set(["amount", "amountUSD", "amountLocal"]);

export type RuleCategory = (typeof RULE_CATEGORIES)[number];
export type RuleStage = (typeof RULE_STAGES)[number];
export type RuleAction = (typeof RULE_ACTIONS)[number];
export type RuleSeverity = (typeof RULE_SEVERITIES)[number];
export type ThresholdOperator = (typeof THRESHOLD_OPERATORS)[number];
export type BranchType = (typeof BRANCH_TYPES)[number];
export type BranchOperator = (typeof BRANCH_OPERATORS)[number];
export type SubjectMatch = (typeof SUBJECT_MATCHES)[number];
export type TransferField = (typeof TRANSFER_FIELDS)[number];

/** A checkpoint: where the transfer actor evaluates rules. */
export type Stage = "precheck" | "postcheck";

/** Designed defaults where Part 2 names none (docs/rules.md). */
export const DEFAULT_THRESHOLD_OPERATOR: ThresholdOperator = "gt";
export const DEFAULT_THRESHOLD_CURRENCY = "USD";

export const LIMITS = {
  name: 200,
  description: 500,
  branches: 20,
  jurisdictions: 50,
  value: 100,
  search: 200,
  /** Not in Part 2: a field or query path (designed). */
  path: 200,
  /** Not in Part 2: an asset or network code in metadata (designed). */
  code: 50,
} as const;

/**
 * One branch of `condition.rules`, as stored (Part 2 "Condition structure"). An `else` has only `type` and `action`;
 * any other branch has exactly one of `field` or `query`, an `operator` and a `value`.
 */
export interface Branch {
  type: BranchType;
  action: RuleAction;
  /** A transfer attribute, or with `integrationId` a dotted path into that integration's response. */
  field?: string;
  /** A JSON response query run on each screened subject's response of `integrationId`. */
  query?: string;
  integrationId?: string;
  operator?: BranchOperator;
  value?: string;
  /** Default `any`. */
  subjectMatch?: SubjectMatch;
}

export interface RuleMetadata {
  thresholdOperator?: ThresholdOperator;
  /** An asset code or `all`. */
  asset?: string;
  /** A network code or `all`. */
  network?: string;
}

/** A rule as stored; `threshold` is a decimal string (the API answers it as a JSON number). */
export interface Rule {
  id: string;
  companyId: string;
  environment: Environment;
  name: string;
  description: string | null;
  category: RuleCategory;
  stage: RuleStage;
  action: RuleAction;
  severity: RuleSeverity;
  isActive: boolean;
  threshold: string | null;
  thresholdCurrency: string | null;
  /** Upper-case ISO 3166-1 alpha-2 codes, `EU`, or `GLOBAL` alone; empty = everywhere. */
  jurisdictions: string[];
  metadata: RuleMetadata | null;
  condition: { rules: Branch[] } | null;
  createdById: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a rule can read of a transfer (Part 2 field list). */
export interface TransferFacts {
  direction: "incoming" | "outgoing";
  amount: string;
  amountUSD: string | null;
  amountLocal: string | null;
  localCurrency: string | null;
  asset: string;
  network: string;
  /** ISO alpha-2 of the applied threshold, or null. */
  jurisdiction: string | null;
  walletType: "hosted" | "unhosted";
  originatorName: string | null;
  beneficiaryName: string | null;
  originatorAddress: string | null;
  beneficiaryAddress: string | null;
}

/**
 * What the engine reads of one integration's check at a checkpoint. `CheckResult` of `src/adapters/screening/types.ts`
 * fits this shape; it is restated here because the domain imports nothing outward.
 */
export interface RuleCheck {
  /** `skipped`: the breaker was open, no request was made. */
  status: "success" | "error" | "skipped";
  /** One per screened subject, each with the vendor's response as received. */
  screenings: readonly { response: unknown }[];
}

export interface MatchedRule {
  ruleId: string;
  name: string;
  category: RuleCategory;
  severity: RuleSeverity;
  action: RuleAction;
  /** Index in `condition.rules` of the branch that decided; null for a rule without conditions. */
  branch: number | null;
  /** Why, in words; never a value read from the transfer or a vendor's response (they can be personal data). */
  reason: string;
  /** Set when the deciding branch read a check that did not run (failed or skipped): review for lack of an answer, not a match. */
  unscreened?: true;
}

export interface Verdict {
  action: "approve" | RuleAction;
  matched: MatchedRule[];
}
