// The dashboard's powers leave API keys (docs/api.md, "Keys and sessions"): promoting a rule to live, drafting,
// editing, submitting, approving and filing a report, and managing keys and members take a member's console session
// and that member's role; every API key, however scoped, is 403 OFFICER_SESSION_REQUIRED on each. The routes the API
// contract lists (reading reports, downloading, rules) keep answering keys as before. Keys and members managed from a
// session are audited as that member's and session's actions; the audit log filters by member.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { sqlRows } from "../support/db.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, expectOk } from "../support/api.ts";
import { base32Decode, totp } from "../../src/domain/members/totp.ts";
import { JANE } from "../support/persons.ts";

setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "operator.db");
const { newKey, newMember, newSession, call } = apiClient(db, () => S.url);
let S: ChildServer;
type Key = { key: string; id: string; memberId: string; memberEmail: string };
let ownerTest: Key, ownerLive: Key, rulesOnly: Key, strsOnly: Key;
const sessions: Record<string, string> = {};
let ownerLiveSession: string;
let ruleId: string, transferId: string, reportId: string;

const sql = (q: string, ...args: string[]) => sqlRows(db, q, ...args);

beforeAll(async () => {
  S = await startServer({ CARAVAN_DB: db });
  ownerTest = await newKey("--env", "test", "--role", "owner");
  ownerLive = await newKey("--env", "live", "--role", "owner", "--member", ownerTest.memberEmail);
  rulesOnly = await newKey("--env", "live", "--role", "owner", "--member", ownerTest.memberEmail, "--scopes", "rules:write,rules:read");
  strsOnly = await newKey("--env", "test", "--role", "owner", "--member", ownerTest.memberEmail, "--scopes", "strs:write,strs:read,reports:read");
  const owner = await newSession({ email: ownerTest.memberEmail });
  sessions.owner = owner.token;
  ownerLiveSession = await owner.login("live");
  for (const role of ["compliance_officer", "analyst", "developer"]) sessions[role] = (await newSession(role)).token;
  ruleId = (await call("/api/v2/rules", { method: "POST", key: ownerTest.key, json: { name: "Big ones", category: "aml" } })).body.data.id;
  // A transfer to draft reports for: a customer's outgoing transfer as the API creates it.
  const cus = (await call("/api/v2/customers", { method: "POST", key: ownerTest.key, json: { name: "Jane Doe" } })).body.data.id;
  const made = await call("/api/v2/transfers", {
    method: "POST",
    key: ownerTest.key,
    headers: { "Idempotency-Key": crypto.randomUUID() },
    json: {
      asset: "ETH",
      amount: "0.1",
      network: "ethereum",
      originatorCustomerId: cus,
      beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      originator: { originatorPersons: [JANE] },
    },
  });
  if (made.status !== 202 && made.status !== 201) throw new Error(made.text);
  transferId = made.body.data.id;
  const d = await call("/api/v2/reports", { method: "POST", session: sessions.owner, json: { transferId, jurisdiction: "NL" } });
  expect(d.status).toBe(201);
  reportId = d.body.data.id;
});

afterAll(async () => {
  await S?.stop();
});

/** Every operator route with a body it would accept. */
const operatorRoutes = () =>
  [
    ["POST", `/api/v2/rules/${ruleId}/promote`, undefined, "live"],
    ["POST", "/api/v2/reports", { transferId }, "test"],
    ["PATCH", `/api/v2/reports/${reportId}`, { narrative: "Edited by hand" }, "test"],
    ["POST", `/api/v2/reports/${reportId}/submit`, undefined, "test"],
    ["POST", `/api/v2/reports/${reportId}/approve`, undefined, "test"],
    ["POST", `/api/v2/reports/${reportId}/file`, { reference: "FIU-1" }, "test"],
    ["GET", "/api/v2/keys", undefined, "test"],
    ["POST", "/api/v2/keys", { environment: "test" }, "test"],
    ["DELETE", "/api/v2/keys/key_00000000000000000000000000", undefined, "test"],
    ["GET", "/api/v2/members", undefined, "test"],
    ["POST", "/api/v2/members", { email: "someone@members.test", role: "analyst" }, "test"],
    ["PATCH", "/api/v2/members/mem_00000000000000000000000000", { role: "analyst" }, "test"],
  ] as const;

