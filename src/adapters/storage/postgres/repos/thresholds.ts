// Thresholds of a company and the company profile they are chosen by, on PostgreSQL: the twin of
// ../../repos/thresholds.ts (same port, same answers, the same domain decisions: `selectThreshold`,
// `applyProfileChange`). Amounts stay decimal text: no statement compares or computes them. No per-company cache:
// PostgreSQL has no cheap "another connection committed" mark like SQLite's data_version, so `applicable()` reads
// the company's thresholds and profile in one statement each time (a write by another process is seen at once).
import { iso } from "../../../../domain/ids.ts";
import { applyProfileChange, parseProfile, selectThreshold, type CompanyProfile, type MutableField, type ProfileChange, type Threshold, type ThresholdSelection, type ThresholdType } from "../../../../domain/thresholds.ts";
import type { SetProfileOutcome, ThresholdRepository } from "../../../../ports/thresholds.ts";
import type { AuditRepository } from "../../../../ports/audit.ts";
import { THRESHOLD_COLUMNS, THRESHOLD_INSERT_COLUMNS, profileAuditEntries, thresholdInsertValues, thresholdSaveValues, toThreshold, vaspOf, type ThresholdRow } from "../../repos/thresholds.ts";
import type { PgSession } from "../session.ts";

const LIST_ORDER = "ORDER BY country_code, type, id";

export class PgThresholds implements ThresholdRepository {
  /** `audit`: the audit log a profile change is recorded in (the bundle's, asked when a change is written). */
  constructor(
    private readonly db: PgSession,
    private readonly audit: () => AuditRepository,
  ) {}

  private async company(companyId: string): Promise<{ name: string; profile: string | null } | undefined> {
    return (await this.db.read<{ name: string; profile: string | null }>("SELECT name, profile FROM companies WHERE id = $1", [companyId]))[0];
  }

  /** The company as a VASP (originating VASP of its outgoing transfers): its LEI when the profile has one, else its ID. */
  async ownVasp(companyId: string): Promise<{ id: string; name: string }> {
    const c = await this.company(companyId);
    // As SQLite's: the company exists (a caller of an unknown company is a bug, not an answer).
    return vaspOf(companyId, c!.name, parseProfile(c!.profile));
  }

  /** The company's profile (legal name, country, identifiers), or null until set. */
  async profile(companyId: string): Promise<CompanyProfile | null> {
    const c = await this.company(companyId);
    return c ? parseProfile(c.profile) : null;
  }

  /** Sets profile fields in a unit of work of its own (a savepoint inside the caller's); a real change is audited in both environments' logs. */
  setProfile(companyId: string, change: ProfileChange, now: number): Promise<SetProfileOutcome> {
    return this.db.transaction(async (): Promise<SetProfileOutcome> => {
      const r = applyProfileChange(await this.profile(companyId), change);
      if (!r.ok) return { ok: false, errors: r.errors };
      if (r.fields.length === 0) return { ok: true, profile: r.profile };
      await this.db.q("UPDATE companies SET profile = $1, updated_at = $2 WHERE id = $3", [JSON.stringify(r.profile), iso(now), companyId]);
      const audit = this.audit();
      for (const entry of profileAuditEntries(companyId, r.fields)) await audit.record(entry, now);
      return { ok: true, profile: r.profile };
    });
  }

  /**
   * The threshold that applies to the company now (domain `selectThreshold`): the company's thresholds in list order
   * and its profile, read in one statement whatever the number of thresholds.
   */
  async applicable(companyId: string, o: { type: ThresholdType; now: number }): Promise<ThresholdSelection> {
    const r = (
      await this.db.read<{ profile: string | null; thresholds: string }>(
        `SELECT (SELECT profile FROM companies WHERE id = $1) AS profile,
                (SELECT coalesce(json_agg(t ${LIST_ORDER}), '[]')::text FROM thresholds t WHERE company_id = $1) AS thresholds`,
        [companyId],
      )
    )[0]!;
    const thresholds = (JSON.parse(r.thresholds) as ThresholdRow[]).map(toThreshold);
    return selectThreshold(thresholds, parseProfile(r.profile), o);
  }

  async get(companyId: string, id: string): Promise<Threshold | undefined> {
    const r = (await this.db.read<ThresholdRow>("SELECT * FROM thresholds WHERE id = $1 AND company_id = $2", [id, companyId]))[0];
    return r ? toThreshold(r) : undefined;
  }

  /** Every threshold of the company in list order: jurisdiction, type, id (byte order, as SQLite's BINARY). */
  async all(companyId: string): Promise<Threshold[]> {
    return (await this.db.read<ThresholdRow>(`SELECT * FROM thresholds WHERE company_id = $1 ${LIST_ORDER}`, [companyId])).map(toThreshold);
  }

  async activeCount(companyId: string): Promise<number> {
    return (await this.db.read<{ n: number }>("SELECT count(*) AS n FROM thresholds WHERE company_id = $1 AND is_active = 1", [companyId]))[0]!.n;
  }

  /** The ID of the company's threshold for this jurisdiction and type, if it has one. */
  async idByJurisdiction(companyId: string, countryCode: string, type: ThresholdType): Promise<string | undefined> {
    return (await this.db.read<{ id: string }>("SELECT id FROM thresholds WHERE company_id = $1 AND country_code = $2 AND type = $3", [companyId, countryCode, type]))[0]?.id;
  }

  /** Writes a new threshold, inside the caller's unit of work (its audit entry is the caller's too). */
  async insert(companyId: string, t: Threshold): Promise<void> {
    await this.db.q(`INSERT INTO thresholds (${THRESHOLD_INSERT_COLUMNS.join(", ")}) VALUES (${THRESHOLD_INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})`, thresholdInsertValues(companyId, t));
  }

  /** Writes a threshold's changed `fields` (and its updatedAt, updatedBy), inside the caller's unit of work. */
  async save(companyId: string, t: Threshold, fields: readonly MutableField[]): Promise<void> {
    const n = fields.length;
    await this.db.q(
      `UPDATE thresholds SET ${fields.map((f, i) => `${THRESHOLD_COLUMNS[f]} = $${i + 1}`).join(", ")}, updated_at = $${n + 1}, updated_by = $${n + 2} WHERE id = $${n + 3} AND company_id = $${n + 4}`,
      thresholdSaveValues(companyId, t, fields),
    );
  }
}
