// Suspicion reports in the domain's terms: the report record (its content sealed at rest, opened through the port),
// the drafting that prefills a report from its transfer and the company, the reads the API, the CLI and the PDF make,
// and the write of a step the domain decided (src/domain/reports/life.ts). Asynchronous like every port
// (src/ports/store.ts): writes run inside the reports or case actor's unit of work. The SQLite engine's Reports
// (storage's repos/reports.ts) implements it, and the storage contract suite holds every engine to it.
import type { GoamlParty } from "../domain/reports/goaml.ts";
import type { DocumentInput, Valuation } from "../domain/reports/document.ts";
import type { ReportContent, ReportStep, StepRefusal } from "../domain/reports/life.ts";
import type { DeadlineThreshold, DetectionMethod, RegulatoryData, ReportingThreshold, ReportStatus } from "../domain/reports/report.ts";
import type { Environment } from "../domain/types.ts";
import type { AuditActor } from "./audit.ts";

export type { ReportChange, ReportContent, ReportStep } from "../domain/reports/life.ts";

/** Audit entity of reports (Part 2: entity `TransactionReport`). */
export const REPORT_ENTITY = "TransactionReport";

export interface ReportRecord {
  id: string;
  companyId: string;
  environment: Environment;
  kind: string;
  /** The report's place in its company and environment (its number's sequence). */
  seq: number;
  reportNumber: string;
  /** Upper-case ISO 3166-1 alpha-2, or the empty string while no jurisdiction is known. */
  jurisdiction: string;
  transferId: string;
  caseId: string | null;
  status: ReportStatus;
  detectionMethod: string;
  /** `system` or the member ID. */
  generatedBy: string;
  generatedAt: string;
  filingReady: boolean;
  /** Characters of narrative, indicators and fields (the PDF's limit). */
  textLength: number;
  hasCjk: boolean;
  submittedAt: string | null;
  submittedBy: string | null;
  approvedAt: string | null;
  approvedBy: string | null;
  filedAt: string | null;
  filedBy: string | null;
  lastEditedBy: string | null;
  filingReference: string | null;
  /** The content as sealed at rest (opened through `content`). */
  sealed: { narrative: string | null; riskIndicators: string; regulatoryData: string };
  /** Raised by every step: a step names the version it decided on, and a stale one is refused. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface CreateDraftInput {
  id: string;
  companyId: string;
  environment: Environment;
  transferId: string;
  caseId: string | null;
  /** Upper-case ISO 3166-1 alpha-2, or null while no jurisdiction is known. */
  jurisdiction: string | null;
  narrative: string;
  riskIndicators: string[];
  /** `system` or the member ID. */
  generatedBy: "system" | string;
  /** Who the audit entry names (a member through a key or a session); by default the member of `generatedBy`. */
  actor?: AuditActor;
  detectionMethod: DetectionMethod;
  /** Optional regulatory field values; they override what is prefilled from the transfer and company. */
  regulatoryData?: RegulatoryData;
}

export interface ReportListFilter {
  kind?: string;
  status?: ReportStatus;
  jurisdiction?: string;
  transferId?: string;
  /** Lower-cased: matched inside report number, transfer ID or filing reference. */
  search?: string;
  from?: string;
  to?: string;
}

export type DraftRefusal = { code: "TRANSFER_NOT_FOUND" | "INVALID_EDIT"; message: string };
export type DraftDecision = { ok: true; id: string } | { ok: false; refusal: DraftRefusal };

/** How a step of the life was answered (src/domain/reports/life.ts decides it). */
export type StepDecision = { ok: true } | { ok: false; refusal: StepRefusal | { code: "REPORT_NOT_FOUND"; message: string } };

/**
 * A draft decided against the transfer as it is: `apply` writes it (with its audit entry) in the caller's unit of work
 * and gives the record it wrote (undefined when the draft was refused: nothing is written).
 */
export interface PlannedDraft {
  outcome: DraftDecision;
  apply(): Promise<ReportRecord | undefined>;
}

/** The reports actor's answer to a draft: the record it committed, for the caller to present without reading it again. */
export type DraftAnswer = { ok: true; id: string; report: ReportRecord } | { ok: false; refusal: DraftRefusal };

/**
 * The reports actor's answer to a step: the record it committed and, after an edit, the content it sealed (a caller
 * presents both without reading or opening the report again).
 */
export type StepAnswer = { ok: true; report: ReportRecord; content?: ReportContent } | Exclude<StepDecision, { ok: true }>;

export interface ReportMember {
  id: string;
  name: string;
  email: string;
}

export interface GoamlParties {
  direction: "incoming" | "outgoing";
  network: string;
  txHash: string | null;
  subject: GoamlParty;
  counterparty: GoamlParty & { vasp: string | null };
}

export interface ReportRepository {
  /**
   * Drafts a report: numbered (next of the company and environment), prefilled from the transfer and the company
   * profile, sealed, audited (`str.drafted`), in the caller's unit of work.
   */
  createDraft(input: CreateDraftInput, now: number): Promise<ReportRecord>;
  /**
   * A draft by hand for any transfer of the environment, by the member (detection `manual`): the jurisdiction given,
   * else the transfer's threshold's, else the company's, else unknown.
   */
  planDraft(companyId: string, environment: Environment, o: { transferId: string; jurisdiction?: string; memberId: string; actor: AuditActor }, now: number): Promise<PlannedDraft>;
  get(companyId: string, environment: Environment, id: string): Promise<ReportRecord | undefined>;
  /** By report number, in any case. */
  byNumber(companyId: string, environment: Environment, number: string): Promise<ReportRecord | undefined>;
  /** Opens the sealed content (UnreadableError when the key is wrong or a value was tampered with). */
  content(r: ReportRecord): Promise<ReportContent>;
  /** Newest first; keyset on (createdAt, id). */
  page(companyId: string, environment: Environment, f: ReportListFilter, after: [string, string] | null, limit: number): Promise<ReportRecord[]>;
  count(companyId: string, environment: Environment, f: ReportListFilter): Promise<number>;
  /** The members a report names (the name is the email, as everywhere in the API). */
  members(companyId: string, ids: (string | null)[]): Promise<Map<string, ReportMember>>;
  /**
   * Writes the step the domain decided on `r` (src/domain/reports/life.ts), its content sealed, with its audit entry
   * by `actor`; refused when the report is no longer at `r.version`. In the caller's unit of work. Gives the record as
   * written (as `get` reads it once committed).
   */
  saveStep(r: ReportRecord, step: ReportStep, actor: AuditActor, now: number): Promise<ReportRecord>;
  /** The parties of the report's transfer as goAML names them (null when the transfer is gone). */
  goamlParties(r: ReportRecord): Promise<GoamlParties | null>;
  /** What still keeps a report from being filing-ready (from its content, opened once by the caller when given). */
  missing(r: ReportRecord, content?: ReportContent): Promise<{ fields: string[]; narrative: boolean }>;
  /** The transfer's price at creation in fiat (null when it was not priced). */
  valuation(companyId: string, fxRateId: string | null): Promise<Valuation | null>;
  /** Where the transfer stands against the company's `str` threshold of the jurisdiction (null without one). */
  threshold(companyId: string, environment: Environment, transferId: string, jurisdiction: string, thresholds: readonly DeadlineThreshold[]): Promise<ReportingThreshold | null>;
  /** Everything the PDF says about a report beyond its record (null when the transfer is gone); `content` when opened already. */
  documentInput(r: ReportRecord, thresholds: readonly DeadlineThreshold[], now: number, content?: ReportContent): Promise<DocumentInput | null>;
}
