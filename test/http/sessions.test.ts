// Members sign in (docs/api.md, "Keys and sessions"): setup with the one-time code the CLI prints, passphrase and TOTP,
// the session as a bearer token bound to the member and the address that signed in; the faults an attacker probes
// (wrong passphrase or code, unknown member, replayed code or token, expired session, a second source); sessions
// ended by sign-out, deactivation, role change and the CLI. Real server on loopback, real SQLite file.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { sqlRows } from "../support/db.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, expectOk } from "../support/api.ts";
import { base32Decode, totp } from "../../src/domain/members/totp.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "sessions.db");
const { cli, newKey, newMember, newSession, call } = apiClient(db, () => S.url);
let S: ChildServer;

const sql = (q: string, ...args: string[]) => sqlRows(db, q, ...args);

beforeAll(async () => {
  // Requests from loopback may name their client in X-Forwarded-For: how a test comes from a second source. A long
  // pause base makes "refused while paused" independent of how fast the machine is.
  S = await startServer({ CARAVAN_DB: db, CARAVAN_TRUSTED_PROXIES: "127.0.0.1", CARAVAN_SIGN_IN_PAUSE_MS: "600000", CARAVAN_STREAM_HEARTBEAT_MS: "100" });
});

afterAll(async () => {
  await S?.stop();
});

describe("setting up and signing in", () => {
  test("setup code → passphrase → TOTP secret → first code: a session that answers /me as the member, with the role's permissions and no key", async () => {
    const s = await newSession("compliance_officer");
    expect(s.token).toMatch(/^crv_sess_[0-9a-f]{64}$/);
    const me = await call("/api/v2/me", { session: s.token });
    expectOk(me);
    expect(me.body.data.member).toMatchObject({ id: s.memberId, email: s.email, role: "compliance_officer" });
    expect(me.body.data.environment).toBe("test");
    expect(me.body.data.permissions).toContain("strs:update");
    const cur = await call("/api/v2/sessions/current", { session: s.token });
    expectOk(cur);
    expect(cur.body.data.session.id).toBe(s.sessionId);
    // The database keeps the token's hash and the passphrase's slow hash only.
    const row = sql("SELECT token_hash FROM member_sessions WHERE id = ?", s.sessionId)[0];
    expect(row.token_hash).not.toBe(s.token);
    const m = sql("SELECT passphrase_hash, totp_secret_sealed, setup_code_hash FROM members WHERE id = ?", s.memberId)[0];
    expect(String(m.passphrase_hash)).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(String(m.passphrase_hash)).not.toContain(s.passphrase);
    expect(String(m.totp_secret_sealed)).not.toContain(s.secret);
    expect(m.setup_code_hash).toBeNull();
    // Signing in again later (another environment) with passphrase and the next code.
    const live = await s.login("live");
    const liveMe = await call("/api/v2/me", { session: live });
    expect(liveMe.body.data.environment).toBe("live");
  });

  test("a setup code is spent by the confirmation and cannot set up again; a code from the CLI for a member who does not exist is an error there", async () => {
    const m = await newMember("analyst");
    const setup = JSON.parse((await cli("members", "setup", "--email", m.email, "--json")).split("\n").at(-1)!);
    const started = await call("/api/v2/sessions/setup", { method: "POST", json: { email: m.email, setupCode: setup.setupCode, passphrase: "a long enough passphrase" } });
    expectOk(started);
    const code = totp(base32Decode(started.body.data.totpSecret), Date.now());
    expectOk(await call("/api/v2/sessions/setup/confirm", { method: "POST", json: { email: m.email, setupCode: setup.setupCode, code } }), 201);
    expectError(await call("/api/v2/sessions/setup", { method: "POST", json: { email: m.email, setupCode: setup.setupCode, passphrase: "another passphrase here" } }), 401, "SIGN_IN_FAILED");
    await expect(cli("members", "setup", "--email", "nobody@nowhere.test")).rejects.toThrow("no member with email nobody@nowhere.test");
  });

  test("a passphrase shorter than 12 characters is refused before anything is looked up (400 VALIDATION_ERROR)", async () => {
    expectError(await call("/api/v2/sessions/setup", { method: "POST", json: { email: "x@y.test", setupCode: "AAAA-BBBB", passphrase: "short" } }), 400, "VALIDATION_ERROR");
  });
});

