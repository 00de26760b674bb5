// Who is calling: host → company, x-api-key → key, member, role; re-checked on every request (Part 1, Authentication).
import { apiError } from "../domain/errors.ts";
import { constantTimeEqual, isKeyFormat } from "../domain/keys.ts";
import { sha256Hex } from "../adapters/crypto/hash.ts";
import { roleAllowsEnvironment, roleHas, type Permission, type Role } from "../domain/access.ts";
import type { Environment } from "../domain/types.ts";
import type { CompanyRow, KeyAuthRow, Tenancy } from "../adapters/storage/repos/tenancy.ts";
import type { AuditActor } from "../adapters/storage/repos/audit.ts";

export interface AuthContext {
  company: { id: string; slug: string; disabledFeatures: ReadonlySet<string> };
  environment: Environment;
  member: { id: string; email: string; role: Role };
  key: { id: string; scopes: ReadonlySet<string> };
  /** The role holds pii:view: personal data is shown unmasked. */
  piiView: boolean;
  actor: AuditActor;
  can(permission: Permission): boolean;
}

/** CARAVAN_APP_DOMAIN set: `<slug>.<domain>` names the company. Unset: every host is `default`. */
export function resolveCompany(req: Request, tenancy: Tenancy, appDomain: string | undefined): CompanyRow {
  let slug = "default";
  if (appDomain) {
    const host = (req.headers.get("host") ?? new URL(req.url).host).toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
    const suffix = `.${appDomain.toLowerCase()}`;
    if (!host.endsWith(suffix)) throw apiError("NOT_FOUND", { message: "No company is served at this host" });
    slug = host.slice(0, -suffix.length);
  }
  const company = tenancy.cachedCompanyBySlug(slug);
  if (!company) throw apiError("NOT_FOUND", { message: "No company is served at this host" });
  return company;
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
 * The principal of a key row, built once per cached row (rows are replaced, never changed, when the cache is
 * invalidated, so a revocation or role change is seen on the next request). Frozen: requests share it.
 */
const principals = new WeakMap<KeyAuthRow, AuthContext | "revoked" | "suspended">();

function principalOf(row: KeyAuthRow): AuthContext | "revoked" | "suspended" {
  let p = principals.get(row);
  if (p !== undefined) return p;
  const features = new Set<string>(JSON.parse(row.company_features));
  if (row.revoked_at || row.member_status !== "active" || !roleAllowsEnvironment(row.member_role, row.environment) || features.has("api_keys")) p = "revoked";
  else if (row.company_status === "suspended") p = "suspended";
  else {
    const role = row.member_role;
    p = Object.freeze({
      company: Object.freeze({ id: row.company_id, slug: row.company_slug, disabledFeatures: features }),
      environment: row.environment,
      member: Object.freeze({ id: row.member_id, email: row.member_email, role }),
      key: Object.freeze({ id: row.id, scopes: new Set<string>(JSON.parse(row.scopes)) }),
      piiView: roleHas(role, "pii:view"),
      actor: Object.freeze({ type: "member", memberId: row.member_id, apiKeyId: row.id }) as AuditActor,
      can: (perm: Permission) => roleHas(role, perm),
    });
  }
  principals.set(row, p);
  return p;
}

export function authenticate(req: Request, company: CompanyRow, tenancy: Tenancy): AuthContext {
  const key = req.headers.get("x-api-key");
  if (key === null || key === "") throw apiError("MISSING_KEY");
  if (!isKeyFormat(key)) throw apiError("INVALID_FORMAT");
  const hash = sha256Hex(key);
  const row = tenancy.authByHash(hash);
  // The lookup is by hash of a 256-bit secret; the stored hash is still compared in constant time.
  if (!row || !constantTimeEqual(row.key_hash, hash) || row.company_id !== company.id) throw apiError("KEY_NOT_FOUND");
  const p = principalOf(row);
  if (p === "revoked") throw apiError("KEY_REVOKED");
  if (p === "suspended") throw apiError("TENANT_SUSPENDED");
  return p;
}

/**
 * What a route demands of the key; `anyValidKey`: any valid key may call it (no scope, no permission: `/api/v2/me`);
 * `anyOf`: one of the entries suffices (the event stream: transfers:read or cases:read).
 */
export type Access = ScopedAccess | { anyValidKey: true } | { anyOf: readonly [ScopedAccess, ...ScopedAccess[]] };

export interface ScopedAccess {
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
  | { kind: "live"; name: "live key"; code: "LIVE_KEY_REQUIRED" };

/**
 * What an access declaration demands, in the order the pipeline checks it: the key's scopes first (the endpoint's
 * own, INSUFFICIENT_SCOPE; then the second scopes Part 1 answers with INSUFFICIENT_PERMISSION), then the role's
 * permissions, the plan feature and the live key. `authorize` walks this list and refuses with the first missing;
 * the OpenAPI document prints the same list, so what is documented is what is enforced.
 */
export function requirementsOf(access: ScopedAccess): Requirement[] {
  const out: Requirement[] = [{ kind: "scope", name: access.scope, code: "INSUFFICIENT_SCOPE" }];
  for (const s of access.scopes ?? []) out.push({ kind: "scope", name: s, code: "INSUFFICIENT_SCOPE" });
  for (const s of access.alsoScopes ?? []) out.push({ kind: "scope", name: s, code: "INSUFFICIENT_PERMISSION" });
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
        if (auth.key.scopes.has(r.name)) continue;
        if (r.code === "INSUFFICIENT_SCOPE") throw apiError("INSUFFICIENT_SCOPE", { message: `The API key lacks the scope ${r.name}`, details: { scope: r.name } });
        throw apiError("INSUFFICIENT_PERMISSION", { message: `The API key also needs the scope ${r.name}`, details: { scope: r.name } });
      case "permission":
        if (auth.can(r.name)) continue;
        if (r.code === "PII_ACCESS_REQUIRED") throw apiError("PII_ACCESS_REQUIRED");
        throw apiError("INSUFFICIENT_PERMISSION", { message: `The role ${auth.member.role} lacks the permission ${r.name}`, details: { permission: r.name } });
      case "feature":
        if (!auth.company.disabledFeatures.has(r.name)) continue;
        throw apiError("TENANT_FEATURE_DISABLED", { message: `The company's plan does not include ${r.name}`, details: { feature: r.name } });
      case "live":
        if (auth.environment === "live") continue;
        throw apiError("LIVE_KEY_REQUIRED");
    }
  }
}
