// Companies, members and API keys: what the dashboard (our CLI) manages and what every request authenticates against.
import { newId, iso } from "../../../domain/ids.ts";
import type { Role } from "../../../domain/access.ts";
import {
  decideCompany,
  decideCompanyStatus,
  decideFeature,
  decideKey,
  decideMember,
  decideMemberRole,
  decideMemberStatus,
  decideRevoke,
  decideSetupCode,
  keySecret,
  type TenancyRefusal,
} from "../../../domain/members/tenancy.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import { AuditLog, type AuditActor, type AuditEntryInput } from "./audit.ts";
import {
  AUTH_CACHE_MAX,
  CLI_ACTOR,
  TenancyError,
  type ApiKey,
  type Company,
  type KeyAuth,
  type Member,
  type MemberSession,
  type MemberSummary,
  type NewKey,
  type NewSession,
  type SessionAuth,
  type TenancyActor,
  type TenancyRepository,
} from "../../../ports/tenancy.ts";

export { AUTH_CACHE_MAX, CLI_ACTOR, TenancyError };
export type { ApiKey, Company, KeyAuth, Member, MemberSession, MemberSummary, SessionAuth, TenancyActor, TenancyRepository };
import type { RowOf } from "./row.ts";
import { CredentialCache } from "./tenancy-cache.ts";
import type { companies as companiesTable, members as membersTable, apiKeys as apiKeysTable, memberSessions as memberSessionsTable } from "../../../../db/schema/tenancy.ts";

export type CompanyRow = RowOf<typeof companiesTable>;

export type MemberRow = RowOf<typeof membersTable>;

export type KeyRow = RowOf<typeof apiKeysTable>;

export type SessionRow = RowOf<typeof memberSessionsTable>;

/** What a credential (a key or a session) adds from its member and company: the columns of credentialByHash's join. */
export interface CredentialJoin {
  member_email: string;
  member_role: Role;
  member_status: "active" | "disabled";
  company_slug: string;
  company_status: "active" | "suspended";
  company_features: string;
}

/** One row per authenticated request: the key with its member and company. */
export interface KeyAuthRow extends KeyRow, CredentialJoin {}

/** The company's members by ID; unknown IDs and "system" are left out. */
export function memberSummaries(s: Storage, companyId: string, ids: readonly (string | null)[]): Map<string, MemberSummary> {
  const want = [...new Set(ids.filter((x): x is string => !!x && x !== "system"))];
  if (want.length === 0) return new Map();
  const rows = s
    .stmt("SELECT id, email, role, status FROM members WHERE company_id = ? AND id IN (SELECT value FROM json_each(?))")
    .all(companyId, JSON.stringify(want)) as unknown as Omit<MemberSummary, "name">[];
  return new Map(rows.map((r) => [r.id, { ...r, name: r.email }]));
}

const system: AuditActor = { type: "system" };
export const BOTH = ["test", "live"] as const;
/** A decision's change, or its refusal thrown as the one-line TenancyError. */
export function decided<T extends { ok: true }>(d: T | TenancyRefusal): T {
  if (!d.ok) throw new TenancyError(d.message);
  return d;
}

/** A session with its member and company: what a bearer token authenticates as. */
export interface SessionAuthRow extends SessionRow, CredentialJoin {}

export type CredentialTable = "api_keys" | "member_sessions";
export type CredentialHash = "key_hash" | "token_hash";

/**
 * The one indexed lookup of a credential by its hash, joined with its member and company; `param` is the dialect's
 * placeholder, `extraColumns` the engine's own (", …"). Table and column are closed unions, the rest constants of the engines:
 * nothing from outside reaches the SQL text.
 */
export function credentialSql(table: CredentialTable, hashColumn: CredentialHash, param: string, extraColumns = ""): string {
  return `SELECT x.*${extraColumns}, m.email AS member_email, m.role AS member_role, m.status AS member_status,
                 c.slug AS company_slug, c.status AS company_status, c.disabled_features AS company_features
            FROM ${table} x JOIN members m ON m.id = x.member_id JOIN companies c ON c.id = x.company_id
           WHERE x.${hashColumn} = ${param}`;
}

