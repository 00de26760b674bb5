// Rules promoted from test to live (Caravan's operator route and the CLI): copied with every field and its
// conditions, audited in both environments, all or nothing; a member's live console session only (an API key is
// OFFICER_SESSION_REQUIRED, a test session LIVE_KEY_REQUIRED), refused twice, or when the copy would not be valid in
// live. Real server on loopback, real SQLite file.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError } from "../support/api.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "promote.db");
const { cli, newKey, newSession, call } = apiClient(db, () => S.url);
let S: ChildServer;
type Key = { key: string; memberId: string; memberEmail: string };
let testKey: Key, liveKey: Key, analystLive: Key;
/** The compliance officer's console sessions (live and test) and an analyst's live one. */
let liveSession: { token: string; sessionId: string }, testSession: string, analystSession: string;
let integrationId: string;

const rows = (sql: string, ...args: string[]) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.query(sql).all(...args) as Record<string, unknown>[];
  } finally {
    d.close();
  }
};

const fieldRule = {
  name: "Large USDC to unhosted wallets",
  description: "Proven in test on the October sample",
  category: "aml",
  stage: "postcheck",
  action: "require_review",
  severity: "high",
  jurisdictions: ["NL", "DE"],
  threshold: 10000.5,
  thresholdCurrency: "EUR",
  metadata: { thresholdOperator: "gt", asset: "USDC" },
  condition: {
    rules: [
      { type: "if", field: "amountLocal", operator: "gte", value: "10000", action: "require_review" },
      { type: "else", action: "flag" },
    ],
  },
};

beforeAll(async () => {
  S = await startServer({ CARAVAN_DB: db });
  testKey = await newKey("--env", "test", "--role", "compliance_officer");
  liveKey = await newKey("--env", "live", "--role", "compliance_officer", "--member", testKey.memberEmail);
  analystLive = await newKey("--env", "live", "--role", "analyst");
  const officer = await newSession({ email: testKey.memberEmail }, "live");
  liveSession = officer;
  testSession = await officer.login("test");
  analystSession = (await newSession({ email: analystLive.memberEmail }, "live")).token;
  const ownerLive = await newKey("--env", "live", "--role", "owner");
  const ownerTest = await newKey("--env", "test", "--role", "owner", "--member", ownerLive.memberEmail);
  for (const k of [ownerTest, ownerLive]) expect((await call("/api/v2/integrations/screening_c", { method: "PUT", key: k.key, json: { credentials: { apiKey: "sandbox-key" } } })).status).toBe(201);
  expect((await call("/api/v2/integrations/screening_c", { method: "PATCH", key: ownerLive.key, json: { enabled: true } })).status).toBe(200);
  integrationId = (await call("/api/v2/integrations/screening_c", { key: ownerLive.key })).body.data.id;
  (globalThis as { ownerLive?: Key }).ownerLive = ownerLive;
});

afterAll(async () => {
  await S?.stop();
});

const promote = (id: string, session = liveSession.token) => call(`/api/v2/rules/${id}/promote`, { method: "POST", session });

