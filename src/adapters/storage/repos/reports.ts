// Suspicion report rows: drafting (inside the caller's transaction), reads for the API, and the audited life
// draft → pending_review → submitted → filed. Narrative, risk indicators and regulatory data are sealed.
import type { GoamlParty } from "../../../domain/reports/goaml.ts";
import { iso, newId } from "../../../domain/ids.ts";
import type { Person } from "../../../domain/ivms101/types.ts";
import { humanTime, type DocumentInput, type Valuation } from "../../../domain/reports/document.ts";
import { identityNameLines, reportNames } from "../../../domain/reports/names.ts";
import { contentFacts, type ContentFacts, type ReportContent, type ReportStep } from "../../../domain/reports/life.ts";
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
import type { Environment } from "../../../domain/types.ts";
import type { Sealer } from "../../crypto/envelope.ts";
import { memberSummaries } from "./tenancy.ts";
import type { Storage, SqlValue } from "../types.ts";
import { AuditLog, type AuditActor } from "./audit.ts";
import { newestFirst } from "./keyset.ts";
import { companyProfile } from "./thresholds.ts";
import type { RowOf } from "./row.ts";
import type { reports as reportsTable } from "../../../../db/schema/reports.ts";
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

export { REPORT_ENTITY };
export type { CreateDraftInput, DraftDecision, ReportChange, ReportContent, ReportListFilter, ReportRecord, ReportRepository, StepDecision } from "../../../ports/reports.ts";

export function newReportId(now: number = Date.now()): string {
  return newId("rpt", now);
}

type ReportRow = RowOf<typeof reportsTable>;

