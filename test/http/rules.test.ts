// Part 2 "Rule", "States and transitions → Rule", "Rules and thresholds" (rules), Errors and Limits, over real HTTP:
// every refusal code, limits at the boundary, environments, audit entries, cursor paging, DELETE and reactivation,
// and integration checks against integrations saved and switched through the settings API.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { closedLoopbackOrigin, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, expectOk, ISO_MS, type Answer } from "../support/api.ts";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { Rules } from "../../src/adapters/storage/repos/rules.ts";
import { newRule } from "../../src/domain/rules/life.ts";
import { newId } from "../../src/domain/ids.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "rules.db");
let S: ChildServer;
const { cli, newKey, call } = apiClient(db, () => S.url);
type Key = Awaited<ReturnType<typeof newKey>>;

const RULE_ID = /^rul_[0-9a-z]{26}$/;
const LIST_FIELDS = [
  "action", "asset", "category", "conditionCount", "createdAt", "description", "environment", "id", "isActive", "jurisdictions", "name",
  "network", "severity", "stage", "threshold", "thresholdCurrency", "thresholdOperator", "updatedAt",
].sort();
const DETAIL_FIELDS = [...LIST_FIELDS, "conditions", "createdBy", "hasLegacyConditions"].sort();

let ownerTest: Key;
let ownerLive: Key;
let analystTest: Key;
let developerTest: Key;
let readOnlyTest: Key;
/** Integration IDs (the same in both environments). */
let C = "";
let D = "";
let A = "";

const issuePaths = (r: Answer) => (r.body.details.issues as { path: string; message: string }[]).map((i) => i.path);
const post = (json: unknown, key = ownerTest.key) => call("/api/v2/rules", { method: "POST", key, json });
const patch = (id: string, json: unknown, key = ownerTest.key) => call(`/api/v2/rules/${id}`, { method: "PATCH", key, json });
const del = (id: string, key = ownerTest.key) => call(`/api/v2/rules/${id}`, { method: "DELETE", key });
async function createRule(body: Record<string, unknown>, key = ownerTest.key) {
  const r = await post({ name: "Rule", category: "aml", ...body }, key);
  expectOk(r, 201);
  return r.body.data;
}
const ifBranch = (o: Record<string, unknown> = {}) => ({ type: "if", action: "flag", field: "amountUSD", operator: "gt", value: "1000", ...o });

beforeAll(async () => {
  await cli("migrate");
  ownerTest = await newKey("--env", "test", "--role", "owner");
  ownerLive = await newKey("--env", "live", "--role", "owner");
  analystTest = await newKey("--env", "test", "--role", "analyst");
  developerTest = await newKey("--env", "test", "--role", "developer");
  readOnlyTest = await newKey("--env", "test", "--role", "owner", "--scopes", "rules:read");
  // The integrations enabled below must never reach a real vendor, whatever a later test adds: a closed loopback port.
  const closed = await closedLoopbackOrigin();
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_SCREENING_C_URLS: `eu=${closed},us=${closed},apac=${closed}`, CARAVAN_SCREENING_D_URL: closed });
  // screening_c and screening_a enabled (credentials saved in live, then switched on); screening_d saved but off.
  for (const [name, credentials] of [
    ["screening_c", { apiKey: "c-key" }],
    ["screening_a", { apiKey: "a-key" }],
    ["screening_d", { apiKey: "d-key" }],
  ] as const) {
    for (const k of [ownerTest, ownerLive]) expect((await call(`/api/v2/integrations/${name}`, { method: "PUT", key: k.key, json: { credentials } })).status).toBeLessThan(300);
  }
  for (const name of ["screening_c", "screening_a"]) expectOk(await call(`/api/v2/integrations/${name}`, { method: "PATCH", key: ownerLive.key, json: { enabled: true } }));
  const id = async (name: string) => (await call(`/api/v2/integrations/${name}`, { key: ownerTest.key })).body.data.id as string;
  [C, D, A] = [await id("screening_c"), await id("screening_d"), await id("screening_a")];
  expect(C).toMatch(/^int_/);
});

afterAll(async () => {
  await S?.stop();
});

