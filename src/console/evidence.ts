// What a check found, in words: the screened names, the matched watch-list entry and its list, an address's risk score
// and category, and which branch of the matching rule the check's answer meets. Pure functions over API answers.
import Decimal from "decimal.js";
import type { Check, CheckResponse, RuleBranch, RuleDetail, Screening } from "./api.ts";

/** Vendor answers are JSON the contract does not shape: read them field by field, as unknown. */
type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function screenings(r: CheckResponse): Screening[] {
  const s = obj(r)?.screenings;
  return Array.isArray(s) ? (s as Screening[]) : [];
}

/** A name-screening answer (a watch list): the searched term, hit count and hits. */
function nameAnswer(resp: unknown): { term: string | null; total: number; hits: { id: string; name: string; lists: string[]; types: string[]; score: unknown; match: string[] }[] } | null {
  const d = obj(obj(obj(resp)?.content)?.data);
  if (!d || !("search_term" in d || "submitted_term" in d)) return null;
  const hits = list(d.hits).map((h) => {
    const doc = obj(obj(h)?.doc);
    return {
      id: String(doc?.id ?? "?"),
      name: String(doc?.name ?? "?"),
      lists: list(doc?.sources).map(String),
      types: list(doc?.types).map(String),
      score: obj(h)?.score,
      match: list(obj(h)?.match_types).map(String),
    };
  });
  return { term: (d.submitted_term ?? d.search_term ?? null) as string | null, total: Number(d.total_hits ?? hits.length), hits };
}

/** An address-risk answer: the screened address, its score, name and category. */
function addressAnswer(resp: unknown): { address: string | null; score: unknown; name: string | null; category: string | null } | null {
  const c = obj(obj(obj(resp)?.data)?.counterparty);
  if (!c || !("riskscore" in c)) return null;
  const text = (v: unknown): string | null => (v === undefined || v === null ? null : (v as string));
  return { address: text(c.address), score: c.riskscore, name: text(c.name), category: text(c.category) };
}

/** One screened subject's finding in words. */
export function screeningFinding(s: Screening): string {
  const who = s.party ?? "subject";
  if (s.status && s.status !== "success") return `${who}: ${s.kind ?? "screening"} ${s.status}`;
  const n = nameAnswer(s.response);
  if (n) {
    if (n.hits.length === 0 && n.total === 0) return `${who} "${n.term ?? "?"}": no match`;
    const h = n.hits[0];
    const more = n.total > 1 ? ` (+${n.total - 1} more)` : "";
    return h
      ? `${who} "${n.term ?? "?"}": matched ${h.name} (${h.id}) on ${h.lists.join(", ") || "a list"}${h.types.length ? ` [${h.types.join(", ")}]` : ""}${h.match.length ? `, ${h.match.join("/")}` : ""}${h.score != null ? `, score ${h.score}` : ""}${more}`
      : `${who} "${n.term ?? "?"}": ${n.total} hits`;
  }
  const a = addressAnswer(s.response);
  if (a) return `${who} ${a.address ?? "address"}: risk score ${a.score ?? "?"}${a.category ? `, ${a.category}` : ", no category"}${a.name ? ` (${a.name})` : ""}`;
  return `${who}: ${s.kind ?? "screening"} ${s.status ?? "answered"}`;
}

/** The check's header line: vendor, stage, type, status, time; what it found follows one line per subject. */
export function checkHeadline(c: Check): string {
  return `${c.integration ?? c.displayName} ${c.stage ?? ""} ${c.type ?? ""} ${c.status}${c.durationMs != null ? ` ${c.durationMs}ms` : ""}${c.error ? ` (${c.error})` : ""}`.replace(/\s+/g, " ");
}

/** One line per screened subject of the check; null when the response is masked (no pii:view) or absent. */
export function checkFindings(c: Check): string[] | null {
  if (c.response === null || c.response === undefined) return null;
  const s = screenings(c.response);
  return s.map(screeningFinding);
}

/** True when a finding is a hit worth the eye: a watch-list match or a risk score of 0.5 or more (display only). */
export function isHit(s: Screening): boolean {
  const n = nameAnswer(s.response);
  if (n) return n.total > 0;
  const a = addressAnswer(s.response);
  if (a) {
    const d = toDecimal(a.score);
    return d !== null && d.gte(0.5);
  }
  return false;
}

