// Shapes of a case for answers (Part 2 "Case"), shared by the HTTP layer and the CLI: opened, masked, named staff.
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { CaseRow, HistoryRow, NoteRow } from "../adapters/storage/repos/cases.ts";
import type { CaseRepository } from "../adapters/storage/repositories.ts";
import type { MemberSummary } from "../ports/tenancy.ts";
import type { Environment } from "../domain/types.ts";
import { descriptionAad, historyAad, noteAad, resolutionNoteAad, titleAad } from "./case.ts";

/** What the reader may see: personal data (pii:view), linked transfers (transfers:read), `str_drafted` (reports:read and strs:read). */
export interface CaseViewer {
  piiView: boolean;
  transfersRead: boolean;
  strsRead: boolean;
}

export const MASK = "***";
/** Part 2: the detail carries the 20 latest notes and history entries. */
export const DETAIL_ENTRIES = 20;

/** Staff are named to everyone who can read cases. Members carry no display name yet: the name is the email. */
const person = (m: MemberSummary | undefined, id: string | null) => (id === null ? null : { id, name: m?.name ?? null, email: m?.email ?? null });

export class CasePresenter {
  constructor(
    private readonly repo: CaseRepository,
    private readonly pii: Sealer,
  ) {}

  private text(v: CaseViewer, sealed: string | null, aad: string): string | null {
    if (sealed === null) return null;
    return v.piiView ? this.pii.open(sealed, aad) : MASK;
  }

  /** List items: every field of Part 2's list item. */
  items(companyId: string, rows: CaseRow[], v: CaseViewer) {
    const members = this.repo.members(companyId, rows.map((r) => r.assignee_id));
    return rows.map((r) => this.item(r, v, members));
  }

  item(c: CaseRow, v: CaseViewer, members: Map<string, MemberSummary>) {
    return {
      id: c.id,
      caseNumber: c.case_number,
      title: this.text(v, c.title_sealed, titleAad(c.id)),
      description: this.text(v, c.description_sealed, descriptionAad(c.id)),
      type: c.type,
      category: c.category,
      priority: c.priority,
      status: c.status,
      resolution: c.resolution,
      resolutionNote: this.text(v, c.resolution_note_sealed, resolutionNoteAad(c.id)),
      assigneeId: c.assignee_id,
      assignee: person(members.get(c.assignee_id ?? ""), c.assignee_id),
      ruleId: c.rule_id,
      transferIds: JSON.parse(c.transfer_ids) as string[],
      source: c.source,
      noteCount: c.note_count,
      createdById: c.created_by_id,
      createdAt: c.created_at,
      updatedAt: c.updated_at,
    };
  }

  note(n: NoteRow, v: CaseViewer, members: Map<string, MemberSummary>) {
    return {
      id: n.id,
      content: v.piiView ? this.pii.open(n.content_sealed, noteAad(n.id)) : MASK,
      authorId: n.author_id,
      author: person(members.get(n.author_id ?? ""), n.author_id),
      createdAt: n.created_at,
    };
  }

  entry(h: HistoryRow, v: CaseViewer, members: Map<string, MemberSummary>) {
    const value = (x: string | null, which: "old" | "new") => (x === null || !h.sealed ? x : v.piiView ? this.pii.open(x, historyAad(h.id, which)) : MASK);
    return {
      id: h.id,
      action: h.action,
      field: h.field,
      oldValue: value(h.old_value, "old"),
      newValue: value(h.new_value, "new"),
      userId: h.user_id,
      user: person(members.get(h.user_id ?? ""), h.user_id),
      createdAt: h.created_at,
    };
  }

  notes(companyId: string, rows: NoteRow[], v: CaseViewer) {
    const members = this.repo.members(companyId, rows.map((r) => r.author_id));
    return rows.map((n) => this.note(n, v, members));
  }

  entries(companyId: string, rows: HistoryRow[], v: CaseViewer) {
    const members = this.repo.members(companyId, rows.map((r) => r.user_id));
    return rows.map((h) => this.entry(h, v, members));
  }

  /** The detail: list fields plus resolver, creator, rule, transfers (transfers:read only), 20 notes and history entries. */
  detail(companyId: string, env: Environment, c: CaseRow, v: CaseViewer) {
    const notes = this.repo.notes(c.id, null, DETAIL_ENTRIES);
    const history = this.repo.history(c.id, null, DETAIL_ENTRIES, v.strsRead);
    const members = this.repo.members(companyId, [
      c.assignee_id,
      c.created_by_id,
      c.resolved_by_id,
      ...notes.map((n) => n.author_id),
      ...history.map((h) => h.user_id),
    ]);
    const rule = c.rule_id ? this.repo.rule(companyId, env, c.rule_id) : undefined;
    const ids = JSON.parse(c.transfer_ids) as string[];
    const out: Record<string, unknown> = {
      ...this.item(c, v, members),
      resolvedAt: c.resolved_at,
      resolvedById: c.resolved_by_id,
      createdBy: person(members.get(c.created_by_id ?? ""), c.created_by_id),
      resolvedBy: person(members.get(c.resolved_by_id ?? ""), c.resolved_by_id),
      rule: rule ? { id: rule.id, name: rule.name, category: rule.category, action: rule.action, severity: rule.severity } : null,
    };
    if (v.transfersRead)
      out.transfers = this.repo.transfers(companyId, env, ids).map((t) => ({
        id: t.id,
        externalId: t.external_id,
        direction: t.direction,
        state: t.state,
        complianceStatus: t.status,
        amount: t.amount,
        asset: t.asset,
        network: t.network,
        createdAt: t.created_at,
      }));
    out.notes = notes.map((n) => this.note(n, v, members));
    out.history = history.map((h) => this.entry(h, v, members));
    out.historyCount = this.repo.historyCount(c.id, v.strsRead);
    return out;
  }
}
