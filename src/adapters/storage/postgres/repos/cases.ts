// Case rows, notes, history and the blind text index on PostgreSQL: the twin of ../../repos/cases.ts (same port, same
// answers). The mappers, the filter and the list-counter shortcut are SQLite's (imported); ID lists are `= ANY`
// arrays where SQLite passes JSON to json_each.
import type { Environment } from "../../../../domain/types.ts";
import type { SqlValue } from "../../types.ts";
import {
  caseWhere,
  countedList,
  inIdOrder,
  toCase,
  toColumns,
  toEntry,
  toNote,
  VersionConflict,
  type CaseRow,
  type HistoryRow,
  type NoteRow,
  type TransferSummaryRow,
} from "../../repos/cases.ts";
import type { CaseChange, CaseFilter, CaseHistoryEntry, CaseMember, CaseNote, CaseRecord, CaseRepository, CaseRule, CaseTransfer } from "../../../../ports/cases.ts";
import { PgGramIndex } from "./grams.ts";
import type { PgParam, PgSession } from "../session.ts";

export class PgCases implements CaseRepository {
  private readonly grams: PgGramIndex;

  constructor(private readonly db: PgSession) {
    this.grams = new PgGramIndex(db, "case_text_grams", "case_id");
  }

  async environmentOf(companyId: string, id: string): Promise<Environment | undefined> {
    const [r] = await this.db.read<{ environment: Environment }>("SELECT environment FROM cases WHERE id = $1 AND company_id = $2", [id, companyId]);
    return r?.environment;
  }

  async get(companyId: string, env: Environment, id: string): Promise<CaseRecord | undefined> {
    const [r] = await this.db.read<CaseRow>("SELECT * FROM cases WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
    return r ? toCase(r) : undefined;
  }

  async nextSeq(companyId: string, env: Environment): Promise<number> {
    const r = await this.db.one<{ n: number }>(
      "INSERT INTO case_counters (company_id, environment, n) VALUES ($1, $2, 1) ON CONFLICT (company_id, environment) DO UPDATE SET n = case_counters.n + 1 RETURNING n",
      [companyId, env],
    );
    return r!.n;
  }

  async insert(c: Omit<CaseRecord, "version">): Promise<void> {
    const row = toColumns(c);
    const cols = Object.keys(row);
    await this.db.q(`INSERT INTO cases (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`, Object.values(row) as PgParam[]);
  }

  async update(id: string, version: number, change: CaseChange): Promise<void> {
    const set = toColumns(change);
    const cols = Object.keys(set);
    const n = cols.length;
    const changed = await this.db.run(
      `UPDATE cases SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(", ")}, version = version + 1 WHERE id = $${n + 1} AND version = $${n + 2}`,
      [...(Object.values(set) as PgParam[]), id, version],
    );
    if (changed !== 1) throw new VersionConflict(`case ${id} changed concurrently`);
  }

  async addHistory(h: Omit<CaseHistoryEntry, "seq">): Promise<void> {
    await this.db.q(
      "INSERT INTO case_history (id, case_id, company_id, environment, action, field, old_value, new_value, sealed, user_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
      [h.id, h.caseId, h.companyId, h.environment, h.action, h.field, h.oldValue, h.newValue, h.sealed ? 1 : 0, h.userId, h.createdAt],
    );
  }

  async addNote(n: Omit<CaseNote, "seq">): Promise<void> {
    await this.db.q("INSERT INTO case_notes (id, case_id, company_id, environment, content_sealed, author_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
      n.id,
      n.caseId,
      n.companyId,
      n.environment,
      n.contentSealed,
      n.authorId,
      n.createdAt,
    ]);
  }

  replaceGrams(companyId: string, env: Environment, ownerId: string, grams: string[]): Promise<void> {
    return this.grams.replace(companyId, env, ownerId, grams);
  }

  withAllGrams(companyId: string, env: Environment, grams: string[], cap: number): Promise<string[]> {
    return this.grams.withAll(companyId, env, grams, cap);
  }

  async sealedTexts(companyId: string, env: Environment, ids: string[] | "all"): Promise<{ id: string; titleSealed: string; descriptionSealed: string | null }[]> {
    if (ids !== "all" && ids.length === 0) return [];
    type Texts = { id: string; title_sealed: string; description_sealed: string | null };
    const rows =
      ids === "all"
        ? await this.db.read<Texts>("SELECT id, title_sealed, description_sealed FROM cases WHERE company_id = $1 AND environment = $2", [companyId, env])
        : await this.db.read<Texts>("SELECT id, title_sealed, description_sealed FROM cases WHERE id = ANY($3::text[]) AND company_id = $1 AND environment = $2", [companyId, env, ids]);
    return rows.map((r) => ({ id: r.id, titleSealed: r.title_sealed, descriptionSealed: r.description_sealed }));
  }

