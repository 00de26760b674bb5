// Suspicion report rows: drafting (inside the caller's transaction), reads for the API, and the audited life
// draft → pending_review → submitted → filed. Narrative, risk indicators and regulatory data are sealed.
import { iso, newId } from "../../../domain/ids.ts";
import { personNames } from "../../../domain/ivms101/index.ts";
import type { Person } from "../../../domain/ivms101/types.ts";
import {
  hasCjk,
  isFilingReady,
  missingForFiling,
  nextStatus,
  reportNumber,
  resolveReportType,
  textLength,
  validateEdit,
  type DetectionMethod,
  type LifeRefusal,
  type RegulatoryData,
  type ReportAction,
  type ReportStatus,
} from "../../../domain/reports/report.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Sealer } from "../../crypto/envelope.ts";
import { memberSummaries } from "./tenancy.ts";
import type { Storage, SqlValue } from "../types.ts";
import { AuditLog, type AuditActor } from "./audit.ts";
import { newestFirst } from "./keyset.ts";
import { companyProfile } from "./thresholds.ts";

export function newReportId(now: number = Date.now()): string {
  return newId("rpt", now);
}

/** Audit entity of reports (Part 2: entity `TransactionReport`). */
export const REPORT_ENTITY = "TransactionReport";

export interface ReportRow {
  id: string;
  company_id: string;
  environment: Environment;
  kind: "suspicion";
  seq: number;
  report_number: string;
  report_number_search: string;
  jurisdiction: string;
  transfer_id: string;
  case_id: string | null;
  status: ReportStatus;
  detection_method: DetectionMethod;
  generated_by: string;
  generated_at: string;
  narrative_sealed: string | null;
  risk_indicators_sealed: string;
  regulatory_data_sealed: string;
  filing_ready: number;
  text_length: number;
  has_cjk: number;
  submitted_at: string | null;
  submitted_by: string | null;
  approved_at: string | null;
  approved_by: string | null;
  filed_at: string | null;
  filed_by: string | null;
  filing_reference: string | null;
  filing_reference_search: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ReportContent {
  narrative: string | null;
  riskIndicators: string[];
  regulatoryData: RegulatoryData;
}

export interface CreateDraftInput {
  id: string;
  companyId: string;
  environment: Environment;
  transferId: string;
  caseId: string | null;
  /** Upper-case ISO 3166-1 alpha-2. */
  jurisdiction: string;
  narrative: string;
  riskIndicators: string[];
  /** `system` or the member ID. */
  generatedBy: "system" | string;
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

export type LifeOutcome = { ok: true; row: ReportRow } | { ok: false; refusal: LifeRefusal | { code: "REPORT_NOT_FOUND" | "INVALID_EDIT"; message: string } };

const aad = (id: string, field: string) => `report:${id}:${field}`;

export class Reports {
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
  createDraft(input: CreateDraftInput, nowMs: number): { id: string; reportNumber: string } {
    const type = resolveReportType(input.jurisdiction);
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
      jurisdiction: input.jurisdiction,
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
      filing_reference: null,
      filing_reference_search: null,
      version: 1,
      created_at: at,
      updated_at: at,
    };
    Object.assign(row, this.sealContent(input.id, { narrative: input.narrative || null, riskIndicators: input.riskIndicators, regulatoryData: data }, input.jurisdiction));
    const cols = Object.keys(row);
    this.s.stmt(`INSERT INTO reports (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
    this.audit.record(
      {
        companyId: input.companyId,
        environment: input.environment,
        actor: input.generatedBy === "system" ? { type: "system" } : { type: "member", memberId: input.generatedBy },
        action: "str.drafted",
        entityType: REPORT_ENTITY,
        entityId: input.id,
        detail: { reportNumber: number, jurisdiction: input.jurisdiction, transferId: input.transferId, caseId: input.caseId, detectionMethod: input.detectionMethod },
      },
      nowMs,
    );
    return { id: input.id, reportNumber: number };
  }

  get(companyId: string, env: Environment, id: string): ReportRow | undefined {
    return (this.s.stmt("SELECT * FROM reports WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ?? undefined) as ReportRow | undefined;
  }

  byNumber(companyId: string, env: Environment, number: string): ReportRow | undefined {
    return (this.s.stmt("SELECT * FROM reports WHERE company_id = ? AND environment = ? AND report_number_search = ?").get(companyId, env, number.toLowerCase()) ?? undefined) as
      | ReportRow
      | undefined;
  }

  /** Opens the sealed content (throws UnreadableError when the key is wrong or a value was tampered with). */
  content(r: ReportRow): ReportContent {
    return {
      narrative: r.narrative_sealed === null ? null : this.pii.open(r.narrative_sealed, aad(r.id, "narrative")),
      riskIndicators: this.pii.openJson<string[]>(r.risk_indicators_sealed, aad(r.id, "risk_indicators")),
      regulatoryData: this.pii.openJson<RegulatoryData>(r.regulatory_data_sealed, aad(r.id, "regulatory_data")),
    };
  }

  private where(companyId: string, env: Environment, f: ReportListFilter): { sql: string; args: SqlValue[] } {
    const parts = ["company_id = ?", "environment = ?"];
    const args: SqlValue[] = [companyId, env];
    if (f.kind) (parts.push("kind = ?"), args.push(f.kind));
    if (f.status) (parts.push("status = ?"), args.push(f.status));
    if (f.jurisdiction) (parts.push("jurisdiction = ?"), args.push(f.jurisdiction));
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
  page(companyId: string, env: Environment, f: ReportListFilter, after: [string, string] | null, limit: number): ReportRow[] {
    return newestFirst<ReportRow>(this.s, "*", "reports", this.where(companyId, env, f), after, limit);
  }

  count(companyId: string, env: Environment, f: ReportListFilter): number {
    const w = this.where(companyId, env, f);
    return (this.s.stmt(`SELECT count(*) AS n FROM reports WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
  }