describe("POST /api/v2/rules", () => {
  test("201 with the rule in detail and Part 2 defaults (stage both, action flag, severity medium, active)", async () => {
    const r = await post({ name: "Large transfers", category: "aml" });
    expectOk(r, 201);
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(DETAIL_FIELDS);
    expect(d.id).toMatch(RULE_ID);
    expect(d).toMatchObject({
      name: "Large transfers", description: null, category: "aml", stage: "both", action: "flag", severity: "medium", isActive: true,
      threshold: null, thresholdCurrency: null, jurisdictions: [], asset: "all", network: "all", thresholdOperator: "gt",
      conditionCount: 0, environment: "test", conditions: [], hasLegacyConditions: false,
    });
    expect(d.createdBy).toEqual({ id: ownerTest.memberId, name: ownerTest.memberEmail, email: ownerTest.memberEmail });
    expect(d.createdAt).toMatch(ISO_MS);
    expect(d.updatedAt).toBe(d.createdAt);
  });

  test("every field: threshold as a number, metadata flattened, conditions each with the integration's name", async () => {
    const d = await createRule({
      name: "Sanctioned names",
      category: "sanctions",
      stage: "precheck",
      action: "block",
      severity: "high",
      description: "Blocks names on sanctions lists",
      jurisdictions: ["de", "EU", "UK"],
      threshold: 1000.5,
      thresholdCurrency: "EUR",
      metadata: { thresholdOperator: "lt", asset: "USDC", network: "ethereum" },
      condition: {
        rules: [
          { type: "if", action: "block", query: "content.data.hits[].doc.types[]", integrationId: C, operator: "contains", value: "sanction" },
          { type: "elseIf", action: "require_review", query: "content.data.total_hits", integrationId: C, operator: "gt", value: 0, subjectMatch: "all" },
          { type: "elseIf", action: "flag", field: "walletType", operator: "eq", value: "unhosted" },
          { type: "else", action: "flag" },
        ],
      },
    });
    expect(d).toMatchObject({
      stage: "precheck", action: "block", severity: "high", jurisdictions: ["DE", "EU", "GB"], threshold: 1000.5, thresholdCurrency: "EUR",
      thresholdOperator: "lt", asset: "USDC", network: "ethereum", conditionCount: 4,
    });
    expect(d.conditions).toEqual([
      { type: "if", action: "block", field: null, query: "content.data.hits[].doc.types[]", integrationId: C, integrationName: "screening_c", operator: "contains", value: "sanction", subjectMatch: "any" },
      { type: "elseIf", action: "require_review", field: null, query: "content.data.total_hits", integrationId: C, integrationName: "screening_c", operator: "gt", value: "0", subjectMatch: "all" },
      { type: "elseIf", action: "flag", field: "walletType", query: null, integrationId: null, integrationName: null, operator: "eq", value: "unhosted", subjectMatch: "any" },
      { type: "else", action: "flag", field: null, query: null, integrationId: null, integrationName: null, operator: null, value: null, subjectMatch: null },
    ]);
    const again = await call(`/api/v2/rules/${d.id}`, { key: ownerTest.key });
    expectOk(again);
    expect(again.body.data).toEqual(d);
  });

  const long = (n: number) => "x".repeat(n);
  const countries = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU".split(" ");
  test("limits at the boundary are accepted: name 200, description 500, 50 jurisdictions, 20 branches, value 100", async () => {
    const d = await createRule({
      name: long(200),
      description: long(500),
      jurisdictions: countries.slice(0, 50),
      condition: { rules: [ifBranch({ field: "originatorName", operator: "contains", value: long(100) }), ...Array.from({ length: 19 }, () => ifBranch({ type: "elseIf" }))] },
    });
    expect(d.conditionCount).toBe(20);
    expect(d.jurisdictions).toHaveLength(50);
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ["name of 201", { name: long(201) }, "name"],
    ["empty name", { name: "" }, "name"],
    ["description of 501", { description: long(501) }, "description"],
    ["51 jurisdictions", { jurisdictions: countries }, "jurisdictions"],
    ["GLOBAL with another", { jurisdictions: ["GLOBAL", "FR"] }, "jurisdictions"],
    ["21 branches", { condition: { rules: [ifBranch(), ...Array.from({ length: 20 }, () => ifBranch({ type: "elseIf" }))] } }, "condition.rules"],
    ["value of 101", { condition: { rules: [ifBranch({ field: "originatorName", operator: "contains", value: long(101) })] } }, "condition.rules.0.value"],
    ["category kyc", { category: "kyc" }, "category"],
    ["negative threshold", { threshold: -0.01 }, "threshold"],
    ["metadata with another key", { metadata: { asset: "ETH", priority: 1 } }, "metadata.priority"],
    ["a field not accepted", { environment: "live" }, "environment"],
    ["first branch elseIf", { condition: { rules: [ifBranch({ type: "elseIf" })] } }, "condition.rules.0.type"],
    ["query without integrationId (providerId is not read)", { condition: { rules: [{ type: "if", action: "block", query: "content.data.total_hits", providerId: C, operator: "gt", value: "0" }] } }, "condition.rules.0.integrationId"],
  ];
  for (const [name, extra, path] of refusals)
    test(`422 VALIDATION_ERROR on ${path}: ${name}`, async () => {
      const r = await post({ name: "n", category: "aml", ...extra });
      expectError(r, 422, "VALIDATION_ERROR");
      expect(issuePaths(r)).toContain(path);
      for (const i of r.body.details.issues) expect(typeof i.message).toBe("string");
    });

  test("integrationId must be one of the company's enabled integrations that screens something", async () => {
    for (const [id, says] of [
      [D, "not enabled"],
      [A, "screens nothing"],
      ["int_00000000000000000000000000", "enabled integrations"],
    ]) {
      const r = await post({ name: "n", category: "aml", condition: { rules: [ifBranch(), { type: "elseIf", action: "flag", query: "data.counterparty.riskscore", integrationId: id, operator: "gte", value: "0.5" }] } });
      expectError(r, 422, "VALIDATION_ERROR");
      const issue = r.body.details.issues.find((i: any) => i.path === "condition.rules.1.integrationId");
      expect(issue?.message).toContain(says);
    }
  });

  test("a body that is not an object, or not JSON", async () => {
    expectError(await post([]), 422, "VALIDATION_ERROR");
    const bad = await call("/api/v2/rules", { method: "POST", key: ownerTest.key, raw: "{name:", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
  });

  test("scope and role: rules:write needed (INSUFFICIENT_SCOPE); analyst and developer lack rules:create (INSUFFICIENT_PERMISSION)", async () => {
    expectError(await post({ name: "n", category: "aml" }, readOnlyTest.key), 403, "INSUFFICIENT_SCOPE");
    expectError(await post({ name: "n", category: "aml" }, analystTest.key), 403, "INSUFFICIENT_PERMISSION");
    expectError(await post({ name: "n", category: "aml" }, developerTest.key), 403, "INSUFFICIENT_PERMISSION");
  });
});

describe("environments", () => {
  test("a rule belongs to the key's environment: the other one gets 404 RULE_NOT_FOUND on read, change and delete", async () => {
    const d = await createRule({ name: "test only" });
    expectError(await call(`/api/v2/rules/${d.id}`, { key: ownerLive.key }), 404, "RULE_NOT_FOUND");
    expectError(await patch(d.id, { name: "x" }, ownerLive.key), 404, "RULE_NOT_FOUND");
    expectError(await del(d.id, ownerLive.key), 404, "RULE_NOT_FOUND");
    const live = await call("/api/v2/rules?limit=100", { key: ownerLive.key });
    expect(live.body.data.map((x: any) => x.id)).not.toContain(d.id);
    const l = await createRule({ name: "live rule" }, ownerLive.key);
    expect(l.environment).toBe("live");
    expectError(await call(`/api/v2/rules/${l.id}`, { key: ownerTest.key }), 404, "RULE_NOT_FOUND");
  });

  test("an unknown or malformed ID is 404 RULE_NOT_FOUND", async () => {
    for (const id of ["rul_00000000000000000000000000", "nope", "thr_00000000000000000000000000"]) expectError(await call(`/api/v2/rules/${id}`, { key: ownerTest.key }), 404, "RULE_NOT_FOUND");
  });
});

describe("PATCH, DELETE and reactivation", () => {
  test("PATCH changes the fields sent and answers the rule; metadata and condition are replaced, null clears", async () => {
    const d = await createRule({ metadata: { asset: "BTC" }, condition: { rules: [ifBranch()] } });
    const r = await patch(d.id, { severity: "high", metadata: { network: "bitcoin" }, condition: null });
    expectOk(r);
    expect(r.body.data).toMatchObject({ id: d.id, severity: "high", asset: "all", network: "bitcoin", conditionCount: 0, conditions: [] });
    expect(r.body.data.updatedAt >= d.updatedAt).toBe(true);
    expect(Object.keys(r.body.data).sort()).toEqual(DETAIL_FIELDS);
  });

  test("PATCH refusals: empty body, unknown field, invalid value, disabled integration", async () => {
    const d = await createRule({});
    for (const [body, path] of [
      [{}, ""],
      [{ id: "rul_x" }, "id"],
      [{ stage: "later" }, "stage"],
      [{ name: null }, "name"],
      [{ condition: { rules: [{ type: "if", action: "flag", query: "data.counterparty.riskscore", integrationId: D, operator: "gt", value: "0.5" }] } }, "condition.rules.0.integrationId"],
    ] as [unknown, string][]) {
      const r = await patch(d.id, body);
      expectError(r, 422, "VALIDATION_ERROR");
      expect(issuePaths(r)).toContain(path);
    }
    expectError(await patch(d.id, { name: "x" }, analystTest.key), 403, "INSUFFICIENT_PERMISSION");
  });

  test("DELETE sets isActive false and keeps the rule; PATCH isActive true reactivates it", async () => {
    const d = await createRule({ name: "to deactivate" });
    const r = await del(d.id);
    expectOk(r);
    expect(r.body.data).toMatchObject({ id: d.id, isActive: false, name: "to deactivate" });
    const read = await call(`/api/v2/rules/${d.id}`, { key: ownerTest.key });
    expectOk(read);
    expect(read.body.data.isActive).toBe(false);
    const again = await del(d.id);
    expectOk(again);
    expect(again.body.data.isActive).toBe(false);
    const on = await patch(d.id, { isActive: true });
    expectOk(on);
    expect(on.body.data.isActive).toBe(true);
    expectError(await del(d.id, analystTest.key), 403, "INSUFFICIENT_PERMISSION");
    expectError(await del(d.id, developerTest.key), 403, "INSUFFICIENT_PERMISSION");
    expectError(await del(d.id, readOnlyTest.key), 403, "INSUFFICIENT_SCOPE");
  });

  test("a rule reading an integration keeps its branch when the integration is switched off later; a new write of it is refused", async () => {
    const d = await createRule({ condition: { rules: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }] } });
    expectOk(await call("/api/v2/integrations/screening_c", { method: "PATCH", key: ownerLive.key, json: { enabled: false } }));
    try {
      const read = await call(`/api/v2/rules/${d.id}`, { key: ownerTest.key });
      expect(read.body.data.conditions[0]).toMatchObject({ integrationId: C, integrationName: "screening_c" });
      const r = await patch(d.id, { condition: { rules: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "1" }] } });
      expectError(r, 422, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["condition.rules.0.integrationId"]);
      // Other changes of the rule are still accepted.
      expectOk(await patch(d.id, { severity: "low" }));
    } finally {
      expectOk(await call("/api/v2/integrations/screening_c", { method: "PATCH", key: ownerLive.key, json: { enabled: true } }));
    }
  });
});