describe("POST /api/v2/rules/:id/promote", () => {
  test("copies the test rule to live with every field and its conditions; audited in both environments; the test rule is listed with where it went", async () => {
    const made = await call("/api/v2/rules", { method: "POST", key: testKey.key, json: fieldRule });
    expect(made.body.error ?? "").toBe("");
    expect(made.status).toBe(201);
    const r = await promote(made.body.data.id);
    expect(r.status).toBe(201);
    expect(r.body.meta.promotedFrom).toBe(made.body.data.id);
    const live = r.body.data;
    expect(live.id).not.toBe(made.body.data.id);
    expect(live.environment).toBe("live");
    const strip = (x: Record<string, unknown>) => {
      const { id: _i, environment: _e, createdAt: _c, updatedAt: _u, ...rest } = x;
      return rest;
    };
    expect(strip(live)).toEqual(strip(made.body.data));
    // Live reads it back; test keeps its own.
    const readBack = await call(`/api/v2/rules/${live.id}`, { key: liveKey.key });
    expect(readBack.body.data.conditions).toEqual(made.body.data.conditions);
    expectError(await call(`/api/v2/rules/${live.id}`, { key: testKey.key }), 404, "RULE_NOT_FOUND");
    const audit = rows("SELECT environment, action, entity_id, member_id, session_id, detail FROM audit_log WHERE entity_type = 'Rule' AND entity_id IN (?, ?) ORDER BY seq", made.body.data.id, live.id);
    expect(audit.map((a) => [a.environment, a.action, a.entity_id, a.member_id, a.session_id])).toEqual([
      ["test", "rule.created", made.body.data.id, testKey.memberId, null],
      ["live", "rule.created", live.id, testKey.memberId, liveSession.sessionId],
      ["test", "rule.promoted", made.body.data.id, testKey.memberId, liveSession.sessionId],
    ]);
    expect(JSON.parse(audit[1].detail as string)).toMatchObject({ promotedFrom: made.body.data.id });
    expect(JSON.parse(audit[2].detail as string)).toEqual({ liveRuleId: live.id, conditionCount: 2, via: "console" });
    const listed = await call("/api/v2/rules/promotable", { key: liveKey.key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.find((x: { id: string }) => x.id === made.body.data.id).promotedTo).toBe(live.id);
  });

  test("a second promotion of the same rule → 409 RULE_ALREADY_PROMOTED naming the live copy; nothing is copied", async () => {
    const made = await call("/api/v2/rules", { method: "POST", key: testKey.key, json: { ...fieldRule, name: "Twice" } });
    const first = await promote(made.body.data.id);
    const before = rows("SELECT count(*) AS n FROM rules WHERE environment = 'live'")[0].n;
    const again = await promote(made.body.data.id);
    expectError(again, 409, "RULE_ALREADY_PROMOTED");
    expect(again.body.details.liveRuleId).toBe(first.body.data.id);
    expect(rows("SELECT count(*) AS n FROM rules WHERE environment = 'live'")[0].n).toBe(before);
  });

  test("any API key → 403 OFFICER_SESSION_REQUIRED: a live owner key with every scope, a live key with only rules:write; nothing is copied", async () => {
    const made = await call("/api/v2/rules", { method: "POST", key: testKey.key, json: { ...fieldRule, name: "Keys refused" } });
    const ownerLive = (globalThis as { ownerLive?: Key }).ownerLive!;
    const rulesOnly = await newKey("--env", "live", "--role", "owner", "--scopes", "rules:write");
    for (const key of [ownerLive.key, rulesOnly.key, liveKey.key]) {
      const r = await call(`/api/v2/rules/${made.body.data.id}/promote`, { method: "POST", key });
      expectError(r, 403, "OFFICER_SESSION_REQUIRED");
      expect(r.body.error).toContain("officer");
    }
    expect(rows("SELECT count(*) AS n FROM audit_log WHERE action = 'rule.promoted' AND entity_id = ?", made.body.data.id)[0].n).toBe(0);
  });

  test("a test session → 403 LIVE_KEY_REQUIRED; a role without rules:create → 403 INSUFFICIENT_PERMISSION; a live rule's ID or an unknown one → 404", async () => {
    const made = await call("/api/v2/rules", { method: "POST", key: testKey.key, json: { ...fieldRule, name: "Refused" } });
    expectError(await promote(made.body.data.id, testSession), 403, "LIVE_KEY_REQUIRED");
    expectError(await promote(made.body.data.id, analystSession), 403, "INSUFFICIENT_PERMISSION");
    const liveRule = await call("/api/v2/rules", { method: "POST", key: liveKey.key, json: { name: "Live only", category: "aml" } });
    expectError(await promote(liveRule.body.data.id), 404, "RULE_NOT_FOUND");
    expectError(await promote(`rul_${"0".repeat(26)}`), 404, "RULE_NOT_FOUND");
    expect(rows("SELECT count(*) AS n FROM audit_log WHERE action = 'rule.promoted' AND entity_id = ?", made.body.data.id)[0].n).toBe(0);
  });

  test("all or nothing: a copy that is not valid in live (its integration switched off) → 422 VALIDATION_ERROR, no live rule, no audit entry in either environment", async () => {
    const withIntegration = {
      name: "Watch-list hit",
      category: "sanctions",
      condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId, operator: "gt", value: "0", action: "require_review" }] },
    };
    const made = await call("/api/v2/rules", { method: "POST", key: testKey.key, json: withIntegration });
    expect(made.status).toBe(201);
    const ownerLive = (globalThis as { ownerLive?: Key }).ownerLive!;
    expect((await call("/api/v2/integrations/screening_c", { method: "PATCH", key: ownerLive.key, json: { enabled: false } })).status).toBe(200);
    const liveBefore = rows("SELECT count(*) AS n FROM rules WHERE environment = 'live'")[0].n;
    const auditBefore = rows("SELECT count(*) AS n FROM audit_log")[0].n;
    const r = await promote(made.body.data.id);
    expectError(r, 422, "VALIDATION_ERROR");
    expect(r.body.details.issues[0].path).toBe("condition.rules.0.integrationId");
    expect(rows("SELECT count(*) AS n FROM rules WHERE environment = 'live'")[0].n).toBe(liveBefore);
    expect(rows("SELECT count(*) AS n FROM audit_log")[0].n).toBe(auditBefore);
    // Switched back on, the same rule promotes.
    expect((await call("/api/v2/integrations/screening_c", { method: "PATCH", key: ownerLive.key, json: { enabled: true } })).status).toBe(200);
    expect((await promote(made.body.data.id)).status).toBe(201);
  });
});

