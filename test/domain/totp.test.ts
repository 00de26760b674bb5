// The console's second factor: HOTP (RFC 4226 Appendix D) and TOTP (RFC 6238 Appendix B) against the RFCs' published
// vectors; the acceptance window and the one-use rule; base32 as authenticator apps read it; the sign-in pause.
import { test, expect, describe } from "bun:test";
import { base32Decode, base32Encode, hotp, otpauthUri, totp, totpStep, verifyTotp } from "../../src/domain/members/totp.ts";
import { canonicalSetupCode, formatSetupCode, keyIsStale, sessionExpiry, SESSION_IDLE_MS, SESSION_MAX_MS, signInPauseMs, SignInThrottle } from "../../src/domain/members/sign-in.ts";

const ascii = (s: string) => new TextEncoder().encode(s);
const SEED = { SHA1: ascii("12345678901234567890"), SHA256: ascii("12345678901234567890123456789012"), SHA512: ascii("1234567890123456789012345678901234567890123456789012345678901234") };

describe("RFC 4226 Appendix D: HOTP of the secret 12345678901234567890", () => {
  const want = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
  for (const [counter, code] of want.entries()) test(`counter ${counter} → ${code}`, () => expect(hotp(SEED.SHA1, counter)).toBe(code));
});

describe("RFC 6238 Appendix B: TOTP, 8 digits, X = 30 s, T0 = 0", () => {
  const table: [number, string, string, string][] = [
    [59, "94287082", "46119246", "90693936"],
    [1111111109, "07081804", "68084774", "25091201"],
    [1111111111, "14050471", "67062674", "99943326"],
    [1234567890, "89005924", "91819424", "93441116"],
    [2000000000, "69279037", "90698825", "38618901"],
    [20000000000, "65353130", "77737706", "47863826"],
  ];
  for (const [t, sha1, sha256, sha512] of table)
    test(`T = ${t} s: SHA1 ${sha1}, SHA256 ${sha256}, SHA512 ${sha512}`, () => {
      expect(totp(SEED.SHA1, t * 1000, { period: 30, digits: 8, hash: "SHA1" })).toBe(sha1);
      expect(totp(SEED.SHA256, t * 1000, { period: 30, digits: 8, hash: "SHA256" })).toBe(sha256);
      expect(totp(SEED.SHA512, t * 1000, { period: 30, digits: 8, hash: "SHA512" })).toBe(sha512);
    });
});

describe("verifyTotp: one step either side, each code once", () => {
  const now = 1_795_000_000_000;
  const code = (d: number) => totp(SEED.SHA1, now + d * 30_000);
  test("the current, previous and next step's codes are accepted, two steps away is not", () => {
    expect(verifyTotp(SEED.SHA1, code(0), now, null)).toBe(totpStep(now));
    expect(verifyTotp(SEED.SHA1, code(-1), now, null)).toBe(totpStep(now) - 1);
    expect(verifyTotp(SEED.SHA1, code(1), now, null)).toBe(totpStep(now) + 1);
    expect(verifyTotp(SEED.SHA1, code(2), now, null)).toBeNull();
    expect(verifyTotp(SEED.SHA1, code(-2), now, null)).toBeNull();
  });
  test("a code of a step already used (or older) is refused: a replayed code never signs in", () => {
    const step = totpStep(now);
    expect(verifyTotp(SEED.SHA1, code(0), now, step)).toBeNull();
    expect(verifyTotp(SEED.SHA1, code(-1), now, step)).toBeNull();
    expect(verifyTotp(SEED.SHA1, code(1), now, step)).toBe(step + 1);
  });
  test("a wrong code, an empty one or one of another secret is refused", () => {
    expect(verifyTotp(SEED.SHA1, "000000", now, null) === null || code(0) === "000000").toBe(true);
    expect(verifyTotp(SEED.SHA1, "", now, null)).toBeNull();
    expect(verifyTotp(SEED.SHA256, code(0), now, null)).toBeNull();
  });
});

test("base32 (RFC 4648 test vectors, no padding) and the otpauth URI an authenticator app reads", () => {
  for (const [plain, b32] of [["", ""], ["f", "MY"], ["fo", "MZXQ"], ["foo", "MZXW6"], ["foob", "MZXW6YQ"], ["fooba", "MZXW6YTB"], ["foobar", "MZXW6YTBOI"]] as const) {
    expect(base32Encode(ascii(plain))).toBe(b32);
    expect(new TextDecoder().decode(base32Decode(b32))).toBe(plain);
  }
  expect(otpauthUri("Caravan", "ana@example.com", SEED.SHA1)).toBe("otpauth://totp/Caravan%3Aana%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Caravan&algorithm=SHA1&digits=6&period=30");
});

describe("sign-in rules", () => {
  test("the pause grows with repeated failures: none for the free ones, then doubling, at most 15 minutes", () => {
    expect([1, 2, 3, 4, 5].map((n) => signInPauseMs(n, 1000))).toEqual([0, 1000, 2000, 4000, 8000]);
    expect([9, 10, 11, 12].map((n) => signInPauseMs(n, 1000, 9))).toEqual([0, 1000, 2000, 4000]);
    expect(signInPauseMs(40, 1000)).toBe(15 * 60_000);
  });
  test("the throttle: every subject must be past its pause; success forgets the member's failures", () => {
    const t = new SignInThrottle(1000);
    const subjects = [{ key: "m", free: 1 }, { key: "s", free: 9 }];
    t.failed(subjects, 0);
    expect(t.wait(["m", "s"], 0)).toBe(0);
    t.failed(subjects, 10);
    expect(t.wait(["m", "s"], 10)).toBe(1000);
    expect(t.wait(["other", "s"], 10)).toBe(0);
    t.succeeded(["m"]);
    expect(t.wait(["m"], 10)).toBe(0);
  });
  test("a session ends 15 minutes after its last use and never later than 12 hours after sign-in", () => {
    expect(sessionExpiry(0, 0)).toBe(SESSION_IDLE_MS);
    expect(sessionExpiry(0, 60_000)).toBe(60_000 + SESSION_IDLE_MS);
    expect(sessionExpiry(0, SESSION_MAX_MS - 1000)).toBe(SESSION_MAX_MS);
  });
  test("setup codes: 4 groups of 4, compared without case, dashes or spaces", () => {
    const c = formatSetupCode(new Uint8Array(16).fill(7));
    expect(c).toMatch(/^[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}$/);
    expect(canonicalSetupCode(` ${c.toLowerCase()} `)).toBe(c.replace(/-/g, ""));
  });
  test("a key unused (or never used) for 90 days is stale", () => {
    const day = 86_400_000;
    const now = 1_000 * day;
    expect(keyIsStale({ createdAt: new Date(now - 91 * day).toISOString(), lastUsedAt: null }, now)).toBe(true);
    expect(keyIsStale({ createdAt: new Date(now - 91 * day).toISOString(), lastUsedAt: new Date(now - day).toISOString() }, now)).toBe(false);
    expect(keyIsStale({ createdAt: new Date(now - 10 * day).toISOString(), lastUsedAt: null }, now)).toBe(false);
  });
});
