// Case rows, notes, history and the blind text index: reads for the API, writes only from the case actor's commit.
// The records of src/ports/cases.ts in, rows out of sight: the mappers below are the only place the columns are named.
import { GramIndex } from "./grams.ts";
import type { Environment } from "../../../domain/types.ts";
import type { HistoryAction } from "../../../domain/cases.ts";
import { memberSummaries } from "./tenancy.ts";
import type { Storage, SqlValue } from "../types.ts";
import { listCount } from "./customers.ts";
import { newestFirst } from "./keyset.ts";
import { VersionConflict } from "./customers.ts";
import type { RowOf } from "./row.ts";
import type { transfers as transfersTable } from "../../../../db/schema/transfers.ts";
import type { cases as casesTable, caseNotes as caseNotesTable, caseHistory as caseHistoryTable } from "../../../../db/schema/cases.ts";
import type {
  CaseChange,
  CaseFilter,
  CaseHistoryEntry,
  CaseMember,
  CaseNote,
  CaseRecord,
  CaseRepository,
  CaseResolutionContext,
  CaseRule,
  CaseTransfer,
} from "../../../ports/cases.ts";

export type { CaseChange, CaseFilter, CaseHistoryEntry, CaseMember, CaseNote, CaseRecord, CaseRepository, CaseRule, CaseTransfer } from "../../../ports/cases.ts";

export type CaseRow = RowOf<typeof casesTable>;
export type NoteRow = RowOf<typeof caseNotesTable>;
export type HistoryRow = RowOf<typeof caseHistoryTable>;

export { VersionConflict };

