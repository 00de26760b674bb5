// CaseActor (`case:<id>`): the only writer of a case after creation; each change commits with its history, audit and event.
import type { ActorContext, ActorKind } from "./types.ts";
import { refuse, type Outcome } from "./outcome.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { CaseChange, CaseHistoryEntry, CaseNote, CaseRecord, CaseResolutionContext } from "../ports/cases.ts";
import type { Repositories } from "../ports/repositories.ts";
import { latestRunIncomplete, ruleIndicator } from "../domain/reports/indicators.ts";
import { NARRATIVE_PLACEHOLDER, reportJurisdiction } from "../domain/reports/report.ts";
import { iso, newId } from "../domain/ids.ts";
import { roleAllowsEnvironment, roleHas, type Role } from "../domain/access.ts";
import { blindGrams } from "../domain/blind-index.ts";
import {
  FREE_TEXT_FIELDS,
  formatCaseNumber,
  narrativeSeed,
  priorityFromSeverity,
  screeningTitle,
  transferAction,
  type CasePatch,
  type CaseResolution,
  type CaseType,
  type CreateCaseInput,
  type HistoryAction,
  type Severity,
  type TransferAction,
} from "../domain/cases.ts";
import type { Environment } from "../domain/types.ts";
import type { ErrorCode } from "../domain/errors.ts";

interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

/** Sent by the transfer actor in the unit of work that holds or blocks a transfer (Part 2: opened by screening). */
export interface OpenFromScreening {
  type: "openFromScreening";
  companyId: string;
  environment: Environment;
  transferId: string;
  ruleId: string | null;
  caseType: "sanctions_hit" | "compliance_review" | "provider_rejection";
  category: "aml" | "sanctions";
  severity: Severity;
  stage: "precheck" | "postcheck";
  verdict: "require_review" | "block";
  at: string;
  /** Who held it when not screening: a provider's own hold (`provider_a`, `provider_e`); the case's `source`. */
  source?: string;
  /** Held because the checks its rule reads could not run (failed or skipped): not a match (docs/screening.md). */
  unscreened?: boolean;
}

/** Sent to `transfer:<firstLinkedTransferId>` in the resolution's transaction; `act` is true iff `meta.transferAction` is queued. */
export interface CaseResolved {
  type: "caseResolved";
  companyId: string;
  environment: Environment;
  actor: AuditActor;
  caseId: string;
  resolution: CaseResolution;
  act: boolean;
  /** The officer confirmed that a transfer whose screening could not run goes on unscreened (docs/screening.md). */
  approveUnscreened?: boolean;
}

/** The transfer actor's answer to `caseResolved`: the state reached, or `resume_refused` / `reject_refused`. */
export interface TransferOutcome {
  type: "transferOutcome";
  companyId: string;
  environment: Environment;
  transferId: string;
  moved: boolean;
  newValue: string;
}

export type CaseMsg =
  | (Scoped & { type: "create"; input: CreateCaseInput; source: string })
  | (Scoped & { type: "update"; patch: CasePatch })
  | (Scoped & { type: "addNote"; content: string })
  | (Scoped & { type: "resolve"; resolution: CaseResolution; resolutionNote: string | null; approveUnscreened?: boolean; mayWriteTransfers: boolean; mayWriteStrs: boolean })
  | OpenFromScreening
  | TransferOutcome;

/** A message before the caller adds tenant and actor. */
export type CaseCommand = Extract<CaseMsg, Scoped> extends infer T ? (T extends unknown ? Omit<T, keyof Scoped> : never) : never;

/** The repositories the case actor reads and writes (inside `ctx.write` too: they share the runtime's connection). */
export type CaseRepositories = Pick<Repositories, "cases" | "transfers" | "audit" | "reports" | "thresholds">;