export const toCompany = (r: CompanyRow): Company => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  status: r.status,
  disabledFeatures: JSON.parse(r.disabled_features) as string[],
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toMember = (r: MemberRow): Member => ({
  id: r.id,
  companyId: r.company_id,
  email: r.email,
  role: r.role,
  status: r.status,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  passphraseHash: r.passphrase_hash,
  totpSecretSealed: r.totp_secret_sealed,
  totpConfirmedAt: r.totp_confirmed_at,
  totpLastStep: r.totp_last_step,
  setupCodeHash: r.setup_code_hash,
  setupCodeExpiresAt: r.setup_code_expires_at,
});

export const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  companyId: r.company_id,
  memberId: r.member_id,
  environment: r.environment,
  keyHash: r.key_hash,
  hint: r.hint,
  scopes: JSON.parse(r.scopes) as string[],
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
});

export const toSession = (r: SessionRow): MemberSession => ({
  id: r.id,
  companyId: r.company_id,
  memberId: r.member_id,
  environment: r.environment,
  role: r.role,
  tokenHash: r.token_hash,
  source: r.source,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
  endedAt: r.ended_at,
  endedReason: r.ended_reason,
});

/** One write of a record's row: the same SQL on both engines (`?` placeholders; PostgreSQL numbers them). */
export interface RowWrite<T> {
  readonly sql: string;
  values(x: T): (string | number | null)[];
}

