// Thresholds without I/O (Part 2, "Threshold", "Rules and thresholds"): body rules, FATF fallbacks, which threshold applies, company profile.
import Decimal from "decimal.js";
import type { Issue } from "./errors.ts";
import { isCountryCode, type CountryCode } from "./ivms101/countries.ts";

export const THRESHOLD_TYPES = ["tr", "str"] as const;
export type ThresholdType = (typeof THRESHOLD_TYPES)[number];

/** Part 2: besides ISO 3166-1 alpha-2, `EU` and `DEFAULT` (the fallback for other jurisdictions). */
export const SPECIAL_JURISDICTIONS = ["EU", "DEFAULT"] as const;

/** The 27 member states of the European Union (ISO 3166-1; Greece is GR, not the EU's own "EL"). */
export const EU_MEMBERS: ReadonlySet<CountryCode> = new Set<CountryCode>([
  "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU",
  "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
]);

/**
 * ISO 4217 List One alphabetic codes in use (SIX, 2025), including codes still in their withdrawal
 * period (ANG beside XCG, SLL beside SLE, CUC). XTS (testing) and XXX (no currency) are assigned but
 * name no currency, so no threshold can be expressed in them. Withdrawn codes (HRK, ZWL, VEF, MRO, STD) are refused.
 */
export const CURRENCY_CODES: ReadonlySet<string> = new Set(
  (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD " +
    "CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP " +
    "GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY " +
    "KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN " +
    "NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF " +
    "SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS " +
    "UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST " +
    "XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA YER ZAR ZMW ZWG"
  ).split(" "),
);

export const isCurrencyCode = (v: unknown): v is string => typeof v === "string" && CURRENCY_CODES.has(v);

/** Part 2 Limits. */
export const LIMITS = { name: 200, regulation: 200, regulatoryBody: 200, notes: 2000, filingDeadlineDays: [1, 365], decimals: 8, search: 100 } as const;
/** Not in the spec: an amount has at most this many digits before the decimal point (far above any real threshold). */
export const MAX_INTEGER_DIGITS = 18;

/** The threshold resource exactly as Part 2 lists it. */
export interface Threshold {
  id: string;
  countryCode: string;
  type: ThresholdType;
  name: string;
  thresholdAmount: string;
  thresholdCurrency: string;
  regulation: string;
  regulatoryBody: string | null;
  effectiveDate: string | null;
  filingDeadlineDays: number | null;
  isEUMember: boolean;
  requiresOriginatorAccount: boolean;
  isActive: boolean;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  updatedBy: string | null;
}

/** What a body sets: every field of the resource that is not server-made. */
export type ThresholdInput = Pick<
  Threshold,
  | "countryCode"
  | "type"
  | "name"
  | "thresholdAmount"
  | "thresholdCurrency"
  | "regulation"
  | "regulatoryBody"
  | "effectiveDate"
  | "filingDeadlineDays"
  | "isEUMember"
  | "requiresOriginatorAccount"
  | "isActive"
  | "notes"
>;
export type MutableField = Exclude<keyof ThresholdInput, "countryCode" | "type">;

const CREATE_FIELDS: readonly (keyof ThresholdInput)[] = [
  "countryCode", "type", "name", "thresholdAmount", "thresholdCurrency", "regulation", "regulatoryBody",
  "effectiveDate", "filingDeadlineDays", "isEUMember", "requiresOriginatorAccount", "isActive", "notes",
];
export const IMMUTABLE_FIELDS = ["countryCode", "type"] as const;

export function isJurisdiction(v: unknown): v is string {
  return isCountryCode(v) || (SPECIAL_JURISDICTIONS as readonly unknown[]).includes(v);
}

const chars = (s: string) => Array.from(s).length;
const DECIMAL_TEXT = /^\d+(?:\.\d+)?$/;

/**
 * Part 2: "Decimal of at least 0, number or string, at most 8 decimals", answered as a decimal string.
 * Strings: digits with an optional fraction (no sign, exponent or spaces). JSON numbers are read as the
 * shortest decimal text that round-trips (what JavaScript prints), so they must be exact: up to 2^53 - 1.
 * Trailing zeros do not count as decimals ("1.000000000" is 1); the answer drops them ("1000.50" → "1000.5").
 */
