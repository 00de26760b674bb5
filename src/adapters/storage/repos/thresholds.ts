// Thresholds of a company (not of an environment, Part 2) and the company profile they are chosen by. A threshold's
// writes run in the unit of work of its one writer, the company's thresholds actor (src/actors/thresholds.ts).
import { iso } from "../../../domain/ids.ts";
import {
  FATF_FALLBACKS,
  applyProfileChange,
  effectiveFrom,
  parseProfile,
  selectThreshold,
  type MutableField,
  type CompanyProfile,
  type ProfileChange,
  type Threshold,
  type ThresholdInput,
  type ThresholdSelection,
  type ThresholdType,
} from "../../../domain/thresholds.ts";
import type { SetProfileOutcome, ThresholdRepository } from "../../../ports/thresholds.ts";
import type { Storage } from "../types.ts";
import { AuditLog, type AuditEntryInput } from "./audit.ts";
import { TenancyError } from "./tenancy.ts";
import type { RowOf } from "./row.ts";
import type { thresholds as thresholdsTable } from "../../../../db/schema/transfers.ts";

export type ThresholdRow = RowOf<typeof thresholdsTable>;

export function toThreshold(r: ThresholdRow): Threshold {
  return {
    id: r.id,
    countryCode: r.country_code,
    type: r.type,
    name: r.name,
    thresholdAmount: r.threshold_amount,
    thresholdCurrency: r.threshold_currency,
    regulation: r.regulation,
    regulatoryBody: r.regulatory_body,
    effectiveDate: r.effective_date,
    filingDeadlineDays: r.filing_deadline_days,
    isEUMember: r.is_eu_member === 1,
    requiresOriginatorAccount: r.requires_originator_account === 1,
    isActive: r.is_active === 1,
    notes: r.notes,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    createdBy: r.created_by,
    updatedBy: r.updated_by,
  };
}

export const THRESHOLD_COLUMNS: Record<keyof ThresholdInput, keyof ThresholdRow> = {
  countryCode: "country_code",
  type: "type",
  name: "name",
  thresholdAmount: "threshold_amount",
  thresholdCurrency: "threshold_currency",
  regulation: "regulation",
  regulatoryBody: "regulatory_body",
  effectiveDate: "effective_date",
  filingDeadlineDays: "filing_deadline_days",
  isEUMember: "is_eu_member",
  requiresOriginatorAccount: "requires_originator_account",
  isActive: "is_active",
  notes: "notes",
};

export const sqlValue = (v: unknown) => (typeof v === "boolean" ? (v ? 1 : 0) : (v as string | number | null));

export class Thresholds implements ThresholdRepository {
  constructor(private readonly s: Storage) {}

  /** The company as a VASP (originating VASP of its outgoing transfers): its LEI when the profile has one, else its ID. */
  ownVasp(companyId: string): Promise<{ id: string; name: string }> {
    return this.s.run(() => ownVasp(this.s, companyId));
  }

  /** The company's profile (legal name, country, identifiers), or null until set. */
  profile(companyId: string): Promise<CompanyProfile | null> {
    return this.s.run(() => companyProfile(this.s, companyId));
  }

  /** Sets profile fields in a unit of work of its own; a real change is audited in both environments' logs. */
  setProfile(companyId: string, change: ProfileChange, now: number): Promise<SetProfileOutcome> {
    return this.s.transaction(async () => writeProfile(this.s, companyId, change, now));
  }

  /** The threshold that applies to the company now (its own, else its jurisdiction's default). */
  applicable(companyId: string, o: { type: ThresholdType; now: number }): Promise<ThresholdSelection> {
    return this.s.run(() => applicableThreshold(this.s, companyId, o));
  }

