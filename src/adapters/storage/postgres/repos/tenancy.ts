// Companies, members, sessions and API keys on PostgreSQL: the twin of ../../repos/tenancy.ts (same port, same
// answers, same refusals). The records' mappers, the rows' writes and the authentication cache are SQLite's
// (exported there, and ../../repos/tenancy-cache.ts); what differs is the SQL and how a write is made one:
// - Every multi-statement write is one transaction on the writer. The rows a write decides from are read FOR UPDATE:
//   SQLite's IMMEDIATE transaction keeps another process out between the read and the write; here the row lock does
//   (a CLI command changing the same member or key waits for this one, then decides from what it committed).
// - A slug or an email taken by another connection between the check and the insert (READ COMMITTED sees only what
//   was committed when the check ran) meets the unique index, SQLSTATE 23505: it is answered with the refusal the
//   decision gives for a taken slug or email, the TenancyError SQLite's callers get (there the lock makes the check
//   final). A unique index refusing the tenancy actor's own inserts stays the store's error, as on SQLite.
// - The cache's data version is the change notice (../notice.ts) attached to the session.
import { newId, iso } from "../../../../domain/ids.ts";
import { decideCompany, decideCompanyStatus, decideFeature, decideKey, decideMember, decideMemberRole, decideMemberStatus, decideRevoke, decideSetupCode, keySecret } from "../../../../domain/members/tenancy.ts";
import type { Environment } from "../../../../domain/types.ts";
import type { AuditActor } from "../../../../ports/audit.ts";
import { CLI_ACTOR, TenancyError } from "../../../../ports/tenancy.ts";
import type { ApiKey, Company, KeyAuth, Member, MemberSession, MemberSummary, NewKey, NewSession, SessionAuth, TenancyActor, TenancyRepository } from "../../../../ports/tenancy.ts";
import {
  BOTH,
  WRITES,
  auditEntries,
  credentialSql,
  decided,
  opt,
  toCompany,
  toKey,
  toKeyAuth,
  toMember,
  toSession,
  toSessionAuth,
  type AuditedChange,
  type CompanyRow,
  type CredentialHash,
  type CredentialJoin,
  type CredentialTable,
  type KeyAuthRow,
  type KeyRow,
  type MemberRow,
  type RowWrite,
  type SessionAuthRow,
  type SessionRow,
} from "../../repos/tenancy.ts";
import { CredentialCache } from "../../repos/tenancy-cache.ts";
import { SNAPSHOT_COLUMN, changesOf } from "../notice.ts";
import { numbered } from "../numbered.ts";
import type { PgSession } from "../session.ts";
import { PgAuditLog } from "./audit.ts";

const system: AuditActor = { type: "system" };

/** The snapshot a cache fill's row was read under (SNAPSHOT_COLUMN). */
interface ReadSnapshot {
  read_snapshot: string;
}

/** Whether `e` is PostgreSQL's unique_violation (SQLSTATE 23505) of the named constraint or unique index. */
export function uniqueViolation(e: unknown, constraint: string): boolean {
  if (!e || typeof e !== "object") return false;
  const x = e as { code?: unknown; constraint_name?: unknown };
  return x.code === "23505" && x.constraint_name === constraint;
}

/** `FOR UPDATE` inside a write (the row stays as read until it commits), nothing for a plain read. */
const locking = (lock: boolean) => (lock ? " FOR UPDATE" : "");

export class PgTenancy implements TenancyRepository {
  private readonly audit: PgAuditLog;
  private readonly cache: CredentialCache;
  constructor(
    private readonly db: PgSession,
    private readonly clock: () => number,
  ) {
    this.audit = new PgAuditLog(db);
    this.cache = new CredentialCache(db, changesOf(db));
  }

  async members(companyId: string, ids: readonly (string | null)[]): Promise<Map<string, MemberSummary>> {
    const want = [...new Set(ids.filter((x): x is string => !!x && x !== "system"))];
    if (want.length === 0) return new Map();
    const rows = await this.db.read<Omit<MemberSummary, "name">>("SELECT id, email, role, status FROM members WHERE company_id = $1 AND id = ANY($2::text[])", [companyId, want]);
    return new Map(rows.map((r) => [r.id, { ...r, name: r.email }]));
  }

  // ---- rows (a read outside a unit goes to a reader; inside one, `lock` keeps the row until it commits) ----

