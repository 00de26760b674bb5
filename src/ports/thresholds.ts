// The thresholds port: a company's thresholds and the profile they are chosen by, in the domain's records. Written by
// hand (not derived from an engine's class) and asynchronous like every port (src/ports/store.ts); the SQLite engine
// implements it, and the storage contract suite (test/storage/contract/) holds every engine to it. Its writes run inside a caller's
// unit of work: the company's thresholds actor (src/actors/thresholds.ts) is the one writer, deciding with
// src/domain/thresholds.ts. The outcomes below are what that actor answers.
import type { Issue } from "../domain/errors.ts";
import type { CompanyProfile, MutableField, ProfileChange, Threshold, ThresholdSelection, ThresholdType } from "../domain/thresholds.ts";

export type CreateThresholdOutcome = { ok: true; threshold: Threshold } | { ok: false; kind: "exists"; existingId: string };

export type UpdateThresholdOutcome =
  | { ok: true; threshold: Threshold }
  | { ok: false; kind: "not_found" }
  | { ok: false; kind: "immutable"; fields: string[] }
  | { ok: false; kind: "invalid"; issues: Issue[] }
  | { ok: false; kind: "needs_disable" };

/** A profile change: the profile as it is after it, or the reasons it was refused (nothing changed). */
export type SetProfileOutcome = { ok: true; profile: CompanyProfile } | { ok: false; errors: string[] };

export interface ThresholdRepository {
  /** The company as a VASP (originating VASP of its outgoing transfers): its LEI when the profile has one, else its ID. */
  ownVasp(companyId: string): Promise<{ id: string; name: string }>;
  /** The company's profile (legal name, country, identifiers), or null until set. */
  profile(companyId: string): Promise<CompanyProfile | null>;
  /**
   * Sets profile fields in a unit of work of its own (or the caller's, inside one); a real change is audited in both
   * environments' logs, as every company change is.
   */
  setProfile(companyId: string, change: ProfileChange, now: number): Promise<SetProfileOutcome>;
  /** The threshold that applies to the company now (its own, else its jurisdiction's default). */
  applicable(companyId: string, o: { type: ThresholdType; now: number }): Promise<ThresholdSelection>;
  get(companyId: string, id: string): Promise<Threshold | undefined>;
  /** Every threshold of the company in list order: jurisdiction, type, id. */
  all(companyId: string): Promise<Threshold[]>;
  activeCount(companyId: string): Promise<number>;
  /** The ID of the company's threshold for this jurisdiction and type, if it has one. */
  idByJurisdiction(companyId: string, countryCode: string, type: ThresholdType): Promise<string | undefined>;
  /** Writes a new threshold, inside the caller's unit of work (its audit entry is the caller's too). */
  insert(companyId: string, t: Threshold): Promise<void>;
  /** Writes a threshold's changed `fields` (and its updatedAt, updatedBy), inside the caller's unit of work. */
  save(companyId: string, t: Threshold, fields: readonly MutableField[]): Promise<void>;
}
