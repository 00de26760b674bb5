// Case rules that need no I/O (Part 2 "Case"): body validation, defaults, case numbers, the resolution's transfer action.
import type { Issue } from "./errors.ts";
import type { Environment } from "./types.ts";
import { isBlank } from "./text.ts";

export const CASE_TYPES = ["compliance_review", "sanctions_hit", "provider_rejection", "manual_escalation", "threshold_breach", "kyc_failure"] as const;
export const CASE_CATEGORIES = ["aml", "sanctions", "kyc", "fraud", "threshold"] as const;
export const CASE_PRIORITIES = ["low", "medium", "high"] as const;
export const CASE_STATUSES = ["open", "closed"] as const;
export const CASE_RESOLUTIONS = ["approved", "rejected"] as const;
export const HISTORY_ACTIONS = ["created", "updated", "assigned", "note_added", "resolved", "transfer_updated", "transfer_not_updated", "str_drafted"] as const;

export type CaseType = (typeof CASE_TYPES)[number];
export type CaseCategory = (typeof CASE_CATEGORIES)[number];
export type CasePriority = (typeof CASE_PRIORITIES)[number];
export type CaseStatus = (typeof CASE_STATUSES)[number];
export type CaseResolution = (typeof CASE_RESOLUTIONS)[number];
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

/** Part 2, Limits (characters). */
export const CASE_LIMITS = { title: 200, description: 2000, note: 5000, resolutionNote: 2000, search: 100 } as const;

export interface CreateCaseInput {
  title: string;
  type: CaseType;
  description: string | null;
  category: CaseCategory;
  priority: CasePriority;
  transferId: string | null;
  ruleId: string | null;
  assigneeId: string | null;
}

/** A PATCH: only the fields sent; null clears description, assigneeId, ruleId, transferId. */
export interface CasePatch {
  title?: string;
  description?: string | null;
  type?: CaseType;
  category?: CaseCategory;
  priority?: CasePriority;
  assigneeId?: string | null;
  ruleId?: string | null;
  transferId?: string | null;
}

export interface ResolveInput {
  resolution: CaseResolution;
  resolutionNote: string | null;
  /** Approve a transfer whose screening could not run without screening it again (Caravan's addition; audited). */
  approveUnscreened?: boolean;
}

type Result<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

const chars = (s: string) => Array.from(s).length;
const isObject = (b: unknown): b is Record<string, unknown> => b !== null && typeof b === "object" && !Array.isArray(b);
const NOT_OBJECT: Issue[] = [{ path: "", message: "the body must be a JSON object" }];

/** A case without a category gets the one its type implies (Part 2 leaves the default unsaid). */
export function defaultCategory(type: CaseType): CaseCategory {
  switch (type) {
    case "sanctions_hit":
      return "sanctions";
    case "threshold_breach":
      return "threshold";
    case "kyc_failure":
      return "kyc";
    default:
      return "aml";
  }
}

function text(b: Record<string, unknown>, f: string, issues: Issue[], o: { max: number; nullable: boolean; required?: boolean }): string | null | undefined {
  const v = b[f];
  if (v === undefined) {
    if (o.required) issues.push({ path: f, message: "is required" });
    return undefined;
  }
  if (v === null) {
    if (!o.nullable) issues.push({ path: f, message: o.required ? "is required" : "must be text" });
    return null;
  }
  if (typeof v !== "string") {
    issues.push({ path: f, message: "must be text" });
    return undefined;
  }
  const n = chars(v);
  if (n > o.max) issues.push({ path: f, message: `must be at most ${o.max.toLocaleString("en")} characters` });
  else if (!o.nullable && isBlank(v)) issues.push({ path: f, message: n === 0 ? "must be at least 1 character" : "must not be blank" });
  return v;
}

function oneOf<V extends string>(b: Record<string, unknown>, f: string, values: readonly V[], issues: Issue[], o: { required?: boolean } = {}): V | undefined {
  const v = b[f];
  if (v === undefined) {
    if (o.required) issues.push({ path: f, message: "is required" });
    return undefined;
  }
  if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
    issues.push({ path: f, message: `must be one of ${values.join(", ")}` });
    return undefined;
  }
  return v as V;
}

/** IDs of links: text or null; existence is the actor's check (422 TRANSFER_NOT_FOUND, RULE_NOT_FOUND, INVALID_ASSIGNEE). */
function link(b: Record<string, unknown>, f: string, issues: Issue[]): string | null | undefined {
  const v = b[f];
  if (v === undefined || v === null) return v as null | undefined;
  if (typeof v !== "string" || v === "" || chars(v) > 100) {
    issues.push({ path: f, message: "must be an ID or null" });
    return undefined;
  }
  return v;
}

