// Suspicion report rows in SQLite: the statements under the engine-neutral reports repository (./reports-base.ts, which
// drafts, seals and steps a report once for every engine). Drafting runs inside the caller's transaction; the reads
// serve the API; the audited life is draft → pending_review → submitted → filed. Narrative, risk indicators and
// regulatory data are sealed.
import type { Environment } from "../../../domain/types.ts";
import type { Sealer } from "../../crypto/envelope.ts";
import { memberSummaries } from "./tenancy.ts";
import type { Storage, SqlValue } from "../types.ts";
import { AuditLog, type AuditEntryInput } from "./audit.ts";
import { newestFirst } from "./keyset.ts";
import { companyProfile } from "./thresholds.ts";
import { REPORT_ENTITY, type ReportListFilter, type ReportMember, type ReportRecord } from "../../../ports/reports.ts";
import { ReportsBase, reportWhere, toReport, TRANSFER_FACT_COLUMNS, type CompanyFacts, type FilterDialect, type ReportRow, type TransferFacts, type ValuationRow } from "./reports-base.ts";

export { REPORT_ENTITY };
export { newReportId } from "./reports-base.ts";
export type { CreateDraftInput, DraftDecision, ReportChange, ReportContent, ReportListFilter, ReportRecord, ReportRepository, StepDecision } from "../../../ports/reports.ts";

const SQLITE: FilterDialect = { param: () => "?", contains: (haystack, needle) => `instr(${haystack}, ${needle}) > 0` };

export class Reports extends ReportsBase {
  private readonly audit: AuditLog;
  constructor(
    private readonly s: Storage,
    pii: Sealer,
  ) {
    super(pii);
    this.audit = new AuditLog(s);
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

  /** Newest first; keyset on (created_at, id). */
  page(companyId: string, env: Environment, f: ReportListFilter, after: [string, string] | null, limit: number): Promise<ReportRecord[]> {
    return this.s.run(() => newestFirst<ReportRow>(this.s, "*", "reports", reportWhere(companyId, env, f, SQLITE), after, limit).map(toReport));
  }

  count(companyId: string, env: Environment, f: ReportListFilter): Promise<number> {
    return this.s.run(() => {
      const w = reportWhere(companyId, env, f, SQLITE);
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

  protected nextSeq(companyId: string, env: Environment): Promise<number> {
    return this.s.run(() => (this.s.stmt("SELECT coalesce(max(seq), 0) + 1 AS n FROM reports WHERE company_id = ? AND environment = ?").get(companyId, env) as { n: number }).n);
  }

  protected insertRow(row: ReportRow): Promise<void> {
    return this.s.run(() => {
      const cols = Object.keys(row);
      this.s.stmt(`INSERT INTO reports (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
    });
  }

  protected updateRow(id: string, version: number, set: Record<string, SqlValue>): Promise<number> {
    return this.s.run(() => {
      const cols = Object.keys(set);
      return this.s.stmt(`UPDATE reports SET ${cols.map((c) => `${c} = ?`).join(", ")}, version = version + 1 WHERE id = ? AND version = ?`).run(...Object.values(set), id, version).changes;
    });
  }

  protected appendAudit(e: AuditEntryInput, now: number): Promise<void> {
    return this.s.run(() => void this.audit.append(e, now));
  }

  protected transferFacts(companyId: string, env: Environment, id: string): Promise<TransferFacts | undefined> {
    return this.s.run(() => (this.s.stmt(`SELECT ${TRANSFER_FACT_COLUMNS} FROM transfers WHERE id = ? AND company_id = ? AND environment = ?`).get(id, companyId, env) ?? undefined) as TransferFacts | undefined);
  }

  protected customerExternalId(companyId: string, customerId: string): Promise<string | null | undefined> {
    return this.s.run(() => (this.s.stmt("SELECT external_id FROM customers WHERE id = ? AND company_id = ?").get(customerId, companyId) as { external_id: string | null } | undefined)?.external_id);
  }

  protected companyFacts(companyId: string): Promise<CompanyFacts | undefined> {
    return this.s.run(() => {
      const c = this.s.stmt("SELECT name FROM companies WHERE id = ?").get(companyId) as { name: string } | undefined;
      return c ? { name: c.name, profile: companyProfile(this.s, companyId) } : undefined;
    });
  }

  protected valuationRow(companyId: string, fxRateId: string): Promise<ValuationRow | undefined> {
    return this.s.run(() => (this.s.stmt("SELECT value, currency, rate, source, rate_as_of FROM fx_valuations WHERE id = ? AND company_id = ?").get(fxRateId, companyId) ?? undefined) as ValuationRow | undefined);
  }

  protected caseNumber(companyId: string, caseId: string): Promise<string | undefined> {
    return this.s.run(() => (this.s.stmt("SELECT case_number FROM cases WHERE id = ? AND company_id = ?").get(caseId, companyId) as { case_number: string } | undefined)?.case_number);
  }
}