  /** Members by ID for `generatedByMember` / `filedByMember` (members have no name: the email's local part stands in). */
  /** The members a report names, as `{id, name, email}` (the name is the email, as everywhere in the API). */
  members(companyId: string, ids: (string | null)[]): Map<string, { id: string; name: string; email: string }> {
    const out = new Map<string, { id: string; name: string; email: string }>();
    for (const [id, m] of memberSummaries(this.s, companyId, ids)) out.set(id, { id, name: m.name, email: m.email });
    return out;
  }

  /**
   * One step of the life (docs/reports.md), read and written in one transaction with its audit entry.
   * `edit` changes the narrative, fields or indicators (a report in review goes back to draft); `submit`,
   * `approve`, `file` move it on. A report is never deleted.
   */
  act(
    companyId: string,
    env: Environment,
    id: string,
    action: ReportAction,
    by: { memberId: string; actor: AuditActor },
    o: { narrative?: string; fields?: Record<string, string>; riskIndicators?: string[]; reference?: string },
    now: number,
  ): LifeOutcome {
    return this.s.tx((): LifeOutcome => {
      const r = this.get(companyId, env, id);
      if (!r) return { ok: false, refusal: { code: "REPORT_NOT_FOUND", message: `no report ${id} in the ${env} environment` } };
      const type = resolveReportType(r.jurisdiction);
      const next = nextStatus({ status: r.status, filingReady: r.filing_ready === 1, submittedBy: r.submitted_by }, action, by.memberId, { reference: o.reference });
      if (!next.ok) return next;
      const at = iso(now);
      const set: Partial<ReportRow> = { status: next.status, updated_at: at };
      const detail: Record<string, unknown> = { reportNumber: r.report_number, from: r.status, to: next.status };
      if (action === "edit") {
        const errors = validateEdit(type, o);
        if (errors.length) return { ok: false, refusal: { code: "INVALID_EDIT", message: errors.join("; ") } };
        const c = this.content(r);
        const data = { ...c.regulatoryData };
        for (const [k, v] of Object.entries(o.fields ?? {})) v.trim() ? (data[k] = v) : delete data[k];
        const changed = { narrative: o.narrative !== undefined ? o.narrative : c.narrative, riskIndicators: o.riskIndicators ?? c.riskIndicators, regulatoryData: data };
        Object.assign(set, this.sealContent(r.id, changed, r.jurisdiction));
        // Field keys only: values are personal data and stay out of the audit log.
        detail.fields = Object.keys(o.fields ?? {});
        detail.narrative = o.narrative !== undefined;
        detail.riskIndicators = o.riskIndicators !== undefined;
        if (r.status === "pending_review") (set.submitted_at = null), (set.submitted_by = null);
      } else if (action === "submit") {
        set.submitted_at = at;
        set.submitted_by = by.memberId;
      } else if (action === "approve") {
        set.approved_at = at;
        set.approved_by = by.memberId;
      } else if (action === "file") {
        const ref = o.reference!.trim();
        set.filed_at = at;
        set.filed_by = by.memberId;
        set.filing_reference = ref;
        set.filing_reference_search = ref.toLowerCase();
        detail.filingReference = ref;
      }
      const cols = Object.keys(set);
      const res = this.s
        .stmt(`UPDATE reports SET ${cols.map((c) => `${c} = ?`).join(", ")}, version = version + 1 WHERE id = ? AND version = ?`)
        .run(...(Object.values(set) as SqlValue[]), r.id, r.version);
      if (res.changes !== 1) throw new Error(`report ${r.id} changed concurrently`);
      const actionName = action === "edit" ? "str.updated" : action === "submit" ? "str.submitted" : action === "approve" ? "str.approved" : "str.filed";
      this.audit.record({ companyId, environment: env, actor: by.actor, action: actionName, entityType: REPORT_ENTITY, entityId: r.id, detail }, now);
      return { ok: true, row: this.get(companyId, env, id)! };
    });
  }