function unknownFields(b: Record<string, unknown>, accepted: readonly string[], issues: Issue[]): void {
  for (const k of Object.keys(b)) if (!accepted.includes(k)) issues.push({ path: k, message: "is not an accepted field" });
}

const CREATE_FIELDS = ["title", "type", "description", "category", "priority", "transferId", "ruleId", "assigneeId"] as const;

/** Part 2, `POST /api/v2/cases`: no other field accepted; failures are 422 VALIDATION_ERROR with details.issues. */
export function validateCreateCase(body: unknown): Result<CreateCaseInput> {
  if (!isObject(body)) return { ok: false, issues: NOT_OBJECT };
  const issues: Issue[] = [];
  unknownFields(body, CREATE_FIELDS, issues);
  const title = text(body, "title", issues, { max: CASE_LIMITS.title, nullable: false, required: true });
  const type = oneOf(body, "type", CASE_TYPES, issues, { required: true });
  const description = text(body, "description", issues, { max: CASE_LIMITS.description, nullable: true });
  const category = body.category === null ? undefined : oneOf(body, "category", CASE_CATEGORIES, issues);
  const priority = body.priority === null ? undefined : oneOf(body, "priority", CASE_PRIORITIES, issues);
  const transferId = link(body, "transferId", issues);
  const ruleId = link(body, "ruleId", issues);
  const assigneeId = link(body, "assigneeId", issues);
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    value: {
      title: title as string,
      type: type!,
      description: description ?? null,
      category: category ?? defaultCategory(type!),
      priority: priority ?? "medium",
      transferId: transferId ?? null,
      ruleId: ruleId ?? null,
      assigneeId: assigneeId ?? null,
    },
  };
}

const PATCH_FIELDS = ["title", "description", "type", "category", "priority", "assigneeId", "ruleId", "transferId"] as const;

/** Part 2, `PATCH /api/v2/cases/:id`: at least one field, else 422 VALIDATION_ERROR. */
export function validatePatchCase(body: unknown): Result<CasePatch> {
  if (!isObject(body)) return { ok: false, issues: NOT_OBJECT };
  const issues: Issue[] = [];
  unknownFields(body, PATCH_FIELDS, issues);
  if (!PATCH_FIELDS.some((f) => body[f] !== undefined)) issues.push({ path: "", message: `at least one of ${PATCH_FIELDS.join(", ")} is required` });
  const patch: CasePatch = {};
  const title = text(body, "title", issues, { max: CASE_LIMITS.title, nullable: false });
  if (typeof title === "string") patch.title = title;
  const description = text(body, "description", issues, { max: CASE_LIMITS.description, nullable: true });
  if (description !== undefined) patch.description = description;
  const type = oneOf(body, "type", CASE_TYPES, issues);
  if (type) patch.type = type;
  const category = oneOf(body, "category", CASE_CATEGORIES, issues);
  if (category) patch.category = category;
  const priority = oneOf(body, "priority", CASE_PRIORITIES, issues);
  if (priority) patch.priority = priority;
  for (const f of ["assigneeId", "ruleId", "transferId"] as const) {
    const v = link(body, f, issues);
    if (v !== undefined) patch[f] = v;
  }
  if (issues.length) return { ok: false, issues };
  return { ok: true, value: patch };
}

/** Part 2, resolve: `resolution` required; `resolutionNote` at most 2,000 characters. */
export function validateResolve(body: unknown): Result<ResolveInput> {
  if (!isObject(body)) return { ok: false, issues: NOT_OBJECT };
  const issues: Issue[] = [];
  unknownFields(body, ["resolution", "resolutionNote", "approveUnscreened"], issues);
  const resolution = oneOf(body, "resolution", CASE_RESOLUTIONS, issues, { required: true });
  const note = text(body, "resolutionNote", issues, { max: CASE_LIMITS.resolutionNote, nullable: true });
  const unscreened = body.approveUnscreened;
  if (unscreened !== undefined && typeof unscreened !== "boolean") issues.push({ path: "approveUnscreened", message: "must be true or false" });
  else if (unscreened === true && resolution !== undefined && resolution !== "approved") issues.push({ path: "approveUnscreened", message: "applies only to resolution approved" });
  if (issues.length) return { ok: false, issues };
  return { ok: true, value: { resolution: resolution!, resolutionNote: note === "" ? null : (note ?? null), ...(unscreened === true ? { approveUnscreened: true } : {}) } };
}