/** The names screened for each party (with pii:view); null per party the answers do not name. */
export function partyNames(checks: { response: CheckResponse }[]): { originator: string | null; beneficiary: string | null } {
  const out: { originator: string | null; beneficiary: string | null } = { originator: null, beneficiary: null };
  for (const c of checks)
    for (const s of screenings(c.response)) {
      const n = nameAnswer(s.response);
      if (n?.term && (s.party === "originator" || s.party === "beneficiary") && out[s.party] === null) out[s.party] = n.term;
    }
  return out;
}

// ---- the rule branch a check's answer meets --------------------------------------------------------------------

function toDecimal(v: unknown): Decimal | null {
  if (typeof v === "number" && Number.isFinite(v)) return new Decimal(v);
  if (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim())) return new Decimal(v.trim());
  return null;
}

/** Values at a dotted path; an array on the way contributes each of its elements. */
export function readPath(root: unknown, path: string): unknown[] {
  let cur: unknown[] = [root];
  for (const key of path.split(".").filter(Boolean)) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (Array.isArray(v)) {
        for (const e of v) if (obj(e) && key in (e as object)) next.push((e as Json)[key]);
      } else if (obj(v) && key in (v as object)) next.push((v as Json)[key]);
    }
    cur = next;
  }
  return cur.flatMap((v) => (Array.isArray(v) ? v : [v]));
}

/** A value against a comparison as the rules define it: decimals as decimals, eq/neq as text in any case, contains as a text search. */
export function compare(actual: unknown, op: string, expected: string): boolean {
  const fold = (x: unknown) => String(x ?? "").toLowerCase();
  if (op === "contains") return fold(actual).includes(fold(expected));
  const a = toDecimal(actual);
  const e = toDecimal(expected);
  if (a && e) {
    const c = a.comparedTo(e);
    return op === "eq" ? c === 0 : op === "neq" ? c !== 0 : op === "gt" ? c > 0 : op === "gte" ? c >= 0 : op === "lt" ? c < 0 : op === "lte" ? c <= 0 : false;
  }
  if (op === "eq") return fold(actual) === fold(expected);
  if (op === "neq") return fold(actual) !== fold(expected);
  return false;
}

export function branchText(b: RuleBranch): string {
  if (b.type === "else") return `else → ${b.action}`;
  const what = b.query ? `${b.integrationName ?? b.integrationId ?? "?"} ${b.query}` : (b.field ?? "?");
  return `${b.type} ${what} ${b.operator} ${b.value}${b.subjectMatch === "all" ? " (all subjects)" : ""} → ${b.action}`;
}

export interface BranchReading {
  index: number;
  branch: RuleBranch;
  /** What the branch read, per screened subject: `beneficiary 1`. */
  read: string[];
  met: boolean;
}

/**
 * Each branch of the rule against the transfer's checks and fields, in order, and the first one met (the one that
 * fired). A `field` branch reads the transfer's own attributes (amount, asset, network, direction).
 */
export function readRule(rule: Pick<RuleDetail, "conditions">, checks: Check[], transfer: Record<string, unknown>): { branches: BranchReading[]; fired: number | null } {
  const branches: BranchReading[] = [];
  let fired: number | null = null;
  for (const [index, b] of (rule.conditions ?? []).entries()) {
    let met = false;
    const read: string[] = [];
    if (b.type === "else") met = true;
    else if (b.query) {
      const check = checks.find((c) => c.integration === b.integrationName || c.id === b.integrationId);
      const subjects = check ? screenings(check.response) : [];
      const results = subjects.map((s) => {
        const vs = readPath(s.response, b.query!);
        read.push(`${s.party ?? "subject"} ${vs.length ? vs.map((v) => JSON.stringify(v)).join(",") : "-"}`);
        return vs.length > 0 && (b.operator === "neq" ? vs.every((v) => compare(v, "neq", b.value ?? "")) : vs.some((v) => compare(v, b.operator ?? "", b.value ?? "")));
      });
      met = results.length > 0 && (b.subjectMatch === "all" ? results.every(Boolean) : results.some(Boolean));
      if (!check) read.push("no such check on this transfer");
      else if (check.status === "error" || check.status === "skipped") read.push("no answer: the check did not run");
      else if (check.response == null) read.push(check.type === "blockchain_analytics" ? "answer not given without pii:view" : "answer masked");
    } else if (b.field) {
      const v = transfer[b.field];
      read.push(`${b.field} ${v === undefined ? "-" : JSON.stringify(v)}`);
      met = v !== undefined && compare(v, b.operator ?? "", b.value ?? "");
    }
    branches.push({ index, branch: b, read, met });
    if (met && fired === null) fired = index;
  }
  return { branches, fired };
}

