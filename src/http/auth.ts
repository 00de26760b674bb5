// Who is calling: host → company, x-api-key → key, member, role; re-checked on every request (Part 1, Authentication).
import { apiError } from "../domain/errors.ts";
import { constantTimeEqual, hashKey, isKeyFormat } from "../domain/keys.ts";
import { roleAllowsEnvironment, roleHas, type Permission, type Role } from "../domain/access.ts";
import type { Environment } from "../domain/types.ts";
import type { CompanyRow, Tenancy } from "../adapters/storage/repos/tenancy.ts";
import type { AuditActor } from "../adapters/storage/repos/audit.ts";

export interface AuthContext {
  company: { id: string; slug: string; disabledFeatures: ReadonlySet<string> };
  environment: Environment;
  member: { id: string; role: Role };
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
  const company = tenancy.companyBySlug(slug);
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

export function authenticate(req: Request, company: CompanyRow, tenancy: Tenancy): AuthContext {
  const key = req.headers.get("x-api-key");
  if (key === null || key === "") throw apiError("MISSING_KEY");
  if (!isKeyFormat(key)) throw apiError("INVALID_FORMAT");
  const hash = hashKey(key);
  const row = tenancy.keyByHash(hash);
  // The lookup is by hash of a 256-bit secret; the stored hash is still compared in constant time.
  if (!row || !constantTimeEqual(row.key_hash, hash) || row.company_id !== company.id) throw apiError("KEY_NOT_FOUND");
  const features = new Set<string>(JSON.parse(row.company_features));
  if (row.revoked_at || row.member_status !== "active" || !roleAllowsEnvironment(row.member_role, row.environment) || features.has("api_keys"))
    throw apiError("KEY_REVOKED");
  if (row.company_status === "suspended") throw apiError("TENANT_SUSPENDED");
  const role = row.member_role;
  return {
    company: { id: company.id, slug: company.slug, disabledFeatures: features },
    environment: row.environment,
    member: { id: row.member_id, role },
    key: { id: row.id, scopes: new Set<string>(JSON.parse(row.scopes)) },
    piiView: roleHas(role, "pii:view"),
    actor: { type: "member", memberId: row.member_id, apiKeyId: row.id },
    can: (p) => roleHas(role, p),
  };
}

export interface Access {
  /** The key must hold it: 403 INSUFFICIENT_SCOPE naming it. */
  scope: string;
  /** The owner's role must hold it: 403 INSUFFICIENT_PERMISSION. */
  permission: Permission;
  /** Further scopes that count as permission checks (Part 1: reports also need strs:read). */
  alsoScopes?: string[];
  /** A plan feature the company must have: 403 TENANT_FEATURE_DISABLED. */
  feature?: string;
  /** Only a live key may call it: 403 LIVE_KEY_REQUIRED. */
  liveOnly?: boolean;
}

export function authorize(auth: AuthContext, access: Access): void {
  if (!auth.key.scopes.has(access.scope))
    throw apiError("INSUFFICIENT_SCOPE", { message: `The API key lacks the scope ${access.scope}`, details: { scope: access.scope } });
  for (const s of access.alsoScopes ?? [])
    if (!auth.key.scopes.has(s)) throw apiError("INSUFFICIENT_PERMISSION", { message: `The API key also needs the scope ${s}`, details: { scope: s } });
  if (!auth.can(access.permission))
    throw apiError("INSUFFICIENT_PERMISSION", {
      message: `The role ${auth.member.role} lacks the permission ${access.permission}`,
      details: { permission: access.permission },
    });
  if (access.feature && auth.company.disabledFeatures.has(access.feature))
    throw apiError("TENANT_FEATURE_DISABLED", { message: `The company's plan does not include ${access.feature}`, details: { feature: access.feature } });
  if (access.liveOnly && auth.environment !== "live") throw apiError("LIVE_KEY_REQUIRED");
}