export interface CaseDeps {
  repositories: CaseRepositories;
  pii: Sealer;
  /** HMAC key of the blind text index (the same derived key as customer names). */
  nameIndexKey: Uint8Array;
  log?: (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;
}

/** What a resolution remembers for the transfer's later answer (kept on the case, so the CLI needs no actor state). */
type ResolutionContext = CaseResolutionContext;

export const caseAddress = (id: string) => `case:${id}`;
/** Case IDs: `cas_` + time-sortable random (src/domain/ids.ts). The transfer actor makes them with this too. */
export const newCaseId = (now: number) => newId("cas", now);

export const titleAad = (id: string) => `case:${id}:title`;
export const descriptionAad = (id: string) => `case:${id}:description`;
export const resolutionNoteAad = (id: string) => `case:${id}:resolution_note`;
export const noteAad = (noteId: string) => `case_note:${noteId}:content`;
export const historyAad = (entryId: string, which: "old" | "new") => `case_history:${entryId}:${which}`;

/** Part 2, Events: a case event's `data`, without free text (the dispatcher cuts to CASE_EVENT_FIELDS as well). */
export function caseEventData(c: CaseRecord) {
  return {
    id: c.id,
    caseNumber: c.caseNumber,
    type: c.type,
    category: c.category,
    priority: c.priority,
    status: c.status,
    resolution: c.resolution,
    assigneeId: c.assigneeId,
    ruleId: c.ruleId,
    transferIds: [...c.transferIds],
    source: c.source,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    resolvedAt: c.resolvedAt,
  };
}

/** The case after a change it committed: the record the command answers (routes present it without reading it again). */
const changed_ = (c: CaseRecord, set: CaseChange): CaseRecord => ({ ...c, ...set, version: c.version + 1 });

export function caseActor(deps: CaseDeps): ActorKind<Record<string, never>, CaseMsg> {
  return {
    kind: "case",
    initialState: () => ({}),
    async handle(ctx, msg) {
      ctx.reply(await new CaseHandling(ctx, msg, deps).run());
    },
  };
}

/** One message's work. Also run by the CLI inside one transaction (src/cli/cases.ts), so both paths share the rules. */
export class CaseHandling {
  private readonly repo: CaseRepositories["cases"];
  private readonly at: string;
  private readonly companyId: string;
  private readonly env: Environment;
  private readonly actor: AuditActor;

  constructor(
    private readonly ctx: Pick<ActorContext<unknown>, "id" | "now" | "store" | "write" | "tell" | "emit">,
    private readonly msg: CaseMsg,
    private readonly deps: CaseDeps,
  ) {
    this.repo = deps.repositories.cases;
    this.at = iso(ctx.now);
    this.companyId = msg.companyId;
    this.env = msg.environment;
    this.actor = "actor" in msg ? msg.actor : { type: "system" };
  }