describe("audit", () => {
  test("create, change and deactivation are each in the environment's audit log with the member and key; no-op writes record nothing", async () => {
    const d = await createRule({ name: "audited", description: "private wording" });
    await patch(d.id, { action: "block", description: "other wording" });
    await patch(d.id, { action: "block" }); // nothing changes
    await del(d.id);
    await del(d.id); // already inactive
    await patch(d.id, { isActive: true });
    const log = await call(`/api/v2/audit-log?entityType=Rule&entityId=${d.id}`, { key: ownerTest.key });
    expectOk(log);
    expect(log.body.data.map((e: any) => e.action)).toEqual(["rule.updated", "rule.deactivated", "rule.updated", "rule.created"]);
    const [reactivated, deactivated, updated, createdE] = log.body.data;
    expect(createdE.actor).toEqual({ type: "member", memberId: ownerTest.memberId, apiKeyId: ownerTest.id });
    expect(createdE.environment).toBe("test");
    expect(updated.detail).toEqual({ fields: ["action", "description"], changes: { action: { from: "flag", to: "block" } } });
    expect(deactivated.detail).toEqual({ fields: ["isActive"], changes: { isActive: { from: true, to: false } } });
    expect(reactivated.detail).toEqual({ fields: ["isActive"], changes: { isActive: { from: false, to: true } } });
    expect(JSON.stringify(log.body.data)).not.toContain("wording");
    const live = await call(`/api/v2/audit-log?entityType=Rule&entityId=${d.id}`, { key: ownerLive.key });
    expect(live.body.data).toEqual([]);
  });
});