export const toCase = (r: CaseRow): CaseRecord => ({
  id: r.id,
  companyId: r.company_id,
  environment: r.environment as Environment,
  seq: r.seq,
  caseNumber: r.case_number,
  titleSealed: r.title_sealed,
  descriptionSealed: r.description_sealed,
  type: r.type as CaseRecord["type"],
  category: r.category,
  priority: r.priority as CaseRecord["priority"],
  status: r.status as CaseRecord["status"],
  resolution: r.resolution as CaseRecord["resolution"],
  resolutionNoteSealed: r.resolution_note_sealed,
  assigneeId: r.assignee_id,
  ruleId: r.rule_id,
  transferIds: JSON.parse(r.transfer_ids) as string[],
  source: r.source,
  noteCount: r.note_count,
  createdById: r.created_by_id,
  resolvedAt: r.resolved_at,
  resolvedById: r.resolved_by_id,
  resolutionContext: r.resolution_context ? (JSON.parse(r.resolution_context) as CaseResolutionContext) : null,
  transferOutcome: r.transfer_outcome,
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The columns of a change (or of a whole record): camelCase fields to their columns; the first transfer kept beside the list. */
const COLUMNS: Record<string, string> = {
  seq: "seq",
  caseNumber: "case_number",
  titleSealed: "title_sealed",
  descriptionSealed: "description_sealed",
  type: "type",
  category: "category",
  priority: "priority",
  status: "status",
  resolution: "resolution",
  resolutionNoteSealed: "resolution_note_sealed",
  assigneeId: "assignee_id",
  ruleId: "rule_id",
  source: "source",
  noteCount: "note_count",
  createdById: "created_by_id",
  resolvedAt: "resolved_at",
  resolvedById: "resolved_by_id",
  transferOutcome: "transfer_outcome",
  createdAt: "created_at",
  updatedAt: "updated_at",
  id: "id",
  companyId: "company_id",
  environment: "environment",
};

export function toColumns(c: CaseChange & Partial<Pick<CaseRecord, "id" | "companyId" | "environment" | "seq" | "caseNumber">>): Record<string, SqlValue> {
  const out: Record<string, SqlValue> = {};
  for (const [k, v] of Object.entries(c)) {
    if (v === undefined) continue;
    if (k === "transferIds") {
      const ids = v as string[];
      out.transfer_ids = JSON.stringify(ids);
      out.first_transfer_id = ids[0] ?? null;
    } else if (k === "resolutionContext") out.resolution_context = v === null ? null : JSON.stringify(v);
    else {
      const col = COLUMNS[k];
      if (!col) throw new Error(`a case has no field ${k}`);
      out[col] = v as SqlValue;
    }
  }
  return out;
}

export const toNote = (n: NoteRow): CaseNote => ({
  id: n.id,
  caseId: n.case_id,
  companyId: n.company_id,
  environment: n.environment as Environment,
  contentSealed: n.content_sealed,
  authorId: n.author_id,
  createdAt: n.created_at,
  seq: n.seq,
});

export const toEntry = (h: HistoryRow): CaseHistoryEntry => ({
  id: h.id,
  caseId: h.case_id,
  companyId: h.company_id,
  environment: h.environment as Environment,
  action: h.action as HistoryAction,
  field: h.field,
  oldValue: h.old_value,
  newValue: h.new_value,
  sealed: h.sealed === 1,
  userId: h.user_id,
  createdAt: h.created_at,
  seq: h.seq,
});

export class Cases implements CaseRepository {
  constructor(private readonly s: Storage) {}

  environmentOf(companyId: string, id: string): Promise<Environment | undefined> {
    return this.s.run(() => (this.s.stmt("SELECT environment FROM cases WHERE id = ? AND company_id = ?").get(id, companyId) as { environment: Environment } | undefined)?.environment);
  }

  get(companyId: string, env: Environment, id: string): Promise<CaseRecord | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM cases WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) as CaseRow | null | undefined;
      return r ? toCase(r) : undefined;
    });
  }

  nextSeq(companyId: string, env: Environment): Promise<number> {
    return this.s.run(() => {
      const r = this.s
        .stmt("INSERT INTO case_counters (company_id, environment, n) VALUES (?, ?, 1) ON CONFLICT DO UPDATE SET n = n + 1 RETURNING n")
        .get(companyId, env) as { n: number };
      return r.n;
    });
  }

  insert(c: Omit<CaseRecord, "version">): Promise<void> {
    return this.s.run(() => {
      const row = toColumns(c);
      const cols = Object.keys(row);
      this.s.stmt(`INSERT INTO cases (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...Object.values(row));
    });
  }

  update(id: string, version: number, change: CaseChange): Promise<void> {
    return this.s.run(() => {
      const set = toColumns(change);
      const cols = Object.keys(set);
      const r = this.s
        .stmt(`UPDATE cases SET ${cols.map((c) => `${c} = ?`).join(", ")}, version = version + 1 WHERE id = ? AND version = ?`)
        .run(...Object.values(set), id, version);
      if (r.changes !== 1) throw new VersionConflict(`case ${id} changed concurrently`);
    });
  }

  addHistory(h: Omit<CaseHistoryEntry, "seq">): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          "INSERT INTO case_history (id, case_id, company_id, environment, action, field, old_value, new_value, sealed, user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(h.id, h.caseId, h.companyId, h.environment, h.action, h.field, h.oldValue, h.newValue, h.sealed ? 1 : 0, h.userId, h.createdAt);
    });
  }

  addNote(n: Omit<CaseNote, "seq">): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt("INSERT INTO case_notes (id, case_id, company_id, environment, content_sealed, author_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .run(n.id, n.caseId, n.companyId, n.environment, n.contentSealed, n.authorId, n.createdAt);
    });
  }

  replaceGrams(companyId: string, env: Environment, ownerId: string, grams: string[]): Promise<void> {
    return this.s.run(() => new GramIndex(this.s, "case_text_grams", "case_id").replace(companyId, env, ownerId, grams));
  }

  withAllGrams(companyId: string, env: Environment, grams: string[], cap: number): Promise<string[]> {
    return this.s.run(() => new GramIndex(this.s, "case_text_grams", "case_id").withAll(companyId, env, grams, cap));
  }

  sealedTexts(companyId: string, env: Environment, ids: string[] | "all"): Promise<{ id: string; titleSealed: string; descriptionSealed: string | null }[]> {
    return this.s.run(() => {
      type Texts = { id: string; title_sealed: string; description_sealed: string | null }[];
      let rows: Texts;
      if (ids === "all") rows = this.s.stmt("SELECT id, title_sealed, description_sealed FROM cases WHERE company_id = ? AND environment = ?").all(companyId, env) as unknown as Texts;
      else if (ids.length === 0) rows = [];
      else
        rows = this.s
          .stmt("SELECT id, title_sealed, description_sealed FROM cases WHERE id IN (SELECT value FROM json_each(?)) AND company_id = ? AND environment = ?")
          .all(JSON.stringify(ids), companyId, env) as unknown as Texts;
      return rows.map((r) => ({ id: r.id, titleSealed: r.title_sealed, descriptionSealed: r.description_sealed }));
    });
  }

  private where(companyId: string, env: Environment, f: CaseFilter): { sql: string; args: SqlValue[] } {
    const args: SqlValue[] = [];
    const sql = caseWhere(companyId, env, f, {
      arg: (v) => (args.push(v), "?"),
      inList: (ids) => (args.push(JSON.stringify(ids)), "IN (SELECT value FROM json_each(?))"),
    });
    return { sql, args };
  }

  page(companyId: string, env: Environment, f: CaseFilter, after: [string, string] | null, limit: number): Promise<CaseRecord[]> {
    return this.s.run(() => newestFirst<CaseRow>(this.s, "c.*", "cases c", this.where(companyId, env, f), after, limit, "c.").map(toCase));
  }

  count(companyId: string, env: Environment, f: CaseFilter): Promise<number> {
    return this.s.run(() => {
      const counted = countedList(f);
      if (counted === "all") return listCount(this.s, companyId, env, "cases");
      if (counted === "open") return listCount(this.s, companyId, env, "cases:open");
      if (counted === "closed") return listCount(this.s, companyId, env, "cases") - listCount(this.s, companyId, env, "cases:open");
      const w = this.where(companyId, env, f);
      return (this.s.stmt(`SELECT count(*) AS n FROM cases c WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
    });
  }

  notes(caseId: string, beforeSeq: number | null, limit: number): Promise<CaseNote[]> {
    return this.s.run(() =>
      (this.s.stmt("SELECT * FROM case_notes WHERE case_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?").all(caseId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as unknown as NoteRow[]).map(toNote),
    );
  }

  note(caseId: string, noteId: string): Promise<CaseNote | undefined> {
    return this.s.run(() => {
      const n = this.s.stmt("SELECT * FROM case_notes WHERE id = ? AND case_id = ?").get(noteId, caseId) as NoteRow | null | undefined;
      return n ? toNote(n) : undefined;
    });
  }

  history(caseId: string, beforeSeq: number | null, limit: number, withStr: boolean): Promise<CaseHistoryEntry[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt(`SELECT * FROM case_history WHERE case_id = ? AND seq < ? ${withStr ? "" : "AND action <> 'str_drafted'"} ORDER BY seq DESC LIMIT ?`)
          .all(caseId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as unknown as HistoryRow[]
      ).map(toEntry),
    );
  }

  historyCount(caseId: string, withStr: boolean): Promise<number> {
    return this.s.run(() => (this.s.stmt(`SELECT count(*) AS n FROM case_history WHERE case_id = ? ${withStr ? "" : "AND action <> 'str_drafted'"}`).get(caseId) as { n: number }).n);
  }

  members(companyId: string, ids: (string | null)[]): Promise<Map<string, CaseMember>> {
    return this.s.run(() => memberSummaries(this.s, companyId, ids));
  }

  rule(companyId: string, env: Environment, id: string): Promise<CaseRule | undefined> {
    return this.s.run(() => {
      try {
        return (this.s.stmt("SELECT id, name, category, action, severity FROM rules WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ??
          undefined) as CaseRule | undefined;
      } catch (e) {
        if (/no such table/i.test(String(e))) return undefined;
        throw e;
      }
    });
  }

  transfers(companyId: string, env: Environment, ids: string[]): Promise<CaseTransfer[]> {
    return this.s.run(() => {
      if (ids.length === 0) return [];
      const rows = this.s
        .stmt(
          "SELECT id, external_id, direction, state, status, amount, asset, network, created_at FROM transfers WHERE company_id = ? AND environment = ? AND id IN (SELECT value FROM json_each(?))",
        )
        .all(companyId, env, JSON.stringify(ids)) as unknown as TransferSummaryRow[];
      return inIdOrder(ids, rows);
    });
  }

  openCaseOfTransfer(companyId: string, env: Environment, transferId: string): Promise<CaseRecord | undefined> {
    return this.s.run(() => {
      const r = this.s
        .stmt("SELECT * FROM cases WHERE company_id = ? AND environment = ? AND first_transfer_id = ? AND status = 'open' ORDER BY created_at DESC LIMIT 1")
        .get(companyId, env, transferId) as CaseRow | null | undefined;
      return r ? toCase(r) : undefined;
    });
  }
}

export type TransferSummaryRow = Pick<RowOf<typeof transfersTable>, "id" | "external_id" | "direction" | "state" | "status" | "amount" | "asset" | "network" | "created_at">;

/** The transfers' summaries in the order of `ids` (an ID without a row left out). */
export function inIdOrder(ids: string[], rows: TransferSummaryRow[]): CaseTransfer[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids
    .map((id) => byId.get(id))
    .filter((r): r is TransferSummaryRow => !!r)
    .map((t) => ({ id: t.id, externalId: t.external_id, direction: t.direction, state: t.state, status: t.status, amount: t.amount, asset: t.asset, network: t.network, createdAt: t.created_at }));
}

/** How an engine writes a filter's parameters: one value (answers its placeholder), an ID list (answers `IN …`/`= ANY …`). */
export interface FilterDialect {
  arg(v: SqlValue): string;
  inList(ids: string[]): string;
}

/** The WHERE clause of a case filter over `cases c`, its parameters written through the engine's dialect. */
export function caseWhere(companyId: string, env: Environment, f: CaseFilter, d: FilterDialect): string {
  const parts = [`c.company_id = ${d.arg(companyId)}`, `c.environment = ${d.arg(env)}`];
  if (f.status !== undefined) parts.push(`c.status = ${d.arg(f.status)}`);
  if (f.priority !== undefined) parts.push(`c.priority = ${d.arg(f.priority)}`);
  if (f.type !== undefined) parts.push(`c.type = ${d.arg(f.type)}`);
  if (f.assigneeId !== undefined) parts.push(`c.assignee_id = ${d.arg(f.assigneeId)}`);
  if (f.hasTransfer !== undefined) parts.push(f.hasTransfer ? "c.first_transfer_id IS NOT NULL" : "c.first_transfer_id IS NULL");
  if (f.search !== undefined) {
    const seq = d.arg(f.search.seq ?? -1);
    parts.push(`(c.seq = ${seq} OR c.id ${d.inList(f.search.ids)})`);
  }
  return parts.join(" AND ");
}

/** A filter the list counters answer (none, open only, closed only), or null: counted over the rows. */
export function countedList(f: CaseFilter): "all" | "open" | "closed" | null {
  const only = Object.entries(f).filter(([, v]) => v !== undefined);
  if (only.length === 0) return "all";
  if (only.length === 1 && f.status === "open") return "open";
  if (only.length === 1 && f.status === "closed") return "closed";
  return null;
}