  get(companyId: string, id: string): Promise<Threshold | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM thresholds WHERE id = ? AND company_id = ?").get(id, companyId) as ThresholdRow | null | undefined;
      return r ? toThreshold(r) : undefined;
    });
  }

  /** Every threshold of the company in list order: jurisdiction, type, id. At most (249 + 2) × 2 rows by the unique index. */
  all(companyId: string): Promise<Threshold[]> {
    return this.s.run(() => allThresholds(this.s, companyId));
  }

  activeCount(companyId: string): Promise<number> {
    return this.s.run(() => (this.s.stmt("SELECT count(*) AS n FROM thresholds WHERE company_id = ? AND is_active = 1").get(companyId) as { n: number }).n);
  }

  /** The ID of the company's threshold for this jurisdiction and type, if it has one. */
  idByJurisdiction(companyId: string, countryCode: string, type: ThresholdType): Promise<string | undefined> {
    return this.s.run(
      () => (this.s.stmt("SELECT id FROM thresholds WHERE company_id = ? AND country_code = ? AND type = ?").get(companyId, countryCode, type) as { id: string } | null | undefined)?.id,
    );
  }

  insert(companyId: string, t: Threshold): Promise<void> {
    return this.s.run(() => {
      this.s.stmt(`INSERT INTO thresholds (${THRESHOLD_INSERT_COLUMNS.join(", ")}) VALUES (${THRESHOLD_INSERT_COLUMNS.map(() => "?").join(", ")})`).run(...thresholdInsertValues(companyId, t));
      companyChanged(this.s, companyId);
    });
  }

  save(companyId: string, t: Threshold, fields: readonly MutableField[]): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(`UPDATE thresholds SET ${fields.map((f) => `${THRESHOLD_COLUMNS[f]} = ?`).join(", ")}, updated_at = ?, updated_by = ? WHERE id = ? AND company_id = ?`)
        .run(...thresholdSaveValues(companyId, t, fields));
      companyChanged(this.s, companyId);
    });
  }
}

const INPUT_FIELDS = Object.keys(THRESHOLD_COLUMNS) as (keyof ThresholdInput)[];

/** A threshold's INSERT columns, in the order `thresholdInsertValues` gives their values (both engines). */
export const THRESHOLD_INSERT_COLUMNS: readonly string[] = ["id", "company_id", ...INPUT_FIELDS.map((c) => THRESHOLD_COLUMNS[c]), "created_at", "updated_at", "created_by", "updated_by"];

export function thresholdInsertValues(companyId: string, t: Threshold): (string | number | null)[] {
  return [t.id, companyId, ...INPUT_FIELDS.map((c) => sqlValue(t[c])), t.createdAt, t.updatedAt, t.createdBy, t.updatedBy];
}

/** A save's values: the changed `fields` in their order, then updated_at, updated_by, id, company_id. */
export function thresholdSaveValues(companyId: string, t: Threshold, fields: readonly MutableField[]): (string | number | null)[] {
  return [...fields.map((f) => sqlValue(t[f])), t.updatedAt, t.updatedBy, t.id, companyId];
}

/** The company as a VASP, from its name and profile: its LEI when the profile has one, else its ID. */
export function vaspOf(companyId: string, name: string, profile: CompanyProfile | null): { id: string; name: string } {
  const lei = profile?.identifiers.find((i) => i.type === "LEI")?.value;
  return { id: lei ?? companyId, name: profile?.legalName ?? name };
}

/** The audit entries of a real profile change: one in each environment's log, as every company change. */
export function profileAuditEntries(companyId: string, fields: readonly string[]): AuditEntryInput[] {
  return (["test", "live"] as const).map((env) => ({
    companyId,
    environment: env,
    actor: { type: "system" as const },
    action: "company.profile_updated",
    entityType: "Company",
    entityId: companyId,
    detail: { fields: [...fields] },
  }));
}

// ---- company profile ----

/** The company's profile (legal name, country, identifiers), or null until set (CLI `companies profile`). */
export function companyProfile(storage: Storage, companyId: string): CompanyProfile | null {
  const r = storage.stmt("SELECT profile FROM companies WHERE id = ?").get(companyId) as { profile: string | null } | null | undefined;
  return r ? parseProfile(r.profile) : null;
}

/** Sets profile fields; a real change is audited in both environments' logs like every company change (README, Audit log). */
export function setCompanyProfile(storage: Storage, companyId: string, change: ProfileChange, now: number): CompanyProfile {
  return storage.tx(() => {
    const r = writeProfile(storage, companyId, change, now);
    if (!r.ok) throw new TenancyError(r.errors.join("; "));
    return r.profile;
  });
}

