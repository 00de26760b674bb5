// The tenancy port: companies, their members (with what sign-in keeps: passphrase hash, sealed TOTP secret, setup
// code, sessions) and the members' API keys, in the domain's records. Written by hand (not derived from an engine's
// class); the SQLite engine implements it in storage's repos/tenancy.ts, and the storage contract suite
// (test/storage/contract/) holds every engine to it. Asynchronous like every port, with one exception: the credential
// check of every request is answered from the engine's in-memory cache when it can (`cachedKey`, `cachedCompany`:
// synchronous, no store call); a miss asks the store (`authByHash`, `companyBySlugCached`).
import type { Role } from "../domain/access.ts";
import type { Environment } from "../domain/types.ts";
import type { ApiKey, Company, CompanyStatus, Member, MemberStatus } from "../domain/members/tenancy.ts";
import type { AuditActor } from "./audit.ts";

export type { ApiKey, Company, CompanyStatus, Member, MemberStatus } from "../domain/members/tenancy.ts";

/** A refusal of the tenancy core (an unknown member, a bad slug, a role that may not hold the environment): one sentence. */
export class TenancyError extends Error {
  override name = "TenancyError";
}

/** A member as every answer of the API shows one, with role and status for checks: the name is the email. */
export interface MemberSummary {
  id: string;
  name: string;
  email: string;
  role: string;
  status: string;
}

export interface MemberSession {
  id: string;
  companyId: string;
  memberId: string;
  environment: Environment;
  /** The member's role at sign-in: a role change ends the session. */
  role: Role;
  tokenHash: string;
  source: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  endedAt: string | null;
  endedReason: string | null;
}

/** What a credential (a key or a session) carries from its member and company, read with it in one lookup. */
export interface CredentialOwner {
  memberEmail: string;
  memberRole: Role;
  memberStatus: MemberStatus;
  companySlug: string;
  companyStatus: CompanyStatus;
  companyFeatures: string[];
}

/** A key with its member and company: what every API request authenticates against. Shared when cached: never changed. */
export interface KeyAuth extends ApiKey, CredentialOwner {}

/** A session with its member and company: what a bearer token authenticates as. */
export interface SessionAuth extends MemberSession, CredentialOwner {}

/**
 * Who changes members and keys, for the audit log: the CLI on the host (the way in when nobody can sign in) or a
 * signed-in member through the console (their member and session).
 */
export interface TenancyActor {
  actor: AuditActor;
  via: "cli" | "console";
}
export const CLI_ACTOR: TenancyActor = { actor: { type: "system" }, via: "cli" };

/** Keys kept in the authentication cache (least recently used leave first); unknown keys are never cached. */
export const AUTH_CACHE_MAX = 10_000;

export interface NewKey {
  companyId: string;
  memberId: string;
  environment: Environment;
  scopes?: string[];
  /** ms since epoch, or null for a key without expiry. */
  expiresAt?: number | null;
}

export interface NewSession {
  companyId: string;
  member: { id: string; role: Role };
  environment: Environment;
  tokenHash: string;
  source: string | null;
  expiresAt: number;
  action: "session.signed_in" | "session.set_up";
}

export interface TenancyRepository {
  /** The company's members by ID; unknown IDs and "system" are left out. */
  members(companyId: string, ids: readonly (string | null)[]): Promise<Map<string, MemberSummary>>;

  // ---- companies ----
  companyBySlug(slug: string): Promise<Company | undefined>;
  /** The company, or a TenancyError naming the slug. */
  requireCompany(slug: string): Promise<Company>;
  /** In creation order. */
  listCompanies(): Promise<Company[]>;
  /** Refuses (TenancyError) a malformed or taken slug. Audited in both environments. */
  createCompany(slug: string, name?: string): Promise<Company>;
  setCompanyStatus(slug: string, status: CompanyStatus): Promise<Company>;
  setFeature(slug: string, feature: string, enabled: boolean): Promise<Company>;

  // ---- members ----
  /** By email, in any case. */
  memberByEmail(companyId: string, email: string): Promise<Member | undefined>;
  memberById(companyId: string, id: string): Promise<Member | undefined>;
  /** In creation order. */
  listMembers(companyId: string): Promise<Member[]>;
  /** Refuses (TenancyError) a malformed email, an unknown role, an email taken in the company. */
  createMember(companyId: string, email: string, role: string, by?: TenancyActor): Promise<Member>;
  /** Disabling ends the member's sessions. */
  setMemberStatus(companyId: string, email: string, status: MemberStatus, by?: TenancyActor): Promise<Member>;
  /** A changed role ends the member's sessions. */
  setMemberRole(companyId: string, email: string, role: string, by?: TenancyActor): Promise<Member>;