  private async companyRow(slug: string, lock = false): Promise<CompanyRow | undefined> {
    return (await this.db.read<CompanyRow>(`SELECT * FROM companies WHERE slug = $1${locking(lock)}`, [slug]))[0];
  }
  private async requireCompanyRow(slug: string, lock = false): Promise<CompanyRow> {
    const c = await this.companyRow(slug, lock);
    if (!c) throw new TenancyError(`no company with slug "${slug}"`);
    return c;
  }
  private async memberRowByEmail(companyId: string, email: string, lock = false): Promise<MemberRow | undefined> {
    return (await this.db.read<MemberRow>(`SELECT * FROM members WHERE company_id = $1 AND email = $2${locking(lock)}`, [companyId, email.toLowerCase()]))[0];
  }
  private async memberRowById(companyId: string, id: string, lock = false): Promise<MemberRow | undefined> {
    return (await this.db.read<MemberRow>(`SELECT * FROM members WHERE company_id = $1 AND id = $2${locking(lock)}`, [companyId, id]))[0];
  }
  private async keyRow(id: string, lock = false): Promise<KeyRow | undefined> {
    return (await this.db.read<KeyRow>(`SELECT * FROM api_keys WHERE id = $1${locking(lock)}`, [id]))[0];
  }

  // ---- companies ----

  async companyBySlug(slug: string): Promise<Company | undefined> {
    return opt(await this.companyRow(slug), toCompany);
  }

  async requireCompany(slug: string): Promise<Company> {
    return toCompany(await this.requireCompanyRow(slug));
  }

  async listCompanies(): Promise<Company[]> {
    return (await this.db.read<CompanyRow>("SELECT * FROM companies ORDER BY created_at")).map(toCompany);
  }

