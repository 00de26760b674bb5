// Suspicion reports on PostgreSQL: the statements under the engine-neutral reports repository (../../repos/reports-base.ts
// drafts, seals and steps a report once for every engine), the twin of ../../repos/reports.ts. The content is sealed
// there before any statement here sees it: no column holds clear text. strpos for instr, `= ANY($n)` for json_each.
import { parseProfile } from "../../../../domain/thresholds.ts";
import type { Environment } from "../../../../domain/types.ts";
import type { Sealer } from "../../../crypto/envelope.ts";
import type { AuditEntryInput } from "../../../../ports/audit.ts";
import type { ReportListFilter, ReportMember, ReportRecord } from "../../../../ports/reports.ts";
import type { SqlValue } from "../../types.ts";
import { ReportsBase, reportWhere, toReport, TRANSFER_FACT_COLUMNS, type CompanyFacts, type FilterDialect, type ReportRow, type TransferFacts, type ValuationRow } from "../../repos/reports-base.ts";
import { appendAudit, insertRow } from "../rows.ts";
import type { PgParam, PgSession } from "../session.ts";

const PG: FilterDialect = { param: (n) => `$${n}`, contains: (haystack, needle) => `strpos(${haystack}, ${needle}) > 0` };

export class PgReports extends ReportsBase {
  constructor(
    private readonly db: PgSession,
    pii: Sealer,
  ) {
    super(pii);
  }

  async get(companyId: string, env: Environment, id: string): Promise<ReportRecord | undefined> {
    const r = (await this.db.read<ReportRow>("SELECT * FROM reports WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]))[0];
    return r ? toReport(r) : undefined;
  }

  async byNumber(companyId: string, env: Environment, number: string): Promise<ReportRecord | undefined> {
    const r = (await this.db.read<ReportRow>("SELECT * FROM reports WHERE company_id = $1 AND environment = $2 AND report_number_search = $3", [companyId, env, number.toLowerCase()]))[0];
    return r ? toReport(r) : undefined;
  }

  /** Newest first; keyset on (created_at, id) as a row comparison (an index range on reports_list). */
  async page(companyId: string, env: Environment, f: ReportListFilter, after: [string, string] | null, limit: number): Promise<ReportRecord[]> {
    const w = reportWhere(companyId, env, f, PG);
    const args = [...w.args];
    let sql = w.sql;
    if (after) (args.push(after[0], after[1]), (sql += ` AND (created_at, id) < ($${args.length - 1}, $${args.length})`));
    args.push(limit);
    return (await this.db.read<ReportRow>(`SELECT * FROM reports WHERE ${sql} ORDER BY created_at DESC, id DESC LIMIT $${args.length}`, args as PgParam[])).map(toReport);
  }

  async count(companyId: string, env: Environment, f: ReportListFilter): Promise<number> {
    const w = reportWhere(companyId, env, f, PG);
    return (await this.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM reports WHERE ${w.sql}`, w.args as PgParam[]))[0]!.n;
  }

  /** The members a report names, as `{id, name, email}` (the name is the email, as everywhere in the API). */
  async members(companyId: string, ids: (string | null)[]): Promise<Map<string, ReportMember>> {
    const want = [...new Set(ids.filter((x): x is string => !!x && x !== "system"))];
    if (want.length === 0) return new Map();
    const rows = await this.db.read<{ id: string; email: string }>("SELECT id, email FROM members WHERE company_id = $1 AND id = ANY($2::text[])", [companyId, want]);
    return new Map(rows.map((m) => [m.id, { id: m.id, name: m.email, email: m.email }]));
  }

  protected async nextSeq(companyId: string, env: Environment): Promise<number> {
    return (await this.db.read<{ n: number }>("SELECT coalesce(max(seq), 0) + 1 AS n FROM reports WHERE company_id = $1 AND environment = $2", [companyId, env]))[0]!.n;
  }

  protected insertRow(row: ReportRow): Promise<void> {
    return insertRow(this.db, "reports", row);
  }

  protected updateRow(id: string, version: number, set: Record<string, SqlValue>): Promise<number> {
    const cols = Object.keys(set);
    const n = cols.length;
    return this.db.run(`UPDATE reports SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(", ")}, version = version + 1 WHERE id = $${n + 1} AND version = $${n + 2}`, [
      ...(Object.values(set) as PgParam[]),
      id,
      version,
    ]);
  }

  protected async appendAudit(e: AuditEntryInput, now: number): Promise<void> {
    await appendAudit(this.db, e, now);
  }

  protected async transferFacts(companyId: string, env: Environment, id: string): Promise<TransferFacts | undefined> {
    return (await this.db.read<TransferFacts>(`SELECT ${TRANSFER_FACT_COLUMNS} FROM transfers WHERE id = $1 AND company_id = $2 AND environment = $3`, [id, companyId, env]))[0];
  }

  protected async customerExternalId(companyId: string, customerId: string): Promise<string | null | undefined> {
    return (await this.db.read<{ external_id: string | null }>("SELECT external_id FROM customers WHERE id = $1 AND company_id = $2", [customerId, companyId]))[0]?.external_id;
  }

  protected async companyFacts(companyId: string): Promise<CompanyFacts | undefined> {
    const c = (await this.db.read<{ name: string; profile: string | null }>("SELECT name, profile FROM companies WHERE id = $1", [companyId]))[0];
    return c ? { name: c.name, profile: parseProfile(c.profile) } : undefined;
  }

  protected async valuationRow(companyId: string, fxRateId: string): Promise<ValuationRow | undefined> {
    return (await this.db.read<ValuationRow>("SELECT value, currency, rate, source, rate_as_of FROM fx_valuations WHERE id = $1 AND company_id = $2", [fxRateId, companyId]))[0];
  }

  protected async caseNumber(companyId: string, caseId: string): Promise<string | undefined> {
    return (await this.db.read<{ case_number: string }>("SELECT case_number FROM cases WHERE id = $1 AND company_id = $2", [caseId, companyId]))[0]?.case_number;
  }
}