export function parseAmount(v: unknown): { value: string } | { error: string } {
  let d: Decimal;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return { error: "must be a finite number" };
    if (v < 0) return { error: "must be at least 0" };
    if (v > Number.MAX_SAFE_INTEGER) return { error: "is too large to be exact as a JSON number; send it as a string" };
    d = new Decimal(Object.is(v, -0) ? 0 : v);
  } else if (typeof v === "string") {
    if (/^-\d+(?:\.\d+)?$/.test(v)) return { error: "must be at least 0" };
    if (!DECIMAL_TEXT.test(v)) return { error: 'must be a decimal number such as "1000" or "1000.50" (digits, an optional fraction; no sign, exponent or spaces)' };
    d = new Decimal(v);
  } else return { error: "must be a decimal number, given as a number or a string" };
  if (d.decimalPlaces() > LIMITS.decimals) return { error: `must have at most ${LIMITS.decimals} decimals` };
  const text = d.toFixed();
  if (text.split(".")[0].length > MAX_INTEGER_DIGITS) return { error: `must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point` };
  return { value: text };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

function validDay(y: number, m: number, d: number): boolean {
  if (y < 1900 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * Part 2: "Day or ISO 8601 instant; null means in effect already". A day stays a day (`2025-01-01`) and
 * takes effect at 00:00 UTC; an instant needs a time zone (`Z` or `±HH:MM`, else it is not an instant)
 * and is answered in the API's timestamp format (UTC, milliseconds).
 */
export function parseEffectiveDate(v: unknown): { value: string | null } | { error: string } {
  const msg = "must be a day (YYYY-MM-DD) or an ISO 8601 instant with a time zone (YYYY-MM-DDTHH:MM[:SS[.sss]] and Z or ±HH:MM), from 1900, or null";
  if (v === null) return { value: null };
  if (typeof v !== "string") return { error: msg };
  const day = DAY.exec(v);
  if (day) return validDay(+day[1], +day[2], +day[3]) ? { value: v } : { error: msg };
  const t = INSTANT.exec(v);
  if (!t) return { error: msg };
  const [y, mo, d, h, mi, s] = [+t[1], +t[2], +t[3], +t[4], +t[5], t[6] === undefined ? 0 : +t[6]];
  const ms = t[7] === undefined ? 0 : Number(t[7].padEnd(3, "0").slice(0, 3));
  const offH = t[10] === undefined ? 0 : +t[10];
  const offM = t[11] === undefined ? 0 : +t[11];
  if (!validDay(y, mo, d) || h > 23 || mi > 59 || s > 59 || offH > 23 || offM > 59) return { error: msg };
  const offset = (t[9] === "-" ? -1 : 1) * (offH * 60 + offM);
  const at = Date.UTC(y, mo - 1, d, h, mi, s, ms) - offset * 60_000;
  return { value: new Date(at).toISOString() };
}

/** When a stored effectiveDate starts to apply, in ms; null (in effect already) is -Infinity. */
export function effectiveFrom(effectiveDate: string | null): number {
  if (effectiveDate === null) return -Infinity;
  return DAY.test(effectiveDate) ? Date.parse(`${effectiveDate}T00:00:00.000Z`) : Date.parse(effectiveDate);
}

type Check = (v: unknown) => { value: unknown } | { error: string };

function text(max: number, opts: { required: boolean }): Check {
  return (v) => {
    if (v === null && !opts.required) return { value: null };
    if (typeof v !== "string") return { error: opts.required ? "must be text" : "must be text or null" };
    if (opts.required && v.trim() === "") return { error: "must not be empty" };
    if (chars(v) > max) return { error: `must be at most ${max.toLocaleString("en-US")} characters` };
    // An empty optional text is no text.
    return { value: v === "" ? null : v };
  };
}

const bool: Check = (v) => (typeof v === "boolean" ? { value: v } : { error: "must be true or false" });

const CHECKS: Record<MutableField, Check> = {
  name: text(LIMITS.name, { required: true }),
  thresholdAmount: parseAmount,
  thresholdCurrency: (v) => (isCurrencyCode(v) ? { value: v } : { error: "must be an ISO 4217 currency code in capitals, such as USD or EUR" }),
  regulation: text(LIMITS.regulation, { required: true }),
  regulatoryBody: text(LIMITS.regulatoryBody, { required: false }),
  effectiveDate: parseEffectiveDate,
  filingDeadlineDays: (v) => {
    const [lo, hi] = LIMITS.filingDeadlineDays;
    if (v === null) return { value: null };
    return typeof v === "number" && Number.isInteger(v) && v >= lo && v <= hi ? { value: v } : { error: `must be a whole number of days from ${lo} to ${hi}, or null` };
  },
  isEUMember: bool,
  requiresOriginatorAccount: bool,
  isActive: bool,
  notes: text(LIMITS.notes, { required: false }),
};

const FILING_ONLY_STR = "is only for type str (suspicious transaction reporting)";

function asObject(body: unknown): Record<string, unknown> | null {
  return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
}

export type CreateResult = { ok: true; value: ThresholdInput } | { ok: false; issues: Issue[] };

/** Part 2 "POST /api/v2/thresholds" body: every problem is named (422 VALIDATION_ERROR, details.issues). */
export function validateCreateThreshold(body: unknown): CreateResult {
  const b = asObject(body);
  if (!b) return { ok: false, issues: [{ path: "", message: "the body must be a JSON object" }] };
  const issues: Issue[] = [];
  for (const k of Object.keys(b)) if (!(CREATE_FIELDS as readonly string[]).includes(k)) issues.push({ path: k, message: "is not an accepted field" });
  const out: Partial<Record<keyof ThresholdInput, unknown>> = {};
  if (b.countryCode === undefined) issues.push({ path: "countryCode", message: "is required" });
  else if (!isJurisdiction(b.countryCode)) issues.push({ path: "countryCode", message: "must be an ISO 3166-1 alpha-2 country code in capitals, EU or DEFAULT" });
  else out.countryCode = b.countryCode;
  if (b.type === undefined) issues.push({ path: "type", message: "is required" });
  else if (!(THRESHOLD_TYPES as readonly unknown[]).includes(b.type)) issues.push({ path: "type", message: "must be tr (Travel Rule) or str (suspicious transaction reporting)" });
  else out.type = b.type;
  for (const f of ["name", "thresholdAmount", "regulation"] as const) if (b[f] === undefined) issues.push({ path: f, message: "is required" });
  for (const f of Object.keys(CHECKS) as MutableField[]) {
    if (b[f] === undefined) continue;
    const r = CHECKS[f](b[f]);
    if ("error" in r) issues.push({ path: f, message: r.error });
    else out[f] = r.value;
  }
  if (b.type === "tr" && b.filingDeadlineDays !== undefined && b.filingDeadlineDays !== null) issues.push({ path: "filingDeadlineDays", message: FILING_ONLY_STR });
  if (issues.length) return { ok: false, issues: dedupe(issues) };
  return {
    ok: true,
    value: {
      countryCode: out.countryCode as string,
      type: out.type as ThresholdType,
      name: out.name as string,
      thresholdAmount: out.thresholdAmount as string,
      // Part 2 defaults: USD, not EU member, originator account required, active.
      thresholdCurrency: (out.thresholdCurrency as string | undefined) ?? "USD",
      regulation: out.regulation as string,
      regulatoryBody: (out.regulatoryBody as string | null | undefined) ?? null,
      effectiveDate: (out.effectiveDate as string | null | undefined) ?? null,
      filingDeadlineDays: (out.filingDeadlineDays as number | null | undefined) ?? null,
      isEUMember: (out.isEUMember as boolean | undefined) ?? false,
      requiresOriginatorAccount: (out.requiresOriginatorAccount as boolean | undefined) ?? true,
      isActive: (out.isActive as boolean | undefined) ?? true,
      notes: (out.notes as string | null | undefined) ?? null,
    },
  };
}

export type UpdateResult =
  | { ok: true; changes: Partial<Pick<ThresholdInput, MutableField>> }
  | { ok: false; kind: "immutable"; fields: string[] }
  | { ok: false; kind: "invalid"; issues: Issue[] };

/**
 * Part 2 "PATCH": any field except jurisdiction and type, at least one. Sending the current countryCode
 * or type is allowed (clients echo the resource back); a different one is 422 IMMUTABLE_FIELD, decided
 * before the other fields are looked at.
 */
export function validateUpdateThreshold(body: unknown, current: Pick<Threshold, "countryCode" | "type">): UpdateResult {
  const b = asObject(body);
  if (!b) return { ok: false, kind: "invalid", issues: [{ path: "", message: "the body must be a JSON object" }] };
  const immutable = IMMUTABLE_FIELDS.filter((f) => b[f] !== undefined && b[f] !== current[f]);
  if (immutable.length) return { ok: false, kind: "immutable", fields: immutable };
  const issues: Issue[] = [];
  const changes: Partial<Record<MutableField, unknown>> = {};
  for (const k of Object.keys(b)) {
    if ((IMMUTABLE_FIELDS as readonly string[]).includes(k)) continue;
    if (!Object.hasOwn(CHECKS, k)) {
      issues.push({ path: k, message: "is not an accepted field" });
      continue;
    }
    const f = k as MutableField;
    if (b[f] === undefined) continue;
    const r = CHECKS[f](b[f]);
    if ("error" in r) issues.push({ path: f, message: r.error });
    else changes[f] = r.value;
  }
  if (current.type === "tr" && b.filingDeadlineDays !== undefined && b.filingDeadlineDays !== null) issues.push({ path: "filingDeadlineDays", message: FILING_ONLY_STR });
  const given = Object.keys(b).filter((k) => !(IMMUTABLE_FIELDS as readonly string[]).includes(k));
  if (given.length === 0 && issues.length === 0) issues.push({ path: "", message: "at least one field other than countryCode and type is required" });
  if (issues.length) return { ok: false, kind: "invalid", issues: dedupe(issues) };
  return { ok: true, changes: changes as Partial<Pick<ThresholdInput, MutableField>> };
}

function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Fields whose value a change really alters, in resource order. */
export function changedFields(current: Threshold, changes: Partial<Pick<ThresholdInput, MutableField>>): MutableField[] {
  return (Object.keys(CHECKS) as MutableField[]).filter((f) => f in changes && changes[f] !== current[f]);
}

/** Part 2: switching an active threshold off needs the role permission thresholds:disable. */
export function switchesOff(current: Pick<Threshold, "isActive">, changes: { isActive?: boolean }): boolean {
  return current.isActive && changes.isActive === false;
}

// ---- the life of a threshold: pure decisions, the owner commits what they give ----

/** Fields whose values the audit detail may carry; free text (name, regulation, body, notes) is named only. */
const AUDITED_VALUES: ReadonlySet<string> = new Set(["thresholdAmount", "thresholdCurrency", "effectiveDate", "filingDeadlineDays", "isEUMember", "requiresOriginatorAccount", "isActive"]);

/** A new threshold: the input as given, made by `memberId` at `at` (ISO 8601). */
export function newThreshold(id: string, input: ThresholdInput, memberId: string, at: string): Threshold {
  return { id, ...input, createdAt: at, updatedAt: at, createdBy: memberId, updatedBy: memberId };
}

/** The `threshold.created` entry's detail. */
export function createdDetail(t: Threshold): Record<string, unknown> {
  return { countryCode: t.countryCode, type: t.type, thresholdAmount: t.thresholdAmount, thresholdCurrency: t.thresholdCurrency, isActive: t.isActive };
}

export type ThresholdChange =
  | Extract<UpdateResult, { ok: false }>
  | { ok: false; kind: "needs_disable" }
  /** `change` null: the body alters nothing (nothing is written, nothing audited). */
  | { ok: true; threshold: Threshold; change: null | { fields: MutableField[]; action: string; detail: Record<string, unknown> } };

/**
 * Part 2 PATCH of an existing threshold, in its order after 404: IMMUTABLE_FIELD, VALIDATION_ERROR, then the
 * thresholds:disable permission for switching an active threshold off; else the changed record and its audit entry.
 */
export function decideChange(current: Threshold, body: unknown, by: { memberId: string; canDisable: boolean }, at: string): ThresholdChange {
  const v = validateUpdateThreshold(body, current);
  if (!v.ok) return v;
  if (switchesOff(current, v.changes) && !by.canDisable) return { ok: false, kind: "needs_disable" };
  const fields = changedFields(current, v.changes);
  if (fields.length === 0) return { ok: true, threshold: current, change: null };
  const changes: Record<string, unknown> = {};
  for (const f of fields) if (AUDITED_VALUES.has(f)) changes[f] = { from: current[f], to: v.changes[f] };
  const action = fields.includes("isActive") ? (v.changes.isActive ? "threshold.enabled" : "threshold.disabled") : "threshold.updated";
  const next = { ...current, updatedAt: at, updatedBy: by.memberId } as Threshold;
  for (const f of fields) (next as unknown as Record<string, unknown>)[f] = v.changes[f];
  return { ok: true, threshold: next, change: { fields, action, detail: { countryCode: current.countryCode, type: current.type, fields, changes } } };
}

// ---- which threshold applies ----

export interface Fallback {
  countryCode: string;
  type: ThresholdType;
  name: string;
  thresholdAmount: string;
  thresholdCurrency: string;
  regulation: string;
  regulatoryBody: string;
  effectiveDate: string | null;
  requiresOriginatorAccount: boolean;
}

/**
 * Built-in FATF fallbacks (Part 2: they apply while the company has no active threshold). Only FATF's
 * own figures, for every jurisdiction (`DEFAULT`):
 * - tr: the USD/EUR 1,000 de minimis that FATF Recommendation 16 (as applied to virtual assets by
 *   INR.15 paragraph 7(b)) lets countries adopt; modelled as 1000 USD.
 * - str: Recommendation 20 requires reporting suspicious transactions whatever the amount: 0 USD.
 * Jurisdiction rules (the EU's Transfer of Funds Regulation with no de minimis, FinCEN's USD 3,000...)
 * are the company's to enter as thresholds.
 */
export const FATF_FALLBACKS: readonly Fallback[] = [
  {
    countryCode: "DEFAULT",
    type: "tr",
    name: "FATF Travel Rule de minimis",
    thresholdAmount: "1000",
    thresholdCurrency: "USD",
    regulation: "FATF Recommendation 16 (INR.15 para. 7(b))",
    regulatoryBody: "FATF",
    effectiveDate: null,
    requiresOriginatorAccount: true,
  },
  {
    countryCode: "DEFAULT",
    type: "str",
    name: "FATF suspicious transaction reporting",
    thresholdAmount: "0",
    thresholdCurrency: "USD",
    regulation: "FATF Recommendation 20",
    regulatoryBody: "FATF",
    effectiveDate: null,
    requiresOriginatorAccount: true,
  },
];

export interface CompanyProfile {
  legalName: string | null;
  country: CountryCode | null;
  identifiers: { type: string; value: string }[];
}

export type SelectableThreshold = Pick<
  Threshold,
  "id" | "countryCode" | "type" | "name" | "thresholdAmount" | "thresholdCurrency" | "regulation" | "effectiveDate" | "isActive" | "requiresOriginatorAccount"
>;

export interface ThresholdSelection {
  threshold: {
    /** The company threshold's ID; null for a fallback. */
    id: string | null;
    amount: string;
    currency: string;
    /** The countryCode that matched: the company's country, `EU` or `DEFAULT`. */
    jurisdiction: string;
    regulation: string;
    name: string;
    requiresOriginatorAccount: boolean;
  };
  source: "company" | "fatf_fallback";
}

/** The jurisdictions tried, in order: the company's country, EU for a member state, DEFAULT. */
export function jurisdictionOrder(country: string | null | undefined): string[] {
  const order: string[] = [];
  if (country && isCountryCode(country)) {
    order.push(country);
    if (EU_MEMBERS.has(country)) order.push("EU");
  }
  order.push("DEFAULT");
  return order;
}

/**
 * Which threshold applies to a transfer of the company (README "Which threshold applies"):
 * 1. While the company has no active threshold of either type, only the FATF fallbacks apply (Part 2:
 *    "its first active threshold ends them", read literally: any active threshold).
 * 2. Otherwise its active thresholds of the requested type in force at `now` (effectiveDate null or
 *    not after now), tried in `jurisdictionOrder(profile.country)`: country, EU, DEFAULT.
 * 3. None of those in force: the fallback, so a transfer is never without a threshold.
 */
export function selectThreshold(
  thresholds: readonly SelectableThreshold[],
  profile: Pick<CompanyProfile, "country"> | null | undefined,
  o: { type: ThresholdType; now: number },
): ThresholdSelection {
  const order = jurisdictionOrder(profile?.country);
  if (thresholds.some((t) => t.isActive)) {
    for (const j of order) {
      const t = thresholds.find((x) => x.isActive && x.type === o.type && x.countryCode === j && effectiveFrom(x.effectiveDate) <= o.now);
      if (t)
        return {
          threshold: { id: t.id, amount: t.thresholdAmount, currency: t.thresholdCurrency, jurisdiction: t.countryCode, regulation: t.regulation, name: t.name, requiresOriginatorAccount: t.requiresOriginatorAccount },
          source: "company",
        };
    }
  }
  for (const j of order) {
    const f = FATF_FALLBACKS.find((x) => x.type === o.type && x.countryCode === j && effectiveFrom(x.effectiveDate) <= o.now);
    if (f)
      return {
        threshold: { id: null, amount: f.thresholdAmount, currency: f.thresholdCurrency, jurisdiction: f.countryCode, regulation: f.regulation, name: f.name, requiresOriginatorAccount: f.requiresOriginatorAccount },
        source: "fatf_fallback",
      };
  }
  // FATF_FALLBACKS holds a DEFAULT in force for every type.
  throw new Error(`no fallback threshold for type ${o.type}`);
}

// ---- company profile (legal name, country, identifiers) ----

/** ISO 17442: 18 alphanumerics and 2 check digits; read as a number (A=10 … Z=35) it is 1 mod 97 (ISO 7064 MOD 97-10). */
export function isLei(v: string): boolean {
  if (!/^[0-9A-Z]{18}[0-9]{2}$/.test(v)) return false;
  let rem = 0;
  for (const ch of v) {
    const n = parseInt(ch, 36);
    rem = n > 9 ? (rem * 100 + n) % 97 : (rem * 10 + n) % 97;
  }
  return rem === 1;
}

const IDENTIFIER_TYPE = /^[A-Z][A-Z0-9_-]{0,34}$/;

export interface ProfileChange {
  legalName?: string | null;
  country?: string | null;
  /** Set (or, with an empty value, remove) one identifier per type. */
  identifiers?: { type: string; value: string }[];
}

/**
 * Applies a change to a profile: given fields replace, an empty text clears, identifiers are set per
 * type (type upper-cased; an empty value removes it). The LEI type is checked with ISO 17442.
 */
export function applyProfileChange(current: CompanyProfile | null, change: ProfileChange): { ok: true; profile: CompanyProfile; fields: string[] } | { ok: false; errors: string[] } {
  const p: CompanyProfile = current ? { ...current, identifiers: [...current.identifiers] } : { legalName: null, country: null, identifiers: [] };
  const errors: string[] = [];
  const fields = new Set<string>();
  if (change.legalName !== undefined) {
    const n = change.legalName === null ? "" : change.legalName.trim();
    if (chars(n) > 200) errors.push("legal name must be at most 200 characters");
    p.legalName = n === "" ? null : n;
    fields.add("legalName");
  }
  if (change.country !== undefined) {
    const c = change.country === null ? "" : change.country.trim().toUpperCase();
    if (c !== "" && !isCountryCode(c)) errors.push(`country "${change.country}" is not an ISO 3166-1 alpha-2 code`);
    else p.country = c === "" ? null : (c as CountryCode);
    fields.add("country");
  }
  for (const id of change.identifiers ?? []) {
    const type = id.type.trim().toUpperCase();
    const value = id.value.trim();
    if (!IDENTIFIER_TYPE.test(type)) {
      errors.push(`identifier type "${id.type}" must be a letter then up to 34 letters, digits, _ or -`);
      continue;
    }
    if (chars(value) > 100 || /[\u0000-\u001f\u007f]/.test(value)) {
      errors.push(`identifier ${type} must be at most 100 printable characters`);
      continue;
    }
    const v = type === "LEI" ? value.toUpperCase() : value;
    if (type === "LEI" && v !== "" && !isLei(v)) {
      errors.push(`LEI "${value}" is not valid (ISO 17442: 20 letters and digits with a MOD 97-10 check)`);
      continue;
    }
    p.identifiers = p.identifiers.filter((x) => x.type !== type);
    if (v !== "") p.identifiers.push({ type, value: v });
    fields.add("identifiers");
  }
  p.identifiers.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  if (errors.length) return { ok: false, errors };
  // Only fields whose value really changes are reported (and audited).
  const before: CompanyProfile = current ?? { legalName: null, country: null, identifiers: [] };
  const changed = [...fields].filter((f) => JSON.stringify(before[f as keyof CompanyProfile]) !== JSON.stringify(p[f as keyof CompanyProfile]));
  return { ok: true, profile: p, fields: changed };
}

/** Reads a stored profile defensively: anything unreadable is an empty profile. */
export function parseProfile(json: string | null): CompanyProfile | null {
  if (json === null) return null;
  try {
    const o = JSON.parse(json) as Partial<CompanyProfile> | null;
    if (!o || typeof o !== "object") return null;
    return {
      legalName: typeof o.legalName === "string" ? o.legalName : null,
      country: isCountryCode(o.country) ? o.country : null,
      identifiers: Array.isArray(o.identifiers) ? o.identifiers.filter((i) => i && typeof i.type === "string" && typeof i.value === "string") : [],
    };
  } catch {
    return null;
  }
}
