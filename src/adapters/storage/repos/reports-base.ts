// The reports repository's engine-neutral part (src/ports/reports.ts), written once for every engine: the record as a
// reports row maps it, the content sealed before it is written and opened after it is read, a draft (numbered,
// prefilled from the transfer and the company profile, audited), a draft by hand's decision, a step's write, and the
// reads composed for goAML and the PDF. Each engine extends it with its statements, in its own SQL: SQLite's Reports
// (./reports.ts) and PostgreSQL's PgReports (../postgres/repos/reports.ts). Nothing here names an engine.
import type { GoamlParty } from "../../../domain/reports/goaml.ts";
import { iso, newId } from "../../../domain/ids.ts";
import type { Person } from "../../../domain/ivms101/types.ts";
import { humanTime, type DocumentInput, type Valuation } from "../../../domain/reports/document.ts";
import { identityNameLines, reportNames } from "../../../domain/reports/names.ts";
import { contentFacts, type ReportContent, type ReportStep } from "../../../domain/reports/life.ts";
import {
  deadlineRule,
  filingDeadline,
  NARRATIVE_PLACEHOLDER,
  normaliseJurisdiction,
  reportingThreshold,
  reportJurisdiction,
  UNKNOWN_JURISDICTION,
  type DeadlineThreshold,
  type ReportingThreshold,
  missingForFiling,
  reportNumber,
  resolveReportType,
  type RegulatoryData,
  type ReportStatus,
} from "../../../domain/reports/report.ts";
import type { CompanyProfile } from "../../../domain/thresholds.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Sealer } from "../../crypto/envelope.ts";
import type { SqlValue } from "../types.ts";
import type { RowOf } from "./row.ts";
import type { reports as reportsTable } from "../../../../db/schema/reports.ts";
import type { AuditActor, AuditEntryInput } from "../../../ports/audit.ts";
import {
  REPORT_ENTITY,
  type CreateDraftInput,
  type DraftDecision,
  type GoamlParties,
  type PlannedDraft,
  type ReportListFilter,
  type ReportMember,
  type ReportRecord,
  type ReportRepository,
} from "../../../ports/reports.ts";

export function newReportId(now: number = Date.now()): string {
  return newId("rpt", now);
}

export type ReportRow = RowOf<typeof reportsTable>;

