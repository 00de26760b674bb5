// Suspicion reports without I/O (Part 2 "Report", "Reports"): report types, deadlines, filing readiness, the
// life draft → pending_review → submitted → filed, report numbers, masking and the PDF text limit.
import Decimal from "decimal.js";
import type { Permission } from "../access.ts";
import { isCountryCode } from "../ivms101/countries.ts";
import { EU_MEMBERS } from "../thresholds.ts";
import { COMMON_FIELDS, DEFAULT_NARRATIVE_MIN, PROMPT_DAYS, REPORT_TYPE_DEFINITIONS, type ReportField, type ReportTypeDefinition } from "./catalogue.ts";

export const REPORT_KINDS = ["suspicion"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const REPORT_STATUSES = ["draft", "pending_review", "submitted", "filed"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const DETECTION_METHODS = ["screening", "manual"] as const;
export type DetectionMethod = (typeof DETECTION_METHODS)[number];

/** Part 2 limits: search 100 characters; PDF text 100,000 characters. */
export const REPORT_LIMITS = { search: 100, pdfText: 100_000, narrative: 100_000, fieldValue: 2_000, riskIndicators: 50, riskIndicator: 500, reference: 100 } as const;
/** `isApproaching`: the deadline is within this many days (and not passed). */
export const APPROACHING_DAYS = 3;
const DAY = 86_400_000;

/** The generic type's deadline when no threshold sets one (FATF R.20: "promptly"). */
export const GENERIC_DEADLINE_DAYS = PROMPT_DAYS;

export interface ReportType {
  kind: ReportKind;
  jurisdiction: string;
  label: string;
  reportTo: string | null;
  fields: { key: string; label: string; type: string; pii: boolean }[];
  narrative: { required: boolean; minLength: number };
  formats: ["pdf"];
  filingDeadline: { days: number; source: "threshold" | "system_default"; regulation: string; regulatoryBody: string };
}

/** Internal form of a type: the API shape plus what the domain needs (required fields, abbreviation). */
export interface ResolvedReportType {
  definition: ReportTypeDefinition;
  fields: ReportField[];
  /** Whether the jurisdiction has its own type (false: generic suspicion report, reportTo null). */
  specific: boolean;
}

const BY_JURISDICTION = new Map(REPORT_TYPE_DEFINITIONS.map((d) => [d.jurisdiction, d]));

/** A `jurisdiction` parameter: any case, `UK` for `GB`; EU and anything not ISO 3166-1 alpha-2 is refused (null). */
export function normaliseJurisdiction(v: string): string | null {
  const up = v.trim().toUpperCase();
  const code = up === "UK" ? "GB" : up;
  return isCountryCode(code) ? code : null;
}

export function specificJurisdictions(): string[] {
  return REPORT_TYPE_DEFINITIONS.map((d) => d.jurisdiction);
}

/**
 * A report drafted before anyone knows where to file it (no threshold jurisdiction, no company country): stored as
 * the empty string, answered as `ZZ`, never filing-ready until an officer sets one.
 */
export const UNKNOWN_JURISDICTION = "";

/**
 * Part 2: a report's `jurisdiction` is always an upper-case ISO 3166-1 alpha-2 code. While none is known it is `ZZ`,
 * the alpha-2 code ISO 3166-1 leaves to its users and that CLDR names "Unknown Region": no country's FIU, so the
 * report is never filing-ready under it.
 */
export const UNKNOWN_JURISDICTION_CODE = "ZZ";

/** The stored jurisdiction as the API answers it: `ZZ` while unknown. */
export const jurisdictionOut = (stored: string): string => (stored === UNKNOWN_JURISDICTION ? UNKNOWN_JURISDICTION_CODE : stored);

/**
 * The jurisdiction a report is drafted for: the country of the threshold the transfer was checked against, else the
 * company's country (an `EU` or `DEFAULT` threshold names no country); null when neither is known (the report is
 * drafted all the same, with its jurisdiction unknown, answered `ZZ`, until an officer sets it).
 */
export function reportJurisdiction(thresholdInfo: string | { jurisdiction?: unknown } | null, companyCountry: string | null): string | null {
  let j: unknown = null;
  try {
    // As stored (JSON text) or as read (the transfer's parsed thresholdInfo).
    j = typeof thresholdInfo === "string" ? (JSON.parse(thresholdInfo) as { jurisdiction?: unknown }).jurisdiction : (thresholdInfo?.jurisdiction ?? null);
  } catch {
    j = null;
  }
  if (typeof j === "string" && /^[A-Za-z]{2}$/.test(j) && j.toUpperCase() !== "EU") return j.toUpperCase();
  if (companyCountry && /^[A-Za-z]{2}$/.test(companyCountry)) return companyCountry.toUpperCase();
  return null;
}

/** The type of a jurisdiction: its own, or the generic suspicion report (reportTo null; also while it is unknown). */
export function resolveReportType(jurisdiction: string): ResolvedReportType {
  const d = BY_JURISDICTION.get(jurisdiction);
  if (d) return { definition: d, fields: [...COMMON_FIELDS, ...d.extraFields], specific: true };
  const generic: ReportTypeDefinition = {
    jurisdiction,
    abbreviation: "STR",
    label: "Suspicious Transaction Report (STR)",
    reportTo: null,
    narrativeMinLength: DEFAULT_NARRATIVE_MIN,
    deadlineDays: GENERIC_DEADLINE_DAYS,
    regulation: "FATF Recommendation 20: promptly",
    regulatoryBody: "Financial intelligence unit of the jurisdiction",
    sources: ["https://www.fatf-gafi.org/en/publications/Fatfrecommendations/Fatf-recommendations.html"],
    extraFields: [],
  };
  return { definition: generic, fields: [...COMMON_FIELDS], specific: false };
}

/** An active `str` threshold with a filing deadline, as the deadline rule reads it. */
export interface DeadlineThreshold {
  countryCode: string;
  type: string;
  isActive: boolean;
  filingDeadlineDays: number | null;
  regulation: string;
  regulatoryBody: string | null;
  /** The amount from which a suspicion report is due (Part 2: thresholds decide when it is due). */
  thresholdAmount?: string;
  thresholdCurrency?: string;
}

/** The jurisdictions whose `str` threshold applies to a type, most exact first (EU members also take EU; generic also DEFAULT). */
function thresholdOrder(t: ResolvedReportType): string[] {
  const order = [t.definition.jurisdiction];
  if (EU_MEMBERS.has(t.definition.jurisdiction as never)) order.push("EU");
  if (!t.specific) order.push("DEFAULT");
  return order;
}

/** Where a report stands against the company's `str` threshold of its jurisdiction. */
export interface ReportingThreshold {
  countryCode: string;
  thresholdAmount: string;
  thresholdCurrency: string;
  /** The transfer's value in the threshold's currency, when it was priced in that currency; else null. */
  value: string | null;
  /** true: at or above the threshold, the report is due; false: below it; null: not comparable (other currency, no price). */
  reached: boolean | null;
}

/**
 * The active `str` threshold that decides when a suspicion report is due (the jurisdiction's, then EU for a member
 * state, then DEFAULT for the generic type), compared with the transfer's fiat value. Null when the company has none.
 * Below the threshold the report is still drafted (an officer's conclusion is never dropped); it says so.
 */
export function reportingThreshold(t: ResolvedReportType, thresholds: readonly DeadlineThreshold[], valuation: { value: string; currency: string } | null): ReportingThreshold | null {
  if (t.definition.jurisdiction === UNKNOWN_JURISDICTION) return null;
  for (const j of thresholdOrder(t)) {
    const th = thresholds.find((x) => x.isActive && x.type === "str" && x.countryCode === j && x.thresholdAmount !== undefined);
    if (!th) continue;
    const comparable = valuation !== null && valuation.currency === th.thresholdCurrency;
    return {
      countryCode: th.countryCode,
      thresholdAmount: th.thresholdAmount!,
      thresholdCurrency: th.thresholdCurrency ?? "",
      value: comparable ? valuation!.value : null,
      reached: comparable ? new Decimal(valuation!.value).gte(th.thresholdAmount!) : null,
    };
  }
  return null;
}

/**
 * The deadline rule of a jurisdiction: the company's active `str` threshold for the jurisdiction with
 * `filingDeadlineDays` (an EU member state also takes the company's `EU` threshold; the generic type also
 * `DEFAULT`), else the system default. A specific type never takes `DEFAULT`: its own rule is more exact.
 */
export function deadlineRule(t: ResolvedReportType, thresholds: readonly DeadlineThreshold[]): ReportType["filingDeadline"] {
  for (const j of thresholdOrder(t)) {
    const th = thresholds.find((x) => x.isActive && x.type === "str" && x.countryCode === j && x.filingDeadlineDays !== null);
    if (th) return { days: th.filingDeadlineDays!, source: "threshold", regulation: th.regulation, regulatoryBody: th.regulatoryBody ?? t.definition.regulatoryBody };
  }
  return { days: t.definition.deadlineDays, source: "system_default", regulation: t.definition.regulation, regulatoryBody: t.definition.regulatoryBody };
}

export function presentReportType(t: ResolvedReportType, thresholds: readonly DeadlineThreshold[]): ReportType {
  return {
    kind: "suspicion",
    jurisdiction: t.definition.jurisdiction,
    label: t.definition.label,
    reportTo: t.definition.reportTo,
    fields: t.fields.map((x) => ({ key: x.key, label: x.label, type: x.type, pii: x.pii })),
    narrative: { required: true, minLength: t.definition.narrativeMinLength },
    formats: ["pdf"],
    filingDeadline: deadlineRule(t, thresholds),
  };
}

export interface FilingDeadline {
  deadline: string;
  daysRemaining: number;
  isOverdue: boolean;
  isApproaching: boolean;
  source: "threshold" | "system_default";
  daysConfigured: number;
  regulation: string;
  regulatoryBody: string;
}

/**
 * The deadline as of `now`: `generatedAt` + days. `daysRemaining` counts whole days left (rounded up; 0 on
 * the last day, negative once passed). A filed report is never overdue nor approaching. `isApproaching`:
 * not overdue and at most APPROACHING_DAYS days left.
 */
export function filingDeadline(generatedAt: string, status: ReportStatus, rule: ReportType["filingDeadline"], now: number): FilingDeadline {
  const due = Date.parse(generatedAt) + rule.days * DAY;
  const left = due - now;
  const daysRemaining = Math.ceil(left / DAY);
  const filed = status === "filed";
  const isOverdue = !filed && left < 0;
  return {
    deadline: new Date(due).toISOString(),
    daysRemaining: daysRemaining === 0 ? 0 : daysRemaining, // no -0
    isOverdue,
    isApproaching: !filed && !isOverdue && left <= APPROACHING_DAYS * DAY,
    source: rule.source,
    daysConfigured: rule.days,
    regulation: rule.regulation,
    regulatoryBody: rule.regulatoryBody,
  };
}

export type RegulatoryData = Record<string, string>;

/**
 * What a drafted narrative starts with: the facts Caravan knows follow it, and while it is in the text the report
 * cannot be filed (the officer writes the narrative and removes the line).
 */
export const NARRATIVE_PLACEHOLDER = "[DRAFT: the reporting officer writes the narrative here and removes this line. A report cannot be filed while this line is in it.]";

/** Required fields without a value (`jurisdiction` first while it is unknown), and whether the narrative is not yet written. */
export function missingForFiling(t: ResolvedReportType, narrative: string | null, data: RegulatoryData): { fields: string[]; narrative: boolean } {
  const fields = t.fields.filter((x) => x.required && !(data[x.key] ?? "").trim()).map((x) => x.key);
  if (t.definition.jurisdiction === UNKNOWN_JURISDICTION) fields.unshift("jurisdiction");
  const text = (narrative ?? "").trim();
  const narrativeMissing = Array.from(text).length < t.definition.narrativeMinLength || text.includes(NARRATIVE_PLACEHOLDER);
  return { fields, narrative: narrativeMissing };
}

/** The missing items in words: each field's label with its key, and the narrative's rule. */
export function missingLabels(t: ResolvedReportType, m: { fields: string[]; narrative: boolean }): string[] {
  const out = m.fields.map((k) => (k === "jurisdiction" ? "Jurisdiction (where the report is filed) (jurisdiction)" : `${t.fields.find((f) => f.key === k)?.label ?? k} (${k})`));
  if (m.narrative) out.push(`Narrative written by the officer, at least ${t.definition.narrativeMinLength} characters, without the draft placeholder (narrative)`);
  return out;
}

export function isFilingReady(t: ResolvedReportType, narrative: string | null, data: RegulatoryData): boolean {
  const m = missingForFiling(t, narrative, data);
  return m.fields.length === 0 && !m.narrative;
}

/** Characters of the report's free text: narrative, indicators, field values (the PDF limit, Part 2 Limits). */
export function textLength(narrative: string | null, riskIndicators: readonly string[], data: RegulatoryData): number {
  let n = Array.from(narrative ?? "").length;
  for (const r of riskIndicators) n += Array.from(r).length;
  for (const v of Object.values(data)) n += Array.from(v).length;
  return n;
}

// The characters drawn with a CJK font, by script: the one table for choosing the PDF lane (hasCjk) and the font of
// each character (src/adapters/pdf/fonts.ts). Hangul → KR; kana (and the half-width forms) → JP; Han, CJK
// punctuation, enclosed and compatibility forms, radicals, bopomofo and full-width forms → SC.
const HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\ua960-\ua97f\ud7b0-\ud7ff";
const KANA = "\u3040-\u30ff\u31f0-\u31ff\uff65-\uff9f";
const HAN = "\u2e80-\u2fdf\u3000-\u303f\u3100-\u312f\u3190-\u31ef\u3200-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u{20000}-\u{2ffff}";
const SCRIPTS: readonly [RegExp, "kr" | "jp" | "sc"][] = [
  [new RegExp(`[${HANGUL}]`, "u"), "kr"],
  [new RegExp(`[${KANA}]`, "u"), "jp"],
  [new RegExp(`[${HAN}]`, "u"), "sc"],
];
const CJK = new RegExp(`[${HANGUL}${KANA}${HAN}]`, "u");

/** The CJK font a character needs (kr, jp, sc), or null for any other character. */
export function cjkScript(ch: string): "kr" | "jp" | "sc" | null {
  for (const [re, script] of SCRIPTS) if (re.test(ch)) return script;
  return null;
}

export function hasCjk(...texts: (string | null | undefined)[]): boolean {
  return texts.some((t) => !!t && CJK.test(t));
}

/** `SAR-2026-000001`; the test environment's numbers read `SAR-TEST-2026-000001` so a test report is never mistaken for a filing. */
export function reportNumber(abbreviation: string, environment: "test" | "live", seq: number, now: number): string {
  const year = new Date(now).getUTCFullYear();
  return `${abbreviation}${environment === "test" ? "-TEST" : ""}-${year}-${String(seq).padStart(6, "0")}`;
}

// ---- the life of a report (Part 2: "transitions: not shown"; docs/reports.md) ----

export type ReportAction = "edit" | "submit" | "approve" | "file";

/**
 * Who may do what, for the CLI and the operator routes alike (docs/reports.md): every step needs strs:update;
 * reading the content and editing also pii:view; drafting by hand also reports:create and pii:view.
 */
export const REPORT_ACTION_NEEDS: Record<ReportAction | "show" | "draft", readonly Permission[]> = {
  show: ["strs:view", "pii:view"],
  draft: ["strs:update", "reports:create", "pii:view"],
  edit: ["strs:update", "pii:view"],
  submit: ["strs:update"],
  approve: ["strs:update"],
  file: ["strs:update"],
};

export interface LifeState {
  status: ReportStatus;
  filingReady: boolean;
  submittedBy: string | null;
  /** `system` or the member who drafted it (by hand, or by rejecting the case). */
  draftedBy?: string | null;
  lastEditedBy?: string | null;
}

export type LifeRefusal =
  | { code: "INVALID_REPORT_STATE"; message: string }
  | { code: "NOT_FILING_READY"; message: string }
  | { code: "SAME_MEMBER"; message: string }
  | { code: "REFERENCE_REQUIRED"; message: string };

/** The status an action leads to, or why it is refused. Editing a report in review sends it back to draft. */
export function nextStatus(r: LifeState, action: ReportAction, by: string, o: { reference?: string | null } = {}): { ok: true; status: ReportStatus } | { ok: false; refusal: LifeRefusal } {
  const state = (message: string) => ({ ok: false as const, refusal: { code: "INVALID_REPORT_STATE" as const, message } });
  switch (action) {
    case "edit":
      if (r.status === "draft" || r.status === "pending_review") return { ok: true, status: "draft" };
      return state(`a ${r.status} report cannot be edited`);
    case "submit":
      if (r.status !== "draft") return state(`only a draft can be submitted for review (report is ${r.status})`);
      if (!r.filingReady) return { ok: false, refusal: { code: "NOT_FILING_READY", message: "the report is not filing-ready: complete the required fields and the narrative" } };
      return { ok: true, status: "pending_review" };
    case "approve":
      if (r.status !== "pending_review") return state(`only a report pending review can be approved (report is ${r.status})`);
      // Four eyes (docs/reports.md): whoever drafted, last edited or submitted the report cannot approve it, owners included.
      if (r.submittedBy === by) return { ok: false, refusal: { code: "SAME_MEMBER", message: "four eyes: the member who submitted the report cannot approve it" } };
      if (r.draftedBy === by) return { ok: false, refusal: { code: "SAME_MEMBER", message: "four eyes: the member who drafted the report cannot approve it" } };
      if (r.lastEditedBy === by) return { ok: false, refusal: { code: "SAME_MEMBER", message: "four eyes: the member who last edited the report cannot approve it" } };
      return { ok: true, status: "submitted" };
    case "file":
      if (r.status !== "submitted") return state(`only an approved (submitted) report can be marked filed (report is ${r.status})`);
      if (!r.filingReady) return { ok: false, refusal: { code: "NOT_FILING_READY", message: "the report is not filing-ready: complete the required fields and the narrative" } };
      if (!o.reference || !o.reference.trim()) return { ok: false, refusal: { code: "REFERENCE_REQUIRED", message: "a reference with the FIU's acknowledgement number is required" } };
      if (Array.from(o.reference.trim()).length > REPORT_LIMITS.reference) return { ok: false, refusal: { code: "REFERENCE_REQUIRED", message: `the reference must be at most ${REPORT_LIMITS.reference} characters` } };
      return { ok: true, status: "filed" };
    default: {
      const _: never = action;
      return _;
    }
  }
}

/** Checks an edit: field keys of the type, values within limits. Empty value clears a field. */
export function validateEdit(t: ResolvedReportType, change: { narrative?: string; fields?: Record<string, string>; riskIndicators?: string[]; jurisdiction?: string }): string[] {
  const errors: string[] = [];
  if (change.jurisdiction !== undefined && !normaliseJurisdiction(change.jurisdiction)) errors.push("jurisdiction must be an ISO 3166-1 alpha-2 country code (UK for GB; EU is not a jurisdiction)");
  const keys = new Set(t.fields.map((x) => x.key));
  if (change.narrative !== undefined && Array.from(change.narrative).length > REPORT_LIMITS.narrative) errors.push(`narrative must be at most ${REPORT_LIMITS.narrative} characters`);
  for (const [k, v] of Object.entries(change.fields ?? {})) {
    if (!keys.has(k)) errors.push(`unknown field "${k}" for ${t.definition.jurisdiction} (fields: ${[...keys].join(", ")})`);
    else if (Array.from(v).length > REPORT_LIMITS.fieldValue) errors.push(`field ${k} must be at most ${REPORT_LIMITS.fieldValue} characters`);
  }
  if (change.riskIndicators) {
    if (change.riskIndicators.length > REPORT_LIMITS.riskIndicators) errors.push(`at most ${REPORT_LIMITS.riskIndicators} risk indicators`);
    for (const r of change.riskIndicators) if (Array.from(r).length > REPORT_LIMITS.riskIndicator) errors.push(`a risk indicator must be at most ${REPORT_LIMITS.riskIndicator} characters`);
  }
  return errors;
}

/** Without pii:view: narrative, each risk indicator and the subject fields are `***` (Part 2 "Report"). */
export function maskReportContent(t: ResolvedReportType, c: { narrative: string | null; riskIndicators: string[]; regulatoryData: RegulatoryData }): { narrative: string | null; riskIndicators: string[]; regulatoryData: RegulatoryData } {
  const pii = new Set(t.fields.filter((x) => x.pii).map((x) => x.key));
  const data: RegulatoryData = {};
  // A key no longer in the type (catalogue changed) is treated as personal data.
  for (const [k, v] of Object.entries(c.regulatoryData)) data[k] = pii.has(k) || !t.fields.some((x) => x.key === k) ? "***" : v;
  return { narrative: c.narrative === null ? null : "***", riskIndicators: c.riskIndicators.map(() => "***"), regulatoryData: data };
}
