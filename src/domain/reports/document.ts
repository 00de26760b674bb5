// What a report's PDF says, as plain data (no layout, no I/O): built from the report, its type, the deadline, the
// transfer's valuation, the identities' names and the case; the PDF adapter lays it out. Layout in docs/reports.md.
import { describeIndicator } from "./indicators.ts";
import { missingForFiling, missingLabels, NARRATIVE_PLACEHOLDER, type FilingDeadline, type RegulatoryData, type ReportingThreshold, type ResolvedReportType } from "./report.ts";

export interface DocumentRow {
  label: string;
  value: string;
}

export interface ReportDocument {
  reportNumber: string;
  title: string;
  jurisdiction: string;
  reportTo: string;
  filingInstitution: string;
  deadline: string;
  status: string;
  generatedAt: string;
  /** Not filing-ready: a DRAFT watermark on every page. */
  draft: boolean;
  /** On a draft: what keeps it from being filed, in words (empty once ready). */
  missing: string[];
  sections: { heading: string; rows: DocumentRow[] }[];
  narrative: string;
  /** The narrative still carries the drafting placeholder: printed as a marked notice, not as the officer's text. */
  narrativeIsPlaceholder: boolean;
  riskIndicators: string[];
  footerNote: string;
}

export interface Valuation {
  value: string;
  currency: string;
  rate: string;
  source: string;
  rateAsOf: string;
}

export interface DocumentInput {
  type: ResolvedReportType;
  reportNumber: string;
  status: string;
  generatedAt: string;
  filingReady: boolean;
  filingReference: string | null;
  filedAt: string | null;
  deadline: FilingDeadline;
  narrative: string | null;
  riskIndicators: string[];
  regulatoryData: RegulatoryData;
  transfer: { id: string; state: string; createdAt: string; amount?: string; asset?: string; assetId?: string };
  /** The case's number (`CASE-2026-000012`), never its internal ID. */
  caseNumber: string | null;
  valuation?: Valuation | null;
  /**
   * The amount in the jurisdiction's reporting currency when the threshold decision priced it in another one: a rate
   * asked for when the PDF is made (its source and time printed), or why none could be had.
   */
  localValuation?: Valuation | { currency: string; unavailable: string } | null;
  reportingThreshold?: ReportingThreshold | null;
  /** Names as the identities give them (identityNameLines): the subject's and the counterparty's. */
  subjectNames?: string[];
  counterpartyNames?: string[];
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** `2026-11-27T10:42:38.123Z` → `27 November 2026, 10:42:38 UTC`; a day alone → `27 November 2026`; anything else as is. */
export function humanTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const d = new Date(ms);
  const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return day;
  const t = d.toISOString().slice(11, 19);
  return `${day}, ${t} UTC`;
}

/** `1250.5 USDC`, `1170.33 EUR at 0.93587 EUR per USDC (source, rate of …)`. */
function valueText(v: Valuation, asset: string | undefined): string {
  return `${v.value} ${v.currency} at ${v.rate} ${v.currency} per ${asset ?? "unit"} (${v.source}, rate of ${humanTime(v.rateAsOf)})`;
}

/**
 * The deadline as the law states it, to the FIU: a rule without a number of days ("without delay") is printed as the
 * rule, with Caravan's internal target date beside it, never as "3 days"; a rule with days, or the company's own
 * threshold, gives the date. `2026-12-04`, 3 days, `GwG § 43: without delay (unverzüglich)` →
 * `Without delay under GwG § 43 (unverzüglich), to Financial Intelligence Unit (FIU, …); Caravan's target: 4 December 2026 (3 days after drafting)`.
 */
export function deadlineText(dl: FilingDeadline, reportTo: string | null): string {
  const date = humanTime(dl.deadline.slice(0, 10));
  const to = reportTo ? `, to ${reportTo}` : "";
  const [law, rule] = dl.regulation.includes(": ") ? [dl.regulation.slice(0, dl.regulation.indexOf(": ")), dl.regulation.slice(dl.regulation.indexOf(": ") + 2)] : [dl.regulation, ""];
  if (dl.source === "threshold") return `${date} (${dl.daysConfigured} days after drafting, the company's threshold under ${dl.regulation})${to}`;
  if (rule && !/\d+\s+(calendar |working |business )?days?/.test(rule)) {
    const words = rule.charAt(0).toUpperCase() + rule.slice(1);
    return `${words} under ${law}${to}; Caravan's target: ${date} (${dl.daysConfigured} days after drafting)`;
  }
  return `${date} (${dl.daysConfigured} days after drafting, ${dl.regulation})${to}`;
}

