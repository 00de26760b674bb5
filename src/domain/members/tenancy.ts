// The decisions of the tenancy's one writer (src/actors/tenancy.ts): a company made, suspended or re-planned; a member
// invited, re-roled, deactivated, given a setup code or signed out; a key issued or revoked. Pure functions over the
// records of src/ports/tenancy.ts and the time: each answers the changed record with its audit entry's action and
// detail, or the refusal in words (the CLI prints it, the console shows it as a 422 sentence).
import { ALL_SCOPES, isRole, isScope, roleAllowsEnvironment } from "../access.ts";
import type { Environment } from "../types.ts";
import type { Role } from "../access.ts";
import { formatKey, hashKey, keyHint } from "../keys.ts";

export type CompanyStatus = "active" | "suspended";
export type MemberStatus = "active" | "disabled";

export interface Company {
  id: string;
  slug: string;
  name: string;
  status: CompanyStatus;
  /** Plan features turned off for this company, sorted. */
  disabledFeatures: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Member {
  id: string;
  companyId: string;
  /** Lowercase; one member per email in a company. */
  email: string;
  role: Role;
  status: MemberStatus;
  createdAt: string;
  updatedAt: string;
  /** `scrypt$…`; null until the member set a passphrase. */
  passphraseHash: string | null;
  /** The TOTP secret, sealed under the master key. */
  totpSecretSealed: string | null;
  /** Set once a first code proved the second factor; sign-in needs it. */
  totpConfirmedAt: string | null;
  /** The last time step a code was accepted for. */
  totpLastStep: number | null;
  /** SHA-256 of the one-time setup code; null once used. */
  setupCodeHash: string | null;
  setupCodeExpiresAt: string | null;
}

export interface ApiKey {
  id: string;
  companyId: string;
  memberId: string;
  environment: Environment;
  /** SHA-256 of the whole key, hex (the key itself is never kept). */
  keyHash: string;
  hint: string;
  scopes: string[];
  createdAt: string;
  revokedAt: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** Where a change was made: the CLI on the host, or a signed-in member's console session. */
export type Via = "cli" | "console";

/** A refusal: `not_found` (the member or key named is not there), else `invalid`, with its sentence. */
export interface TenancyRefusal {
  ok: false;
  kind: "not_found" | "invalid";
  message: string;
}
const invalid = (message: string): TenancyRefusal => ({ ok: false, kind: "invalid", message });
const notFound = (message: string): TenancyRefusal => ({ ok: false, kind: "not_found", message });

/** A decided change: the record as it becomes, the audit entry's action and detail. */
export interface Decided<T> {
  ok: true;
  record: T;
  action: string;
  detail?: Record<string, unknown>;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const ROLES = "role must be one of owner, compliance_officer, analyst, developer";

export function decideCompany(slug: string, name: string | undefined, taken: boolean, id: string, at: string): Decided<Company> | TenancyRefusal {
  if (!SLUG.test(slug)) return invalid(`slug "${slug}" must be 1-63 lowercase letters, digits or hyphens`);
  if (taken) return invalid(`a company with slug "${slug}" already exists`);
  return { ok: true, record: { id, slug, name: name ?? slug, status: "active", disabledFeatures: [], createdAt: at, updatedAt: at }, action: "company.created", detail: { slug } };
}

export function decideCompanyStatus(c: Company, status: CompanyStatus, at: string): Decided<Company> {
  return { ok: true, record: { ...c, status, updatedAt: at }, action: status === "suspended" ? "company.suspended" : "company.reactivated" };
}

export function decideFeature(c: Company, feature: string, enabled: boolean, at: string): Decided<Company> {
  const disabled = new Set(c.disabledFeatures);
  if (enabled) disabled.delete(feature);
  else disabled.add(feature);
  return { ok: true, record: { ...c, disabledFeatures: [...disabled].sort(), updatedAt: at }, action: enabled ? "company.feature_enabled" : "company.feature_disabled", detail: { feature } };
}

export function decideMember(companyId: string, email: string, role: string, taken: boolean, via: Via, id: string, at: string): Decided<Member> | TenancyRefusal {
  if (!EMAIL.test(email)) return invalid(`"${email}" is not an email address`);
  if (!isRole(role)) return invalid(ROLES);
  if (taken) return invalid(`a member with email ${email} already exists`);
  return {
    ok: true,
    record: {
      id,
      companyId,
      email: email.toLowerCase(),
      role,
      status: "active",
      createdAt: at,
      updatedAt: at,
      passphraseHash: null,
      totpSecretSealed: null,
      totpConfirmedAt: null,
      totpLastStep: null,
      setupCodeHash: null,
      setupCodeExpiresAt: null,
    },
    action: "member.created",
    detail: { role, via },
  };
}

/** A member's new status; disabling ends their sessions (`endsSessions`: the reason). */
export function decideMemberStatus(m: Member | undefined, email: string, status: MemberStatus, via: Via, at: string): (Decided<Member> & { endsSessions?: string }) | TenancyRefusal {
  if (!m) return notFound(`no member with email ${email}`);
  return {
    ok: true,
    record: { ...m, status, updatedAt: at },
    action: status === "disabled" ? "member.disabled" : "member.enabled",
    detail: { via },
    endsSessions: status === "disabled" ? "member_disabled" : undefined,
  };
}

/** A member's new role; a changed role ends their sessions. */
export function decideMemberRole(m: Member | undefined, email: string, role: string, via: Via, at: string): (Decided<Member> & { endsSessions?: string }) | TenancyRefusal {
  if (!m) return notFound(`no member with email ${email}`);
  if (!isRole(role)) return invalid(ROLES);
  return {
    ok: true,
    record: { ...m, role, updatedAt: at },
    action: "member.role_changed",
    detail: { from: m.role, to: role, via },
    endsSessions: role !== m.role ? "role_changed" : undefined,
  };
}

/** A one-time setup code (only its hash): the passphrase and second factor cleared, the sessions ended. */
export function decideSetupCode(m: Member | undefined, email: string, codeHash: string, expiresAt: string, via: Via, at: string): (Decided<Member> & { endsSessions: string }) | TenancyRefusal {
  if (!m) return notFound(`no member with email ${email}`);
  if (m.status !== "active") return invalid(`member ${m.email} is disabled`);
  return {
    ok: true,
    record: { ...m, setupCodeHash: codeHash, setupCodeExpiresAt: expiresAt, passphraseHash: null, totpSecretSealed: null, totpConfirmedAt: null, totpLastStep: null, updatedAt: at },
    action: "member.setup_code_issued",
    detail: { via, expiresAt },
    endsSessions: "credentials_reset",
  };
}

export interface KeyRequest {
  environment: Environment;
  scopes?: string[];
  /** ms since epoch, or null. */
  expiresAt?: number | null;
}

/**
 * A key for a member: the member active and allowed the environment, known scopes (at least one), a future expiry.
 * `secret` is the key's hash and hint (the key itself is made by the caller and never sent).
 */
export function decideKey(
  member: Member | undefined,
  req: KeyRequest,
  secret: { keyHash: string; hint: string },
  via: Via,
  id: string,
  now: number,
  iso: (ms: number) => string,
): Decided<ApiKey> | TenancyRefusal {
  if (!member) return invalid("no such member in this company");
  if (member.status !== "active") return invalid(`member ${member.email} is disabled`);
  if (!roleAllowsEnvironment(member.role, req.environment)) return invalid(`role ${member.role} may not hold ${req.environment} keys`);
  const scopes = req.scopes ?? [...ALL_SCOPES];
  const bad = scopes.filter((s) => !isScope(s));
  if (bad.length) return invalid(`unknown scopes: ${bad.join(", ")}`);
  if (scopes.length === 0) return invalid("a key needs at least one scope");
  if (req.expiresAt != null && !(req.expiresAt > now)) return invalid("the expiry must be in the future");
  const expiresAt = req.expiresAt != null ? iso(req.expiresAt) : null;
  return {
    ok: true,
    record: {
      id,
      companyId: member.companyId,
      memberId: member.id,
      environment: req.environment,
      keyHash: secret.keyHash,
      hint: secret.hint,
      scopes: [...new Set(scopes)],
      createdAt: iso(now),
      revokedAt: null,
      expiresAt,
      lastUsedAt: null,
    },
    action: "api_key.created",
    detail: { scopes: scopes.length, memberId: member.id, expiresAt, via },
  };
}

/** Revoking: a revoked key is answered unchanged (`record` the same, no entry). */
export function decideRevoke(k: ApiKey | undefined, companyId: string, id: string, via: Via, at: string): (Decided<ApiKey> & { changed: boolean }) | TenancyRefusal {
  if (!k || k.companyId !== companyId) return notFound(`no key with id ${id}`);
  if (k.revokedAt) return { ok: true, record: k, action: "api_key.revoked", changed: false };
  return { ok: true, record: { ...k, revokedAt: at }, action: "api_key.revoked", detail: { via }, changed: true };
}

/** A new key from 32 random bytes: the plaintext (shown once, by the caller) and what is kept of it. */
export function keySecret(environment: Environment, random: Uint8Array): { key: string; keyHash: string; hint: string } {
  const key = formatKey(environment, random);
  return { key, keyHash: hashKey(key), hint: keyHint(key) };
}