describe("GET /api/v2/rules", () => {
  let ids: string[] = [];
  beforeAll(async () => {
    // Other tests' rules share the environment: these are told apart by the name they share (search).
    ids = [];
    for (const [i, o] of [
      { category: "aml", severity: "low", stage: "precheck" },
      { category: "sanctions", severity: "high", stage: "postcheck", description: "OFAC Ünïcode list" },
      { category: "sanctions", severity: "high", stage: "both" },
      { category: "aml", severity: "medium", stage: "both", isActive: false },
      { category: "sanctions", severity: "low", stage: "precheck" },
    ].entries())
      ids.push((await createRule({ name: `Paging rule ${i}`, ...o })).id);
  });

  test("items in list form, newest first, with total; choice filters; all or empty means no filter", async () => {
    const all = await call("/api/v2/rules?search=paging%20rule&limit=100", { key: ownerTest.key });
    expectOk(all);
    expect(all.body.data.map((r: any) => r.id)).toEqual([...ids].reverse());
    expect(Object.keys(all.body.data[0]).sort()).toEqual(LIST_FIELDS);
    expect(all.body.meta).toMatchObject({ total: 5, hasMore: false, cursor: null, limit: 100 });
    const q = async (qs: string) => (await call(`/api/v2/rules?search=paging+rule&${qs}`, { key: ownerTest.key })).body.data.map((r: any) => ids.indexOf(r.id)).sort();
    expect(await q("category=sanctions")).toEqual([1, 2, 4]);
    expect(await q("category=sanctions&severity=high")).toEqual([1, 2]);
    expect(await q("stage=precheck")).toEqual([0, 4]);
    expect(await q("isActive=false")).toEqual([3]);
    expect(await q("isActive=true&category=aml")).toEqual([0]);
    expect(await q("category=all&severity=&stage=all&isActive=all")).toEqual([0, 1, 2, 3, 4]);
    // A parameter given twice is unreadable.
    expectError(await call("/api/v2/rules?search=paging+rule&search=unicode", { key: ownerTest.key }), 400, "INVALID_QUERY");
  });

  test("search: part of name or description, any case; at most 200 characters", async () => {
    const s = async (text: string) => (await call(`/api/v2/rules?search=${encodeURIComponent(text)}`, { key: ownerTest.key })).body.data.map((r: any) => ids.indexOf(r.id)).filter((i: number) => i >= 0).sort();
    expect(await s("ofac ÜNÏCODE")).toEqual([1]);
    expect(await s("PAGING RULE 3")).toEqual([3]);
    expectOk(await call(`/api/v2/rules?search=${"x".repeat(200)}`, { key: ownerTest.key }));
    const r = await call(`/api/v2/rules?search=${"x".repeat(201)}`, { key: ownerTest.key });
    expectError(r, 400, "INVALID_QUERY");
    expect(issuePaths(r)).toEqual(["search"]);
  });

  test("unreadable values: 400 INVALID_QUERY with details.issues of { path, message }", async () => {
    for (const [qs, paths] of [
      ["category=kyc", ["category"]],
      ["isActive=yes", ["isActive"]],
      ["severity=critical&stage=never", ["severity", "stage"]],
      ["limit=0", ["limit"]],
      ["limit=101", ["limit"]],
      ["status=active", ["status"]],
    ] as [string, string[]][]) {
      const r = await call(`/api/v2/rules?${qs}`, { key: ownerTest.key });
      expectError(r, 400, "INVALID_QUERY");
      expect(issuePaths(r).sort()).toEqual(paths);
      for (const i of r.body.details.issues) expect(typeof i.message).toBe("string");
    }
    expectOk(await call("/api/v2/rules?limit=100", { key: ownerTest.key }));
    expectOk(await call("/api/v2/rules?limit=1", { key: ownerTest.key }));
  });

  test("keyset paging: every rule once, in order; a cursor of another filter or a tampered one is 400 INVALID_CURSOR", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: Answer = await call(`/api/v2/rules?search=paging+rule&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: ownerTest.key });
      expectOk(r);
      expect(r.body.meta.total).toBe(5);
      seen.push(...r.body.data.map((x: any) => x.id));
      cursor = r.body.meta.cursor;
      expect(r.body.meta.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    const first = await call("/api/v2/rules?search=paging+rule&limit=2", { key: ownerTest.key });
    const c = first.body.meta.cursor as string;
    expectError(await call(`/api/v2/rules?search=paging+rule&category=aml&limit=2&cursor=${encodeURIComponent(c)}`, { key: ownerTest.key }), 400, "INVALID_CURSOR");
    expectError(await call(`/api/v2/rules?search=paging+rule&limit=2&cursor=${encodeURIComponent(c.slice(0, -2) + "xx")}`, { key: ownerTest.key }), 400, "INVALID_CURSOR");
    expectError(await call(`/api/v2/rules?search=paging+rule&limit=2&cursor=${encodeURIComponent(c)}`, { key: ownerLive.key }), 400, "INVALID_CURSOR");
  });

  test("any key with rules:read reads: analyst and developer; a key without the scope gets 403 INSUFFICIENT_SCOPE", async () => {
    for (const k of [analystTest, developerTest, readOnlyTest]) expectOk(await call("/api/v2/rules", { key: k.key }));
    const noScope = await newKey("--env", "test", "--role", "owner", "--scopes", "thresholds:read");
    expectError(await call("/api/v2/rules", { key: noScope.key }), 403, "INSUFFICIENT_SCOPE");
  });
});

describe("OpenAPI", () => {
  test("lists the five rule routes with their scope and permission", async () => {
    const doc = (await call("/api/v2/openapi.json")).body;
    expect(doc.paths["/api/v2/rules"].get["x-scope"]).toBe("rules:read");
    expect(doc.paths["/api/v2/rules"].post["x-permission"]).toBe("rules:create");
    expect(doc.paths["/api/v2/rules/{id}"].get["x-permission"]).toBe("rules:view");
    expect(doc.paths["/api/v2/rules/{id}"].patch["x-permission"]).toBe("rules:update");
    expect(doc.paths["/api/v2/rules/{id}"].delete["x-permission"]).toBe("rules:update");
  });
});

describe("active rules for the checkpoints (Rules.active)", () => {
  test("another connection on the same file sees every API change at its next read (the cache follows commits)", async () => {
    const storage = await openStorage(db);
    try {
      const rules = new Rules(storage);
      const companyId = (storage.stmt("SELECT company_id FROM members WHERE id = ?").get(ownerTest.memberId) as { company_id: string }).company_id;
      const before = await rules.active(companyId, "test");
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((r) => r.isActive && r.environment === "test")).toBe(true);
      const ids = async () => (await rules.active(companyId, "test")).map((r) => r.id);
      // Cached: the same answer twice without a change.
      expect(await rules.active(companyId, "test")).toBe(before);
      const d = await createRule({ name: "checkpoint rule", condition: { rules: [ifBranch()] } });
      expect(await ids()).toContain(d.id);
      expect((await rules.active(companyId, "test")).find((r) => r.id === d.id)!.condition).toEqual({ rules: [{ type: "if", action: "flag", field: "amountUSD", operator: "gt", value: "1000" }] });
      await del(d.id);
      expect(await ids()).not.toContain(d.id);
      await patch(d.id, { isActive: true });
      expect((await ids()).at(-1)).toBe(d.id); // oldest first: the order a verdict records rules in
      expect((await rules.active(companyId, "live")).map((r) => r.id)).not.toContain(d.id);
    } finally {
      storage.close();
    }
  });

  test("in one process, a write through one Rules instance is seen at once by another over the same storage", async () => {
    const storage = await openStorage(db);
    try {
      const writer = new Rules(storage);
      const reader = new Rules(storage);
      const companyId = (storage.stmt("SELECT company_id FROM members WHERE id = ?").get(ownerTest.memberId) as { company_id: string }).company_id;
      const n = (await reader.active(companyId, "live")).length;
      const input = { name: "direct", category: "aml" as const, stage: "both" as const, action: "flag" as const, severity: "low" as const, isActive: true, description: null, jurisdictions: [], threshold: null, thresholdCurrency: null, metadata: null, condition: null };
      // Written as the rules actor writes: the domain's record, in a transaction.
      const r = newRule(newId("rul", Date.now()), companyId, "live", input, null, new Date().toISOString());
      await storage.transaction(() => writer.insert(r));
      expect((await reader.active(companyId, "live")).map((x) => x.id)).toContain(r.id);
      await storage.transaction(() => writer.save({ ...r, isActive: false }));
      expect(await reader.active(companyId, "live")).toHaveLength(n);
    } finally {
      storage.close();
    }
  });
});
