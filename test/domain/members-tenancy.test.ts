// The tenancy actor's decisions (src/domain/members/tenancy.ts), as pure functions: the record a change makes, its
// audit entry's action and detail, and the refusals in the words the CLI prints and the console shows.
import { test, expect } from "bun:test";
import { decideCompany, decideFeature, decideKey, decideMember, decideMemberRole, decideMemberStatus, decideRevoke, decideSetupCode, keySecret, type Member } from "../../src/domain/members/tenancy.ts";
import { hashKey, isKeyFormat } from "../../src/domain/keys.ts";

const AT = "2026-03-01T10:00:00.000Z";
const NOW = Date.parse(AT);
const iso = (ms: number) => new Date(ms).toISOString();

function member(o: Partial<Member> = {}): Member {
  const d = decideMember("cmp_1", "Ann@Example.com", "owner", false, "cli", "mem_1", AT);
  if (!d.ok) throw new Error(d.message);
  return { ...d.record, ...o };
}

test("a company: a slug of lowercase letters, digits and hyphens, not taken; active with no features off", () => {
  expect(decideCompany("acme", undefined, false, "cmp_1", AT)).toEqual({ ok: true, record: { id: "cmp_1", slug: "acme", name: "acme", status: "active", disabledFeatures: [], createdAt: AT, updatedAt: AT }, action: "company.created", detail: { slug: "acme" } });
  expect(decideCompany("Acme", undefined, false, "cmp_1", AT)).toEqual({ ok: false, kind: "invalid", message: 'slug "Acme" must be 1-63 lowercase letters, digits or hyphens' });
  expect(decideCompany("acme", undefined, true, "cmp_1", AT)).toEqual({ ok: false, kind: "invalid", message: 'a company with slug "acme" already exists' });
  const c = decideCompany("acme", "Acme", false, "cmp_1", AT);
  if (!c.ok) throw new Error();
  const off = decideFeature(decideFeature(c.record, "webhooks", false, AT).record, "api_keys", false, AT);
  expect(off.record.disabledFeatures).toEqual(["api_keys", "webhooks"]);
  expect(off.action).toBe("company.feature_disabled");
});

test("a member: the email kept lowercase, a known role, one per email", () => {
  expect(member()).toMatchObject({ email: "ann@example.com", role: "owner", status: "active", passphraseHash: null });
  expect(decideMember("cmp_1", "nope", "owner", false, "cli", "mem_1", AT)).toMatchObject({ ok: false, message: '"nope" is not an email address' });
  expect(decideMember("cmp_1", "a@b.c", "emperor", false, "cli", "mem_1", AT)).toMatchObject({ ok: false, message: "role must be one of owner, compliance_officer, analyst, developer" });
  expect(decideMember("cmp_1", "a@b.c", "owner", true, "console", "mem_1", AT)).toMatchObject({ ok: false, message: "a member with email a@b.c already exists" });
});

test("disabling a member or changing their role ends their sessions; the same role or enabling does not", () => {
  const m = member();
  expect(decideMemberStatus(m, m.email, "disabled", "console", AT)).toMatchObject({ ok: true, action: "member.disabled", endsSessions: "member_disabled", detail: { via: "console" } });
  expect(decideMemberStatus(m, m.email, "active", "cli", AT)).toMatchObject({ ok: true, action: "member.enabled", endsSessions: undefined });
  expect(decideMemberRole(m, m.email, "analyst", "cli", AT)).toMatchObject({ ok: true, record: { role: "analyst" }, endsSessions: "role_changed", detail: { from: "owner", to: "analyst" } });
  expect(decideMemberRole(m, m.email, "owner", "cli", AT)).toMatchObject({ ok: true, endsSessions: undefined });
  expect(decideMemberRole(undefined, "x@y.z", "owner", "cli", AT)).toEqual({ ok: false, kind: "not_found", message: "no member with email x@y.z" });
});

test("a setup code clears the passphrase and second factor and ends the sessions; a disabled member gets none", () => {
  const m = member({ passphraseHash: "scrypt$x", totpSecretSealed: "sealed", totpConfirmedAt: AT, totpLastStep: 9 });
  const d = decideSetupCode(m, m.email, "hash", "2026-03-02T10:00:00.000Z", "cli", AT);
  expect(d).toMatchObject({ ok: true, record: { setupCodeHash: "hash", passphraseHash: null, totpSecretSealed: null, totpConfirmedAt: null, totpLastStep: null }, endsSessions: "credentials_reset" });
  expect(decideSetupCode({ ...m, status: "disabled" }, m.email, "hash", AT, "cli", AT)).toMatchObject({ ok: false, message: "member ann@example.com is disabled" });
});

test("a key: only its hash and hint kept; the member active and allowed the environment; known scopes; a future expiry", () => {
  const secret = keySecret("live", new Uint8Array(32).fill(1));
  expect(isKeyFormat(secret.key)).toBe(true);
  expect(secret.keyHash).toBe(hashKey(secret.key));
  const d = decideKey(member(), { environment: "live", scopes: ["transfers:read", "transfers:read"] }, secret, "console", "key_1", NOW, iso);
  expect(d).toMatchObject({ ok: true, record: { id: "key_1", memberId: "mem_1", environment: "live", scopes: ["transfers:read"], keyHash: secret.keyHash, revokedAt: null }, action: "api_key.created", detail: { scopes: 2, via: "console" } });
  expect(JSON.stringify(d)).not.toContain(secret.key);
  expect(decideKey(member({ role: "developer" }), { environment: "live" }, secret, "cli", "key_1", NOW, iso)).toMatchObject({ ok: false, message: "role developer may not hold live keys" });
  expect(decideKey(member(), { environment: "test", scopes: ["no:such"] }, secret, "cli", "key_1", NOW, iso)).toMatchObject({ ok: false, message: "unknown scopes: no:such" });
  expect(decideKey(member(), { environment: "test", scopes: [] }, secret, "cli", "key_1", NOW, iso)).toMatchObject({ ok: false, message: "a key needs at least one scope" });
  expect(decideKey(member(), { environment: "test", expiresAt: NOW }, secret, "cli", "key_1", NOW, iso)).toMatchObject({ ok: false, message: "the expiry must be in the future" });
  expect(decideKey(undefined, { environment: "test" }, secret, "cli", "key_1", NOW, iso)).toMatchObject({ ok: false, message: "no such member in this company" });
});

test("revoking: once; a revoked key is answered unchanged; another company's key is not found", () => {
  const d = decideKey(member(), { environment: "test" }, keySecret("test", new Uint8Array(32)), "cli", "key_1", NOW, iso);
  if (!d.ok) throw new Error();
  const r = decideRevoke(d.record, "cmp_1", "key_1", "cli", AT);
  expect(r).toMatchObject({ ok: true, changed: true, record: { revokedAt: AT } });
  if (!r.ok) throw new Error();
  expect(decideRevoke(r.record, "cmp_1", "key_1", "cli", AT)).toMatchObject({ ok: true, changed: false, record: r.record });
  expect(decideRevoke(d.record, "cmp_2", "key_1", "cli", AT)).toEqual({ ok: false, kind: "not_found", message: "no key with id key_1" });
});
