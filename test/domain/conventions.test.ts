// Pure pieces of the conventions: key format, cursors, masking, token buckets, roles.
import { test, expect, describe, setDefaultTimeout } from "bun:test";
import { formatKey, hashKey, isKeyFormat, constantTimeEqual, keyHint } from "../../src/domain/keys.ts";
import { decodeCursor, encodeCursor } from "../../src/domain/cursor.ts";
import { maskName } from "../../src/domain/masking.ts";
import { take, parseRateLimits } from "../../src/domain/ratelimit.ts";
import { ROLE_DEFINITIONS, roleAllowsEnvironment, roleHas, ALL_SCOPES } from "../../src/domain/access.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

describe("API keys", () => {
  test("a key is the issued prefix and 64 lowercase hex characters", () => {
    const k = formatKey("live", new Uint8Array(32).fill(0xab));
    expect(k).toBe("crv_live_" + "ab".repeat(32));
    expect(isKeyFormat(k)).toBe(true);
    for (const bad of ["", "crv_live_" + "ab".repeat(31), "crv_live_" + "AB".repeat(32), "sk_live_" + "ab".repeat(32), k + "a"])
      expect(isKeyFormat(bad)).toBe(false);
  });
  test("the stored hash is SHA-256 hex of the whole key (NIST vector for 'abc')", () => {
    expect(hashKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
  test("constant-time comparison says equal only for equal strings", () => {
    expect(constantTimeEqual("abcd", "abcd")).toBe(true);
    expect(constantTimeEqual("abcd", "abce")).toBe(false);
    expect(constantTimeEqual("abcd", "abc")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
  test("a hint shows the prefix and the last four characters only", () => {
    expect(keyHint("crv_test_" + "0".repeat(60) + "beef")).toBe("crv_test_…beef");
  });
});

describe("cursors", () => {
  const key = new Uint8Array(32).fill(7);
  test("a cursor round-trips its position for the same list", () => {
    const c = encodeCursor(key, { list: "audit|{}", after: [42, "x"] });
    expect(decodeCursor(key, c, "audit|{}")).toEqual({ list: "audit|{}", after: [42, "x"] });
  });
  test("an edited cursor, another list's cursor, another server's cursor or an item id is refused", () => {
    const c = encodeCursor(key, { list: "audit|{}", after: [42] });
    const payload = c.split(".")[0];
    const forged = Buffer.from(JSON.stringify(["audit|{}", [1]])).toString("base64url") + "." + c.split(".")[1];
    expect(decodeCursor(key, forged, "audit|{}")).toBeNull();
    expect(decodeCursor(key, payload, "audit|{}")).toBeNull();
    expect(decodeCursor(key, c, "customers|{}")).toBeNull();
    expect(decodeCursor(new Uint8Array(32).fill(8), c, "audit|{}")).toBeNull();
    expect(decodeCursor(key, "aud_01m835y4khhpv1tpa583vxndw6", "audit|{}")).toBeNull();
  });
});

describe("masking", () => {
  test.each([
    ["Jane Doe", "J*** D**"],
    ["Jane van Dyke", "J*** v** D***"],
    ["Zoë O'Neil", "Z** O*****"],
    ["李小龍", "李**"],
    ["ACME Holdings Ltd.", "A*** H******* L***"],
    ["", ""],
  ])("maskName(%p) = %p", (input, expected) => {
    expect(maskName(input)).toBe(expected);
  });
  test("null stays null", () => expect(maskName(null)).toBeNull());
});

describe("token buckets", () => {
  const rule = { limit: 3, windowSeconds: 60 };
  test("limit requests pass, the next waits for the refill it is told", () => {
    let b = undefined;
    for (let i = 0; i < 3; i++) {
      const r = take(b, rule, 1000);
      expect(r.ok).toBe(true);
      b = r.bucket;
    }
    const refused = take(b, rule, 1000);
    expect(refused).toMatchObject({ ok: false, retryAfterSeconds: 20 });
    expect(take(refused.bucket, rule, 1000 + 19_000).ok).toBe(false);
    expect(take(refused.bucket, rule, 1000 + 20_000).ok).toBe(true);
  });
  test("rate limit configuration is parsed strictly", () => {
    expect(parseRateLimits("company=10/60, vasp_search=2/1")).toEqual({ company: { limit: 10, windowSeconds: 60 }, vasp_search: { limit: 2, windowSeconds: 1 } });
    expect(() => parseRateLimits("company=10")).toThrow();
    expect(() => parseRateLimits("company=0/60")).toThrow();
  });
});

describe("roles", () => {
  test("owner has everything in both environments; developer is test-only without pii:view", () => {
    expect(roleAllowsEnvironment("owner", "live")).toBe(true);
    expect(roleAllowsEnvironment("developer", "live")).toBe(false);
    expect(roleAllowsEnvironment("developer", "test")).toBe(true);
    expect(roleHas("developer", "pii:view")).toBe(false);
    expect(roleHas("compliance_officer", "pii:view")).toBe(true);
    expect(roleHas("analyst", "pii:view")).toBe(false);
    expect(roleHas("analyst", "customers:create")).toBe(false);
    expect(roleHas("analyst", "customers:view")).toBe(true);
    expect(roleHas("analyst", "strs:view")).toBe(false);
  });
  test("analyst permissions are all read-only", () => {
    for (const p of ROLE_DEFINITIONS.analyst.permissions) expect(p.endsWith(":view")).toBe(true);
  });
  test("scopes are <resource>:read|write plus the four extras", () => {
    for (const s of ["customers:erase", "wallets:verify", "strs:read", "strs:write", "transfers:write"]) expect(ALL_SCOPES).toContain(s);
  });
});
