// Case rows, notes, history and the blind text index: reads for the API, writes only from the case actor's commit.
import { GramIndex } from "./grams.ts";
import type { Environment } from "../../../domain/types.ts";
import { memberSummaries, type MemberSummary } from "./tenancy.ts";
import type { Storage, SqlValue } from "../types.ts";
import { listCount } from "./customers.ts";
import { newestFirst } from "./keyset.ts";
import { VersionConflict } from "./customers.ts";
import type { RowOf } from "./row.ts";
import type { cases as casesTable, caseNotes as caseNotesTable, caseHistory as caseHistoryTable } from "../../../../db/schema/cases.ts";
import type { transfers as transfersTable } from "../../../../db/schema/transfers.ts";

export type CaseRow = RowOf<typeof casesTable>;

export type NoteRow = RowOf<typeof caseNotesTable>;

export type HistoryRow = RowOf<typeof caseHistoryTable>;


export interface RuleSummary {
  id: string;
  name: string;
  category: string;
  action: string;
  severity: string;
}

export interface CaseFilter {
  status?: string;
  priority?: string;
  type?: string;
  assigneeId?: string;
  hasTransfer?: boolean;
  /** A search: cases with this sequence number, or these IDs (title/description matches, already confirmed). */
  search?: { seq: number | null; ids: string[] };
}

export { VersionConflict };

export class Cases {
  constructor(private readonly s: Storage) {}

  /** The environment a case of the company is in, when it exists (a case ID alone names it across both). */
  environmentOf(companyId: string, id: string): Environment | undefined {
    return (this.s.stmt("SELECT environment FROM cases WHERE id = ? AND company_id = ?").get(id, companyId) as { environment: Environment } | undefined)?.environment;
  }

