// Who is calling: host → company, x-api-key → key, member, role; re-checked on every request (Part 1, Authentication).
import { apiError } from "../domain/errors.ts";
import { constantTimeEqual, isKeyFormat } from "../domain/keys.ts";
import { sha256Hex } from "../adapters/crypto/hash.ts";
import { ALL_SCOPES, roleAllowsEnvironment, roleHas, type Permission, type Role } from "../domain/access.ts";
import { isSessionToken, sessionExpiry, SESSION_RENEW_EVERY_MS } from "../domain/members/sign-in.ts";
import type { Environment } from "../domain/types.ts";
import type { Company, KeyAuth, TenancyRepository } from "../ports/tenancy.ts";
import type { AuditActor } from "../ports/audit.ts";

export interface AuthContext {
  company: { id: string; slug: string; disabledFeatures: ReadonlySet<string> };
  environment: Environment;
  member: { id: string; email: string; role: Role };
  /** The API key, or for a session its ID with every scope (the role alone then decides). */
  key: { id: string; scopes: ReadonlySet<string> };
  /** Set when a signed-in member calls through a console session (docs/api.md, "Keys and sessions"). */
  session?: { id: string };
  /** The role holds pii:view: personal data is shown unmasked. */
  piiView: boolean;
  actor: AuditActor;
  can(permission: Permission): boolean;
}

const noCompany = () => apiError("NOT_FOUND", { message: "No company is served at this host" });

/**
 * CARAVAN_APP_DOMAIN set: `<slug>.<domain>` names the company. Unset: every host is `default`. Answered in this turn
 * from the tenancy's cache when it can; a miss asks the store.
 */
export function resolveCompany(req: Request, tenancy: TenancyRepository, appDomain: string | undefined): Company | Promise<Company> {
  let slug = "default";
  if (appDomain) {
    const host = (req.headers.get("host") ?? new URL(req.url).host).toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
    const suffix = `.${appDomain.toLowerCase()}`;
    if (!host.endsWith(suffix)) throw noCompany();
    slug = host.slice(0, -suffix.length);
  }
  const hit = tenancy.cachedCompany(slug);
  if (hit) return hit;
  return tenancy.companyBySlugCached(slug).then((company) => {
    if (!company) throw noCompany();
    return company;
  });
}

const SESSION_COOKIES = new Set(["session", "caravan_session"]);
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Dashboard session cookies never ride along on API changes (Part 1, Authentication 1). */
export function checkCsrf(req: Request): void {
  if (!MUTATING.has(req.method)) return;
  const cookie = req.headers.get("cookie");
  if (!cookie) return;
  for (const part of cookie.split(";")) {
    const name = part.split("=")[0].trim();
    if (SESSION_COOKIES.has(name)) throw apiError("CSRF_VALIDATION_FAILED");
  }
}

/**
 * The principal of a key record, built once per cached record (records are replaced, never changed, when the cache
 * is invalidated, so a revocation or role change is seen on the next request). Frozen: requests share it.
 */
const principals = new WeakMap<KeyAuth, AuthContext | "revoked" | "suspended">();

function principalOf(row: KeyAuth): AuthContext | "revoked" | "suspended" {
  let p = principals.get(row);
  if (p !== undefined) return p;
  const features = new Set<string>(row.companyFeatures);
  if (row.revokedAt || row.memberStatus !== "active" || !roleAllowsEnvironment(row.memberRole, row.environment) || features.has("api_keys")) p = "revoked";
  else if (row.companyStatus === "suspended") p = "suspended";
  else {
    const role = row.memberRole;
    p = Object.freeze({
      company: Object.freeze({ id: row.companyId, slug: row.companySlug, disabledFeatures: features }),
      environment: row.environment,
      member: Object.freeze({ id: row.memberId, email: row.memberEmail, role }),
      key: Object.freeze({ id: row.id, scopes: new Set<string>(row.scopes) }),
      piiView: roleHas(role, "pii:view"),
      actor: Object.freeze({ type: "member", memberId: row.memberId, apiKeyId: row.id }) as AuditActor,
      can: (perm: Permission) => roleHas(role, perm),
    });
  }
  principals.set(row, p);
  return p;
}