describe("faults: the same answer whether the member exists or not, and a growing pause", () => {
  test("wrong passphrase, wrong code, unknown email: each 401 SIGN_IN_FAILED with the same words; a second failure for the same email pauses it (429 with Retry-After), known or not", async () => {
    const s = await newSession("owner");
    const good = totp(base32Decode(s.secret), Date.now() + 30_000);
    const wrongPass = await call("/api/v2/sessions", { method: "POST", json: { email: s.email, passphrase: "not the passphrase", code: good } });
    const unknown = await call("/api/v2/sessions", { method: "POST", json: { email: "ghost@members.test", passphrase: s.passphrase, code: good } });
    for (const r of [wrongPass, unknown]) expectError(r, 401, "SIGN_IN_FAILED");
    expect(wrongPass.body.error).toBe(unknown.body.error);
    expect(wrongPass.body.details).toBeUndefined();
    // Second failure of each email: paused, said alike.
    const again = await call("/api/v2/sessions", { method: "POST", json: { email: s.email, passphrase: s.passphrase, code: "123456" } });
    const againUnknown = await call("/api/v2/sessions", { method: "POST", json: { email: "ghost@members.test", passphrase: s.passphrase, code: "123456" } });
    for (const r of [again, againUnknown]) expectError(r, 401, "SIGN_IN_FAILED");
    const paused = await call("/api/v2/sessions", { method: "POST", json: { email: s.email, passphrase: s.passphrase, code: good } });
    const pausedUnknown = await call("/api/v2/sessions", { method: "POST", json: { email: "ghost@members.test", passphrase: s.passphrase, code: good } });
    for (const r of [paused, pausedUnknown]) {
      expectError(r, 429, "RATE_LIMITED");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(500);
    }
    expect(paused.body.error).toBe(pausedUnknown.body.error);
    // Even the right passphrase and code wait out the pause: the pause is not a hint that they were right.
    expect(sql("SELECT count(*) AS n FROM member_sessions WHERE member_id = ?", s.memberId)[0].n).toBe(1);
    // The member's failures are in the audit log (not which factor, nothing typed); paused attempts add none.
    const failures = sql("SELECT detail FROM audit_log WHERE action = 'session.sign_in_failed' AND entity_id = ?", s.memberId);
    expect(failures).toHaveLength(2);
    for (const f of failures) {
      // This server trusts loopback as a proxy, and these requests name no client: the source is unknown (null).
      expect(JSON.parse(String(f.detail))).toEqual({ source: null, step: "sign_in" });
      for (const typed of [s.passphrase, "not the passphrase", good, "123456"]) expect(String(f.detail)).not.toContain(typed);
    }
  });

  test("a code is accepted once: the same code again is 401 SIGN_IN_FAILED", async () => {
    const s = await newSession("analyst");
    const code = totp(base32Decode(s.secret), Date.now() + 30_000);
    const first = await call("/api/v2/sessions", { method: "POST", json: { email: s.email, passphrase: s.passphrase, code } });
    expectOk(first, 201);
    expectError(await call("/api/v2/sessions", { method: "POST", json: { email: s.email, passphrase: s.passphrase, code } }), 401, "SIGN_IN_FAILED");
  });

  test("nothing about a credential is logged: the server's output holds no passphrase, code, setup code or token", async () => {
    const s = await newSession("analyst");
    const out = S.output();
    for (const secret of [s.passphrase, s.token, s.secret]) expect(out).not.toContain(secret);
  });
});