/** The profile change's statements, inside the caller's transaction. */
function writeProfile(storage: Storage, companyId: string, change: ProfileChange, now: number): SetProfileOutcome {
  const r = applyProfileChange(companyProfile(storage, companyId), change);
  if (!r.ok) return { ok: false, errors: r.errors };
  if (r.fields.length === 0) return { ok: true, profile: r.profile };
  storage.stmt("UPDATE companies SET profile = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(r.profile), iso(now), companyId);
  companyChanged(storage, companyId);
  const audit = new AuditLog(storage);
  for (const entry of profileAuditEntries(companyId, r.fields)) audit.append(entry, now);
  return { ok: true, profile: r.profile };
}

function allThresholds(storage: Storage, companyId: string): Threshold[] {
  return (storage.stmt("SELECT * FROM thresholds WHERE company_id = ? ORDER BY country_code, type, id").all(companyId) as unknown as ThresholdRow[]).map(toThreshold);
}

/**
 * The threshold that applies to a transfer of the company now (domain `selectThreshold`; README "Which threshold
 * applies"). Cached per company and type (every create asks): a selection holds while no threshold's or fallback's
 * effective date lies between the time it was made for and `now`, and until the thresholds or profile change.
 */
export function applicableThreshold(storage: Storage, companyId: string, o: { type: ThresholdType; now: number }): ThresholdSelection {
  const c = companyCache(storage, companyId);
  const hit = c.selections.get(o.type);
  if (hit && o.now >= hit.from && o.now < hit.until) return hit.selection;
  const thresholds = allThresholds(storage, companyId);
  const selection = selectThreshold(thresholds, profileOf(storage, c, companyId), o);
  // Shared by every caller until it is dropped: frozen, so that no caller can change what the next one reads.
  Object.freeze(selection.threshold);
  Object.freeze(selection);
  let from = -Infinity;
  let until = Infinity;
  for (const d of [...thresholds.map((t) => t.effectiveDate), ...FATF_FALLBACKS.map((f) => f.effectiveDate)]) {
    const t = effectiveFrom(d);
    if (t <= o.now) from = Math.max(from, t);
    else until = Math.min(until, t);
  }
  c.selections.set(o.type, { selection, from, until });
  return selection;
}

/** The company as a VASP (originating VASP of its outgoing transfers): its LEI when the profile has one, else its ID. */
export function ownVasp(storage: Storage, companyId: string): { id: string; name: string } {
  const c = companyCache(storage, companyId);
  if (c.vasp) return c.vasp;
  const row = storage.stmt("SELECT name FROM companies WHERE id = ?").get(companyId) as { name: string };
  c.vasp = Object.freeze(vaspOf(companyId, row.name, profileOf(storage, c, companyId)));
  return { ...c.vasp };
}

// ---- per-company cache of what every create reads (issue 19) ----
//
// Shared by every caller over the same storage. A write through this module (thresholds created or changed, profile
// set) drops the company's entry in the same turn; a commit by another connection (the CLI in another process, a
// tool on the file) changes `PRAGMA data_version`, read at most once per synchronous turn, which empties the whole
// cache. Bounded: at most COMPANY_CACHE companies, the least recently used leave first. A company's name is written
// once, at its creation, so it needs no invalidation of its own.

const COMPANY_CACHE = 1024;

interface CompanyEntry {
  profile?: CompanyProfile | null;
  vasp?: Readonly<{ id: string; name: string }>;
  selections: Map<ThresholdType, { selection: ThresholdSelection; from: number; until: number }>;
}

interface CompanyCache {
  dataVersion: number;
  byCompany: Map<string, CompanyEntry>;
}

const companyCaches = new WeakMap<object, CompanyCache>();

/**
 * True when another connection committed since this cache last looked. Shared by the repositories' small caches;
 * one `PRAGMA data_version` read per synchronous turn serves all of them.
 */
export function changedElsewhere(storage: Pick<Storage, "dataVersion">, c: { dataVersion: number }): boolean {
  const v = storage.dataVersion();
  if (v === c.dataVersion) return false;
  c.dataVersion = v;
  return true;
}

function companyCache(storage: Storage, companyId: string): CompanyEntry {
  let c = companyCaches.get(storage);
  if (!c) companyCaches.set(storage, (c = { dataVersion: -1, byCompany: new Map() }));
  if (changedElsewhere(storage, c)) c.byCompany.clear();
  let e = c.byCompany.get(companyId);
  if (e) {
    c.byCompany.delete(companyId);
    c.byCompany.set(companyId, e);
    return e;
  }
  e = { selections: new Map() };
  c.byCompany.set(companyId, e);
  if (c.byCompany.size > COMPANY_CACHE) c.byCompany.delete(c.byCompany.keys().next().value!);
  return e;
}

function profileOf(storage: Storage, e: CompanyEntry, companyId: string): CompanyProfile | null {
  if (e.profile === undefined) e.profile = companyProfile(storage, companyId);
  return e.profile;
}

/** Drops the company's cached lookups (called by every write of this module, inside its transaction). */
export function companyChanged(storage: Storage, companyId: string): void {
  companyCaches.get(storage)?.byCompany.delete(companyId);
}