/** What session authentication needs besides the tenancy: the time and the client's address. */
export interface SessionCheck {
  now: number;
  source: string | null;
}

/** The bearer token of `Authorization: Bearer …`, or null. */
export function bearerOf(req: Request): string | null {
  const h = req.headers.get("authorization");
  if (h === null) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

/** True when the request authenticates with a session (no x-api-key, a bearer token). */
export function usesSession(req: Request): boolean {
  const key = req.headers.get("x-api-key");
  return (key === null || key === "") && bearerOf(req) !== null;
}

const ALL_SCOPE_SET: ReadonlySet<string> = new Set(ALL_SCOPES);

/**
 * A console session: the member, role and environment it was signed in with. Ended, expired, unknown, its member
 * disabled or re-roled, or used from another address than the one that signed in (which ends it): 401 SESSION_ENDED.
 * Each use moves its expiry forward (written at most once a minute).
 */
export async function authenticateSession(token: string, company: Company, tenancy: TenancyRepository, check: SessionCheck): Promise<AuthContext> {
  if (!isSessionToken(token)) throw apiError("INVALID_FORMAT", { message: "The session token is not in the issued format" });
  const hash = sha256Hex(token);
  const row = await tenancy.sessionByHash(hash);
  if (!row || !constantTimeEqual(row.tokenHash, hash) || row.companyId !== company.id) throw apiError("SESSION_ENDED");
  const { now } = check;
  if (row.endedAt !== null || Date.parse(row.expiresAt) <= now) throw apiError("SESSION_ENDED");
  const memberLost = row.memberStatus !== "active" || row.memberRole !== row.role || !roleAllowsEnvironment(row.memberRole, row.environment);
  const elsewhere = row.source !== null && check.source !== row.source;
  if (memberLost || elsewhere) {
    await tenancy.endSession(row.companyId, row.environment, { id: row.id, memberId: row.memberId }, memberLost ? "member_changed" : "source_changed", now);
    throw apiError("SESSION_ENDED");
  }
  if (row.companyStatus === "suspended") throw apiError("TENANT_SUSPENDED");
  if (now - Date.parse(row.lastUsedAt) >= SESSION_RENEW_EVERY_MS) await tenancy.renewSession(row.id, now, sessionExpiry(Date.parse(row.createdAt), now));
  const role = row.memberRole;
  return {
    company: { id: row.companyId, slug: row.companySlug, disabledFeatures: new Set<string>(row.companyFeatures) },
    environment: row.environment,
    member: { id: row.memberId, email: row.memberEmail, role },
    key: { id: row.id, scopes: ALL_SCOPE_SET },
    session: { id: row.id },
    piiView: roleHas(role, "pii:view"),
    actor: { type: "member", memberId: row.memberId, sessionId: row.id },
    can: (perm: Permission) => roleHas(role, perm),
  };
}

/**
 * The credential of a request. A key found in the tenancy's cache is answered in this turn (no promise: the hot path
 * of every request); a cache miss or a session asks the store.
 */
export function authenticate(req: Request, company: Company, tenancy: TenancyRepository, check?: SessionCheck): AuthContext | Promise<AuthContext> {
  const key = req.headers.get("x-api-key");
  if (key === null || key === "") {
    const bearer = check ? bearerOf(req) : null;
    if (bearer !== null) return authenticateSession(bearer, company, tenancy, check!);
    throw apiError("MISSING_KEY");
  }
  if (!isKeyFormat(key)) throw apiError("INVALID_FORMAT");
  const hash = sha256Hex(key);
  const hit = tenancy.cachedKey(hash);
  if (hit) return keyPrincipal(hit, hash, company, check);
  return tenancy.authByHash(hash).then((row) => keyPrincipal(row, hash, company, check));
}

function keyPrincipal(row: KeyAuth | undefined, hash: string, company: Company, check: SessionCheck | undefined): AuthContext {
  // The lookup is by hash of a 256-bit secret; the stored hash is still compared in constant time.
  if (!row || !constantTimeEqual(row.keyHash, hash) || row.companyId !== company.id) throw apiError("KEY_NOT_FOUND");
  const p = principalOf(row);
  if (p === "revoked") throw apiError("KEY_REVOKED");
  // Key expiry (Part 1: "not shown"; docs/api.md): a key past the expiry it was given at creation is revoked.
  if (row.expiresAt !== null && check && Date.parse(row.expiresAt) <= check.now) throw apiError("KEY_REVOKED", { message: "The API key has expired" });
  if (p === "suspended") throw apiError("TENANT_SUSPENDED");
  return p;
}

/**
 * What a route demands of the key; `anyValidKey`: any valid key may call it (no scope, no permission: `/api/v2/me`);
 * `anyOf`: one of the entries suffices (the event stream: transfers:read or cases:read).
 */
export type Access = ScopedAccess | { anyValidKey: true } | { anyOf: readonly [ScopedAccess, ...ScopedAccess[]] };

export interface ScopedAccess {
  /**
   * A dashboard power (Part 1: "managed in the dashboard only"): only a signed-in member's console session may call
   * it; an API key gets 403 OFFICER_SESSION_REQUIRED, whatever its scopes.
   */
  officer?: true;
  /** The key must hold it: 403 INSUFFICIENT_SCOPE naming it. */
  scope: string;
  /** Further scopes of the endpoint itself, checked after `scope`: 403 INSUFFICIENT_SCOPE naming the first missing. */
  scopes?: readonly string[];
  /** The owner's role must hold it: 403 INSUFFICIENT_PERMISSION. */
  permission: Permission;
  /** Further scopes that count as permission checks (Part 1: reports also need strs:read): 403 INSUFFICIENT_PERMISSION. */
  alsoScopes?: readonly string[];
  /** The role must hold pii:view: 403 PII_ACCESS_REQUIRED (Part 2, the report download), checked after `permission`. */
  piiRequired?: true;
  /** Further role permissions, checked after `permission` (and `piiRequired`): 403 INSUFFICIENT_PERMISSION naming the first missing. */
  permissions?: readonly Permission[];
  /** A plan feature the company must have: 403 TENANT_FEATURE_DISABLED. */
  feature?: string;
  /** Only a live key may call it: 403 LIVE_KEY_REQUIRED. */
  liveOnly?: boolean;
  /**
   * Permissions the handler also needs in some cases only (a field of the body, the record's state), each with when:
   * 403 INSUFFICIENT_PERMISSION from the handler, which alone knows the case. Not checked here; the OpenAPI document
   * prints them after the requirements above (`x-conditional-requirements`).
   */
  conditional?: readonly { permission: Permission; when: string }[];
}

/** One thing a route demands, with the refusal a key that lacks it gets. */
export type Requirement =
  | { kind: "scope"; name: string; code: "INSUFFICIENT_SCOPE" | "INSUFFICIENT_PERMISSION" }
  | { kind: "permission"; name: Permission; code: "INSUFFICIENT_PERMISSION" | "PII_ACCESS_REQUIRED" }
  | { kind: "feature"; name: string; code: "TENANT_FEATURE_DISABLED" }
  | { kind: "live"; name: "live key"; code: "LIVE_KEY_REQUIRED" }
  | { kind: "officer"; name: "member session"; code: "OFFICER_SESSION_REQUIRED" };

/**
 * What an access declaration demands, in the order the pipeline checks it: the key's scopes first (the endpoint's
 * own, INSUFFICIENT_SCOPE; then the second scopes Part 1 answers with INSUFFICIENT_PERMISSION), then the role's
 * permissions, the plan feature and the live key. `authorize` walks this list and refuses with the first missing;
 * the OpenAPI document prints the same list, so what is documented is what is enforced.
 */
export function requirementsOf(access: ScopedAccess): Requirement[] {
  // A dashboard power is refused to every API key before anything else is looked at, and a session carries no
  // scopes (its member's role decides), so an officer's route lists no scope: none could ever be the refusal.
  const out: Requirement[] = [];
  if (access.officer) out.push({ kind: "officer", name: "member session", code: "OFFICER_SESSION_REQUIRED" });
  else {
    out.push({ kind: "scope", name: access.scope, code: "INSUFFICIENT_SCOPE" });
    for (const s of access.scopes ?? []) out.push({ kind: "scope", name: s, code: "INSUFFICIENT_SCOPE" });
    for (const s of access.alsoScopes ?? []) out.push({ kind: "scope", name: s, code: "INSUFFICIENT_PERMISSION" });
  }
  out.push({ kind: "permission", name: access.permission, code: "INSUFFICIENT_PERMISSION" });
  if (access.piiRequired) out.push({ kind: "permission", name: "pii:view", code: "PII_ACCESS_REQUIRED" });
  for (const p of access.permissions ?? []) out.push({ kind: "permission", name: p, code: "INSUFFICIENT_PERMISSION" });
  if (access.feature) out.push({ kind: "feature", name: access.feature, code: "TENANT_FEATURE_DISABLED" });
  if (access.liveOnly) out.push({ kind: "live", name: "live key", code: "LIVE_KEY_REQUIRED" });
  return out;
}

/** The requirements of each declaration, listed once (declarations are module constants). */
const requirementLists = new WeakMap<ScopedAccess, Requirement[]>();

/** Throws the refusal of the route's access, if any. An `anyOf` that no entry passes gets its first entry's refusal. */
export function authorize(auth: AuthContext, access: Access): void {
  if ("anyValidKey" in access) return;
  if ("anyOf" in access) {
    let first: unknown;
    for (const entry of access.anyOf) {
      try {
        authorizeScoped(auth, entry);
        return;
      } catch (e) {
        first ??= e;
      }
    }
    throw first;
  }
  authorizeScoped(auth, access);
}

function authorizeScoped(auth: AuthContext, access: ScopedAccess): void {
  let list = requirementLists.get(access);
  if (list === undefined) requirementLists.set(access, (list = requirementsOf(access)));
  for (const r of list) {
    switch (r.kind) {
      case "scope":
        // A session carries no scopes of its own: the member's role decides (scopes are how a key is narrowed).
        if (auth.session || auth.key.scopes.has(r.name)) continue;
        if (r.code === "INSUFFICIENT_SCOPE") throw apiError("INSUFFICIENT_SCOPE", { message: `The API key lacks the scope ${r.name}`, details: { scope: r.name } });
        throw apiError("INSUFFICIENT_PERMISSION", { message: `The API key also needs the scope ${r.name}`, details: { scope: r.name } });
      case "permission":
        if (auth.can(r.name)) continue;
        if (r.code === "PII_ACCESS_REQUIRED") throw apiError("PII_ACCESS_REQUIRED");
        throw apiError("INSUFFICIENT_PERMISSION", { message: `The role ${auth.member.role} lacks the permission ${r.name}`, details: { permission: r.name } });
      case "feature":
        if (!auth.company.disabledFeatures.has(r.name)) continue;
        throw apiError("TENANT_FEATURE_DISABLED", { message: `The company's plan does not include ${r.name}`, details: { feature: r.name } });
      case "officer":
        if (auth.session) continue;
        throw apiError("OFFICER_SESSION_REQUIRED");
      case "live":
        if (auth.environment === "live") continue;
        throw apiError("LIVE_KEY_REQUIRED", auth.session ? { message: "Only a live session can make this change: sign in to the live environment" } : {});
    }
  }
}