  /** What still keeps a report from being filing-ready. */
  missing(r: ReportRow): { fields: string[]; narrative: boolean } {
    const c = this.content(r);
    return missingForFiling(resolveReportType(r.jurisdiction), c.narrative, c.regulatoryData);
  }

  private sealContent(id: string, c: ReportContent, jurisdiction: string): Pick<ReportRow, "narrative_sealed" | "risk_indicators_sealed" | "regulatory_data_sealed" | "filing_ready" | "text_length" | "has_cjk"> {
    const type = resolveReportType(jurisdiction);
    return {
      narrative_sealed: c.narrative === null ? null : this.pii.seal(c.narrative, aad(id, "narrative")),
      risk_indicators_sealed: this.pii.sealJson(c.riskIndicators, aad(id, "risk_indicators")),
      regulatory_data_sealed: this.pii.sealJson(c.regulatoryData, aad(id, "regulatory_data")),
      filing_ready: isFilingReady(type, c.narrative, c.regulatoryData) ? 1 : 0,
      text_length: textLength(c.narrative, c.riskIndicators, c.regulatoryData),
      has_cjk: hasCjk(c.narrative, ...c.riskIndicators, ...Object.values(c.regulatoryData)) ? 1 : 0,
    };
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
      const sealed = t[`${field}_sealed`];
      if (!sealed) return "";
      try {
        return personNames(JSON.parse(this.pii.open(sealed, `transfer:${t.id}:${field}`)) as Person[]).join("; ");
      } catch {
        return "";
      }
    };
    const outgoing = t.direction === "outgoing";
    const [subject, other] = outgoing ? (["originator", "beneficiary"] as const) : (["beneficiary", "originator"] as const);
    out.subjectName = names(subject);
    out.subjectWalletAddress = t[`${subject}_address`] ?? "";
    out.subjectCustomerId = t[`${subject}_customer_id`] ?? "";
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