  // ---- API keys ----
  /** Issues a key: the plaintext is in this answer only (only its hash is kept). */
  createKey(o: NewKey, by?: TenancyActor): Promise<{ apiKey: ApiKey; key: string }>;
  keyById(id: string): Promise<ApiKey | undefined>;
  /** In creation order. */
  listKeys(companyId: string): Promise<ApiKey[]>;
  /** Revoking a revoked key answers it unchanged. */
  revokeKey(companyId: string, id: string, by?: TenancyActor): Promise<ApiKey>;
  /** Whether a key's last use is due to be written (at most once a minute per key, by this process). Synchronous. */
  touchDue(id: string, now: number): boolean;
  /** Records that a key authenticated a request (at most once a minute per key, by this process). */
  touchKey(id: string, now: number): Promise<void>;

  // ---- authentication ----
  /** A key by its hash, with its member and company (no cache). */
  keyByHash(hash: string): Promise<KeyAuth | undefined>;
  /** The cached answer of `authByHash`, if it is in the cache and still fresh; undefined: ask `authByHash`. */
  cachedKey(hash: string): KeyAuth | undefined;
  /** `keyByHash` through the bounded cache; a change to the key, its member or company counts from the next call. */
  authByHash(hash: string): Promise<KeyAuth | undefined>;
  /** The cached answer of `companyBySlugCached`, if cached and fresh; undefined: ask `companyBySlugCached`. */
  cachedCompany(slug: string): Company | undefined;
  /** `companyBySlug` through the same cache and invalidation. */
  companyBySlugCached(slug: string): Promise<Company | undefined>;
  /** Empties every cache over this store before its next lookup (a change that alters what a credential authenticates as). */
  authChanged(): void;

  // ---- sign-in (docs/api.md, "Keys and sessions") ----
  /** A one-time setup code: replaces the member's passphrase and second factor, ends their sessions. Audited. */
  issueSetupCode(companyId: string, email: string, codeHash: string, expiresAt: number, by?: TenancyActor): Promise<Member>;
  /** Setup's first step: the passphrase hash and sealed TOTP secret, pending until a first code confirms them. */
  setPendingCredentials(memberId: string, passphraseHash: string, totpSecretSealed: string, now: number): Promise<void>;
  /** Takes a TOTP step as used, once (check and write are one step); `confirm` also ends setup. */
  useTotpStep(memberId: string, step: number, now: number, confirm: boolean): Promise<boolean>;
  /** A failed sign-in or setup of a member who exists, audited (which factor failed is not said). */
  recordSignInFailure(companyId: string, environment: Environment, memberId: string, source: string | null, step: "sign_in" | "setup", now: number): Promise<void>;
  /** A new session, audited as the member's sign-in. */
  createSession(o: NewSession, now: number): Promise<MemberSession>;
  /** A session by its token's hash, with its member and company (no cache). */
  sessionByHash(hash: string): Promise<SessionAuth | undefined>;
  sessionById(id: string): Promise<MemberSession | undefined>;
  /** Moves an open session's last use and expiry. */
  renewSession(id: string, now: number, expiresAt: number): Promise<void>;
  /** Ends one open session, audited (nothing when it had ended). */
  endSession(companyId: string, environment: Environment, session: { id: string; memberId: string }, reason: string, now: number, actor?: AuditActor): Promise<void>;
  /** `members sign-out`: ends a member's open sessions, audited; answers how many. */
  signOutMember(companyId: string, email: string, by?: TenancyActor): Promise<number>;
  /** Open sessions of the company, in creation order. */
  openSessions(companyId: string, now: number): Promise<MemberSession[]>;

  // ---- the writes of the tenancy actor (src/actors/tenancy.ts), inside its unit of work (its audit entry too) ----
  insertCompany(c: Company): Promise<void>;
  /** Writes status, disabled features and updatedAt; what a credential authenticates as changes from the next lookup. */
  saveCompany(c: Company): Promise<void>;
  insertMember(m: Member): Promise<void>;
  /** Writes role, status, credentials, setup code and updatedAt; counts from the next lookup. */
  saveMember(m: Member): Promise<void>;
  /** Refused by the store (a unique key hash) like any constraint. */
  insertKey(k: ApiKey): Promise<void>;
  /** Writes revokedAt; counts from the next lookup. */
  saveKey(k: ApiKey): Promise<void>;
  /** Ends every open session of a member; answers how many. */
  endMemberSessions(memberId: string, reason: string, now: number): Promise<number>;
  /** How many sessions of the member are not ended. */
  unendedSessions(memberId: string): Promise<number>;
}
