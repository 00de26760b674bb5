// Shapes of a case for answers (Part 2 "Case"), shared by the HTTP layer and the CLI: opened, masked, named staff.
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { CaseHistoryEntry, CaseMember as MemberSummary, CaseNote, CaseRecord, CaseRepository } from "../ports/cases.ts";
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
  async items(companyId: string, rows: CaseRecord[], v: CaseViewer) {
    const members = await this.repo.members(companyId, rows.map((r) => r.assigneeId));
    return rows.map((r) => this.item(r, v, members));
  }

  item(c: CaseRecord, v: CaseViewer, members: Map<string, MemberSummary>) {
    return {
      id: c.id,
      caseNumber: c.caseNumber,
      title: this.text(v, c.titleSealed, titleAad(c.id)),
      description: this.text(v, c.descriptionSealed, descriptionAad(c.id)),
      type: c.type,
      category: c.category,
      priority: c.priority,
      status: c.status,
      resolution: c.resolution,
      resolutionNote: this.text(v, c.resolutionNoteSealed, resolutionNoteAad(c.id)),
      assigneeId: c.assigneeId,
      assignee: person(members.get(c.assigneeId ?? ""), c.assigneeId),
      ruleId: c.ruleId,
      transferIds: [...c.transferIds],
      source: c.source,
      noteCount: c.noteCount,
      createdById: c.createdById,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    };
  }

  note(n: Omit<CaseNote, "seq">, v: CaseViewer, members: Map<string, MemberSummary>) {
    return {
      id: n.id,
      content: v.piiView ? this.pii.open(n.contentSealed, noteAad(n.id)) : MASK,
      authorId: n.authorId,
      author: person(members.get(n.authorId ?? ""), n.authorId),
      createdAt: n.createdAt,
    };
  }

  entry(h: CaseHistoryEntry, v: CaseViewer, members: Map<string, MemberSummary>) {
    const value = (x: string | null, which: "old" | "new") => (x === null || !h.sealed ? x : v.piiView ? this.pii.open(x, historyAad(h.id, which)) : MASK);
    return {
      id: h.id,
      action: h.action,
      field: h.field,
      oldValue: value(h.oldValue, "old"),
      newValue: value(h.newValue, "new"),
      userId: h.userId,
      user: person(members.get(h.userId ?? ""), h.userId),
      createdAt: h.createdAt,
    };
  }

  async notes(companyId: string, rows: Omit<CaseNote, "seq">[], v: CaseViewer) {
    const members = await this.repo.members(companyId, rows.map((r) => r.authorId));
    return rows.map((n) => this.note(n, v, members));
  }

  async entries(companyId: string, rows: CaseHistoryEntry[], v: CaseViewer) {
    const members = await this.repo.members(companyId, rows.map((r) => r.userId));
    return rows.map((h) => this.entry(h, v, members));
  }

  /** The detail: list fields plus resolver, creator, rule, transfers (transfers:read only), 20 notes and history entries. */
  async detail(companyId: string, env: Environment, c: CaseRecord, v: CaseViewer) {
    const notes = await this.repo.notes(c.id, null, DETAIL_ENTRIES);
    const history = await this.repo.history(c.id, null, DETAIL_ENTRIES, v.strsRead);
    const members = await this.repo.members(companyId, [
      c.assigneeId,
      c.createdById,
      c.resolvedById,
      ...notes.map((n) => n.authorId),
      ...history.map((h) => h.userId),
    ]);
    const rule = c.ruleId ? await this.repo.rule(companyId, env, c.ruleId) : undefined;
    const out: Record<string, unknown> = {
      ...this.item(c, v, members),
      resolvedAt: c.resolvedAt,
      resolvedById: c.resolvedById,
      createdBy: person(members.get(c.createdById ?? ""), c.createdById),
      resolvedBy: person(members.get(c.resolvedById ?? ""), c.resolvedById),
      rule: rule ? { id: rule.id, name: rule.name, category: rule.category, action: rule.action, severity: rule.severity } : null,
    };
    if (v.transfersRead)
      out.transfers = (await this.repo.transfers(companyId, env, c.transferIds)).map((t) => ({
        id: t.id,
        externalId: t.externalId,
        direction: t.direction,
        state: t.state,
        complianceStatus: t.status,
        amount: t.amount,
        asset: t.asset,
        network: t.network,
        createdAt: t.createdAt,
      }));
    out.notes = notes.map((n) => this.note(n, v, members));
    out.history = history.map((h) => this.entry(h, v, members));
    out.historyCount = await this.repo.historyCount(c.id, v.strsRead);
    return out;
  }
}