describe("a session's end", () => {
  test("sign-out ends it: the same token again is 401 SESSION_ENDED (a replayed token); an unknown token too; a malformed one is 401 INVALID_FORMAT", async () => {
    const s = await newSession("analyst");
    expectOk(await call("/api/v2/sessions/current", { method: "DELETE", session: s.token }));
    expectError(await call("/api/v2/me", { session: s.token }), 401, "SESSION_ENDED");
    expectError(await call("/api/v2/me", { session: `crv_sess_${"0".repeat(64)}` }), 401, "SESSION_ENDED");
    expectError(await call("/api/v2/me", { session: "crv_sess_nope" }), 401, "INVALID_FORMAT");
    expect(sql("SELECT ended_reason FROM member_sessions WHERE id = ?", s.sessionId)[0].ended_reason).toBe("signed_out");
  });

  test("an expired session (15 minutes unused) is 401 SESSION_ENDED", async () => {
    const s = await newSession("analyst");
    sql("UPDATE member_sessions SET expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), s.sessionId);
    expectError(await call("/api/v2/me", { session: s.token }), 401, "SESSION_ENDED");
  });

  test("use renews it: a session used after a minute gets a later expiry", async () => {
    const s = await newSession("analyst");
    const before = new Date(Date.now() - 5 * 60_000).toISOString();
    sql("UPDATE member_sessions SET last_used_at = ?, expires_at = ? WHERE id = ?", before, new Date(Date.now() + 60_000).toISOString(), s.sessionId);
    expectOk(await call("/api/v2/me", { session: s.token }));
    const row = sql("SELECT last_used_at, expires_at FROM member_sessions WHERE id = ?", s.sessionId)[0];
    expect(Date.parse(String(row.expires_at))).toBeGreaterThan(Date.now() + 10 * 60_000);
    expect(String(row.last_used_at) > before).toBe(true);
  });

  test("used from a second source while active: the session ends there and then (401 SESSION_ENDED), for the first source too", async () => {
    const first = { "x-forwarded-for": "198.51.100.7" };
    const s = await newSession("analyst", "test", { headers: first });
    expectOk(await call("/api/v2/me", { session: s.token, headers: first }));
    expectError(await call("/api/v2/me", { session: s.token, headers: { "x-forwarded-for": "203.0.113.9" } }), 401, "SESSION_ENDED");
    expectError(await call("/api/v2/me", { session: s.token, headers: first }), 401, "SESSION_ENDED");
    expect(sql("SELECT ended_reason FROM member_sessions WHERE id = ?", s.sessionId)[0].ended_reason).toBe("source_changed");
  });

  test("deactivation, a role change and `members sign-out` on the CLI each end the member's sessions", async () => {
    const a = await newSession("analyst");
    await cli("members", "disable", "--email", a.email);
    expectError(await call("/api/v2/me", { session: a.token }), 401, "SESSION_ENDED");
    const b = await newSession("analyst");
    await cli("members", "role", "--email", b.email, "--role", "compliance_officer");
    expectError(await call("/api/v2/me", { session: b.token }), 401, "SESSION_ENDED");
    const c = await newSession("analyst");
    expect(await cli("members", "sign-out", "--email", c.email)).toBe(`Ended 1 session of ${c.email}`);
    expectError(await call("/api/v2/me", { session: c.token }), 401, "SESSION_ENDED");
    const audit = sql("SELECT action, actor_type, detail FROM audit_log WHERE entity_id = (SELECT id FROM members WHERE email = ?) AND environment = 'test' ORDER BY seq", c.email);
    expect(audit.map((x) => x.action)).toContain("member.signed_out");
    expect(JSON.parse(String(audit.find((x) => x.action === "member.signed_out")!.detail))).toMatchObject({ via: "cli", sessions: 1 });
  });

  test("the live event stream takes a session: it stays open across heartbeats and closes once the session is signed out", async () => {
    const s = await newSession("compliance_officer");
    const res = await fetch(`${S.url}/api/v2/events/stream`, { headers: { authorization: `Bearer ${s.token}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    // Several heartbeats (every 100 ms here) pass with the session re-checked each time: still open.
    let seen = "";
    while ((seen.match(/: ping/g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      seen += new TextDecoder().decode(value);
    }
    expectOk(await call("/api/v2/sessions/current", { method: "DELETE", session: s.token }));
    // The next heartbeat finds the session ended and closes the stream.
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });

  test("a session cookie on a change is still 403 CSRF_VALIDATION_FAILED, bearer session or not", async () => {
    const s = await newSession("owner");
    expectError(await call("/api/v2/customers", { method: "POST", session: s.token, headers: { cookie: `session=${s.token}` }, json: { name: "X" } }), 403, "CSRF_VALIDATION_FAILED");
  });
});

describe("keys create needs a member made on purpose", () => {
  test("without --member: refused, and no member is made; with a member's email: the key acts for that member", async () => {
    const before = sql("SELECT count(*) AS n FROM members")[0].n;
    await expect(cli("keys", "create", "--env", "test", "--role", "owner")).rejects.toThrow("keys create needs --member <email>");
    expect(sql("SELECT count(*) AS n FROM members")[0].n).toBe(before);
    const m = await newMember("developer");
    const k = JSON.parse((await cli("keys", "create", "--env", "test", "--member", m.email, "--json")).split("\n").at(-1)!);
    expect(k.memberEmail).toBe(m.email);
    await expect(cli("keys", "create", "--env", "test", "--member", "nobody@members.test")).rejects.toThrow("no member with email nobody@members.test");
  });

  test("key expiry: a key given an expiry is 401 KEY_REVOKED once it passes; --expires in the past is refused", async () => {
    const m = await newMember("analyst");
    const k = JSON.parse((await cli("keys", "create", "--env", "test", "--member", m.email, "--expires", "30d", "--json")).split("\n").at(-1)!);
    expect(Date.parse(k.expiresAt)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expectOk(await call("/api/v2/me", { key: k.key }));
    sql("UPDATE api_keys SET expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), k.id);
    // A direct write to the file (not a Caravan process) is seen within 100 ms (docs/performance.md): ask until it is.
    let r = await call("/api/v2/me", { key: k.key });
    for (let i = 0; i < 40 && r.status === 200; i++) (await Bun.sleep(50), (r = await call("/api/v2/me", { key: k.key })));
    expectError(r, 401, "KEY_REVOKED");
    expect(r.body.error).toContain("expired");
    await expect(cli("keys", "create", "--env", "test", "--member", m.email, "--expires", "2001-01-01T00:00:00Z")).rejects.toThrow("--expires must be in the future");
  });

  test("a key's last use is recorded (shown by keys list)", async () => {
    const k = await newKey("--env", "test", "--role", "analyst");
    expect(sql("SELECT last_used_at FROM api_keys WHERE id = ?", k.id)[0].last_used_at).toBeNull();
    expectOk(await call("/api/v2/me", { key: k.key }));
    let used: unknown = null;
    for (let i = 0; i < 50 && used === null; i++) {
      used = sql("SELECT last_used_at FROM api_keys WHERE id = ?", k.id)[0].last_used_at;
      if (used === null) await Bun.sleep(50);
    }
    expect(String(used)).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await cli("keys", "list")).toContain(`last used ${used}`);
  });
});
