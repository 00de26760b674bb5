// The tenancy port (src/ports/tenancy.ts), as every engine must keep it: companies, members, keys and sessions as the
// domain's records (camelCase, parsed lists, ISO times), found by slug, email (in any case), ID and hash; refusals as
// TenancyError; not found as undefined; the authentication cache emptied by a change.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { hashKey } from "../../../src/domain/keys.ts";
import { decideKey, decideMember, decideMemberRole, keySecret } from "../../../src/domain/members/tenancy.ts";
import { TenancyError } from "../../../src/ports/tenancy.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function tenancyContract(engine: Engine): void {
  describe("tenancy", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("a created company reads back by slug as a record; unknown slugs are undefined; a taken or bad slug is refused", async () => {
      const t = store.repositories.tenancy;
      const made = await t.createCompany("acme", "Acme Ltd");
      expect(made).toEqual({ id: made.id, slug: "acme", name: "Acme Ltd", status: "active", disabledFeatures: [], createdAt: "2026-03-01T10:00:00.000Z", updatedAt: "2026-03-01T10:00:00.000Z" });
      expect(await t.companyBySlug("acme")).toEqual(made);
      expect(await t.requireCompany("acme")).toEqual(made);
      expect(await t.companyBySlug("nobody")).toBeUndefined();
      await expect(t.requireCompany("nobody")).rejects.toBeInstanceOf(TenancyError);
      await expect(t.createCompany("acme")).rejects.toBeInstanceOf(TenancyError);
      await expect(t.createCompany("Not A Slug")).rejects.toBeInstanceOf(TenancyError);
      const slugs = (await t.listCompanies()).map((c) => c.slug);
      expect(slugs).toContain("default");
      expect(slugs).toContain("acme");
    });

    test("a company's status and features change; features are a sorted list", async () => {
      const t = store.repositories.tenancy;
      await t.createCompany("plan");
      expect((await t.setCompanyStatus("plan", "suspended")).status).toBe("suspended");
      await t.setFeature("plan", "webhooks", false);
      const c = await t.setFeature("plan", "api_keys", false);
      expect(c.disabledFeatures).toEqual(["api_keys", "webhooks"]);
      expect((await t.setFeature("plan", "webhooks", true)).disabledFeatures).toEqual(["api_keys"]);
      expect((await t.companyBySlug("plan"))!.status).toBe("suspended");
    });

    test("a member reads back by email (any case) and by ID, scoped to the company; duplicates and bad input are refused", async () => {
      const t = store.repositories.tenancy;
      const m = await t.createMember(store.companyId, "Officer@Example.com", "compliance_officer");
      expect(m).toMatchObject({ companyId: store.companyId, email: "officer@example.com", role: "compliance_officer", status: "active", passphraseHash: null, totpSecretSealed: null, totpConfirmedAt: null, totpLastStep: null, setupCodeHash: null, setupCodeExpiresAt: null });
      expect(m.createdAt).toMatch(ISO);
      expect(await t.memberByEmail(store.companyId, "OFFICER@example.com")).toEqual(m);
      expect(await t.memberById(store.companyId, m.id)).toEqual(m);
      const other = await t.requireCompany("acme");
      expect(await t.memberById(other.id, m.id)).toBeUndefined();
      expect(await t.memberByEmail(store.companyId, "nobody@example.com")).toBeUndefined();
      await expect(t.createMember(store.companyId, "officer@example.com", "analyst")).rejects.toBeInstanceOf(TenancyError);
      await expect(t.createMember(store.companyId, "not-an-email", "analyst")).rejects.toBeInstanceOf(TenancyError);
      await expect(t.createMember(store.companyId, "x@example.com", "emperor")).rejects.toBeInstanceOf(TenancyError);
      expect((await t.listMembers(store.companyId)).map((x) => x.id)).toContain(m.id);
      const summaries = await t.members(store.companyId, [m.id, "system", null, "mem_unknown"]);
      expect([...summaries.keys()]).toEqual([m.id]);
      expect(summaries.get(m.id)).toEqual({ id: m.id, name: m.email, email: m.email, role: m.role, status: "active" });
    });

    test("a member's role and status change; an unknown email is refused", async () => {
      const t = store.repositories.tenancy;
      const m = await t.createMember(store.companyId, "change@example.com", "analyst");
      expect((await t.setMemberRole(store.companyId, m.email, "owner")).role).toBe("owner");
      expect((await t.setMemberStatus(store.companyId, m.email, "disabled")).status).toBe("disabled");
      await expect(t.setMemberRole(store.companyId, "ghost@example.com", "owner")).rejects.toBeInstanceOf(TenancyError);
    });

    test("a key reads back as a record (scopes a list, only the hash kept); found by ID and by hash with its member and company", async () => {
      const t = store.repositories.tenancy;
      const m = await t.createMember(store.companyId, "dev@example.com", "owner");
      const { apiKey, key } = await t.createKey({ companyId: store.companyId, memberId: m.id, environment: "test", scopes: ["transfers:read", "transfers:read"] });
      expect(apiKey).toMatchObject({ companyId: store.companyId, memberId: m.id, environment: "test", scopes: ["transfers:read"], revokedAt: null, expiresAt: null, lastUsedAt: null, keyHash: hashKey(key) });
      expect(JSON.stringify(apiKey)).not.toContain(key);
      expect(await t.keyById(apiKey.id)).toEqual(apiKey);
      expect(await t.keyById("key_unknown")).toBeUndefined();
      expect((await t.listKeys(store.companyId)).map((k) => k.id)).toContain(apiKey.id);
      const auth = (await t.keyByHash(hashKey(key)))!;
      expect(auth).toMatchObject({ ...apiKey, memberEmail: "dev@example.com", memberRole: "owner", memberStatus: "active", companySlug: "default", companyStatus: "active", companyFeatures: [] });
      expect(await t.keyByHash(hashKey("nope"))).toBeUndefined();
      await expect(t.createKey({ companyId: store.companyId, memberId: m.id, environment: "test", scopes: ["no:such"] })).rejects.toBeInstanceOf(TenancyError);
      await expect(t.createKey({ companyId: store.companyId, memberId: "mem_unknown", environment: "test" })).rejects.toBeInstanceOf(TenancyError);
    });

    test("a key answered from the cache is dropped from it by a revocation: the next lookup sees it revoked", async () => {
      const t = store.repositories.tenancy;
      const m = await t.createMember(store.companyId, "cache@example.com", "owner");
      const { apiKey, key } = await t.createKey({ companyId: store.companyId, memberId: m.id, environment: "test" });
      const hash = hashKey(key);
      expect(t.cachedKey(hash)).toBeUndefined();
      const first = (await t.authByHash(hash))!;
      expect(t.cachedKey(hash)).toBe(first);
      const revoked = await t.revokeKey(store.companyId, apiKey.id);
      expect(revoked.revokedAt).toMatch(ISO);
      expect(t.cachedKey(hash)).toBeUndefined();
      expect((await t.authByHash(hash))!.revokedAt).toBe(revoked.revokedAt);
      // Revoking again answers the key unchanged; another company's key is not found.
      expect(await t.revokeKey(store.companyId, apiKey.id)).toEqual(revoked);
      await expect(t.revokeKey((await t.requireCompany("acme")).id, apiKey.id)).rejects.toBeInstanceOf(TenancyError);
      const c = (await t.companyBySlugCached("default"))!;
      expect(t.cachedCompany("default")).toBe(c);
      expect(await t.companyBySlugCached("nobody")).toBeUndefined();
    });

    test("a session reads back by hash and ID; renewed, ended once; a member's open sessions are listed", async () => {
      const t = store.repositories.tenancy;
      const m = await t.createMember(store.companyId, "signer@example.com", "owner");
      const tokenHash = hashKey("token-1");
      const s = await t.createSession({ companyId: store.companyId, member: m, environment: "live", tokenHash, source: "10.0.0.1", expiresAt: NOW + 3_600_000, action: "session.signed_in" }, NOW);
      expect(s).toMatchObject({ companyId: store.companyId, memberId: m.id, environment: "live", role: "owner", tokenHash, source: "10.0.0.1", endedAt: null, endedReason: null, expiresAt: "2026-03-01T11:00:00.000Z" });
      expect(await t.sessionById(s.id)).toEqual(s);
      expect(await t.sessionById("ses_unknown")).toBeUndefined();
      expect(await t.sessionByHash(tokenHash)).toMatchObject({ ...s, memberEmail: m.email, companySlug: "default" });
      expect(await t.sessionByHash(hashKey("token-2"))).toBeUndefined();
      expect((await t.openSessions(store.companyId, NOW)).map((x) => x.id)).toContain(s.id);
      await t.renewSession(s.id, NOW + 60_000, NOW + 7_200_000);
      expect((await t.sessionById(s.id))!.expiresAt).toBe("2026-03-01T12:00:00.000Z");
      await t.endSession(store.companyId, "live", { id: s.id, memberId: m.id }, "signed_out", NOW + 120_000);
      expect(await t.sessionById(s.id)).toMatchObject({ endedAt: "2026-03-01T10:02:00.000Z", endedReason: "signed_out" });
      expect((await t.openSessions(store.companyId, NOW)).map((x) => x.id)).not.toContain(s.id);
    });

    test("a TOTP step is taken once; a setup code replaces the credentials", async () => {
      const t = store.repositories.tenancy;
      const m = await t.createMember(store.companyId, "totp@example.com", "analyst");
      const withCode = await t.issueSetupCode(store.companyId, m.email, hashKey("code"), NOW + 1000);
      expect(withCode).toMatchObject({ setupCodeHash: hashKey("code"), setupCodeExpiresAt: "2026-03-01T10:00:01.000Z", passphraseHash: null });
      await t.setPendingCredentials(m.id, "scrypt$x", "sealed", NOW);
      expect(await t.useTotpStep(m.id, 5, NOW, true)).toBe(true);
      expect(await t.useTotpStep(m.id, 5, NOW, false)).toBe(false);
      expect(await t.useTotpStep(m.id, 6, NOW, false)).toBe(true);
      expect(await t.memberById(store.companyId, m.id)).toMatchObject({ passphraseHash: "scrypt$x", totpSecretSealed: "sealed", totpLastStep: 6, setupCodeHash: null, totpConfirmedAt: "2026-03-01T10:00:00.000Z" });
    });
    test("the actor's writes: a decided member and key inserted read back as given; a saved change reads back; a second key with one hash is refused by the store", async () => {
      const t = store.repositories.tenancy;
      const at = "2026-03-01T10:00:00.000Z";
      const d = decideMember(store.companyId, "writes@example.com", "analyst", false, "cli", "mem_contract_writes", at);
      if (!d.ok) throw new Error(d.message);
      await t.insertMember(d.record);
      expect(await t.memberById(store.companyId, d.record.id)).toEqual(d.record);
      const role = decideMemberRole(d.record, d.record.email, "owner", "cli", "2026-03-01T10:00:05.000Z");
      if (!role.ok) throw new Error(role.message);
      await t.saveMember(role.record);
      expect(await t.memberById(store.companyId, d.record.id)).toEqual(role.record);
      const secret = keySecret("test", new Uint8Array(32).fill(3));
      const k = decideKey(role.record, { environment: "test" }, secret, "cli", "key_contract_writes", NOW, (ms) => new Date(ms).toISOString());
      if (!k.ok) throw new Error(k.message);
      await t.insertKey(k.record);
      expect(await t.keyById(k.record.id)).toEqual(k.record);
      await expect(t.insertKey({ ...k.record, id: "key_contract_twin" })).rejects.toThrow();
      expect(await t.keyById("key_contract_twin")).toBeUndefined();
      await t.saveKey({ ...k.record, revokedAt: at });
      expect((await t.keyById(k.record.id))!.revokedAt).toBe(at);
      await t.createSession({ companyId: store.companyId, member: role.record, environment: "test", tokenHash: hashKey("writes-token"), source: null, expiresAt: NOW + 60_000, action: "session.signed_in" }, NOW);
      expect(await t.unendedSessions(d.record.id)).toBe(1);
      expect(await t.endMemberSessions(d.record.id, "role_changed", NOW)).toBe(1);
      expect(await t.unendedSessions(d.record.id)).toBe(0);
    });
  });
}