  createCompany(slug: string, name?: string): Promise<Company> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const d = decided(decideCompany(slug, name, (await this.companyRow(slug)) !== undefined, newId("cmp", now), iso(now)));
      try {
        await this.companyInsert(d.record);
      } catch (e) {
        // Committed by another connection since the check: the refusal of a taken slug.
        if (uniqueViolation(e, "companies_slug_unique")) decided(decideCompany(slug, name, true, d.record.id, d.record.createdAt));
        throw e;
      }
      await this.audited(d.record.id, BOTH, system, d, "Company", d.record.id, now);
      return d.record;
    });
  }

  setCompanyStatus(slug: string, status: "active" | "suspended"): Promise<Company> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const d = decideCompanyStatus(toCompany(await this.requireCompanyRow(slug, true)), status, iso(now));
      await this.companySave(d.record);
      await this.audited(d.record.id, BOTH, system, d, "Company", d.record.id, now);
      return d.record;
    });
  }

  setFeature(slug: string, feature: string, enabled: boolean): Promise<Company> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const d = decideFeature(toCompany(await this.requireCompanyRow(slug, true)), feature, enabled, iso(now));
      await this.companySave(d.record);
      await this.audited(d.record.id, BOTH, system, d, "Company", d.record.id, now);
      return d.record;
    });
  }

  // ---- members ----

  async memberByEmail(companyId: string, email: string): Promise<Member | undefined> {
    return opt(await this.memberRowByEmail(companyId, email), toMember);
  }

  async listMembers(companyId: string): Promise<Member[]> {
    return (await this.db.read<MemberRow>("SELECT * FROM members WHERE company_id = $1 ORDER BY created_at, id", [companyId])).map(toMember);
  }

  async memberById(companyId: string, id: string): Promise<Member | undefined> {
    return opt(await this.memberRowById(companyId, id), toMember);
  }

  createMember(companyId: string, email: string, role: string, by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const taken = (await this.memberRowByEmail(companyId, email)) !== undefined;
      const d = decided(decideMember(companyId, email, role, taken, by.via, newId("mem", now), iso(now)));
      try {
        await this.memberInsert(d.record);
      } catch (e) {
        // Committed by another connection since the check: the refusal of a taken email.
        if (uniqueViolation(e, "members_company_email")) decided(decideMember(companyId, email, role, true, by.via, d.record.id, d.record.createdAt));
        throw e;
      }
      await this.audited(companyId, BOTH, by.actor, d, "Member", d.record.id, now);
      return d.record;
    });
  }

  setMemberStatus(companyId: string, email: string, status: "active" | "disabled", by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const d = decided(decideMemberStatus(opt(await this.memberRowByEmail(companyId, email, true), toMember), email, status, by.via, iso(now)));
      await this.memberSaved(companyId, by, d, now);
      return d.record;
    });
  }

  setMemberRole(companyId: string, email: string, role: string, by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const d = decided(decideMemberRole(opt(await this.memberRowByEmail(companyId, email, true), toMember), email, role, by.via, iso(now)));
      await this.memberSaved(companyId, by, d, now);
      return d.record;
    });
  }

  /** A decided change of a member: saved, its sessions ended when it says so, audited in both environments. */
  private async memberSaved(companyId: string, by: TenancyActor, d: AuditedChange & { record: Member; endsSessions?: string | null }, now: number): Promise<void> {
    await this.memberSave(d.record);
    if (d.endsSessions) await this.endSessionsOf(d.record.id, d.endsSessions, now);
    await this.audited(companyId, BOTH, by.actor, d, "Member", d.record.id, now);
  }

  // ---- API keys ----

  createKey(opts: NewKey, by?: TenancyActor): Promise<{ apiKey: ApiKey; key: string }> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const { key, ...secret } = keySecret(opts.environment, crypto.getRandomValues(new Uint8Array(32)));
      const member = opt(await this.memberRowById(opts.companyId, opts.memberId, true), toMember);
      const d = decided(decideKey(member, opts, secret, by?.via ?? "cli", newId("key", now), now, iso));
      await this.keyInsert(d.record);
      // The key acts for its member; who issued it (the CLI, or a signed-in member's session) is the actor.
      await this.audited(opts.companyId, [opts.environment], by?.actor ?? { type: "member", memberId: d.record.memberId }, d, "ApiKey", d.record.id, now);
      return { apiKey: d.record, key };
    });
  }

  async keyById(id: string): Promise<ApiKey | undefined> {
    return opt(await this.keyRow(id), toKey);
  }

  async listKeys(companyId: string): Promise<ApiKey[]> {
    return (await this.db.read<KeyRow>("SELECT * FROM api_keys WHERE company_id = $1 ORDER BY created_at, id", [companyId])).map(toKey);
  }

  revokeKey(companyId: string, id: string, by: TenancyActor = CLI_ACTOR): Promise<ApiKey> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const d = decided(decideRevoke(opt(await this.keyRow(id, true), toKey), companyId, id, by.via, iso(now)));
      if (d.changed) {
        await this.keySave(d.record);
        await this.audited(companyId, [d.record.environment], by.actor, d, "ApiKey", id, now);
      }
      return d.record;
    });
  }

  touchDue(id: string, now: number): boolean {
    return this.cache.touchDue(id, now);
  }

  async touchKey(id: string, now: number): Promise<void> {
    if (!this.cache.touch(id, now)) return;
    await this.db.q("UPDATE api_keys SET last_used_at = $1 WHERE id = $2", [iso(now), id]);
  }

  // ---- sign-in: setup codes, credentials, sessions (docs/api.md, "Keys and sessions") ----

  issueSetupCode(companyId: string, email: string, codeHash: string, expiresAt: number, by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.db.transaction(async () => {
      const now = this.clock();
      const d = decided(decideSetupCode(opt(await this.memberRowByEmail(companyId, email, true), toMember), email, codeHash, iso(expiresAt), by.via, iso(now)));
      await this.memberSaved(companyId, by, d, now);
      return d.record;
    });
  }

  async setPendingCredentials(memberId: string, passphraseHash: string, totpSecretSealed: string, now: number): Promise<void> {
    await this.db.q("UPDATE members SET passphrase_hash = $1, totp_secret_sealed = $2, totp_confirmed_at = NULL, totp_last_step = NULL, updated_at = $3 WHERE id = $4", [
      passphraseHash,
      totpSecretSealed,
      iso(now),
      memberId,
    ]);
  }

  /**
   * True when the step is later than every step accepted before (the check and the write are one statement, so two
   * requests with one code cannot both pass). `confirm` also ends setup (the code is spent).
   */
  async useTotpStep(memberId: string, step: number, now: number, confirm: boolean): Promise<boolean> {
    const changed = confirm
      ? await this.db.run(
          "UPDATE members SET totp_last_step = $1, totp_confirmed_at = $2, setup_code_hash = NULL, setup_code_expires_at = NULL, updated_at = $2 WHERE id = $3 AND (totp_last_step IS NULL OR totp_last_step < $1)",
          [step, iso(now), memberId],
        )
      : await this.db.run("UPDATE members SET totp_last_step = $1 WHERE id = $2 AND totp_confirmed_at IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < $1)", [step, memberId]);
    return changed === 1;
  }

  /** Unknown emails leave no entry: there is no member to file it under. */
  async recordSignInFailure(companyId: string, environment: Environment, memberId: string, source: string | null, step: "sign_in" | "setup", now: number): Promise<void> {
    await this.audit.record({ companyId, environment, actor: { type: "system" }, action: "session.sign_in_failed", entityType: "Member", entityId: memberId, detail: { source, step } }, now);
  }

  createSession(o: NewSession, now: number): Promise<MemberSession> {
    return this.db.transaction(async () => {
      const id = newId("ses", now);
      const [row] = await this.db.q<SessionRow>(
        `INSERT INTO member_sessions (id, company_id, member_id, environment, role, token_hash, source, created_at, last_used_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9) RETURNING *`,
        [id, o.companyId, o.member.id, o.environment, o.member.role, o.tokenHash, o.source, iso(now), iso(o.expiresAt)],
      );
      await this.audit.record(
        { companyId: o.companyId, environment: o.environment, actor: { type: "member", memberId: o.member.id, sessionId: id }, action: o.action, entityType: "Session", entityId: id, detail: { source: o.source } },
        now,
      );
      return toSession(row!);
    });
  }

  /** No cache: sessions are few and each use renews. */
  async sessionByHash(hash: string): Promise<SessionAuth | undefined> {
    return opt(await this.credentialByHash<SessionAuthRow>("member_sessions", "token_hash", hash), toSessionAuth);
  }

  async sessionById(id: string): Promise<MemberSession | undefined> {
    return opt((await this.db.read<SessionRow>("SELECT * FROM member_sessions WHERE id = $1", [id]))[0], toSession);
  }

  async renewSession(id: string, now: number, expiresAt: number): Promise<void> {
    await this.db.q("UPDATE member_sessions SET last_used_at = $1, expires_at = $2 WHERE id = $3 AND ended_at IS NULL", [iso(now), iso(expiresAt), id]);
  }

  endSession(companyId: string, environment: Environment, session: { id: string; memberId: string }, reason: string, now: number, actor?: AuditActor): Promise<void> {
    return this.db.transaction(async () => {
      const changed = await this.db.run("UPDATE member_sessions SET ended_at = $1, ended_reason = $2 WHERE id = $3 AND ended_at IS NULL", [iso(now), reason, session.id]);
      if (changed === 1)
        await this.audit.record(
          { companyId, environment, actor: actor ?? { type: "member", memberId: session.memberId, sessionId: session.id }, action: "session.ended", entityType: "Session", entityId: session.id, detail: { reason } },
          now,
        );
    });
  }

  /** Ends every open session of a member (deactivation, role change, new credentials, the CLI). */
  private endSessionsOf(memberId: string, reason: string, now: number): Promise<number> {
    return this.db.run("UPDATE member_sessions SET ended_at = $1, ended_reason = $2 WHERE member_id = $3 AND ended_at IS NULL", [iso(now), reason, memberId]);
  }

  signOutMember(companyId: string, email: string, by: TenancyActor = CLI_ACTOR): Promise<number> {
    return this.db.transaction(async () => {
      const m = await this.memberRowByEmail(companyId, email, true);
      if (!m) throw new TenancyError(`no member with email ${email}`);
      const now = this.clock();
      const n = await this.endSessionsOf(m.id, "ended_by_cli", now);
      await this.audited(companyId, BOTH, by.actor, { action: "member.signed_out", detail: { sessions: n, via: by.via } }, "Member", m.id, now);
      return n;
    });
  }

  async openSessions(companyId: string, now: number): Promise<MemberSession[]> {
    return (await this.db.read<SessionRow>("SELECT * FROM member_sessions WHERE company_id = $1 AND ended_at IS NULL AND expires_at > $2 ORDER BY created_at", [companyId, iso(now)])).map(toSession);
  }

  // ---- the tenancy actor's writes (inside its unit of work) ----

  insertCompany(c: Company): Promise<void> {
    return this.companyInsert(c);
  }
  saveCompany(c: Company): Promise<void> {
    return this.companySave(c);
  }
  insertMember(m: Member): Promise<void> {
    return this.memberInsert(m);
  }
  saveMember(m: Member): Promise<void> {
    return this.memberSave(m);
  }
  insertKey(k: ApiKey): Promise<void> {
    return this.keyInsert(k);
  }
  saveKey(k: ApiKey): Promise<void> {
    return this.keySave(k);
  }

  private companyInsert(c: Company): Promise<void> {
    return this.write(WRITES.companyInsert, c);
  }
  /** Status, features, updatedAt; empties the authentication caches. */
  private async companySave(c: Company): Promise<void> {
    await this.write(WRITES.companySave, c);
    this.authChanged();
  }
  private memberInsert(m: Member): Promise<void> {
    return this.write(WRITES.memberInsert, m);
  }
  /** Role, status, credentials, setup code, updatedAt; empties the authentication caches. */
  private async memberSave(m: Member): Promise<void> {
    await this.write(WRITES.memberSave, m);
    this.authChanged();
  }
  private keyInsert(k: ApiKey): Promise<void> {
    return this.write(WRITES.keyInsert, k);
  }
  /** revokedAt; empties the authentication caches. */
  private async keySave(k: ApiKey): Promise<void> {
    await this.write(WRITES.keySave, k);
    this.authChanged();
  }
  private async write<T>(w: RowWrite<T>, x: T): Promise<void> {
    await this.db.q(numbered(w.sql), w.values(x));
  }

  private async audited(companyId: string, environments: readonly Environment[], actor: AuditActor, d: AuditedChange, entityType: string, entityId: string, now: number): Promise<void> {
    for (const e of auditEntries(companyId, environments, actor, d, entityType, entityId)) await this.audit.record(e, now);
  }

  endMemberSessions(memberId: string, reason: string, now: number): Promise<number> {
    return this.endSessionsOf(memberId, reason, now);
  }

  async unendedSessions(memberId: string): Promise<number> {
    const [r] = await this.db.read<{ n: number }>("SELECT COUNT(*) AS n FROM member_sessions WHERE member_id = $1 AND ended_at IS NULL", [memberId]);
    return r!.n;
  }

  // ---- the authentication cache ----

  /** Empties every PgTenancy's authentication cache over this session before its next lookup. */
  authChanged(): void {
    this.cache.changed();
  }

  /**
   * The hot path of every request, answered in this turn: the cached key (shared: never change it), or undefined on a
   * miss. A change committed here counts from the next request; one committed elsewhere from the next request after
   * its notice arrived (../notice.ts).
   */
  cachedKey(hash: string): KeyAuth | undefined {
    return this.cache.key(hash);
  }

  async authByHash(hash: string): Promise<KeyAuth | undefined> {
    const hit = this.cache.key(hash);
    if (hit) return hit;
    const mark = this.cache.mark();
    const row = await this.credentialByHash<KeyAuthRow & ReadSnapshot>("api_keys", "key_hash", hash, SNAPSHOT_COLUMN);
    if (!row) return undefined;
    const rec = toKeyAuth(row);
    this.cache.rememberKey(hash, rec, mark, row.read_snapshot);
    return rec;
  }

  cachedCompany(slug: string): Company | undefined {
    return this.cache.company(slug);
  }

  async companyBySlugCached(slug: string): Promise<Company | undefined> {
    const hit = this.cache.company(slug);
    if (hit) return hit;
    const mark = this.cache.mark();
    const [row] = await this.db.read<CompanyRow & ReadSnapshot>(`SELECT *${SNAPSHOT_COLUMN} FROM companies WHERE slug = $1`, [slug]);
    if (!row) return undefined;
    const rec = toCompany(row);
    this.cache.rememberCompany(slug, rec, mark, row.read_snapshot);
    return rec;
  }

  /** One indexed lookup by hash, joined with member and company. */
  async keyByHash(hash: string): Promise<KeyAuth | undefined> {
    return opt(await this.credentialByHash<KeyAuthRow>("api_keys", "key_hash", hash), toKeyAuth);
  }

  private async credentialByHash<T extends CredentialJoin>(table: CredentialTable, hashColumn: CredentialHash, hash: string, extraColumns = ""): Promise<T | undefined> {
    return (await this.db.read<T>(credentialSql(table, hashColumn, "$1", extraColumns), [hash]))[0];
  }
}