  private where(companyId: string, env: Environment, f: CaseFilter): { sql: string; args: PgParam[] } {
    const args: PgParam[] = [];
    const arg = (v: SqlValue | readonly string[]) => (args.push(v as PgParam), `$${args.length}`);
    const sql = caseWhere(companyId, env, f, { arg, inList: (ids) => `= ANY(${arg(ids)}::text[])` });
    return { sql, args };
  }

  async page(companyId: string, env: Environment, f: CaseFilter, after: [string, string] | null, limit: number): Promise<CaseRecord[]> {
    const w = this.where(companyId, env, f);
    const args = [...w.args];
    let sql = w.sql;
    if (after) {
      args.push(after[0], after[1]);
      sql += ` AND (c.created_at, c.id) < ($${args.length - 1}, $${args.length})`;
    }
    args.push(limit);
    const rows = await this.db.read<CaseRow>(`SELECT c.* FROM cases c WHERE ${sql} ORDER BY c.created_at DESC, c.id DESC LIMIT $${args.length}`, args);
    return rows.map(toCase);
  }

  private async listCount(companyId: string, env: Environment, list: string): Promise<number> {
    const [r] = await this.db.read<{ n: number }>("SELECT n FROM list_counts WHERE company_id = $1 AND environment = $2 AND list = $3", [companyId, env, list]);
    return r?.n ?? 0;
  }

  async count(companyId: string, env: Environment, f: CaseFilter): Promise<number> {
    const counted = countedList(f);
    if (counted === "all") return this.listCount(companyId, env, "cases");
    if (counted === "open") return this.listCount(companyId, env, "cases:open");
    if (counted === "closed") return (await this.listCount(companyId, env, "cases")) - (await this.listCount(companyId, env, "cases:open"));
    const w = this.where(companyId, env, f);
    const [r] = await this.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM cases c WHERE ${w.sql}`, w.args);
    return r!.n;
  }

  async notes(caseId: string, beforeSeq: number | null, limit: number): Promise<CaseNote[]> {
    const rows = await this.db.read<NoteRow>("SELECT * FROM case_notes WHERE case_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3", [caseId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit]);
    return rows.map(toNote);
  }

  async note(caseId: string, noteId: string): Promise<CaseNote | undefined> {
    const [n] = await this.db.read<NoteRow>("SELECT * FROM case_notes WHERE id = $1 AND case_id = $2", [noteId, caseId]);
    return n ? toNote(n) : undefined;
  }

  async history(caseId: string, beforeSeq: number | null, limit: number, withStr: boolean): Promise<CaseHistoryEntry[]> {
    const rows = await this.db.read<HistoryRow>(
      `SELECT * FROM case_history WHERE case_id = $1 AND seq < $2 ${withStr ? "" : "AND action <> 'str_drafted'"} ORDER BY seq DESC LIMIT $3`,
      [caseId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit],
    );
    return rows.map(toEntry);
  }

  async historyCount(caseId: string, withStr: boolean): Promise<number> {
    const [r] = await this.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM case_history WHERE case_id = $1 ${withStr ? "" : "AND action <> 'str_drafted'"}`, [caseId]);
    return r!.n;
  }

  async members(companyId: string, ids: (string | null)[]): Promise<Map<string, CaseMember>> {
    const want = [...new Set(ids.filter((x): x is string => !!x && x !== "system"))];
    if (want.length === 0) return new Map();
    const rows = await this.db.read<Omit<CaseMember, "name">>("SELECT id, email, role, status FROM members WHERE company_id = $1 AND id = ANY($2::text[])", [companyId, want]);
    return new Map(rows.map((r) => [r.id, { ...r, name: r.email }]));
  }

  async rule(companyId: string, env: Environment, id: string): Promise<CaseRule | undefined> {
    const [r] = await this.db.read<CaseRule>("SELECT id, name, category, action, severity FROM rules WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
    return r;
  }

  async transfers(companyId: string, env: Environment, ids: string[]): Promise<CaseTransfer[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.read<TransferSummaryRow>(
      "SELECT id, external_id, direction, state, status, amount, asset, network, created_at FROM transfers WHERE company_id = $1 AND environment = $2 AND id = ANY($3::text[])",
      [companyId, env, ids],
    );
    return inIdOrder(ids, rows);
  }

  async openCaseOfTransfer(companyId: string, env: Environment, transferId: string): Promise<CaseRecord | undefined> {
    const [r] = await this.db.read<CaseRow>(
      "SELECT * FROM cases WHERE company_id = $1 AND environment = $2 AND first_transfer_id = $3 AND status = 'open' ORDER BY created_at DESC LIMIT 1",
      [companyId, env, transferId],
    );
    return r ? toCase(r) : undefined;
  }
}