export const toReport = (r: ReportRow): ReportRecord => ({
  id: r.id,
  companyId: r.company_id,
  environment: r.environment as Environment,
  kind: r.kind,
  seq: r.seq,
  reportNumber: r.report_number,
  jurisdiction: r.jurisdiction,
  transferId: r.transfer_id,
  caseId: r.case_id,
  status: r.status as ReportStatus,
  detectionMethod: r.detection_method,
  generatedBy: r.generated_by,
  generatedAt: r.generated_at,
  filingReady: r.filing_ready === 1,
  textLength: r.text_length,
  hasCjk: r.has_cjk === 1,
  submittedAt: r.submitted_at,
  submittedBy: r.submitted_by,
  approvedAt: r.approved_at,
  approvedBy: r.approved_by,
  filedAt: r.filed_at,
  filedBy: r.filed_by,
  lastEditedBy: r.last_edited_by,
  filingReference: r.filing_reference,
  sealed: { narrative: r.narrative_sealed, riskIndicators: r.risk_indicators_sealed, regulatoryData: r.regulatory_data_sealed },
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A step's fields as columns (the search forms kept beside the values they fold). */
function stepColumns(set: ReportStep["set"]): Record<string, SqlValue> {
  const out: Record<string, SqlValue> = { status: set.status, updated_at: set.updatedAt };
  const put = (col: string, v: SqlValue | boolean | undefined) => {
    if (v !== undefined) out[col] = typeof v === "boolean" ? (v ? 1 : 0) : v;
  };
  put("filing_ready", set.filingReady);
  put("text_length", set.textLength);
  put("has_cjk", set.hasCjk);
  put("jurisdiction", set.jurisdiction);
  put("submitted_at", set.submittedAt);
  put("submitted_by", set.submittedBy);
  put("approved_at", set.approvedAt);
  put("approved_by", set.approvedBy);
  put("filed_at", set.filedAt);
  put("filed_by", set.filedBy);
  if (set.filingReference !== undefined) (out.filing_reference = set.filingReference), (out.filing_reference_search = set.filingReference.toLowerCase());
  put("last_edited_by", set.lastEditedBy);
  return out;
}

/** The transfer columns a report reads (drafting, goAML, the PDF): one statement per engine reads them all. */
export const TRANSFER_FACT_COLUMNS =
  "id, direction, state, amount, asset, asset_id, network, tx_hash, created_at, threshold_info, fx_rate_id, originator_address, beneficiary_address, originator_customer_id, beneficiary_customer_id, originator_sealed, beneficiary_sealed, originator_vasp_name, beneficiary_vasp_name";

export interface TransferFacts {
  id: string;
  direction: string;
  state: string;
  amount: string;
  asset: string;
  asset_id: string | null;
  network: string;
  tx_hash: string | null;
  created_at: string;
  threshold_info: string | null;
  fx_rate_id: string | null;
  originator_address: string | null;
  beneficiary_address: string | null;
  originator_customer_id: string | null;
  beneficiary_customer_id: string | null;
  originator_sealed: string | null;
  beneficiary_sealed: string | null;
  originator_vasp_name: string | null;
  beneficiary_vasp_name: string | null;
}

/** The company as a report reads it: its name and profile (null until set). */
export interface CompanyFacts {
  name: string;
  profile: CompanyProfile | null;
}

/** A fx_valuations row as a report reads it. */
export interface ValuationRow {
  value: string;
  currency: string;
  rate: string;
  source: string;
  rate_as_of: string;
}

/** How a list filter reads in an engine's SQL: its parameter marks, and a substring test. */
export interface FilterDialect {
  /** The mark of the n-th parameter (from 1): `?` or `$n`. */
  param(n: number): string;
  /** Whether `needle` (a parameter mark) occurs in `haystack` (an expression). */
  contains(haystack: string, needle: string): string;
}

/** A list filter as a WHERE clause and its parameters. */
export function reportWhere(companyId: string, env: Environment, f: ReportListFilter, d: FilterDialect): { sql: string; args: SqlValue[] } {
  const args: SqlValue[] = [];
  const p = (v: SqlValue) => (args.push(v), d.param(args.length));
  const parts = [`company_id = ${p(companyId)}`, `environment = ${p(env)}`];
  if (f.kind) parts.push(`kind = ${p(f.kind)}`);
  if (f.status) parts.push(`status = ${p(f.status)}`);
  if (f.jurisdiction !== undefined) parts.push(`jurisdiction = ${p(f.jurisdiction)}`);
  if (f.transferId) parts.push(`transfer_id = ${p(f.transferId)}`);
  if (f.from) parts.push(`created_at >= ${p(f.from)}`);
  if (f.to) parts.push(`created_at < ${p(f.to)}`);
  if (f.search !== undefined) {
    const s = f.search;
    parts.push(`(${d.contains("report_number_search", p(s))} OR ${d.contains("lower(transfer_id)", p(s))} OR ${d.contains("coalesce(filing_reference_search, '')", p(s))})`);
  }
  return { sql: parts.join(" AND "), args };
}

const aad = (id: string, field: string) => `report:${id}:${field}`;

type SealedColumns = Pick<ReportRow, "narrative_sealed" | "risk_indicators_sealed" | "regulatory_data_sealed">;

/**
 * The reports port over an engine's statements. Every write runs in the caller's unit of work (an actor's write, or
 * the caller's transaction): a draft and a step each write their row and their audit entry there.
 */
export abstract class ReportsBase implements ReportRepository {
  constructor(protected readonly pii: Sealer) {}

  // ---- the engine's statements ----

  abstract get(companyId: string, env: Environment, id: string): Promise<ReportRecord | undefined>;
  abstract byNumber(companyId: string, env: Environment, number: string): Promise<ReportRecord | undefined>;
  abstract page(companyId: string, env: Environment, f: ReportListFilter, after: [string, string] | null, limit: number): Promise<ReportRecord[]>;
  abstract count(companyId: string, env: Environment, f: ReportListFilter): Promise<number>;
  abstract members(companyId: string, ids: (string | null)[]): Promise<Map<string, ReportMember>>;
  /** The next report sequence of the company and environment. */
  protected abstract nextSeq(companyId: string, env: Environment): Promise<number>;
  protected abstract insertRow(row: ReportRow): Promise<void>;
  /** Sets the columns and raises the version where the report is still at `version`: the rows changed. */
  protected abstract updateRow(id: string, version: number, set: Record<string, SqlValue>): Promise<number>;
  protected abstract appendAudit(e: AuditEntryInput, now: number): Promise<void>;
  /** The transfer's TRANSFER_FACT_COLUMNS in the company and environment. */
  protected abstract transferFacts(companyId: string, env: Environment, id: string): Promise<TransferFacts | undefined>;
  /** The company's own reference for the customer (its `external_id`). */
  protected abstract customerExternalId(companyId: string, customerId: string): Promise<string | null | undefined>;
  protected abstract companyFacts(companyId: string): Promise<CompanyFacts | undefined>;
  protected abstract valuationRow(companyId: string, fxRateId: string): Promise<ValuationRow | undefined>;
  protected abstract caseNumber(companyId: string, caseId: string): Promise<string | undefined>;

  // ---- the port, once ----

  /**
   * Drafts a report: numbered (next of the company and environment), prefilled from the transfer and the company
   * profile, sealed, audited (`str.drafted`). Without its own transaction: call it inside the caller's unit of work.
   */
  async createDraft(input: CreateDraftInput, nowMs: number): Promise<ReportRecord> {
    const jurisdiction = input.jurisdiction ?? UNKNOWN_JURISDICTION;
    const type = resolveReportType(jurisdiction);
    const seq = await this.nextSeq(input.companyId, input.environment);
    const number = reportNumber(type.definition.abbreviation, input.environment, seq, nowMs);
    const data: RegulatoryData = { ...(await this.prefill(input)), ...(input.regulatoryData ?? {}) };
    for (const k of Object.keys(data)) if (!data[k]) delete data[k];
    const at = iso(nowMs);
    const content: ReportContent = { narrative: input.narrative || null, riskIndicators: input.riskIndicators, regulatoryData: data };
    const f = contentFacts(jurisdiction, content);
    const row: ReportRow = {
      id: input.id,
      company_id: input.companyId,
      environment: input.environment,
      kind: "suspicion",
      seq,
      report_number: number,
      report_number_search: number.toLowerCase(),
      jurisdiction,
      transfer_id: input.transferId,
      case_id: input.caseId,
      status: "draft",
      detection_method: input.detectionMethod,
      generated_by: input.generatedBy,
      generated_at: at,
      ...this.seal(input.id, content),
      filing_ready: f.filingReady ? 1 : 0,
      text_length: f.textLength,
      has_cjk: f.hasCjk ? 1 : 0,
      submitted_at: null,
      submitted_by: null,
      approved_at: null,
      approved_by: null,
      filed_at: null,
      filed_by: null,
      last_edited_by: null,
      filing_reference: null,
      filing_reference_search: null,
      version: 1,
      created_at: at,
      updated_at: at,
    };
    await this.insertRow(row);
    await this.appendAudit(
      {
        companyId: input.companyId,
        environment: input.environment,
        actor: input.actor ?? (input.generatedBy === "system" ? { type: "system" } : { type: "member", memberId: input.generatedBy }),
        action: "str.drafted",
        entityType: REPORT_ENTITY,
        entityId: input.id,
        detail: { reportNumber: number, jurisdiction: input.jurisdiction, transferId: input.transferId, caseId: input.caseId, detectionMethod: input.detectionMethod, filingReady: row.filing_ready === 1 },
      },
      nowMs,
    );
    return toReport(row);
  }

  /** Opens the sealed content (rejects with UnreadableError when the key is wrong or a value was tampered with). */
  content(r: ReportRecord): Promise<ReportContent> {
    try {
      return Promise.resolve(this.open(r));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private open(r: ReportRecord): ReportContent {
    return {
      narrative: r.sealed.narrative === null ? null : this.pii.open(r.sealed.narrative, aad(r.id, "narrative")),
      riskIndicators: this.pii.openJson<string[]>(r.sealed.riskIndicators, aad(r.id, "risk_indicators")),
      regulatoryData: this.pii.openJson<RegulatoryData>(r.sealed.regulatoryData, aad(r.id, "regulatory_data")),
    };
  }

  async saveStep(r: ReportRecord, step: ReportStep, actor: AuditActor, now: number): Promise<ReportRecord> {
    const set = stepColumns(step.set);
    const sealed = step.content ? this.seal(r.id, step.content) : undefined;
    if (sealed) Object.assign(set, sealed);
    if ((await this.updateRow(r.id, r.version, set)) !== 1) throw new Error(`report ${r.id} changed concurrently`);
    await this.appendAudit({ companyId: r.companyId, environment: r.environment, actor, action: step.audit.action, entityType: REPORT_ENTITY, entityId: r.id, detail: step.audit.detail }, now);
    const fields = Object.fromEntries(Object.entries(step.set).filter(([, v]) => v !== undefined));
    return {
      ...r,
      ...fields,
      ...(sealed ? { sealed: { narrative: sealed.narrative_sealed, riskIndicators: sealed.risk_indicators_sealed, regulatoryData: sealed.regulatory_data_sealed } } : {}),
      version: r.version + 1,
    };
  }

  /**
   * The subject's customer reference as the FIU reads it: the company's own reference for the customer (its
   * `externalId`), never Caravan's internal `cus_…` ID; with no reference recorded, empty (the officer completes it).
   */
  private async customerReference(companyId: string, customerId: string | null): Promise<string> {
    if (!customerId) return "";
    return (await this.customerExternalId(companyId, customerId)) ?? "";
  }

  /**
   * The parties of a report's transfer as goAML names them: our customer (the subject) and the counterparty, each
   * from the first person of its side (natural: given and family name; legal: its name), with wallet and VASP.
   */
  async goamlParties(r: ReportRecord): Promise<GoamlParties | null> {
    const t = await this.transferFacts(r.companyId, r.environment, r.transferId);
    if (!t) return null;
    const outgoing = t.direction === "outgoing";
    const [mine, theirs] = outgoing ? (["originator", "beneficiary"] as const) : (["beneficiary", "originator"] as const);
    const first = (side: "originator" | "beneficiary"): GoamlParty => {
      const p = this.persons(t, side)?.[0];
      const wallet = t[`${side}_address`] ?? null;
      if (p?.naturalPerson) {
        const n = p.naturalPerson.name?.nameIdentifier?.[0];
        return { given: n?.secondaryIdentifier ?? null, family: n?.primaryIdentifier ?? null, legalName: null, country: p.naturalPerson.countryOfResidence ?? null, walletAddress: wallet };
      }
      if (p?.legalPerson) return { given: null, family: null, legalName: p.legalPerson.name?.nameIdentifier?.[0]?.legalPersonName ?? null, country: p.legalPerson.countryOfRegistration ?? null, walletAddress: wallet };
      return { given: null, family: null, legalName: null, country: null, walletAddress: wallet };
    };
    return {
      direction: outgoing ? "outgoing" : "incoming",
      network: t.network ?? "",
      txHash: t.tx_hash ?? null,
      subject: first(mine),
      counterparty: { ...first(theirs), vasp: t[`${theirs}_vasp_name`] ?? null },
    };
  }

  /** What still keeps a report from being filing-ready. */
  missing(r: ReportRecord, content?: ReportContent): Promise<{ fields: string[]; narrative: boolean }> {
    try {
      const c = content ?? this.open(r);
      return Promise.resolve(missingForFiling(resolveReportType(r.jurisdiction), c.narrative, c.regulatoryData));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The transfer's price at creation in fiat: value, currency, rate, source and the rate's time (null when it was not priced). */
  async valuation(companyId: string, fxRateId: string | null): Promise<Valuation | null> {
    if (!fxRateId) return null;
    const v = await this.valuationRow(companyId, fxRateId);
    return v ? { value: v.value, currency: v.currency, rate: v.rate, source: v.source, rateAsOf: v.rate_as_of } : null;
  }

  /** Where the transfer stands against the company's `str` threshold of the jurisdiction (null without one). */
  async threshold(companyId: string, env: Environment, transferId: string, jurisdiction: string, thresholds: readonly DeadlineThreshold[]): Promise<ReportingThreshold | null> {
    const t = await this.transferFacts(companyId, env, transferId);
    const v = t ? await this.valuation(companyId, t.fx_rate_id) : null;
    return reportingThreshold(resolveReportType(jurisdiction), thresholds, v ? { value: v.value, currency: v.currency } : null);
  }

  /** The persons of one side of a transfer, opened (null when absent or unreadable: the officer completes the report). */
  private persons(t: Pick<TransferFacts, "id" | "originator_sealed" | "beneficiary_sealed">, side: "originator" | "beneficiary"): Person[] | null {
    const sealed = side === "originator" ? t.originator_sealed : t.beneficiary_sealed;
    if (!sealed) return null;
    try {
      return JSON.parse(this.pii.open(sealed, `transfer:${t.id}:${side}`)) as Person[];
    } catch {
      return null;
    }
  }

  /**
   * Drafts a report by hand for any transfer of the environment (any state, either direction, whichever provider carried
   * it): the same drafting and `str.drafted` audit as a case's, by the member, detection `manual`, in one transaction.
   * The jurisdiction is the one given, else the transfer's threshold's, else the company's, else unknown.
   */
  async planDraft(companyId: string, env: Environment, o: { transferId: string; jurisdiction?: string; memberId: string; actor: AuditActor }, now: number): Promise<PlannedDraft> {
    const none = async () => undefined;
    const refused = (outcome: Extract<DraftDecision, { ok: false }>): PlannedDraft => ({ outcome, apply: none });
    const t = await this.transferFacts(companyId, env, o.transferId);
    if (!t) return refused({ ok: false, refusal: { code: "TRANSFER_NOT_FOUND", message: `no transfer ${o.transferId} in the ${env} environment` } });
    let jurisdiction: string | null;
    if (o.jurisdiction !== undefined) {
      jurisdiction = normaliseJurisdiction(o.jurisdiction);
      if (!jurisdiction)
        return refused({ ok: false, refusal: { code: "INVALID_EDIT", message: "jurisdiction must be an ISO 3166-1 alpha-2 country code (UK for GB; EU is not a jurisdiction)" } });
    } else jurisdiction = reportJurisdiction(t.threshold_info, (await this.companyFacts(companyId))?.profile?.country ?? null);
    const id = newReportId(now);
    const facts = `Transfer ${t.id}: ${t.direction}, ${t.amount} ${t.asset} on ${t.network}, created ${humanTime(t.created_at)}, now ${t.state}. Drafted by hand by an officer.`;
    const input: CreateDraftInput = {
      id,
      companyId,
      environment: env,
      transferId: t.id,
      caseId: null,
      jurisdiction,
      narrative: `${NARRATIVE_PLACEHOLDER}\n\nWhat Caravan recorded:\n${facts}`,
      riskIndicators: ["drafted_by_hand"],
      generatedBy: o.memberId,
      actor: o.actor,
      detectionMethod: "manual",
    };
    return { outcome: { ok: true, id }, apply: () => this.createDraft(input, now) };
  }

  /**
   * Everything the PDF says about a report beyond its own row: the case number, the transfer's fiat value and rate, the
   * reporting threshold and the names as the identities give them.
   */
  async documentInput(r: ReportRecord, thresholds: readonly DeadlineThreshold[], now: number, content?: ReportContent): Promise<DocumentInput | null> {
    const t = await this.transferFacts(r.companyId, r.environment, r.transferId);
    if (!t) return null;
    const type = resolveReportType(r.jurisdiction);
    const c = content ?? this.open(r);
    const caseNumber = r.caseId ? await this.caseNumber(r.companyId, r.caseId) : undefined;
    const valuation = await this.valuation(r.companyId, t.fx_rate_id);
    const outgoing = t.direction === "outgoing";
    const subject = this.persons(t, outgoing ? "originator" : "beneficiary");
    const other = this.persons(t, outgoing ? "beneficiary" : "originator");
    const ref = c.regulatoryData.subjectCustomerId ?? "";
    return {
      type,
      reportNumber: r.reportNumber,
      status: r.status,
      generatedAt: r.generatedAt,
      filingReady: r.filingReady,
      filingReference: r.filingReference,
      filedAt: r.filedAt,
      deadline: filingDeadline(r.generatedAt, r.status, deadlineRule(type, thresholds), now),
      narrative: c.narrative,
      riskIndicators: c.riskIndicators,
      // A report drafted before the customer's own reference was used may hold Caravan's cus_… ID: printed as the reference.
      regulatoryData: /^cus_[0-9a-z]{26}$/.test(ref) ? { ...c.regulatoryData, subjectCustomerId: await this.customerReference(r.companyId, ref) } : c.regulatoryData,
      transfer: { id: t.id, state: t.state, createdAt: t.created_at, amount: t.amount, asset: t.asset, assetId: t.asset_id ?? undefined },
      caseNumber: caseNumber ?? null,
      valuation,
      reportingThreshold: reportingThreshold(type, thresholds, valuation ? { value: valuation.value, currency: valuation.currency } : null),
      subjectNames: subject ? identityNameLines(subject) : [],
      counterpartyNames: other ? identityNameLines(other) : [],
    };
  }

  /** The content sealed, bound to the report and field: what is written, never the clear text. */
  private seal(id: string, c: ReportContent): SealedColumns {
    return {
      narrative_sealed: c.narrative === null ? null : this.pii.seal(c.narrative, aad(id, "narrative")),
      risk_indicators_sealed: this.pii.sealJson(c.riskIndicators, aad(id, "risk_indicators")),
      regulatory_data_sealed: this.pii.sealJson(c.regulatoryData, aad(id, "regulatory_data")),
    };
  }

  /**
   * Regulatory data known at drafting: the filing institution from the company profile, the subject (our
   * customer: originator of an outgoing transfer, beneficiary of an incoming one) and counterparty from
   * the transfer. Unreadable or absent data is left for the officer to complete.
   */
  private async prefill(input: CreateDraftInput): Promise<RegulatoryData> {
    const out: RegulatoryData = {};
    const company = await this.companyFacts(input.companyId);
    const profile = company?.profile;
    out.filingInstitutionName = profile?.legalName ?? company?.name ?? "";
    out.filingInstitutionCountry = profile?.country ?? "";
    const lei = profile?.identifiers.find((i) => i.type === "LEI") ?? profile?.identifiers[0];
    if (lei) out.filingInstitutionIdentifier = `${lei.type} ${lei.value}`;
    const t = await this.transferFacts(input.companyId, input.environment, input.transferId);
    if (!t) return out;
    const names = (field: "originator" | "beneficiary"): string => {
      const persons = this.persons(t, field);
      return persons ? reportNames(persons) : "";
    };
    const outgoing = t.direction === "outgoing";
    const [subject, other] = outgoing ? (["originator", "beneficiary"] as const) : (["beneficiary", "originator"] as const);
    out.subjectName = names(subject);
    out.subjectWalletAddress = t[`${subject}_address`] ?? "";
    out.subjectCustomerId = await this.customerReference(input.companyId, t[`${subject}_customer_id`] ?? null);
    out.counterpartyName = names(other);
    out.counterpartyWalletAddress = t[`${other}_address`] ?? "";
    out.counterpartyVasp = (outgoing ? t.beneficiary_vasp_name : t.originator_vasp_name) ?? "";
    out.transactionDate = (t.created_at ?? "").slice(0, 10);
    out.amount = t.amount ?? "";
    out.asset = t.asset ?? "";
    out.network = t.network ?? "";
    out.transactionHash = t.tx_hash ?? "";
    out.direction = t.direction ?? "";
    return out;
  }
}