function thresholdText(r: ReportingThreshold): string {
  const limit = `${r.thresholdAmount} ${r.thresholdCurrency} (${r.countryCode} suspicious transaction reporting threshold)`;
  if (r.reached === true) return `${limit}: reached by ${r.value} ${r.thresholdCurrency}`;
  if (r.reached === false) return `${limit}: not reached (${r.value} ${r.thresholdCurrency}); reported on the officer's suspicion`;
  return `${limit}: not compared (the transfer was priced in another currency)`;
}

const SUBJECT = /^subject/;
const COUNTERPARTY = /^counterparty/;
const INSTITUTION = /^(filingInstitution|contactOfficer)/;
const TRANSFER = new Set(["transactionDate", "amount", "asset", "network", "transactionHash", "direction"]);
const DATES = new Set(["transactionDate", "activityStartDate", "activityEndDate", "subjectDateOfBirth"]);

/** The document of a report: header facts, then institution, subject, counterparty, transfer and other sections. */
export function reportDocument(i: DocumentInput): ReportDocument {
  const d = i.type.definition;
  const value = (k: string) => i.regulatoryData[k] ?? "";
  const shown = (k: string) => (DATES.has(k) && /^\d{4}-\d{2}-\d{2}$/.test(value(k)) ? humanTime(value(k)) : value(k));
  const rowsOf = (pick: (k: string) => boolean) => i.type.fields.filter((f) => pick(f.key)).map((f) => ({ label: f.label, value: shown(f.key) || "—" }));
  const known = (k: string) => SUBJECT.test(k) || COUNTERPARTY.test(k) || INSTITUTION.test(k) || TRANSFER.has(k);
  const transferRows = [{ label: "Caravan transfer ID", value: i.transfer.id }, { label: "Transfer state", value: i.transfer.state }, ...rowsOf((k) => TRANSFER.has(k))];
  const asset = i.transfer.asset ?? (value("asset") || undefined);
  const local = i.localValuation;
  if (local && "unavailable" in local) transferRows.push({ label: `Value in ${local.currency}`, value: `no ${local.currency} rate could be had (${local.unavailable})` });
  else if (local) transferRows.push({ label: "Value in fiat", value: valueText(local, asset) });
  if (i.valuation) transferRows.push({ label: local ? "Value at the threshold decision" : "Value in fiat", value: valueText(i.valuation, asset) });
  if (i.reportingThreshold) transferRows.push({ label: "Reporting threshold", value: thresholdText(i.reportingThreshold) });
  transferRows.push({ label: "Transfer created", value: humanTime(i.transfer.createdAt) });
  if (i.caseNumber) transferRows.push({ label: "Case number", value: i.caseNumber });
  const names = (label: string, lines: string[] | undefined) => (lines?.length ? lines.map((l, n) => ({ label: n === 0 ? label : "", value: l })) : []);
  const sections = [
    { heading: "Filing institution", rows: rowsOf((k) => INSTITUTION.test(k)) },
    { heading: "Subject", rows: [...rowsOf((k) => SUBJECT.test(k)), ...names("Names in the identity", i.subjectNames)] },
    { heading: "Counterparty", rows: [...rowsOf((k) => COUNTERPARTY.test(k)), ...names("Names in the identity", i.counterpartyNames)] },
    { heading: "Transfer", rows: transferRows },
  ];
  const other = rowsOf((k) => !known(k));
  if (other.length) sections.push({ heading: `${d.jurisdiction} report details`, rows: other });
  if (i.filingReference) sections.push({ heading: "Filing", rows: [{ label: "Filing reference", value: i.filingReference }, { label: "Filed at", value: humanTime(i.filedAt) }] });
  const narrative = i.narrative ?? "";
  return {
    reportNumber: i.reportNumber,
    title: d.label,
    jurisdiction: d.jurisdiction || "Not set: the officer sets the jurisdiction before filing",
    reportTo: d.reportTo ?? "Financial intelligence unit of the jurisdiction",
    filingInstitution: value("filingInstitutionName") || "—",
    deadline: deadlineText(i.deadline, d.reportTo),
    status: i.status,
    generatedAt: humanTime(i.generatedAt),
    draft: !i.filingReady,
    missing: i.filingReady ? [] : missingLabels(i.type, missingForFiling(i.type, i.narrative, i.regulatoryData)),
    sections,
    narrative,
    narrativeIsPlaceholder: narrative.includes(NARRATIVE_PLACEHOLDER),
    riskIndicators: i.riskIndicators.map(describeIndicator),
    footerNote: `${i.reportNumber} · ${d.label}${d.reportTo ? ` · for ${d.reportTo}` : ""}`,
  };
}