  get(companyId: string, env: Environment, id: string): CaseRow | undefined {
    return (this.s.stmt("SELECT * FROM cases WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ?? undefined) as CaseRow | undefined;
  }

  /** The next case number of the environment; call inside the write transaction (numbers are never reused). */
  nextSeq(companyId: string, env: Environment): number {
    const r = this.s
      .stmt("INSERT INTO case_counters (company_id, environment, n) VALUES (?, ?, 1) ON CONFLICT DO UPDATE SET n = n + 1 RETURNING n")
      .get(companyId, env) as { n: number };
    return r.n;
  }

  insert(row: Omit<CaseRow, "version">): void {
    const cols = Object.keys(row);
    this.s.stmt(`INSERT INTO cases (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
  }

  /** Updates the given columns if the row is still at `version` (another process, the CLI, may have changed it). */
  update(id: string, version: number, set: Partial<CaseRow>): void {
    const cols = Object.keys(set);
    const r = this.s
      .stmt(`UPDATE cases SET ${cols.map((c) => `${c} = ?`).join(", ")}, version = version + 1 WHERE id = ? AND version = ?`)
      .run(...(Object.values(set) as SqlValue[]), id, version);
    if (r.changes !== 1) throw new VersionConflict(`case ${id} changed concurrently`);
  }

  addHistory(h: Omit<HistoryRow, "seq">): void {
    this.s
      .stmt(
        "INSERT INTO case_history (id, case_id, company_id, environment, action, field, old_value, new_value, sealed, user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(h.id, h.case_id, h.company_id, h.environment, h.action, h.field, h.old_value, h.new_value, h.sealed, h.user_id, h.created_at);
  }

  addNote(n: Omit<NoteRow, "seq">): void {
    this.s
      .stmt("INSERT INTO case_notes (id, case_id, company_id, environment, content_sealed, author_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(n.id, n.case_id, n.company_id, n.environment, n.content_sealed, n.author_id, n.created_at);
  }

  replaceGrams(companyId: string, env: Environment, ownerId: string, grams: string[]): void {
    new GramIndex(this.s, "case_text_grams", "case_id").replace(companyId, env, ownerId, grams);
  }


  /** Cases having every gram (candidates to confirm on the opened text); rarest grams intersected first. */
  withAllGrams(companyId: string, env: Environment, grams: string[], cap: number): string[] {
    return new GramIndex(this.s, "case_text_grams", "case_id").withAll(companyId, env, grams, cap);
  }


  /** Sealed title and description of the given cases, or of every case of the environment (searches under three characters). */
  sealedTexts(companyId: string, env: Environment, ids: string[] | "all"): { id: string; title_sealed: string; description_sealed: string | null }[] {
    if (ids === "all") return this.s.stmt("SELECT id, title_sealed, description_sealed FROM cases WHERE company_id = ? AND environment = ?").all(companyId, env) as never;
    if (ids.length === 0) return [];
    return this.s
      .stmt("SELECT id, title_sealed, description_sealed FROM cases WHERE id IN (SELECT value FROM json_each(?)) AND company_id = ? AND environment = ?")
      .all(JSON.stringify(ids), companyId, env) as never;
  }

  private where(companyId: string, env: Environment, f: CaseFilter): { sql: string; args: SqlValue[] } {
    const parts = ["c.company_id = ?", "c.environment = ?"];
    const args: SqlValue[] = [companyId, env];
    if (f.status !== undefined) (parts.push("c.status = ?"), args.push(f.status));
    if (f.priority !== undefined) (parts.push("c.priority = ?"), args.push(f.priority));
    if (f.type !== undefined) (parts.push("c.type = ?"), args.push(f.type));
    if (f.assigneeId !== undefined) (parts.push("c.assignee_id = ?"), args.push(f.assigneeId));
    if (f.hasTransfer !== undefined) parts.push(f.hasTransfer ? "c.first_transfer_id IS NOT NULL" : "c.first_transfer_id IS NULL");
    if (f.search !== undefined) {
      parts.push("(c.seq = ? OR c.id IN (SELECT value FROM json_each(?)))");
      args.push(f.search.seq ?? -1, JSON.stringify(f.search.ids));
    }
    return { sql: parts.join(" AND "), args };
  }

  /** Newest first; keyset on (created_at, id). */
  page(companyId: string, env: Environment, f: CaseFilter, after: [string, string] | null, limit: number): CaseRow[] {
    return newestFirst<CaseRow>(this.s, "c.*", "cases c", this.where(companyId, env, f), after, limit, "c.");
  }

  count(companyId: string, env: Environment, f: CaseFilter): number {
    const only = Object.entries(f).filter(([, v]) => v !== undefined);
    if (only.length === 0) return listCount(this.s, companyId, env, "cases");
    if (only.length === 1 && f.status === "open") return listCount(this.s, companyId, env, "cases:open");
    if (only.length === 1 && f.status === "closed") return listCount(this.s, companyId, env, "cases") - listCount(this.s, companyId, env, "cases:open");
    const w = this.where(companyId, env, f);
    return (this.s.stmt(`SELECT count(*) AS n FROM cases c WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
  }

  /** Newest first, strictly before `beforeSeq`. */
  notes(caseId: string, beforeSeq: number | null, limit: number): NoteRow[] {
    return this.s
      .stmt("SELECT * FROM case_notes WHERE case_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")
      .all(caseId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as unknown as NoteRow[];
  }

  /** One note of the case (the one just written, for the answer to its POST). */
  note(caseId: string, noteId: string): NoteRow | undefined {
    return (this.s.stmt("SELECT * FROM case_notes WHERE id = ? AND case_id = ?").get(noteId, caseId) ?? undefined) as NoteRow | undefined;
  }

  /** Newest first, strictly before `beforeSeq`; `str_drafted` only when the reader may see it. */
  history(caseId: string, beforeSeq: number | null, limit: number, withStr: boolean): HistoryRow[] {
    return this.s
      .stmt(`SELECT * FROM case_history WHERE case_id = ? AND seq < ? ${withStr ? "" : "AND action <> 'str_drafted'"} ORDER BY seq DESC LIMIT ?`)
      .all(caseId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as unknown as HistoryRow[];
  }

  historyCount(caseId: string, withStr: boolean): number {
    return (this.s.stmt(`SELECT count(*) AS n FROM case_history WHERE case_id = ? ${withStr ? "" : "AND action <> 'str_drafted'"}`).get(caseId) as { n: number }).n;
  }

  members(companyId: string, ids: (string | null)[]): Map<string, MemberSummary> {
    return memberSummaries(this.s, companyId, ids);
  }

  /** The rule's summary, or undefined when the environment has no such rule (or no rules table yet). */
  rule(companyId: string, env: Environment, id: string): RuleSummary | undefined {
    try {
      return (this.s.stmt("SELECT id, name, category, action, severity FROM rules WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ??
        undefined) as RuleSummary | undefined;
    } catch (e) {
      if (/no such table/i.test(String(e))) return undefined;
      throw e;
    }
  }

  transfers(companyId: string, env: Environment, ids: string[]): TransferSummaryRow[] {
    if (ids.length === 0) return [];
    const rows = this.s
      .stmt(
        "SELECT id, external_id, direction, state, status, amount, asset, network, created_at, threshold_info FROM transfers WHERE company_id = ? AND environment = ? AND id IN (SELECT value FROM json_each(?))",
      )
      .all(companyId, env, JSON.stringify(ids)) as unknown as TransferSummaryRow[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is TransferSummaryRow => !!r);
  }

  /** The open case a transfer's first link points to (screening adds to it rather than opening another). */
  openCaseOfTransfer(companyId: string, env: Environment, transferId: string): CaseRow | undefined {
    return (this.s
      .stmt("SELECT * FROM cases WHERE company_id = ? AND environment = ? AND first_transfer_id = ? AND status = 'open' ORDER BY created_at DESC LIMIT 1")
      .get(companyId, env, transferId) ?? undefined) as CaseRow | undefined;
  }
}

export type TransferSummaryRow = Pick<
  RowOf<typeof transfersTable>,
  "id" | "external_id" | "direction" | "state" | "status" | "amount" | "asset" | "network" | "created_at" | "threshold_info"
>;
