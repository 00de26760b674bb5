// What a report's PDF says, as plain data (no layout, no I/O): built from the report, its type and the deadline;
// the PDF adapter lays it out. Part 2 "Reports" download; layout in docs/reports.md.
import type { FilingDeadline, RegulatoryData, ResolvedReportType } from "./report.ts";

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
  sections: { heading: string; rows: DocumentRow[] }[];
  narrative: string;
  riskIndicators: string[];
  footerNote: string;
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
  transfer: { id: string; state: string; createdAt: string };
  caseId: string | null;
}

const SUBJECT = /^subject/;
const COUNTERPARTY = /^counterparty/;
const INSTITUTION = /^(filingInstitution|contactOfficer)/;
const TRANSFER = new Set(["transactionDate", "amount", "asset", "network", "transactionHash", "direction"]);

/** The document of a report: header facts, then institution, subject, counterparty, transfer and other sections. */
export function reportDocument(i: DocumentInput): ReportDocument {
  const d = i.type.definition;
  const value = (k: string) => i.regulatoryData[k] ?? "";
  const rowsOf = (pick: (k: string) => boolean) => i.type.fields.filter((f) => pick(f.key)).map((f) => ({ label: f.label, value: value(f.key) || "—" }));
  const known = (k: string) => SUBJECT.test(k) || COUNTERPARTY.test(k) || INSTITUTION.test(k) || TRANSFER.has(k);
  const transferRows = [{ label: "Caravan transfer ID", value: i.transfer.id }, { label: "Transfer state", value: i.transfer.state }, ...rowsOf((k) => TRANSFER.has(k))];
  if (i.caseId) transferRows.push({ label: "Case", value: i.caseId });
  const sections = [
    { heading: "Filing institution", rows: rowsOf((k) => INSTITUTION.test(k)) },
    { heading: "Subject", rows: rowsOf((k) => SUBJECT.test(k)) },
    { heading: "Counterparty", rows: rowsOf((k) => COUNTERPARTY.test(k)) },
    { heading: "Transfer", rows: transferRows },
  ];
  const other = rowsOf((k) => !known(k));
  if (other.length) sections.push({ heading: `${d.jurisdiction} report details`, rows: other });
  if (i.filingReference) sections.push({ heading: "Filing", rows: [{ label: "Filing reference", value: i.filingReference }, { label: "Filed at", value: i.filedAt ?? "—" }] });
  return {
    reportNumber: i.reportNumber,
    title: d.label,
    jurisdiction: d.jurisdiction,
    reportTo: d.reportTo ?? "Financial intelligence unit of the jurisdiction",
    filingInstitution: value("filingInstitutionName") || "—",
    deadline: `${i.deadline.deadline.slice(0, 10)} (${i.deadline.daysConfigured} days, ${i.deadline.source === "threshold" ? "company threshold" : "system default"}: ${i.deadline.regulation})`,
    status: i.status,
    generatedAt: i.generatedAt,
    draft: !i.filingReady,
    sections,
    narrative: i.narrative ?? "",
    riskIndicators: i.riskIndicators,
    footerNote: "The SHA-256 of this file is sent with it (x-content-sha256) and recorded in the audit log (str.downloaded).",
  };
}