describe("an integration's key can no longer use the dashboard's powers", () => {
  test("every operator route: an owner key with every scope (test and live), a key holding just the route's scopes → 403 OFFICER_SESSION_REQUIRED, and nothing changes", async () => {
    const before = { rules: sql("SELECT count(*) AS n FROM rules")[0].n, reports: sql("SELECT count(*) AS n FROM reports")[0].n, keys: sql("SELECT count(*) AS n FROM api_keys")[0].n, members: sql("SELECT count(*) AS n FROM members")[0].n };
    for (const [method, path, json, env] of operatorRoutes()) {
      const keys = env === "live" ? [ownerLive.key, rulesOnly.key] : [ownerTest.key, strsOnly.key];
      for (const key of keys) {
        const r = await call(path, { method, key, json });
        expect({ method, path, status: r.status, code: r.body?.code }).toEqual({ method, path, status: 403, code: "OFFICER_SESSION_REQUIRED" });
        expect(r.body.error).toContain("officer");
      }
    }
    expect(sql("SELECT status FROM reports WHERE id = ?", reportId)[0].status).toBe("draft");
    const after = { rules: sql("SELECT count(*) AS n FROM rules")[0].n, reports: sql("SELECT count(*) AS n FROM reports")[0].n, keys: sql("SELECT count(*) AS n FROM api_keys")[0].n, members: sql("SELECT count(*) AS n FROM members")[0].n };
    expect(after).toEqual(before);
  });

  test("the routes the API contract lists still answer keys as before: reports read, report types, readiness, rules read and written", async () => {
    for (const path of ["/api/v2/reports", `/api/v2/reports/${reportId}`, "/api/v2/report-types", `/api/v2/reports/${reportId}/readiness`, "/api/v2/rules", `/api/v2/rules/${ruleId}`]) expectOk(await call(path, { key: ownerTest.key }));
    expectOk(await call("/api/v2/rules", { method: "POST", key: ownerTest.key, json: { name: "Still a key's", category: "aml" } }), 201);
    expectOk(await call(`/api/v2/rules/${ruleId}`, { method: "PATCH", key: ownerTest.key, json: { description: "changed by a key" } }));
    expectOk(await call("/api/v2/rules/promotable", { key: ownerLive.key }));
  });
});

describe("each role's session on the operator routes", () => {
  test("drafting: owner and compliance officer 201; analyst and developer 403 INSUFFICIENT_PERMISSION", async () => {
    const want: Record<string, [number, string | undefined]> = { owner: [201, undefined], compliance_officer: [201, undefined], analyst: [403, "INSUFFICIENT_PERMISSION"], developer: [403, "INSUFFICIENT_PERMISSION"] };
    for (const [role, [status, code]] of Object.entries(want)) {
      const r = await call("/api/v2/reports", { method: "POST", session: sessions[role], json: { transferId } });
      expect({ role, status: r.status, code: r.body?.code }).toEqual({ role, status, code });
    }
  });

  test("edit, submit, approve, file: analyst and developer 403 INSUFFICIENT_PERMISSION on each", async () => {
    for (const [method, path, json] of operatorRoutes().slice(2, 6))
      for (const role of ["analyst", "developer"]) {
        const r = await call(path, { method, session: sessions[role], json });
        expect({ role, path, status: r.status, code: r.body?.code }).toEqual({ role, path, status: 403, code: "INSUFFICIENT_PERMISSION" });
      }
  });

  test("promote: the owner's live session 201; the owner's test session 403 LIVE_KEY_REQUIRED; an analyst's session 403 INSUFFICIENT_PERMISSION (no rules:create)", async () => {
    expectError(await call(`/api/v2/rules/${ruleId}/promote`, { method: "POST", session: sessions.owner }), 403, "LIVE_KEY_REQUIRED");
    const r = await call(`/api/v2/rules/${ruleId}/promote`, { method: "POST", session: ownerLiveSession });
    expectOk(r, 201);
    expect(sql("SELECT session_id FROM audit_log WHERE action = 'rule.promoted' AND entity_id = ?", ruleId)[0].session_id).toMatch(/^ses_/);
    expectError(await call(`/api/v2/rules/${ruleId}/promote`, { method: "POST", session: sessions.analyst }), 403, "INSUFFICIENT_PERMISSION");
  });

  test("keys and members: only an owner's session; compliance officer, analyst and developer 403 INSUFFICIENT_PERMISSION on each route", async () => {
    for (const [method, path, json] of operatorRoutes().slice(6))
      for (const role of ["compliance_officer", "analyst", "developer"]) {
        const r = await call(path, { method, session: sessions[role], json });
        expect({ role, method, path, status: r.status, code: r.body?.code }).toEqual({ role, method, path, status: 403, code: "INSUFFICIENT_PERMISSION" });
      }
    expectOk(await call("/api/v2/keys", { session: sessions.owner }));
    expectOk(await call("/api/v2/members", { session: sessions.owner }));
  });
});