describe("caravan rules promote (CLI)", () => {
  test("promotes through the same core: the live copy, both audit entries by the named member; a second time is refused", async () => {
    const made = await call("/api/v2/rules", { method: "POST", key: testKey.key, json: { ...fieldRule, name: "From the CLI" } });
    const out = JSON.parse(await cli("rules", "promote", "--id", made.body.data.id, "--member", testKey.memberEmail, "--json"));
    expect(out).toMatchObject({ promotedFrom: made.body.data.id, name: "From the CLI", conditionCount: 2, isActive: true });
    const live = await call(`/api/v2/rules/${out.id}`, { key: liveKey.key });
    expect(live.body.data.conditions).toEqual(made.body.data.conditions);
    const audit = rows("SELECT environment, action, member_id, detail FROM audit_log WHERE entity_id IN (?, ?) AND action IN ('rule.created', 'rule.promoted') ORDER BY seq", made.body.data.id, out.id);
    // The host's CLI, as the named member: audited as the CLI's.
    expect(JSON.parse(String(audit[2].detail)).via).toBe("cli");
    expect(audit.map((a) => [a.environment, a.action, a.member_id])).toEqual([
      ["test", "rule.created", testKey.memberId],
      ["live", "rule.created", testKey.memberId],
      ["test", "rule.promoted", testKey.memberId],
    ]);
    const listed = JSON.parse(await cli("rules", "list", "--env", "test", "--json"));
    expect(listed.find((x: { id: string }) => x.id === made.body.data.id).promotedTo).toBe(out.id);
    await expect(cli("rules", "promote", "--id", made.body.data.id, "--member", testKey.memberEmail)).rejects.toThrow(/RULE_ALREADY_PROMOTED/);
  });
});

describe("docs/rules.md", () => {
  test("the page's route table lists every rules route the server serves, promotion included, and never says there is no route to promote", async () => {
    const page = await Bun.file(join(import.meta.dir, "../../docs/rules.md")).text();
    const api = page.slice(page.indexOf("## The API"), page.indexOf("\n## ", page.indexOf("## The API") + 1));
    const listed = new Set([...api.matchAll(/^\| (GET|POST|PATCH|DELETE) \| `([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]}`));
    const doc = (await call("/api/v2/openapi.json", { key: testKey.key })).body;
    const served = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith("/api/v2/rules"))
      .flatMap(([path, ops]) => Object.keys(ops).filter((m) => ["get", "post", "patch", "delete"].includes(m)).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`));
    expect(served).toContain("POST /api/v2/rules/:id/promote");
    expect([...served].sort()).toEqual([...listed].sort());
    expect(page).not.toMatch(/no route to promote/i);
  });
});