// ---- could not check ---------------------------------------------------------------------------------------------

/** An error code of a check in words (the code stays beside it). */
const CHECK_ERRORS: Record<string, string> = {
  NETWORK_ERROR: "the vendor could not be reached",
  TIMEOUT: "the vendor did not answer in time",
  CIRCUIT_OPEN: "skipped: the vendor failed repeatedly, calls are paused",
  NOT_CONFIGURED: "no credentials are saved",
  INTEGRATION_DISABLED: "the integration is switched off",
  CREDENTIALS_UNREADABLE: "the saved credentials cannot be read",
  NOT_AVAILABLE: "the integration is not available",
  INVALID_RESPONSE: "the vendor's answer could not be read",
  RESPONSE_TOO_LARGE: "the vendor's answer was too large",
};

export function checkErrorText(c: Pick<Check, "status" | "error">): string {
  const code = c.error ?? (c.status === "skipped" ? "skipped" : "failed");
  const words = CHECK_ERRORS[code] ?? (/^HTTP_\d+$/.test(code) ? `the vendor answered ${code.replace("_", " ")}` : null);
  return words ? `${words} (${code})` : code;
}

/**
 * The checks of the latest screening run that did not complete (error or skipped): non-empty means the transfer was
 * NOT screened by that run, whatever the hold says. A run's checks share their `requestedAt`.
 */
export function unscreenedChecks(checks: readonly Check[]): Check[] {
  if (checks.length === 0) return [];
  const at = (c: Check) => String((c as { requestedAt?: string }).requestedAt ?? "");
  const last = checks.reduce((m, c) => (at(c) > m ? at(c) : m), "");
  return checks.filter((c) => at(c) === last && (c.status === "error" || c.status === "skipped"));
}

/** "screening_c: the vendor could not be reached (NETWORK_ERROR)", for each check that did not run. */
export function unscreenedText(checks: readonly Check[]): string {
  return unscreenedChecks(checks)
    .map((c) => `${c.integration ?? c.displayName}: ${checkErrorText(c)}`)
    .join("; ");
}

// ---- rule branches in words ------------------------------------------------------------------------------------

const OPERATOR_WORDS: Record<string, string> = { gt: "is more than", gte: "is at least", lt: "is less than", lte: "is at most", eq: "is", neq: "is not", contains: "contains" };
const ACTION_WORDS: Record<string, string> = { require_review: "hold for review", block: "block", flag: "flag", approve: "approve" };
const QUERY_WORDS: Record<string, string> = {
  "content.data.total_hits": "the number of watch-list hits",
  "content.data.hits[].doc.types[]": "a watch-list hit's type",
  "content.data.hits.doc.types": "a watch-list hit's type",
  "data.counterparty.riskscore": "the address risk score",
  "data.counterparty.category": "the address risk category",
};
const FIELD_WORDS: Record<string, string> = {
  amountUSD: "the amount in USD",
  amountLocal: "the amount in the local currency",
  amount: "the amount",
  asset: "the asset",
  network: "the network",
  direction: "the direction",
  jurisdiction: "the jurisdiction",
  walletType: "the wallet type",
};

/** An action in words: `hold for review`. */
export const actionWords = (a: string) => ACTION_WORDS[a] ?? a;

/**
 * A branch as a sentence: `if the number of watch-list hits from screening_c is more than 0: hold for review`
 * (the code form is `branchText`).
 */
export function branchWords(b: RuleBranch): string {
  if (b.type === "else") return `otherwise: ${actionWords(b.action)}`;
  const lead = b.type === "if" ? "if" : "else if";
  const what = b.query ? `${QUERY_WORDS[b.query] ?? b.query} from ${b.integrationName ?? b.integrationId ?? "the integration"}` : (FIELD_WORDS[b.field ?? ""] ?? b.field ?? "?");
  const every = b.query && b.subjectMatch === "all" ? " for every subject" : "";
  return `${lead} ${what} ${OPERATOR_WORDS[b.operator ?? ""] ?? b.operator} ${b.value}${every}: ${actionWords(b.action)}`;
}