const toReport = (r: ReportRow): ReportRecord => ({
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

interface TransferFacts {
  id: string;
  direction: string;
  state: string;
  amount: string;
  asset: string;
  asset_id: string | null;
  network: string;
  created_at: string;
  threshold_info: string | null;
  fx_rate_id: string | null;
  originator_sealed: string | null;
  beneficiary_sealed: string | null;
}

const aad = (id: string, field: string) => `report:${id}:${field}`;

export class Reports implements ReportRepository {
  private readonly audit: AuditLog;
  constructor(
    private readonly s: Storage,
    private readonly pii: Sealer,
  ) {
    this.audit = new AuditLog(s);
  }

  /**
   * Drafts a report: numbered (next of the company and environment), prefilled from the transfer and the
   * company profile, sealed, audited (`str.drafted`). Synchronous and without its own transaction: call it
   * inside the caller's (an actor's ctx.write or storage.tx).
   */
  createDraft(input: CreateDraftInput, nowMs: number): Promise<ReportRecord> {
    return this.s.run(() => this.draftNow(input, nowMs));
  }

  private draftNow(input: CreateDraftInput, nowMs: number): ReportRecord {
    const jurisdiction = input.jurisdiction ?? UNKNOWN_JURISDICTION;
    const type = resolveReportType(jurisdiction);
    const seqRow = this.s.stmt("SELECT coalesce(max(seq), 0) + 1 AS n FROM reports WHERE company_id = ? AND environment = ?").get(input.companyId, input.environment) as { n: number };
    const number = reportNumber(type.definition.abbreviation, input.environment, seqRow.n, nowMs);
    const data: RegulatoryData = { ...this.prefill(input), ...(input.regulatoryData ?? {}) };
    for (const k of Object.keys(data)) if (!data[k]) delete data[k];
    const at = iso(nowMs);
    const row: ReportRow = {
      id: input.id,
      company_id: input.companyId,
      environment: input.environment,
      kind: "suspicion",
      seq: seqRow.n,
      report_number: number,
      report_number_search: number.toLowerCase(),
      jurisdiction,
      transfer_id: input.transferId,
      case_id: input.caseId,
      status: "draft",
      detection_method: input.detectionMethod,
      generated_by: input.generatedBy,
      generated_at: at,
      narrative_sealed: null,
      risk_indicators_sealed: "",
      regulatory_data_sealed: "",
      filing_ready: 0,
      text_length: 0,
      has_cjk: 0,
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
    Object.assign(row, this.sealContent(input.id, { narrative: input.narrative || null, riskIndicators: input.riskIndicators, regulatoryData: data }, jurisdiction));
    const cols = Object.keys(row);
    this.s.stmt(`INSERT INTO reports (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
    this.audit.append(
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

  get(companyId: string, env: Environment, id: string): Promise<ReportRecord | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM reports WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) as ReportRow | null | undefined;
      return r ? toReport(r) : undefined;
    });
  }

  byNumber(companyId: string, env: Environment, number: string): Promise<ReportRecord | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM reports WHERE company_id = ? AND environment = ? AND report_number_search = ?").get(companyId, env, number.toLowerCase()) as ReportRow | null | undefined;
      return r ? toReport(r) : undefined;
    });
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

  private where(companyId: string, env: Environment, f: ReportListFilter): { sql: string; args: SqlValue[] } {
    const parts = ["company_id = ?", "environment = ?"];
    const args: SqlValue[] = [companyId, env];
    if (f.kind) (parts.push("kind = ?"), args.push(f.kind));
    if (f.status) (parts.push("status = ?"), args.push(f.status));
    if (f.jurisdiction !== undefined) (parts.push("jurisdiction = ?"), args.push(f.jurisdiction));
    if (f.transferId) (parts.push("transfer_id = ?"), args.push(f.transferId));
    if (f.from) (parts.push("created_at >= ?"), args.push(f.from));
    if (f.to) (parts.push("created_at < ?"), args.push(f.to));
    if (f.search !== undefined) {
      parts.push("(instr(report_number_search, ?) > 0 OR instr(lower(transfer_id), ?) > 0 OR instr(coalesce(filing_reference_search, ''), ?) > 0)");
      args.push(f.search, f.search, f.search);
    }
    return { sql: parts.join(" AND "), args };
  }

  /** Newest first; keyset on (created_at, id). */
  page(companyId: string, env: Environment, f: ReportListFilter, after: [string, string] | null, limit: number): Promise<ReportRecord[]> {
    return this.s.run(() => newestFirst<ReportRow>(this.s, "*", "reports", this.where(companyId, env, f), after, limit).map(toReport));
  }

  count(companyId: string, env: Environment, f: ReportListFilter): Promise<number> {
    return this.s.run(() => {
      const w = this.where(companyId, env, f);
      return (this.s.stmt(`SELECT count(*) AS n FROM reports WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
    });
  }

  /** The members a report names, as `{id, name, email}` (the name is the email, as everywhere in the API). */
  members(companyId: string, ids: (string | null)[]): Promise<Map<string, ReportMember>> {
    return this.s.run(() => {
      const out = new Map<string, ReportMember>();
      for (const [id, m] of memberSummaries(this.s, companyId, ids)) out.set(id, { id, name: m.name, email: m.email });
      return out;
    });
  }

  saveStep(r: ReportRecord, step: ReportStep, actor: AuditActor, now: number): Promise<ReportRecord> {
    return this.s.run(() => {
      const set = stepColumns(step.set);
      const sealed = step.content ? this.seal(r.id, step.content) : undefined;
      if (sealed) Object.assign(set, sealed);
      const cols = Object.keys(set);
      const res = this.s
        .stmt(`UPDATE reports SET ${cols.map((c) => `${c} = ?`).join(", ")}, version = version + 1 WHERE id = ? AND version = ?`)
        .run(...Object.values(set), r.id, r.version);
      if (res.changes !== 1) throw new Error(`report ${r.id} changed concurrently`);
      this.audit.append({ companyId: r.companyId, environment: r.environment, actor, action: step.audit.action, entityType: REPORT_ENTITY, entityId: r.id, detail: step.audit.detail }, now);
      const fields = Object.fromEntries(Object.entries(step.set).filter(([, v]) => v !== undefined));
      return {
        ...r,
        ...fields,
        ...(sealed ? { sealed: { narrative: sealed.narrative_sealed, riskIndicators: sealed.risk_indicators_sealed, regulatoryData: sealed.regulatory_data_sealed } } : {}),
        version: r.version + 1,
      };
    });
  }

  /**
   * The subject's customer reference as the FIU reads it: the company's own reference for the customer (its
   * `externalId`), never Caravan's internal `cus_…` ID; with no reference recorded, empty (the officer completes it).
   */
  private customerReference(companyId: string, customerId: string | null): string {
    if (!customerId) return "";
    const c = this.s.stmt("SELECT external_id FROM customers WHERE id = ? AND company_id = ?").get(customerId, companyId) as { external_id: string | null } | undefined;
    return c?.external_id ?? "";
  }

  /**
   * The parties of a report's transfer as goAML names them: our customer (the subject) and the counterparty, each
   * from the first person of its side (natural: given and family name; legal: its name), with wallet and VASP.
   */
  goamlParties(r: ReportRecord): Promise<GoamlParties | null> {
    return this.s.run(() => this.partiesNow(r));
  }

  private partiesNow(r: ReportRecord): GoamlParties | null {
    const t = this.s
      .stmt("SELECT id, direction, network, tx_hash, originator_address, beneficiary_address, originator_sealed, beneficiary_sealed, originator_vasp_name, beneficiary_vasp_name FROM transfers WHERE id = ? AND company_id = ? AND environment = ?")
      .get(r.transferId, r.companyId, r.environment) as Record<string, string | null> | undefined;
    if (!t) return null;
    const outgoing = t.direction === "outgoing";
    const [mine, theirs] = outgoing ? (["originator", "beneficiary"] as const) : (["beneficiary", "originator"] as const);
    const first = (side: "originator" | "beneficiary"): GoamlParty => {
      const p = this.persons({ id: t.id!, originator_sealed: t.originator_sealed, beneficiary_sealed: t.beneficiary_sealed }, side)?.[0];
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

  private transfer(companyId: string, env: Environment, id: string): TransferFacts | undefined {
    return (this.s
      .stmt("SELECT id, direction, state, amount, asset, asset_id, network, created_at, threshold_info, fx_rate_id, originator_sealed, beneficiary_sealed FROM transfers WHERE id = ? AND company_id = ? AND environment = ?")
      .get(id, companyId, env) ?? undefined) as TransferFacts | undefined;
  }

  /** The transfer's price at creation in fiat: value, currency, rate, source and the rate's time (null when it was not priced). */
  valuation(companyId: string, fxRateId: string | null): Promise<Valuation | null> {
    return this.s.run(() => this.valuationNow(companyId, fxRateId));
  }

  private valuationNow(companyId: string, fxRateId: string | null): Valuation | null {
    if (!fxRateId) return null;
    const v = this.s.stmt("SELECT value, currency, rate, source, rate_as_of FROM fx_valuations WHERE id = ? AND company_id = ?").get(fxRateId, companyId) as
      | { value: string; currency: string; rate: string; source: string; rate_as_of: string }
      | undefined;
    return v ? { value: v.value, currency: v.currency, rate: v.rate, source: v.source, rateAsOf: v.rate_as_of } : null;
  }

  /** Where the transfer stands against the company's `str` threshold of the jurisdiction (null without one). */
  threshold(companyId: string, env: Environment, transferId: string, jurisdiction: string, thresholds: readonly DeadlineThreshold[]): Promise<ReportingThreshold | null> {
    return this.s.run(() => {
      const t = this.transfer(companyId, env, transferId);
      const v = t ? this.valuationNow(companyId, t.fx_rate_id) : null;
      return reportingThreshold(resolveReportType(jurisdiction), thresholds, v ? { value: v.value, currency: v.currency } : null);
    });
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
  planDraft(
    companyId: string,
    env: Environment,
    o: { transferId: string; jurisdiction?: string; memberId: string; actor: AuditActor },
    now: number,
  ): Promise<PlannedDraft> {
    return this.s.run(() => this.planDraftNow(companyId, env, o, now));
  }

  private planDraftNow(companyId: string, env: Environment, o: { transferId: string; jurisdiction?: string; memberId: string; actor: AuditActor }, now: number): PlannedDraft {
    const none = async () => undefined;
    const refused = (outcome: Extract<DraftDecision, { ok: false }>): PlannedDraft => ({ outcome, apply: none });
    const t = this.transfer(companyId, env, o.transferId);
    if (!t) return refused({ ok: false, refusal: { code: "TRANSFER_NOT_FOUND", message: `no transfer ${o.transferId} in the ${env} environment` } });
    let jurisdiction: string | null;
    if (o.jurisdiction !== undefined) {
      jurisdiction = normaliseJurisdiction(o.jurisdiction);
      if (!jurisdiction)
        return refused({ ok: false, refusal: { code: "INVALID_EDIT", message: "jurisdiction must be an ISO 3166-1 alpha-2 country code (UK for GB; EU is not a jurisdiction)" } });
    } else jurisdiction = reportJurisdiction(t.threshold_info, companyProfile(this.s, companyId)?.country ?? null);
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
  documentInput(r: ReportRecord, thresholds: readonly DeadlineThreshold[], now: number, content?: ReportContent): Promise<DocumentInput | null> {
    return this.s.run(() => this.documentNow(r, thresholds, now, content));
  }

  private documentNow(r: ReportRecord, thresholds: readonly DeadlineThreshold[], now: number, content?: ReportContent): DocumentInput | null {
    const t = this.transfer(r.companyId, r.environment, r.transferId);
    if (!t) return null;
    const type = resolveReportType(r.jurisdiction);
    const c = content ?? this.open(r);
    const caseRow = r.caseId ? (this.s.stmt("SELECT case_number FROM cases WHERE id = ? AND company_id = ?").get(r.caseId, r.companyId) as { case_number: string } | undefined) : undefined;
    const valuation = this.valuationNow(r.companyId, t.fx_rate_id);
    const outgoing = t.direction === "outgoing";
    const subject = this.persons(t, outgoing ? "originator" : "beneficiary");
    const other = this.persons(t, outgoing ? "beneficiary" : "originator");
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
      regulatoryData: /^cus_[0-9a-z]{26}$/.test(c.regulatoryData.subjectCustomerId ?? "") ? { ...c.regulatoryData, subjectCustomerId: this.customerReference(r.companyId, c.regulatoryData.subjectCustomerId!) } : c.regulatoryData,
      transfer: { id: t.id, state: t.state, createdAt: t.created_at, amount: t.amount, asset: t.asset, assetId: t.asset_id ?? undefined },
      caseNumber: caseRow?.case_number ?? null,
      valuation,
      reportingThreshold: reportingThreshold(type, thresholds, valuation ? { value: valuation.value, currency: valuation.currency } : null),
      subjectNames: subject ? identityNameLines(subject) : [],
      counterpartyNames: other ? identityNameLines(other) : [],
    };
  }

  /** The content sealed, bound to the report and field. */
  private seal(id: string, c: ReportContent): Pick<ReportRow, "narrative_sealed" | "risk_indicators_sealed" | "regulatory_data_sealed"> {
    return {
      narrative_sealed: c.narrative === null ? null : this.pii.seal(c.narrative, aad(id, "narrative")),
      risk_indicators_sealed: this.pii.sealJson(c.riskIndicators, aad(id, "risk_indicators")),
      regulatory_data_sealed: this.pii.sealJson(c.regulatoryData, aad(id, "regulatory_data")),
    };
  }

  /** The sealed content and what it decides (readiness, length, script), as columns. */
  private sealContent(id: string, c: ReportContent, jurisdiction: string): Pick<ReportRow, "narrative_sealed" | "risk_indicators_sealed" | "regulatory_data_sealed" | "filing_ready" | "text_length" | "has_cjk"> {
    const f: ContentFacts = contentFacts(jurisdiction, c);
    return { ...this.seal(id, c), filing_ready: f.filingReady ? 1 : 0, text_length: f.textLength, has_cjk: f.hasCjk ? 1 : 0 };
  }

  /**
   * Regulatory data known at drafting: the filing institution from the company profile, the subject (our
   * customer: originator of an outgoing transfer, beneficiary of an incoming one) and counterparty from
   * the transfer. Unreadable or absent data is left for the officer to complete.
   */
  private prefill(input: CreateDraftInput): RegulatoryData {
    const out: RegulatoryData = {};
    const company = this.s.stmt("SELECT name FROM companies WHERE id = ?").get(input.companyId) as { name: string } | undefined;
    const profile = companyProfile(this.s, input.companyId);
    out.filingInstitutionName = profile?.legalName ?? company?.name ?? "";
    out.filingInstitutionCountry = profile?.country ?? "";
    const lei = profile?.identifiers.find((i) => i.type === "LEI") ?? profile?.identifiers[0];
    if (lei) out.filingInstitutionIdentifier = `${lei.type} ${lei.value}`;
    const t = this.s
      .stmt(
        "SELECT id, direction, amount, asset, network, tx_hash, created_at, originator_address, beneficiary_address, originator_customer_id, beneficiary_customer_id, originator_sealed, beneficiary_sealed, originator_vasp_name, beneficiary_vasp_name FROM transfers WHERE id = ? AND company_id = ? AND environment = ?",
      )
      .get(input.transferId, input.companyId, input.environment) as Record<string, string | null> | undefined;
    if (!t) return out;
    const names = (field: "originator" | "beneficiary"): string => {
      const persons = this.persons({ id: t.id!, originator_sealed: t.originator_sealed, beneficiary_sealed: t.beneficiary_sealed }, field);
      return persons ? reportNames(persons) : "";
    };
    const outgoing = t.direction === "outgoing";
    const [subject, other] = outgoing ? (["originator", "beneficiary"] as const) : (["beneficiary", "originator"] as const);
    out.subjectName = names(subject);
    out.subjectWalletAddress = t[`${subject}_address`] ?? "";
    out.subjectCustomerId = this.customerReference(input.companyId, t[`${subject}_customer_id`] ?? null);
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