describe("keys and members from the console session", () => {
  test("create a key (shown once) for another member with scopes and an expiry; listed with its last use, stale after 90 unused days; revoked → 401 KEY_REVOKED", async () => {
    const dev = await newMember("developer");
    const made = await call("/api/v2/keys", { method: "POST", session: sessions.owner, json: { environment: "test", memberId: dev.id, scopes: ["customers:read"], expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() } });
    expectOk(made, 201);
    expect(made.body.data.key).toMatch(/^crv_test_[0-9a-f]{64}$/);
    expect(made.body.data).toMatchObject({ member: { id: dev.id, email: dev.email, role: "developer" }, scopes: ["customers:read"], status: "active", stale: false, lastUsedAt: null });
    expectOk(await call("/api/v2/customers", { key: made.body.data.key }));
    let listed: any;
    for (let i = 0; i < 40; i++) {
      listed = (await call("/api/v2/keys", { session: sessions.owner })).body.data.find((k: { id: string }) => k.id === made.body.data.id);
      if (listed.lastUsedAt) break;
      await Bun.sleep(50);
    }
    expect(listed.lastUsedAt).toMatch(/^\d{4}-/);
    expect(listed.key).toBeUndefined();
    expect(JSON.stringify((await call("/api/v2/keys", { session: sessions.owner })).body)).not.toContain(made.body.data.key);
    // A key made long ago and never used is pointed out.
    sql("UPDATE api_keys SET created_at = ?, last_used_at = NULL WHERE id = ?", new Date(Date.now() - 100 * 86_400_000).toISOString(), ownerTest.id);
    const stale = (await call("/api/v2/keys", { session: sessions.owner })).body.data.find((k: { id: string }) => k.id === ownerTest.id);
    expect(stale.stale).toBe(true);
    // A developer may not hold a live key: the tenancy's rule, said as a validation error.
    expectError(await call("/api/v2/keys", { method: "POST", session: sessions.owner, json: { environment: "live", memberId: dev.id } }), 422, "VALIDATION_ERROR");
    const revoked = await call(`/api/v2/keys/${made.body.data.id}`, { method: "DELETE", session: sessions.owner });
    expect(revoked.body.data.status).toBe("revoked");
    expectError(await call("/api/v2/customers", { key: made.body.data.key }), 401, "KEY_REVOKED");
    const audit = sql("SELECT action, member_id, session_id, detail FROM audit_log WHERE entity_id = ? ORDER BY seq", made.body.data.id);
    expect(audit.map((a) => a.action)).toEqual(["api_key.created", "api_key.revoked"]);
    const ownerMember = ownerTest.memberId;
    for (const a of audit) {
      expect(a.member_id).toBe(ownerMember);
      expect(String(a.session_id)).toMatch(/^ses_/);
      expect(JSON.parse(String(a.detail)).via).toBe("console");
    }
  });

  test("invite a member (one per email; the setup code shown once signs them in), change the role (their session ends), deactivate; the last owner stays; the audit view filters by member", async () => {
    const email = `invited-${crypto.randomUUID().slice(0, 6)}@members.test`;
    const inv = await call("/api/v2/members", { method: "POST", session: sessions.owner, json: { email, role: "analyst" } });
    expectOk(inv, 201);
    expect(inv.body.data.setupCode).toMatch(/^[2-9A-Z]{4}(-[2-9A-Z]{4}){3}$/);
    expectError(await call("/api/v2/members", { method: "POST", session: sessions.owner, json: { email, role: "owner" } }), 409, "MEMBER_EXISTS");
    const started = await call("/api/v2/sessions/setup", { method: "POST", json: { email, setupCode: inv.body.data.setupCode, passphrase: "the invited member's phrase" } });
    expectOk(started);
    const confirmed = await call("/api/v2/sessions/setup/confirm", { method: "POST", json: { email, setupCode: inv.body.data.setupCode, code: totp(base32Decode(started.body.data.totpSecret), Date.now()) } });
    expectOk(confirmed, 201);
    const theirs = confirmed.body.data.token;
    const id = inv.body.data.id;
    const listed = (await call("/api/v2/members", { session: sessions.owner })).body.data.find((m: { id: string }) => m.id === id);
    expect(listed).toMatchObject({ email, role: "analyst", status: "active", signInReady: true, openSessions: 1 });
    expectOk(await call(`/api/v2/members/${id}`, { method: "PATCH", session: sessions.owner, json: { role: "compliance_officer" } }));
    expectError(await call("/api/v2/me", { session: theirs }), 401, "SESSION_ENDED");
    const off = await call(`/api/v2/members/${id}`, { method: "PATCH", session: sessions.owner, json: { status: "disabled" } });
    expect(off.body.data.status).toBe("disabled");
    expectError(await call(`/api/v2/members/${ownerTest.memberId}`, { method: "PATCH", session: sessions.owner, json: { role: "analyst" } }), 409, "CONFLICT");
    expectError(await call("/api/v2/members/mem_00000000000000000000000000", { method: "PATCH", session: sessions.owner, json: { role: "analyst" } }), 404, "MEMBER_NOT_FOUND");
    // The owner's actions in the audit view, by member: each with the session it came from.
    const mine = await call(`/api/v2/audit-log?memberId=${ownerTest.memberId}&entityId=${id}`, { session: sessions.owner });
    expectOk(mine);
    expect(mine.body.data.map((e: { action: string }) => e.action).sort()).toEqual(["member.created", "member.disabled", "member.role_changed", "member.setup_code_issued"]);
    for (const e of mine.body.data) expect(e.actor).toMatchObject({ type: "member", memberId: ownerTest.memberId, sessionId: expect.stringMatching(/^ses_/) });
    const theirsInAudit = await call(`/api/v2/audit-log?memberId=${id}`, { session: sessions.owner });
    expect(theirsInAudit.body.data.map((e: { action: string }) => e.action)).toContain("session.set_up");
  });
});