/** The rows' writes (the tenancy actor's and this repository's own), one definition for both engines. */
export const WRITES = {
  companyInsert: {
    sql: "INSERT INTO companies (id, slug, name, status, disabled_features, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    values: (c) => [c.id, c.slug, c.name, c.status, JSON.stringify(c.disabledFeatures), c.createdAt, c.updatedAt],
  } satisfies RowWrite<Company>,
  companySave: {
    sql: "UPDATE companies SET status = ?, disabled_features = ?, updated_at = ? WHERE id = ?",
    values: (c) => [c.status, JSON.stringify(c.disabledFeatures), c.updatedAt, c.id],
  } satisfies RowWrite<Company>,
  memberInsert: {
    sql: "INSERT INTO members (id, company_id, email, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    values: (m) => [m.id, m.companyId, m.email, m.role, m.status, m.createdAt, m.updatedAt],
  } satisfies RowWrite<Member>,
  memberSave: {
    sql: "UPDATE members SET role = ?, status = ?, passphrase_hash = ?, totp_secret_sealed = ?, totp_confirmed_at = ?, totp_last_step = ?, setup_code_hash = ?, setup_code_expires_at = ?, updated_at = ? WHERE id = ? AND company_id = ?",
    values: (m) => [m.role, m.status, m.passphraseHash, m.totpSecretSealed, m.totpConfirmedAt, m.totpLastStep, m.setupCodeHash, m.setupCodeExpiresAt, m.updatedAt, m.id, m.companyId],
  } satisfies RowWrite<Member>,
  keyInsert: {
    sql: "INSERT INTO api_keys (id, company_id, member_id, environment, key_hash, hint, scopes, created_at, expires_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    values: (k) => [k.id, k.companyId, k.memberId, k.environment, k.keyHash, k.hint, JSON.stringify(k.scopes), k.createdAt, k.expiresAt, k.revokedAt, k.lastUsedAt],
  } satisfies RowWrite<ApiKey>,
  keySave: { sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ?", values: (k) => [k.revokedAt, k.id] } satisfies RowWrite<ApiKey>,
};

/** A decided change as the audit log records it. */
export interface AuditedChange {
  action: string;
  detail?: Record<string, unknown>;
}

/** A change's audit entries, one per environment it concerns. */
export function auditEntries(companyId: string, environments: readonly Environment[], actor: AuditActor, d: AuditedChange, entityType: string, entityId: string): AuditEntryInput[] {
  return environments.map((environment) => ({ companyId, environment, actor, action: d.action, entityType, entityId, ...(d.detail ? { detail: d.detail } : {}) }));
}

const ownerOf = (r: CredentialJoin) => ({
  memberEmail: r.member_email,
  memberRole: r.member_role,
  memberStatus: r.member_status,
  companySlug: r.company_slug,
  companyStatus: r.company_status,
  companyFeatures: JSON.parse(r.company_features) as string[],
});
export const toKeyAuth = (r: KeyAuthRow): KeyAuth => ({ ...toKey(r), ...ownerOf(r) });
export const toSessionAuth = (r: SessionAuthRow): SessionAuth => ({ ...toSession(r), ...ownerOf(r) });
export const opt = <R, T>(r: R | null | undefined, f: (r: R) => T): T | undefined => (r ? f(r) : undefined);

/**
 * The tenancy port over SQLite. A write that is several statements runs them as one synchronous transaction once the
 * connection is free (`run(() => tx(…))`; a savepoint inside a caller's unit of work): no await between its BEGIN
 * and COMMIT, so two connections in one process (the CLI's commands beside the server, in tests) never wait on each
 * other's write lock while holding the only thread.
 */
export class Tenancy implements TenancyRepository {
  private readonly audit: AuditLog;
  private readonly cache: CredentialCache;
  constructor(
    private readonly s: Storage,
    private readonly clock: () => number,
  ) {
    this.audit = new AuditLog(s);
    this.cache = new CredentialCache(s, s);
  }

  members(companyId: string, ids: readonly (string | null)[]): Promise<Map<string, MemberSummary>> {
    return this.s.run(() => memberSummaries(this.s, companyId, ids));
  }

  // ---- rows (synchronous, inside storage) ----

  private companyRow(slug: string): CompanyRow | undefined {
    return (this.s.stmt("SELECT * FROM companies WHERE slug = ?").get(slug) ?? undefined) as CompanyRow | undefined;
  }
  private requireCompanyRow(slug: string): CompanyRow {
    const c = this.companyRow(slug);
    if (!c) throw new TenancyError(`no company with slug "${slug}"`);
    return c;
  }
  private memberRowByEmail(companyId: string, email: string): MemberRow | undefined {
    return (this.s.stmt("SELECT * FROM members WHERE company_id = ? AND email = ?").get(companyId, email.toLowerCase()) ?? undefined) as MemberRow | undefined;
  }
  private memberRowById(companyId: string, id: string): MemberRow | undefined {
    return (this.s.stmt("SELECT * FROM members WHERE company_id = ? AND id = ?").get(companyId, id) ?? undefined) as MemberRow | undefined;
  }
  private keyRow(id: string): KeyRow | undefined {
    return (this.s.stmt("SELECT * FROM api_keys WHERE id = ?").get(id) ?? undefined) as KeyRow | undefined;
  }

  // ---- companies ----

  companyBySlug(slug: string): Promise<Company | undefined> {
    return this.s.run(() => opt(this.companyRow(slug), toCompany));
  }

  requireCompany(slug: string): Promise<Company> {
    return this.s.run(() => toCompany(this.requireCompanyRow(slug)));
  }

  listCompanies(): Promise<Company[]> {
    return this.s.run(() => (this.s.stmt("SELECT * FROM companies ORDER BY created_at").all() as unknown as CompanyRow[]).map(toCompany));
  }

  createCompany(slug: string, name?: string): Promise<Company> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decided(decideCompany(slug, name, this.companyRow(slug) !== undefined, newId("cmp", now), iso(now)));
        this.companyInsert(d.record);
        this.audited(d.record.id, BOTH, system, d, "Company", d.record.id, now);
        return d.record;
      }),
    );
  }

  setCompanyStatus(slug: string, status: "active" | "suspended"): Promise<Company> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decideCompanyStatus(toCompany(this.requireCompanyRow(slug)), status, iso(now));
        this.companySave(d.record);
        this.audited(d.record.id, BOTH, system, d, "Company", d.record.id, now);
        return d.record;
      }),
    );
  }

  setFeature(slug: string, feature: string, enabled: boolean): Promise<Company> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decideFeature(toCompany(this.requireCompanyRow(slug)), feature, enabled, iso(now));
        this.companySave(d.record);
        this.audited(d.record.id, BOTH, system, d, "Company", d.record.id, now);
        return d.record;
      }),
    );
  }

  // ---- members ----

  memberByEmail(companyId: string, email: string): Promise<Member | undefined> {
    return this.s.run(() => opt(this.memberRowByEmail(companyId, email), toMember));
  }

  listMembers(companyId: string): Promise<Member[]> {
    return this.s.run(() => (this.s.stmt("SELECT * FROM members WHERE company_id = ? ORDER BY created_at, id").all(companyId) as unknown as MemberRow[]).map(toMember));
  }

  memberById(companyId: string, id: string): Promise<Member | undefined> {
    return this.s.run(() => opt(this.memberRowById(companyId, id), toMember));
  }

  createMember(companyId: string, email: string, role: string, by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decided(decideMember(companyId, email, role, this.memberRowByEmail(companyId, email) !== undefined, by.via, newId("mem", now), iso(now)));
        this.memberInsert(d.record);
        this.audited(companyId, BOTH, by.actor, d, "Member", d.record.id, now);
        return d.record;
      }),
    );
  }

  setMemberStatus(companyId: string, email: string, status: "active" | "disabled", by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decided(decideMemberStatus(opt(this.memberRowByEmail(companyId, email), toMember), email, status, by.via, iso(now)));
        this.memberSave(d.record);
        if (d.endsSessions) this.endSessionsOf(d.record.id, d.endsSessions, now);
        this.audited(companyId, BOTH, by.actor, d, "Member", d.record.id, now);
        return d.record;
      }),
    );
  }

  setMemberRole(companyId: string, email: string, role: string, by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decided(decideMemberRole(opt(this.memberRowByEmail(companyId, email), toMember), email, role, by.via, iso(now)));
        this.memberSave(d.record);
        if (d.endsSessions) this.endSessionsOf(d.record.id, d.endsSessions, now);
        this.audited(companyId, BOTH, by.actor, d, "Member", d.record.id, now);
        return d.record;
      }),
    );
  }

  // ---- API keys ----

  createKey(opts: NewKey, by?: TenancyActor): Promise<{ apiKey: ApiKey; key: string }> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const { key, ...secret } = keySecret(opts.environment, crypto.getRandomValues(new Uint8Array(32)));
        const d = decided(decideKey(opt(this.memberRowById(opts.companyId, opts.memberId), toMember), opts, secret, by?.via ?? "cli", newId("key", now), now, iso));
        this.keyInsert(d.record);
        // The key acts for its member; who issued it (the CLI, or a signed-in member's session) is the actor.
        this.audited(opts.companyId, [opts.environment], by?.actor ?? { type: "member", memberId: d.record.memberId }, d, "ApiKey", d.record.id, now);
        return { apiKey: d.record, key };
      }),
    );
  }

  keyById(id: string): Promise<ApiKey | undefined> {
    return this.s.run(() => opt(this.keyRow(id), toKey));
  }

  listKeys(companyId: string): Promise<ApiKey[]> {
    return this.s.run(() => (this.s.stmt("SELECT * FROM api_keys WHERE company_id = ? ORDER BY created_at, id").all(companyId) as unknown as KeyRow[]).map(toKey));
  }

  revokeKey(companyId: string, id: string, by: TenancyActor = CLI_ACTOR): Promise<ApiKey> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decided(decideRevoke(opt(this.keyRow(id), toKey), companyId, id, by.via, iso(now)));
        if (d.changed) {
          this.keySave(d.record);
          this.audited(companyId, [d.record.environment], by.actor, d, "ApiKey", id, now);
        }
        return d.record;
      }),
    );
  }

  touchDue(id: string, now: number): boolean {
    return this.cache.touchDue(id, now);
  }

  touchKey(id: string, now: number): Promise<void> {
    if (!this.cache.touch(id, now)) return Promise.resolve();
    return this.s.run(() => {
      this.s.stmt("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(iso(now), id);
    });
  }

  // ---- sign-in: setup codes, credentials, sessions (docs/api.md, "Keys and sessions") ----

  issueSetupCode(companyId: string, email: string, codeHash: string, expiresAt: number, by: TenancyActor = CLI_ACTOR): Promise<Member> {
    return this.s.run(() =>
      this.s.tx(() => {
        const now = this.clock();
        const d = decided(decideSetupCode(opt(this.memberRowByEmail(companyId, email), toMember), email, codeHash, iso(expiresAt), by.via, iso(now)));
        this.memberSave(d.record);
        if (d.endsSessions) this.endSessionsOf(d.record.id, d.endsSessions, now);
        this.audited(companyId, BOTH, by.actor, d, "Member", d.record.id, now);
        return d.record;
      }),
    );
  }

  setPendingCredentials(memberId: string, passphraseHash: string, totpSecretSealed: string, now: number): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("UPDATE members SET passphrase_hash = ?, totp_secret_sealed = ?, totp_confirmed_at = NULL, totp_last_step = NULL, updated_at = ? WHERE id = ?").run(passphraseHash, totpSecretSealed, iso(now), memberId);
    });
  }

  /**
   * True when the step is later than every step accepted before (the check and the write are one statement, so two
   * requests with one code cannot both pass). `confirm` also ends setup (the code is spent).
   */
  useTotpStep(memberId: string, step: number, now: number, confirm: boolean): Promise<boolean> {
    return this.s.run(() => {
      const res = confirm
        ? this.s
            .stmt("UPDATE members SET totp_last_step = ?, totp_confirmed_at = ?, setup_code_hash = NULL, setup_code_expires_at = NULL, updated_at = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)")
            .run(step, iso(now), iso(now), memberId, step)
        : this.s.stmt("UPDATE members SET totp_last_step = ? WHERE id = ? AND totp_confirmed_at IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < ?)").run(step, memberId, step);
      return res.changes === 1;
    });
  }

  /** Unknown emails leave no entry: there is no member to file it under. */
  recordSignInFailure(companyId: string, environment: Environment, memberId: string, source: string | null, step: "sign_in" | "setup", now: number): Promise<void> {
    return this.s.run(() => this.s.tx(() => {
      this.audit.append({ companyId, environment, actor: { type: "system" }, action: "session.sign_in_failed", entityType: "Member", entityId: memberId, detail: { source, step } }, now);
    }));
  }

  createSession(o: NewSession, now: number): Promise<MemberSession> {
    return this.s.run(() => this.s.tx(() => {
      const id = newId("ses", now);
      this.s
        .stmt("INSERT INTO member_sessions (id, company_id, member_id, environment, role, token_hash, source, created_at, last_used_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(id, o.companyId, o.member.id, o.environment, o.member.role, o.tokenHash, o.source, iso(now), iso(now), iso(o.expiresAt));
      this.audit.append(
        { companyId: o.companyId, environment: o.environment, actor: { type: "member", memberId: o.member.id, sessionId: id }, action: o.action, entityType: "Session", entityId: id, detail: { source: o.source } },
        now,
      );
      return toSession(this.s.stmt("SELECT * FROM member_sessions WHERE id = ?").get(id) as SessionRow);
    }));
  }

  /** No cache: sessions are few and each use renews. */
  sessionByHash(hash: string): Promise<SessionAuth | undefined> {
    return this.s.run(() => opt(this.credentialByHash<SessionAuthRow>("member_sessions", "token_hash", hash), toSessionAuth));
  }

  sessionById(id: string): Promise<MemberSession | undefined> {
    return this.s.run(() => opt(this.s.stmt("SELECT * FROM member_sessions WHERE id = ?").get(id) as SessionRow | null, toSession));
  }

  renewSession(id: string, now: number, expiresAt: number): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("UPDATE member_sessions SET last_used_at = ?, expires_at = ? WHERE id = ? AND ended_at IS NULL").run(iso(now), iso(expiresAt), id);
    });
  }

  endSession(companyId: string, environment: Environment, session: { id: string; memberId: string }, reason: string, now: number, actor?: AuditActor): Promise<void> {
    return this.s.run(() => this.s.tx(() => {
      const res = this.s.stmt("UPDATE member_sessions SET ended_at = ?, ended_reason = ? WHERE id = ? AND ended_at IS NULL").run(iso(now), reason, session.id);
      if (res.changes === 1)
        this.audit.append(
          { companyId, environment, actor: actor ?? { type: "member", memberId: session.memberId, sessionId: session.id }, action: "session.ended", entityType: "Session", entityId: session.id, detail: { reason } },
          now,
        );
    }));
  }

  /** Ends every open session of a member (deactivation, role change, new credentials, the CLI). Inside a transaction. */
  private endSessionsOf(memberId: string, reason: string, now: number): number {
    return this.s.stmt("UPDATE member_sessions SET ended_at = ?, ended_reason = ? WHERE member_id = ? AND ended_at IS NULL").run(iso(now), reason, memberId).changes;
  }

  signOutMember(companyId: string, email: string, by: TenancyActor = CLI_ACTOR): Promise<number> {
    return this.s.run(() =>
      this.s.tx(() => {
        const m = this.memberRowByEmail(companyId, email);
        if (!m) throw new TenancyError(`no member with email ${email}`);
        const now = this.clock();
        const n = this.endSessionsOf(m.id, "ended_by_cli", now);
        this.audited(companyId, BOTH, by.actor, { action: "member.signed_out", detail: { sessions: n, via: by.via } }, "Member", m.id, now);
        return n;
      }),
    );
  }

  openSessions(companyId: string, now: number): Promise<MemberSession[]> {
    return this.s.run(() =>
      (this.s.stmt("SELECT * FROM member_sessions WHERE company_id = ? AND ended_at IS NULL AND expires_at > ? ORDER BY created_at").all(companyId, iso(now)) as unknown as SessionRow[]).map(toSession),
    );
  }

  // ---- the tenancy actor's writes (inside its unit of work) ----

  insertCompany(c: Company): Promise<void> {
    return this.s.run(() => this.companyInsert(c));
  }
  saveCompany(c: Company): Promise<void> {
    return this.s.run(() => this.companySave(c));
  }
  insertMember(m: Member): Promise<void> {
    return this.s.run(() => this.memberInsert(m));
  }
  saveMember(m: Member): Promise<void> {
    return this.s.run(() => this.memberSave(m));
  }
  insertKey(k: ApiKey): Promise<void> {
    return this.s.run(() => this.keyInsert(k));
  }
  saveKey(k: ApiKey): Promise<void> {
    return this.s.run(() => this.keySave(k));
  }

  private companyInsert(c: Company): void {
    this.write(WRITES.companyInsert, c);
  }
  /** Status, features, updatedAt; empties the authentication caches. */
  private companySave(c: Company): void {
    this.write(WRITES.companySave, c);
    this.authChanged();
  }
  private memberInsert(m: Member): void {
    this.write(WRITES.memberInsert, m);
  }
  /** Role, status, credentials, setup code, updatedAt; empties the authentication caches. */
  private memberSave(m: Member): void {
    this.write(WRITES.memberSave, m);
    this.authChanged();
  }
  private keyInsert(k: ApiKey): void {
    this.write(WRITES.keyInsert, k);
  }
  /** revokedAt; empties the authentication caches. */
  private keySave(k: ApiKey): void {
    this.write(WRITES.keySave, k);
    this.authChanged();
  }
  private write<T>(w: RowWrite<T>, x: T): void {
    this.s.stmt(w.sql).run(...w.values(x));
  }

  private audited(companyId: string, environments: readonly Environment[], actor: AuditActor, d: AuditedChange, entityType: string, entityId: string, now: number): void {
    for (const e of auditEntries(companyId, environments, actor, d, entityType, entityId)) this.audit.append(e, now);
  }

  endMemberSessions(memberId: string, reason: string, now: number): Promise<number> {
    return this.s.run(() => this.endSessionsOf(memberId, reason, now));
  }

  unendedSessions(memberId: string): Promise<number> {
    return this.s.run(() => (this.s.stmt("SELECT COUNT(*) AS n FROM member_sessions WHERE member_id = ? AND ended_at IS NULL").get(memberId) as { n: number }).n);
  }

  // ---- the authentication cache ----

  /** Empties every Tenancy's authentication cache over this storage before its next lookup. */
  authChanged(): void {
    this.cache.changed();
  }

  /**
   * The hot path of every request, answered in this turn: the cached key (shared: never change it), or undefined on a
   * miss. A revocation, disable, role change, suspension or feature switch counts from the next request.
   */
  cachedKey(hash: string): KeyAuth | undefined {
    return this.cache.key(hash);
  }

  authByHash(hash: string): Promise<KeyAuth | undefined> {
    return this.s.run(() => {
      const hit = this.cache.key(hash);
      if (hit) return hit;
      const mark = this.cache.mark();
      const rec = opt(this.credentialByHash<KeyAuthRow>("api_keys", "key_hash", hash), toKeyAuth);
      if (rec) this.cache.rememberKey(hash, rec, mark);
      return rec;
    });
  }

  cachedCompany(slug: string): Company | undefined {
    return this.cache.company(slug);
  }

  companyBySlugCached(slug: string): Promise<Company | undefined> {
    return this.s.run(() => {
      const hit = this.cache.company(slug);
      if (hit) return hit;
      const mark = this.cache.mark();
      const rec = opt(this.companyRow(slug), toCompany);
      if (rec) this.cache.rememberCompany(slug, rec, mark);
      return rec;
    });
  }

  /** One indexed lookup by hash, joined with member and company. */
  keyByHash(hash: string): Promise<KeyAuth | undefined> {
    return this.s.run(() => opt(this.credentialByHash<KeyAuthRow>("api_keys", "key_hash", hash), toKeyAuth));
  }

  /** A credential (an API key or a session) by its hash: one indexed lookup, joined with its member and company. */
  private credentialByHash<T extends CredentialJoin>(table: CredentialTable, hashColumn: CredentialHash, hash: string): T | undefined {
    return (this.s.stmt(credentialSql(table, hashColumn, "?")).get(hash) ?? undefined) as T | undefined;
  }
}