/** Part 2, notes: `content` 1 to 5,000 characters. */
export function validateNote(body: unknown): Result<{ content: string }> {
  if (!isObject(body)) return { ok: false, issues: NOT_OBJECT };
  const issues: Issue[] = [];
  unknownFields(body, ["content"], issues);
  const content = text(body, "content", issues, { max: CASE_LIMITS.note, nullable: false, required: true });
  if (issues.length) return { ok: false, issues };
  return { ok: true, value: { content: content as string } };
}

// ---- case numbers ----

/** `CASE-2026-000123` (test environment: `CASE-TEST-2026-000123`): the year of creation and the sequence of the environment. */
export function formatCaseNumber(env: Environment, seq: number, nowMs: number): string {
  const year = new Date(nowMs).getUTCFullYear();
  return `CASE-${env === "test" ? "TEST-" : ""}${year}-${String(seq).padStart(6, "0")}`;
}

/** The sequence a case-number search names: a whole number (`CASE-2026-000123`, any case) or its digits (`123`, `000123`). */
export function caseNumberSearch(search: string): number | null {
  const m = /^\s*(?:case-(?:test-)?\d{4}-)?0*(\d{1,12})\s*$/i.exec(search);
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

// ---- screening ----

export type Severity = "low" | "medium" | "high";

/** Part 2 priorities have the rule severities' names: a severity is the priority. */
export const priorityFromSeverity = (s: Severity): CasePriority => s;

/** The title of a case screening opens (sealed like any title: a rule name may say more than it should). */
export function screeningTitle(o: { stage: "precheck" | "postcheck"; verdict: "require_review" | "block"; ruleName: string | null; unscreened?: boolean }): string {
  // Could not check is never worded as a finding (docs/screening.md "Could not check").
  if (o.unscreened) return `Screening could not run: transfer held unscreened at ${o.stage}${o.ruleName ? ` (rule ${o.ruleName})` : ""}`;
  const what = o.verdict === "block" ? "blocked" : "held";
  return o.ruleName ? `Transfer ${what} at ${o.stage} by rule ${o.ruleName}` : `Transfer ${what} at ${o.stage} by screening`;
}

// ---- resolution ----

export type TransferAction =
  | { transferId: string; result: "queued" }
  | { transferId: string; result: "skipped"; reason: "insufficient_permission" | "not_rejectable" };

/**
 * Part 2, `meta.transferAction` for the first linked transfer: null when none or not held; skipped when the key
 * may not write transfers, or (rejected) when the transfer no longer awaits an officer (held with verdict pending).
 */
export function transferAction(o: {
  resolution: CaseResolution;
  transfer: { id: string; state: string; status: string } | null;
  mayWriteTransfers: boolean;
}): TransferAction | null {
  const t = o.transfer;
  if (!t || t.state !== "held") return null;
  if (!o.mayWriteTransfers) return { transferId: t.id, result: "skipped", reason: "insufficient_permission" };
  if (o.resolution === "rejected" && t.status !== "pending") return { transferId: t.id, result: "skipped", reason: "not_rejectable" };
  return { transferId: t.id, result: "queued" };
}

/** The narrative a drafted suspicion report starts from: what the case and its rule say, for the officer to complete. */
export function narrativeSeed(o: {
  caseNumber: string;
  title: string;
  description: string | null;
  rule: { name: string; category: string; severity: string } | null;
  resolutionNote: string | null;
  transfer: { id: string; direction: string; amount: string; asset: string; network: string; createdAt: string };
}): string {
  const lines = [
    `Case ${o.caseNumber}: ${o.title}.`,
    `Transfer ${o.transfer.id} (${o.transfer.direction}, ${o.transfer.amount} ${o.transfer.asset} on ${o.transfer.network}, created ${o.transfer.createdAt}) was rejected on review.`,
  ];
  if (o.rule) lines.push(`Screening rule "${o.rule.name}" (${o.rule.category}, severity ${o.rule.severity}) flagged it.`);
  if (o.description) lines.push(`Case description: ${o.description}`);
  if (o.resolutionNote) lines.push(`Resolution note: ${o.resolutionNote}`);
  return lines.join("\n");
}

/** History values that are codes (enumerations, IDs, states) are shown to every reader; free text is masked. */
export const FREE_TEXT_FIELDS: ReadonlySet<string> = new Set(["title", "description", "resolutionNote"]);
