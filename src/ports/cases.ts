// Cases in the domain's terms: the case record (its free text sealed by the case actor, bound to the case), its notes
// and history, the blind text index, and the reads the API and the presenter make. Asynchronous like every port
// (src/ports/store.ts): the writes run inside the case actor's unit of work, reads anywhere. The SQLite engine's Cases
// (storage's repos/cases.ts) implements it, and the storage contract suite holds every engine to it.
import type { CasePriority, CaseResolution, CaseStatus, CaseType, HistoryAction } from "../domain/cases.ts";
import type { Environment } from "../domain/types.ts";
import type { AuditActor } from "./audit.ts";

/** What a resolution remembers for the transfer's later answer (kept on the case, so the CLI needs no actor state). */
export interface CaseResolutionContext {
  actor: AuditActor;
  mayWriteStrs: boolean;
  act: boolean;
}

export interface CaseRecord {
  id: string;
  companyId: string;
  environment: Environment;
  /** The case's number within its company and environment (drawn by `nextSeq`). */
  seq: number;
  caseNumber: string;
  titleSealed: string;
  descriptionSealed: string | null;
  type: CaseType;
  category: string;
  priority: CasePriority;
  status: CaseStatus;
  resolution: CaseResolution | null;
  resolutionNoteSealed: string | null;
  assigneeId: string | null;
  ruleId: string | null;
  /** The linked transfers; the first is the one a resolution acts on. */
  transferIds: string[];
  source: string;
  noteCount: number;
  createdById: string | null;
  resolvedAt: string | null;
  resolvedById: string | null;
  resolutionContext: CaseResolutionContext | null;
  /** `transfer_updated` or `transfer_not_updated` once the transfer actor answered a resolution. */
  transferOutcome: string | null;
  /** Raised by every update: an update names the version it read, and a stale one is refused (VersionConflict). */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** What an update may set (everything but the identity, the number and the version). */
export type CaseChange = Partial<Omit<CaseRecord, "id" | "companyId" | "environment" | "seq" | "caseNumber" | "version">>;

export interface CaseNote {
  id: string;
  caseId: string;
  companyId: string;
  environment: Environment;
  contentSealed: string;
  authorId: string | null;
  createdAt: string;
  /** Ascending in insertion order: the keyset of the newest-first pages. */
  seq: number;
}

export interface CaseHistoryEntry {
  id: string;
  caseId: string;
  companyId: string;
  environment: Environment;
  action: HistoryAction;
  field: string | null;
  oldValue: string | null;
  newValue: string | null;
  /** The values are sealed (free text: bound to the entry). */
  sealed: boolean;
  userId: string | null;
  createdAt: string;
  seq: number;
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

/** A member as a case names it (members carry no display name: the name is the email). */
export interface CaseMember {
  id: string;
  name: string;
  email: string;
  role: string;
  status: string;
}

export interface CaseRule {
  id: string;
  name: string;
  category: string;
  action: string;
  severity: string;
}

export interface CaseTransfer {
  id: string;
  externalId: string | null;
  direction: string;
  state: string;
  status: string;
  amount: string;
  asset: string;
  network: string;
  createdAt: string;
}

export interface CaseRepository {
  /** The environment a case of the company is in, when it exists (a case ID alone names it across both). */
  environmentOf(companyId: string, id: string): Promise<Environment | undefined>;
  get(companyId: string, environment: Environment, id: string): Promise<CaseRecord | undefined>;
  /** The next case number of the environment (numbers are never reused: call it in a short unit of work of its own). */
  nextSeq(companyId: string, environment: Environment): Promise<number>;
  insert(c: Omit<CaseRecord, "version">): Promise<void>;
  /** Writes the change if the case is still at `version` (VersionConflict otherwise); the version goes up by one. */
  update(id: string, version: number, change: CaseChange): Promise<void>;
  addHistory(h: Omit<CaseHistoryEntry, "seq">): Promise<void>;
  addNote(n: Omit<CaseNote, "seq">): Promise<void>;
  /** Replaces the case's blind text grams. */
  replaceGrams(companyId: string, environment: Environment, caseId: string, grams: string[]): Promise<void>;
  /** Cases having every gram (candidates to confirm on the opened text), at most `cap`. */
  withAllGrams(companyId: string, environment: Environment, grams: string[], cap: number): Promise<string[]>;
  /** Sealed title and description of the given cases, or of every case of the environment. */
  sealedTexts(companyId: string, environment: Environment, ids: string[] | "all"): Promise<{ id: string; titleSealed: string; descriptionSealed: string | null }[]>;
  /** Newest first; keyset on (createdAt, id). */
  page(companyId: string, environment: Environment, f: CaseFilter, after: [string, string] | null, limit: number): Promise<CaseRecord[]>;
  count(companyId: string, environment: Environment, f: CaseFilter): Promise<number>;
  /** Newest first, strictly before `beforeSeq`. */
  notes(caseId: string, beforeSeq: number | null, limit: number): Promise<CaseNote[]>;
  note(caseId: string, noteId: string): Promise<CaseNote | undefined>;
  /** Newest first, strictly before `beforeSeq`; `str_drafted` entries only with `withStr`. */
  history(caseId: string, beforeSeq: number | null, limit: number, withStr: boolean): Promise<CaseHistoryEntry[]>;
  historyCount(caseId: string, withStr: boolean): Promise<number>;
  /** The company's members by ID (unknown IDs and "system" left out). */
  members(companyId: string, ids: (string | null)[]): Promise<Map<string, CaseMember>>;
  /** The rule's summary, or undefined when the environment has no such rule. */
  rule(companyId: string, environment: Environment, id: string): Promise<CaseRule | undefined>;
  /** The transfers among `ids` that exist in the environment, in the order of `ids`. */
  transfers(companyId: string, environment: Environment, ids: string[]): Promise<CaseTransfer[]>;
  /** The open case a transfer's first link points to. */
  openCaseOfTransfer(companyId: string, environment: Environment, transferId: string): Promise<CaseRecord | undefined>;
}