  run(): Promise<Outcome> | Outcome {
    const m = this.msg;
    switch (m.type) {
      case "create":
        return this.create(m.input, m.source);
      case "openFromScreening":
        return this.openFromScreening(m);
      case "update":
        return this.withCase((c) => this.update(c, m.patch));
      case "addNote":
        return this.withCase((c) => this.addNote(c, m.content));
      case "resolve":
        return this.withCase((c) => this.resolve(c, m));
      case "transferOutcome":
        return this.withCase((c) => this.transferOutcome(c, m));
      default: {
        const _exhaustive: never = m;
        throw new Error(`unknown case message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }

  private async withCase(fn: (c: CaseRecord) => Outcome | Promise<Outcome>): Promise<Outcome> {
    const c = await this.repo.get(this.companyId, this.env, this.ctx.id);
    if (!c) return refuse("CASE_NOT_FOUND", undefined, { resource: "Case", id: this.ctx.id });
    return fn(c);
  }

  private seal(value: string, aad: string): string {
    return this.deps.pii.seal(value, aad);
  }

  private open(sealed: string | null, aad: string): string | null {
    return sealed === null ? null : this.deps.pii.open(sealed, aad);
  }

  private grams(title: string, description: string | null): string[] {
    const k = this.deps.nameIndexKey;
    return [...new Set([...blindGrams(k, title), ...(description ? blindGrams(k, description) : [])])];
  }

  /** An audit entry by the message's actor, or by `by` (the resolver, for what follows a resolution). */
  private audit(action: string, detail?: Record<string, unknown>, by: AuditActor = this.actor): void {
    const e = { companyId: this.companyId, environment: this.env, actor: by, action, entityType: "Case", entityId: this.ctx.id, detail };
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.audit.record(e, now));
  }

  /**
   * A history entry by the message's actor, or by `by`; free-text values are sealed (bound to the entry) and shown
   * `***` without pii:view.
   */
  private history(action: HistoryAction, field: string | null, oldValue: string | null, newValue: string | null, by: AuditActor = this.actor): void {
    const id = newId("chi", this.ctx.now);
    const sealed = field !== null && FREE_TEXT_FIELDS.has(field);
    const entry: Omit<CaseHistoryEntry, "seq"> = {
      id,
      caseId: this.ctx.id,
      companyId: this.companyId,
      environment: this.env,
      action,
      field,
      oldValue: sealed && oldValue !== null ? this.seal(oldValue, historyAad(id, "old")) : oldValue,
      newValue: sealed && newValue !== null ? this.seal(newValue, historyAad(id, "new")) : newValue,
      sealed,
      userId: by.memberId ?? null,
      createdAt: this.at,
    };
    this.ctx.write(() => this.repo.addHistory(entry));
  }

  private emit(type: "case.created" | "case.updated" | "case.resolved", c: CaseRecord): void {
    this.ctx.emit({ companyId: this.companyId, environment: this.env, type, entityType: "case", entityId: c.id, data: caseEventData(c) });
  }

  // ---- links (Part 2: 422 TRANSFER_NOT_FOUND, RULE_NOT_FOUND, INVALID_ASSIGNEE) ----

  private async checkLinks(l: { transferId?: string | null; ruleId?: string | null; assigneeId?: string | null }): Promise<Outcome | null> {
    const bad = (code: ErrorCode, field: string, id: string, message: string) => refuse(code, message, { field, id });
    if (l.transferId && !(await this.deps.repositories.transfers.get(this.companyId, this.env, l.transferId)))
      return bad("TRANSFER_NOT_FOUND", "transferId", l.transferId, "transferId names no transfer of this environment");
    if (l.ruleId && !(await this.repo.rule(this.companyId, this.env, l.ruleId))) return bad("RULE_NOT_FOUND", "ruleId", l.ruleId, "ruleId names no rule of this environment");
    if (l.assigneeId) {
      const m = (await this.repo.members(this.companyId, [l.assigneeId])).get(l.assigneeId);
      const ok = m && m.status === "active" && roleHas(m.role as Role, "cases:view") && roleAllowsEnvironment(m.role as Role, this.env);
      if (!ok) return bad("INVALID_ASSIGNEE", "assigneeId", l.assigneeId, "assigneeId must be an active member whose role can view cases in this environment");
    }
    return null;
  }

  // ---- create ----

  /** Draws the case number in its own short transaction: numbers are never reused, a failed creation leaves a gap. */
  private async drawNumber(): Promise<{ seq: number; caseNumber: string }> {
    const seq = await this.ctx.store.transaction(() => this.repo.nextSeq(this.companyId, this.env));
    return { seq, caseNumber: formatCaseNumber(this.env, seq, this.ctx.now) };
  }

  private async insertCase(o: {
    title: string;
    description: string | null;
    type: CaseType;
    category: string;
    priority: CaseRecord["priority"];
    ruleId: string | null;
    transferIds: string[];
    assigneeId: string | null;
    source: string;
  }): Promise<CaseRecord> {
    const id = this.ctx.id;
    const n = await this.drawNumber();
    const row: CaseRecord = {
      id,
      companyId: this.companyId,
      environment: this.env,
      seq: n.seq,
      caseNumber: n.caseNumber,
      titleSealed: this.seal(o.title, titleAad(id)),
      descriptionSealed: o.description === null ? null : this.seal(o.description, descriptionAad(id)),
      type: o.type,
      category: o.category,
      priority: o.priority,
      status: "open",
      resolution: null,
      resolutionNoteSealed: null,
      assigneeId: o.assigneeId,
      ruleId: o.ruleId,
      transferIds: [...o.transferIds],
      source: o.source,
      noteCount: 0,
      createdById: this.actor.memberId ?? null,
      resolvedAt: null,
      resolvedById: null,
      resolutionContext: null,
      transferOutcome: null,
      version: 1,
      createdAt: this.at,
      updatedAt: this.at,
    };
    const grams = this.grams(o.title, o.description);
    const repo = this.repo;
    const { version: _v, ...insert } = row;
    this.ctx.write(async () => {
      await repo.insert(insert);
      await repo.replaceGrams(this.companyId, this.env, id, grams);
    });
    this.history("created", "status", null, "open");
    if (o.assigneeId) this.history("assigned", "assigneeId", null, o.assigneeId);
    this.audit("case.created", { caseNumber: row.caseNumber, type: o.type, source: o.source, transferIds: o.transferIds });
    this.emit("case.created", row);
    return row;
  }

  private async create(input: CreateCaseInput, source: string): Promise<Outcome> {
    if (await this.repo.get(this.companyId, this.env, this.ctx.id)) return refuse("CONFLICT", "The case already exists");
    const bad = await this.checkLinks(input);
    if (bad) return bad;
    const row = await this.insertCase({ ...input, transferIds: input.transferId ? [input.transferId] : [], source });
    return { ok: true, status: 201, data: { id: row.id, caseNumber: row.caseNumber, status: row.status, case: row } };
  }

  /** Part 2: screening opens a case for a held or blocked transfer, or adds to the transfer's open case. */
  private async openFromScreening(m: OpenFromScreening): Promise<Outcome> {
    const existing = await this.repo.get(this.companyId, this.env, this.ctx.id);
    const hold = `${m.stage}:${m.verdict}${m.ruleId ? `:${m.ruleId}` : ""}${m.unscreened ? ":unscreened" : ""}`;
    if (existing) {
      if (existing.status !== "open") {
        this.deps.log?.("warn", "screening hold for a closed case ignored", { caseId: existing.id, transferId: m.transferId });
        return { ok: true, data: { id: existing.id, ignored: true } };
      }
      const set: CaseChange = { updatedAt: this.at };
      this.history("updated", "screening", null, hold);
      const order = { low: 0, medium: 1, high: 2 } as const;
      const priority = priorityFromSeverity(m.severity);
      if (order[priority] > order[existing.priority as Severity]) {
        set.priority = priority;
        this.history("updated", "priority", existing.priority, priority);
      }
      const ids = [...existing.transferIds];
      if (!ids.includes(m.transferId)) {
        ids.push(m.transferId);
        set.transferIds = ids;
        this.history("updated", "transferIds", null, m.transferId);
      }
      this.ctx.write(() => this.repo.update(existing.id, existing.version, set));
      // The audit detail names the stored fields as it always did.
      this.audit("case.updated", { fields: [...(set.priority !== undefined ? ["priority"] : []), ...(set.transferIds !== undefined ? ["transfer_ids", "first_transfer_id"] : [])], screening: hold });
      this.emit("case.updated", changed_(existing, set));
      return { ok: true, data: { id: existing.id } };
    }
    const rule = m.ruleId ? await this.repo.rule(this.companyId, this.env, m.ruleId) : undefined;
    const row = await this.insertCase({
      title: screeningTitle({ stage: m.stage, verdict: m.verdict, ruleName: rule?.name ?? null, unscreened: m.unscreened === true }),
      description: null,
      type: m.caseType,
      category: m.category,
      priority: priorityFromSeverity(m.severity),
      ruleId: m.ruleId,
      transferIds: [m.transferId],
      assigneeId: null,
      source: m.source ?? "screening",
    });
    return { ok: true, status: 201, data: { id: row.id, caseNumber: row.caseNumber } };
  }

  // ---- change ----

  private async update(c: CaseRecord, p: CasePatch): Promise<Outcome> {
    if (c.status === "closed") return refuse("CASE_CLOSED", "The case is closed: only notes are accepted", { id: c.id, caseNumber: c.caseNumber });
    const bad = await this.checkLinks({ transferId: p.transferId, ruleId: p.ruleId, assigneeId: p.assigneeId });
    if (bad) return bad;
    const set: CaseChange = {};
    const changed: string[] = [];
    const title = this.open(c.titleSealed, titleAad(c.id))!;
    const description = this.open(c.descriptionSealed, descriptionAad(c.id));
    let textChanged = false;
    if (p.title !== undefined && p.title !== title) {
      set.titleSealed = this.seal(p.title, titleAad(c.id));
      this.history("updated", "title", title, p.title);
      changed.push("title");
      textChanged = true;
    }
    if (p.description !== undefined && p.description !== description) {
      set.descriptionSealed = p.description === null ? null : this.seal(p.description, descriptionAad(c.id));
      this.history("updated", "description", description, p.description);
      changed.push("description");
      textChanged = true;
    }
    for (const f of ["type", "category", "priority", "ruleId"] as const) {
      const v = p[f];
      if (v !== undefined && v !== c[f]) {
        (set as Record<string, unknown>)[f] = v;
        this.history("updated", f, c[f], v);
        changed.push(f);
      }
    }
    if (p.assigneeId !== undefined && p.assigneeId !== c.assigneeId) {
      set.assigneeId = p.assigneeId;
      this.history("assigned", "assigneeId", c.assigneeId, p.assigneeId);
      changed.push("assigneeId");
    }
    if (p.transferId !== undefined) {
      // Part 2: a new transferId replaces all linked transfers; null unlinks them.
      const before = c.transferIds;
      const after = p.transferId === null ? [] : [p.transferId];
      if (JSON.stringify(before) !== JSON.stringify(after)) {
        set.transferIds = after;
        this.history("updated", "transferIds", before.length ? before.join(",") : null, p.transferId);
        changed.push("transferIds");
      }
    }
    if (changed.length === 0) return { ok: true, data: { id: c.id, caseNumber: c.caseNumber, status: c.status, changed, case: c } };
    set.updatedAt = this.at;
    const grams = textChanged ? this.grams(p.title ?? title, p.description !== undefined ? p.description : description) : null;
    const repo = this.repo;
    this.ctx.write(async () => {
      await repo.update(c.id, c.version, set);
      if (grams) await repo.replaceGrams(this.companyId, this.env, c.id, grams);
    });
    this.audit("case.updated", { fields: changed });
    const after = changed_(c, set);
    this.emit("case.updated", after);
    return { ok: true, data: { id: c.id, caseNumber: c.caseNumber, status: c.status, changed, case: after } };
  }

  /** Notes are accepted on closed cases too; adding one sends no event (Part 2, Events). */
  private addNote(c: CaseRecord, content: string): Outcome {
    const noteId = newId("cnt", this.ctx.now);
    const note: Omit<CaseNote, "seq"> = {
      id: noteId,
      caseId: c.id,
      companyId: this.companyId,
      environment: this.env,
      contentSealed: this.seal(content, noteAad(noteId)),
      authorId: this.actor.memberId ?? null,
      createdAt: this.at,
    };
    const repo = this.repo;
    this.ctx.write(async () => {
      await repo.addNote(note);
      await repo.update(c.id, c.version, { noteCount: c.noteCount + 1, updatedAt: this.at });
    });
    this.history("note_added", "notes", null, noteId);
    this.audit("case.note_added", { noteId });
    return { ok: true, status: 201, data: { id: noteId, content, authorId: note.authorId, createdAt: this.at, note } };
  }

  // ---- resolution ----

  private async resolve(c: CaseRecord, m: { resolution: CaseResolution; resolutionNote: string | null; approveUnscreened?: boolean; mayWriteTransfers: boolean; mayWriteStrs: boolean }): Promise<Outcome> {
    // The actor handles one message at a time: of two simultaneous resolutions the second finds the case closed.
    if (c.status === "closed") return refuse("CASE_CLOSED", "The case is already resolved", { id: c.id, caseNumber: c.caseNumber });
    const firstId = c.transferIds[0] ?? null;
    const first = firstId ? await this.deps.repositories.transfers.get(this.companyId, this.env, firstId) : undefined;
    const action: TransferAction | null = transferAction({
      resolution: m.resolution,
      transfer: first ? { id: first.id, state: first.state, status: first.status } : null,
      mayWriteTransfers: m.mayWriteTransfers,
    });
    const act = action?.result === "queued";
    const context: ResolutionContext = { actor: this.actor, mayWriteStrs: m.mayWriteStrs, act };
    const set: CaseChange = {
      status: "closed",
      resolution: m.resolution,
      resolutionNoteSealed: m.resolutionNote === null ? null : this.seal(m.resolutionNote, resolutionNoteAad(c.id)),
      resolvedAt: this.at,
      resolvedById: this.actor.memberId ?? null,
      resolutionContext: context,
      updatedAt: this.at,
    };
    this.ctx.write(() => this.repo.update(c.id, c.version, set));
    this.history("resolved", "resolution", null, m.resolution);
    this.audit("case.resolved", { resolution: m.resolution, transferAction: action, ...(m.approveUnscreened ? { approveUnscreened: true } : {}) });
    const after = changed_(c, set);
    this.emit("case.resolved", after);
    if (firstId) {
      const msg: CaseResolved = { type: "caseResolved", companyId: this.companyId, environment: this.env, actor: this.actor, caseId: c.id, resolution: m.resolution, act, ...(m.approveUnscreened ? { approveUnscreened: true } : {}) };
      this.ctx.tell(`transfer:${firstId}`, msg);
    }
    return { ok: true, data: { id: c.id, caseNumber: c.caseNumber, status: "closed", transferAction: action, case: after } };
  }

  /** The transfer actor's answer: recorded once in the history; a rejection that moved it drafts the suspicion report. */
  private async transferOutcome(c: CaseRecord, m: TransferOutcome): Promise<Outcome> {
    if (c.status !== "closed" || c.transferOutcome !== null || m.transferId !== (c.transferIds[0] ?? null)) return { ok: true, data: { id: c.id, ignored: true } };
    const action: HistoryAction = m.moved ? "transfer_updated" : "transfer_not_updated";
    const context: ResolutionContext | null = c.resolutionContext;
    // The entries name the resolver, whose resolution moved (or could not move) the transfer.
    const by = context?.actor ?? { type: "system" as const };
    const set: CaseChange = { transferOutcome: action, updatedAt: this.at };
    this.ctx.write(() => this.repo.update(c.id, c.version, set));
    this.history(action, "state", null, m.newValue, by);
    this.audit(`case.${action}`, { transferId: m.transferId, value: m.newValue }, by);
    if (m.moved && c.resolution === "rejected" && context?.mayWriteStrs) await this.draftReport(c, by);
    this.emit("case.updated", changed_(c, set));
    return { ok: true, data: { id: c.id, recorded: action } };
  }

  /**
   * Part 2: a rejected resolution by a key with strs:write drafts a suspicion report for the transfer, always: with no
   * jurisdiction known it is drafted with none (answered `ZZ`, never filing-ready until an officer sets one), never
   * dropped. Written
   * in the same unit of work as the recorded transfer outcome, which a replay finds set: drafted once.
   */
  private async draftReport(c: CaseRecord, by: AuditActor): Promise<void> {
    const t = await this.deps.repositories.transfers.get(this.companyId, this.env, c.transferIds[0]!);
    if (!t) return;
    const jurisdiction = reportJurisdiction(t.thresholdInfo, (await this.deps.repositories.thresholds.profile(this.companyId))?.country ?? null);
    const rule = c.ruleId ? await this.repo.rule(this.companyId, this.env, c.ruleId) : undefined;
    const seed = narrativeSeed({
      caseNumber: c.caseNumber,
      title: this.open(c.titleSealed, titleAad(c.id))!,
      description: this.open(c.descriptionSealed, descriptionAad(c.id)),
      rule: rule ?? null,
      resolutionNote: this.open(c.resolutionNoteSealed, resolutionNoteAad(c.id)),
      transfer: { id: t.id, direction: t.direction, amount: t.amount, asset: t.asset, network: t.network, createdAt: t.createdAt },
    });
    const pii = this.deps.pii;
    // Part 2: thresholds decide when a suspicion report is due: the str threshold's amount against the transfer's value.
    const due = jurisdiction
      ? await this.deps.repositories.reports.threshold(this.companyId, this.env, t.id, jurisdiction, await this.deps.repositories.thresholds.all(this.companyId))
      : null;
    // A rule that held the transfer because its check could not run found nothing: said so, never as a rule that fired.
    const incomplete = latestRunIncomplete(t.checks);
    const riskIndicators = [c.type, c.category, ...(incomplete ? ["screening_incomplete"] : rule ? [ruleIndicator(rule)] : []), "rejected_on_review", ...(due?.reached ? ["str_threshold_reached"] : [])];
    const reportId = newId("rpt", this.ctx.now);
    const input = {
      id: reportId,
      companyId: this.companyId,
      environment: this.env,
      transferId: t.id,
      caseId: c.id,
      jurisdiction,
      narrative: `${NARRATIVE_PLACEHOLDER}\n\nWhat Caravan recorded:\n${seed}`,
      riskIndicators,
      generatedBy: by.memberId ?? "system",
      detectionMethod: (c.source === "screening" ? "screening" : "manual") as "screening" | "manual",
    };
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.reports.createDraft(input, now));
    this.history("str_drafted", "reportId", null, reportId, by);
    this.audit("case.str_drafted", { reportId, transferId: t.id, jurisdiction }, by);
    if (!jurisdiction) this.deps.log?.("warn", "suspicion report drafted without a jurisdiction: an officer sets it before filing", { caseId: c.id, reportId });
  }
}

// The report's jurisdiction is decided in the reports domain; re-exported for the callers that know it here.
export { reportJurisdiction };
