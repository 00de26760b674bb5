// Part 2 "Threshold" and the threshold endpoints of "Rules and thresholds", over real HTTP: every status and code, the live audit log, the company profile CLI.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, expectOk, ISO_MS, type Answer, type CallInit } from "../support/api.ts";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { applicableThreshold, companyProfile } from "../../src/adapters/storage/repos/thresholds.ts";
import { startService, type RunningService } from "../../src/services.ts";
import { ROLE_DEFINITIONS, type Permission } from "../../src/domain/access.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "thresholds.db");
let S: ChildServer;
const client = apiClient(db, () => S.url);
const { cli, newKey } = client;
const THRESHOLD_ID = /^thr_[0-9a-z]{26}$/;
const RESOURCE_FIELDS = [
  "countryCode", "createdAt", "createdBy", "effectiveDate", "filingDeadlineDays", "id", "isActive", "isEUMember", "name", "notes",
  "regulation", "regulatoryBody", "requiresOriginatorAccount", "thresholdAmount", "thresholdCurrency", "type", "updatedAt", "updatedBy",
];

type Key = Awaited<ReturnType<typeof newKey>>;
type Res = Answer;

/** The shared client, or (`at` given) a call to the in-process server of the last describe block. */
async function call(path: string, init: CallInit & { at?: string } = {}): Promise<Res> {
  return init.at === undefined ? client.call(path, init) : apiClient(db, () => init.at!).call(path, init);
}

const issuesOf = (r: Res) => (r.body.details.issues as { path: string; message: string }[]).map((i) => i.path).sort();
const base = (o: Record<string, unknown> = {}) => ({ type: "tr", name: "Travel Rule", thresholdAmount: "1000", regulation: "Law", ...o });

let ownerLive: Key;
let ownerTest: Key;
let officerLive: Key;
let analystLive: Key;
let developerTest: Key;
let readOnlyLive: Key;

async function createThreshold(body: Record<string, unknown>, key = ownerLive.key) {
  const r = await call("/api/v2/thresholds", { method: "POST", key, json: body });
  expectOk(r, 201);
  return r.body.data;
}

beforeAll(async () => {
  await cli("migrate");
  ownerLive = await newKey("--env", "live", "--role", "owner");
  ownerTest = await newKey("--env", "test", "--role", "owner");
  officerLive = await newKey("--env", "live", "--role", "compliance_officer");
  analystLive = await newKey("--env", "live", "--role", "analyst");
  developerTest = await newKey("--env", "test", "--role", "developer");
  readOnlyLive = await newKey("--env", "live", "--role", "owner", "--scopes", "thresholds:read,audit:read");
  S = await startServer({ CARAVAN_DB: db });
});

afterAll(async () => {
  await S?.stop();
});

describe("before any threshold", () => {
  test("the list is empty and meta.activeCount is 0 (FATF fallbacks apply)", async () => {
    const r = await call("/api/v2/thresholds", { key: ownerLive.key });
    expectOk(r);
    expect(r.body.data).toEqual([]);
    expect(r.body.meta).toMatchObject({ activeCount: 0, cursor: null, hasMore: false, total: 0, limit: 50 });
  });
});

describe("POST /api/v2/thresholds", () => {
  test("201 with the resource exactly as Part 2 lists it and every default (USD, null texts and dates, not EU, originator account required, active)", async () => {
    const r = await call("/api/v2/thresholds", { method: "POST", key: ownerLive.key, json: { countryCode: "US", type: "tr", name: "FinCEN Travel Rule", thresholdAmount: 3000, regulation: "31 CFR 1010.410(f)" } });
    expectOk(r, 201);
    const t = r.body.data;
    expect(Object.keys(t).sort()).toEqual(RESOURCE_FIELDS);
    expect(t.id).toMatch(THRESHOLD_ID);
    expect(t).toMatchObject({
      countryCode: "US",
      type: "tr",
      name: "FinCEN Travel Rule",
      thresholdAmount: "3000",
      thresholdCurrency: "USD",
      regulation: "31 CFR 1010.410(f)",
      regulatoryBody: null,
      effectiveDate: null,
      filingDeadlineDays: null,
      isEUMember: false,
      requiresOriginatorAccount: true,
      isActive: true,
      notes: null,
      createdBy: ownerLive.memberId,
      updatedBy: ownerLive.memberId,
    });
    expect(t.createdAt).toMatch(ISO_MS);
    expect(t.updatedAt).toBe(t.createdAt);
  });

  test("201 with every field given; amounts answered as normalized decimal strings, an instant in UTC with milliseconds", async () => {
    const t = await createThreshold({
      countryCode: "EU",
      type: "str",
      name: "EU suspicious transactions",
      thresholdAmount: "0.50",
      thresholdCurrency: "EUR",
      regulation: "AMLD",
      regulatoryBody: "FIU",
      effectiveDate: "2024-12-30T00:00:00+01:00",
      filingDeadlineDays: 30,
      isEUMember: true,
      requiresOriginatorAccount: false,
      isActive: true,
      notes: "Set by compliance",
    });
    expect(t).toMatchObject({ thresholdAmount: "0.5", thresholdCurrency: "EUR", effectiveDate: "2024-12-29T23:00:00.000Z", filingDeadlineDays: 30, isEUMember: true, requiresOriginatorAccount: false, notes: "Set by compliance", regulatoryBody: "FIU" });
    const day = await createThreshold(base({ countryCode: "EU", effectiveDate: "2024-12-30", thresholdAmount: 0, thresholdCurrency: "EUR", isEUMember: true }));
    expect(day).toMatchObject({ effectiveDate: "2024-12-30", thresholdAmount: "0" });
  });

  test("each validation problem → 422 VALIDATION_ERROR naming it in details.issues (path and message)", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [base({ countryCode: "XX" }), "countryCode", /ISO 3166-1/],
      [base({ countryCode: "FR", type: "ctr" }), "type", /tr .* or str/],
      [base({ countryCode: "FR", name: "" }), "name", /empty/],
      [base({ countryCode: "FR", name: "n".repeat(201) }), "name", /200/],
      [base({ countryCode: "FR", thresholdAmount: "-5" }), "thresholdAmount", /at least 0/],
      [base({ countryCode: "FR", thresholdAmount: "1.123456789" }), "thresholdAmount", /8 decimals/],
      [base({ countryCode: "FR", thresholdAmount: "1e3" }), "thresholdAmount", /exponent/],
      [base({ countryCode: "FR", thresholdCurrency: "EURO" }), "thresholdCurrency", /ISO 4217/],
      [base({ countryCode: "FR", regulation: "r".repeat(201) }), "regulation", /200/],
      [base({ countryCode: "FR", regulatoryBody: "b".repeat(201) }), "regulatoryBody", /200/],
      [base({ countryCode: "FR", effectiveDate: "31/12/2025" }), "effectiveDate", /YYYY-MM-DD/],
      [base({ countryCode: "FR", filingDeadlineDays: 10 }), "filingDeadlineDays", /only for type str/],
      [base({ countryCode: "FR", type: "str", filingDeadlineDays: 366 }), "filingDeadlineDays", /1 to 365/],
      [base({ countryCode: "FR", isEUMember: "yes" }), "isEUMember", /true or false/],
      [base({ countryCode: "FR", requiresOriginatorAccount: 0 }), "requiresOriginatorAccount", /true or false/],
      [base({ countryCode: "FR", isActive: null }), "isActive", /true or false/],
      [base({ countryCode: "FR", notes: "x".repeat(2001) }), "notes", /2,000/],
      [base({ countryCode: "FR", jurisdiction: "FR" }), "jurisdiction", /not an accepted field/],
      [{ countryCode: "FR", type: "tr", name: "x", regulation: "y" }, "thresholdAmount", /required/],
    ];
    for (const [body, path, message] of cases) {
      const r = await call("/api/v2/thresholds", { method: "POST", key: ownerLive.key, json: body });
      expectError(r, 422, "VALIDATION_ERROR");
      expect(r.body.details.issues).toEqual([{ path, message: expect.stringMatching(message) }]);
    }
  });

  test("several problems at once → every one named", async () => {
    const r = await call("/api/v2/thresholds", { method: "POST", key: ownerLive.key, json: { countryCode: "fr", type: "tr", thresholdAmount: -1, thresholdCurrency: "usd", filingDeadlineDays: 5, extra: true } });
    expectError(r, 422, "VALIDATION_ERROR");
    expect(issuesOf(r)).toEqual(["countryCode", "extra", "filingDeadlineDays", "name", "regulation", "thresholdAmount", "thresholdCurrency"]);
  });

  test("no body or a body that is not an object → 422 VALIDATION_ERROR at the root; not JSON → 400 INVALID_JSON", async () => {
    for (const raw of [undefined, "[]", "null", '"x"']) {
      const r = await call("/api/v2/thresholds", { method: "POST", key: ownerLive.key, raw });
      expectError(r, 422, "VALIDATION_ERROR");
      expect(r.body.details.issues).toEqual([{ path: "", message: "the body must be a JSON object" }]);
    }
    expectError(await call("/api/v2/thresholds", { method: "POST", key: ownerLive.key, raw: "{nope" }), 400, "INVALID_JSON");
  });

  test("a second threshold of the same jurisdiction and type → 409 THRESHOLD_EXISTS naming the existing one; the other type is fine", async () => {
    const first = await createThreshold(base({ countryCode: "SG", thresholdAmount: "1500", thresholdCurrency: "SGD" }));
    const r = await call("/api/v2/thresholds", { method: "POST", key: officerLive.key, json: base({ countryCode: "SG", name: "again", isActive: false }) });
    expectError(r, 409, "THRESHOLD_EXISTS");
    expect(r.body.details).toEqual({ countryCode: "SG", type: "tr", id: first.id });
    await createThreshold(base({ countryCode: "SG", type: "str", thresholdAmount: "0" }), officerLive.key);
  });

  test("a test key → 403 LIVE_KEY_REQUIRED (thresholds are shared; only live keys change them)", async () => {
    expectError(await call("/api/v2/thresholds", { method: "POST", key: ownerTest.key, json: base({ countryCode: "JP" }) }), 403, "LIVE_KEY_REQUIRED");
  });

  test("scope and role: a key without thresholds:write → 403 INSUFFICIENT_SCOPE; roles without thresholds:create → 403 INSUFFICIENT_PERMISSION", async () => {
    const s = await call("/api/v2/thresholds", { method: "POST", key: readOnlyLive.key, json: base({ countryCode: "JP" }) });
    expectError(s, 403, "INSUFFICIENT_SCOPE");
    expect(s.body.error).toContain("thresholds:write");
    const a = await call("/api/v2/thresholds", { method: "POST", key: analystLive.key, json: base({ countryCode: "JP" }) });
    expectError(a, 403, "INSUFFICIENT_PERMISSION");
    expect(a.body.details).toEqual({ permission: "thresholds:create" });
    expectError(await call("/api/v2/thresholds", { method: "POST", key: developerTest.key, json: base({ countryCode: "JP" }) }), 403, "INSUFFICIENT_PERMISSION");
  });
});

describe("GET /api/v2/thresholds/:id", () => {
  test("any key with thresholds:read reads the company's thresholds: live, test, analyst, developer", async () => {
    const t = await createThreshold(base({ countryCode: "CH", thresholdAmount: "1000", thresholdCurrency: "CHF" }));
    for (const k of [ownerLive, ownerTest, analystLive, developerTest, readOnlyLive]) {
      const r = await call(`/api/v2/thresholds/${t.id}`, { key: k.key });
      expectOk(r);
      expect(r.body.data).toEqual(t);
    }
  });

  test("an unknown or malformed ID → 404 THRESHOLD_NOT_FOUND", async () => {
    for (const id of ["thr_00000000000000000000000000", "cus_00000000000000000000000000", "x"]) {
      const r = await call(`/api/v2/thresholds/${id}`, { key: ownerTest.key });
      expectError(r, 404, "THRESHOLD_NOT_FOUND");
      expect(r.body.details).toEqual({ resource: "Threshold", id });
    }
  });

  test("405 for other methods; OPTIONS lists GET and PATCH", async () => {
    const r = await call("/api/v2/thresholds/thr_00000000000000000000000000", { method: "DELETE", key: ownerLive.key });
    expectError(r, 405, "METHOD_NOT_ALLOWED");
    expect(r.headers.get("allow")).toBe("GET, PATCH, OPTIONS");
  });
});

describe("PATCH /api/v2/thresholds/:id", () => {
  test("changes any field but countryCode and type; answers the threshold with updatedBy and a new updatedAt", async () => {
    const t = await createThreshold(base({ countryCode: "GB", type: "str", thresholdAmount: "0", thresholdCurrency: "GBP" }));
    await Bun.sleep(5);
    const r = await call(`/api/v2/thresholds/${t.id}`, {
      method: "PATCH",
      key: officerLive.key,
      json: { thresholdAmount: 10.25, name: "UK SAR", regulatoryBody: "NCA", filingDeadlineDays: 7, effectiveDate: "2025-01-01", notes: "n", requiresOriginatorAccount: false, isEUMember: false },
    });
    expectOk(r);
    expect(r.body.data).toMatchObject({ id: t.id, countryCode: "GB", type: "str", thresholdAmount: "10.25", name: "UK SAR", regulatoryBody: "NCA", filingDeadlineDays: 7, effectiveDate: "2025-01-01", notes: "n", requiresOriginatorAccount: false, createdBy: ownerLive.memberId, updatedBy: officerLive.memberId, createdAt: t.createdAt });
    expect(r.body.data.updatedAt > t.updatedAt).toBe(true);
    const back = await call(`/api/v2/thresholds/${t.id}`, { key: ownerTest.key });
    expect(back.body.data).toEqual(r.body.data);
    const cleared = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: { notes: null, regulatoryBody: null, effectiveDate: null, filingDeadlineDays: null } });
    expect(cleared.body.data).toMatchObject({ notes: null, regulatoryBody: null, effectiveDate: null, filingDeadlineDays: null });
  });

  test("the same countryCode and type may be sent; a different one → 422 IMMUTABLE_FIELD naming the field", async () => {
    const t = await createThreshold(base({ countryCode: "AE", thresholdAmount: "3500", thresholdCurrency: "AED" }));
    const same = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: { countryCode: "AE", type: "tr", name: "VARA" } });
    expectOk(same);
    expect(same.body.data.name).toBe("VARA");
    const c = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: { countryCode: "SA" } });
    expectError(c, 422, "IMMUTABLE_FIELD");
    expect(c.body.details).toEqual({ fields: ["countryCode"] });
    const both = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: { type: "str", countryCode: "SA", name: "x" } });
    expectError(both, 422, "IMMUTABLE_FIELD");
    expect(both.body.details).toEqual({ fields: ["countryCode", "type"] });
    expect((await call(`/api/v2/thresholds/${t.id}`, { key: ownerLive.key })).body.data).toMatchObject({ countryCode: "AE", type: "tr", name: "VARA" });
  });

  test("validation: an empty body, bad values, unknown fields → 422 VALIDATION_ERROR naming each", async () => {
    const t = await createThreshold(base({ countryCode: "HK" }));
    const empty = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: {} });
    expectError(empty, 422, "VALIDATION_ERROR");
    expect(empty.body.details.issues[0].message).toMatch(/at least one field/);
    const bad = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: { thresholdAmount: "ten", filingDeadlineDays: 30, createdBy: "me", name: null } });
    expectError(bad, 422, "VALIDATION_ERROR");
    expect(issuesOf(bad)).toEqual(["createdBy", "filingDeadlineDays", "name", "thresholdAmount"]);
  });

  test("an unknown threshold → 404 THRESHOLD_NOT_FOUND; a test key → 403 LIVE_KEY_REQUIRED; analyst → 403 INSUFFICIENT_PERMISSION", async () => {
    expectError(await call("/api/v2/thresholds/thr_00000000000000000000000000", { method: "PATCH", key: ownerLive.key, json: { name: "x" } }), 404, "THRESHOLD_NOT_FOUND");
    const t = await createThreshold(base({ countryCode: "KR", thresholdAmount: "1000000", thresholdCurrency: "KRW" }));
    expectError(await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerTest.key, json: { name: "x" } }), 403, "LIVE_KEY_REQUIRED");
    const a = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: analystLive.key, json: { name: "x" } });
    expectError(a, 403, "INSUFFICIENT_PERMISSION");
    expect(a.body.details).toEqual({ permission: "thresholds:update" });
    expect((await call(`/api/v2/thresholds/${t.id}`, { key: ownerTest.key })).body.data.name).toBe(t.name);
  });

  test("switching off and on: owner and compliance officer hold thresholds:disable; activeCount follows", async () => {
    const t = await createThreshold(base({ countryCode: "CA", thresholdAmount: "1000", thresholdCurrency: "CAD" }));
    const before = (await call("/api/v2/thresholds", { key: ownerLive.key })).body.meta.activeCount;
    const off = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: officerLive.key, json: { isActive: false } });
    expectOk(off);
    expect(off.body.data.isActive).toBe(false);
    expect((await call("/api/v2/thresholds", { key: ownerLive.key })).body.meta.activeCount).toBe(before - 1);
    const on = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: { isActive: true } });
    expect(on.body.data.isActive).toBe(true);
    const offAgain = await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: ownerLive.key, json: { isActive: false } });
    expect(offAgain.body.data.isActive).toBe(false);
    expect((await call("/api/v2/thresholds", { key: ownerLive.key })).body.meta.activeCount).toBe(before - 1);
  });
});

describe("GET /api/v2/thresholds (list)", () => {
  test("ordered by jurisdiction, then type; meta.total and meta.activeCount over every threshold", async () => {
    const r = await call("/api/v2/thresholds?limit=100", { key: ownerTest.key });
    expectOk(r);
    const keys = r.body.data.map((t: any) => `${t.countryCode}|${t.type}`);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toContain("SG|str");
    expect(keys.indexOf("SG|str")).toBe(keys.indexOf("SG|tr") - 1);
    expect(r.body.meta.total).toBe(r.body.data.length);
    expect(r.body.meta.activeCount).toBe(r.body.data.filter((t: any) => t.isActive).length);
    for (const t of r.body.data) expect(Object.keys(t).sort()).toEqual(RESOURCE_FIELDS);
  });

  test("filters type and status (empty or all: no filter); activeCount ignores filters", async () => {
    const all = (await call("/api/v2/thresholds?limit=100", { key: ownerLive.key })).body;
    const activeCount = all.meta.activeCount;
    const cases: [string, (t: any) => boolean][] = [
      ["type=str", (t) => t.type === "str"],
      ["type=tr&status=active", (t) => t.type === "tr" && t.isActive],
      ["status=inactive", (t) => !t.isActive],
      ["type=all&status=", () => true],
    ];
    for (const [qs, keep] of cases) {
      const r = await call(`/api/v2/thresholds?limit=100&${qs}`, { key: ownerLive.key });
      expectOk(r);
      const expected = all.data.filter(keep).map((t: any) => t.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(r.body.data.map((t: any) => t.id)).toEqual(expected);
      expect(r.body.meta.total).toBe(expected.length);
      expect(r.body.meta.activeCount).toBe(activeCount);
    }
  });

  test("search: jurisdiction code, name, regulation or regulatory body, any case", async () => {
    const cases: [string, string[]][] = [
      ["sg", ["SG|str", "SG|tr"]],
      ["fincen", ["US|tr"]],
      ["1010.410", ["US|tr"]],
      ["fiu", ["EU|str"]],
      ["SUSPICIOUS TRANS", ["EU|str"]],
      ["vara", ["AE|tr"]],
      ["nothing-matches-this", []],
    ];
    for (const [s, expected] of cases) {
      const r = await call(`/api/v2/thresholds?search=${encodeURIComponent(s)}`, { key: ownerLive.key });
      expectOk(r);
      expect(r.body.data.map((t: any) => `${t.countryCode}|${t.type}`)).toEqual(expected);
    }
  });

  test("paging: limit and cursor (a threshold ID) walk the list once, in order", async () => {
    const all = (await call("/api/v2/thresholds?limit=100", { key: ownerLive.key })).body.data.map((t: any) => t.id);
    expect(all.length).toBeGreaterThan(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: Res = await call(`/api/v2/thresholds?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: ownerTest.key });
      expectOk(r);
      expect(r.body.meta.limit).toBe(2);
      expect(r.body.meta.total).toBe(all.length);
      seen.push(...r.body.data.map((t: any) => t.id));
      cursor = r.body.meta.cursor;
      expect(r.body.meta.hasMore).toBe(cursor !== null);
      if (cursor) expect(cursor).toBe(r.body.data.at(-1).id);
      pages++;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));
    // Any threshold ID continues after it, also with filters.
    const r = await call(`/api/v2/thresholds?limit=100&type=tr&cursor=${all[0]}`, { key: ownerLive.key });
    const trAfter = (await call("/api/v2/thresholds?limit=100&type=tr", { key: ownerLive.key })).body.data.map((t: any) => t.id).filter((id: string) => all.indexOf(id) > 0);
    expect(r.body.data.map((t: any) => t.id)).toEqual(trAfter);
  });

  test("an unknown cursor → 400 INVALID_CURSOR; bad parameters → 400 INVALID_QUERY naming each", async () => {
    for (const c of ["thr_00000000000000000000000000", "cus_00000000000000000000000000", "eyJhIjoxfQ.abc"]) expectError(await call(`/api/v2/thresholds?cursor=${c}`, { key: ownerLive.key }), 400, "INVALID_CURSOR");
    const r = await call(`/api/v2/thresholds?type=ctr&status=on&limit=101&search=${"s".repeat(101)}&sort=asc`, { key: ownerLive.key });
    expectError(r, 400, "INVALID_QUERY");
    expect(issuesOf(r)).toEqual(["limit", "search", "sort", "status", "type"]);
    expectError(await call("/api/v2/thresholds?limit=0", { key: ownerLive.key }), 400, "INVALID_QUERY");
  });

  test("a key without thresholds:read → 403 INSUFFICIENT_SCOPE", async () => {
    const k = await newKey("--env", "live", "--role", "owner", "--scopes", "rules:read");
    expectError(await call("/api/v2/thresholds", { key: k.key }), 403, "INSUFFICIENT_SCOPE");
  });
});

describe("audit", () => {
  test("every change is in the live audit log (member, key, small detail) and none in the test log", async () => {
    const t = await createThreshold(base({ countryCode: "AU", thresholdAmount: "1000", thresholdCurrency: "AUD", notes: "private wording" }));
    await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: officerLive.key, json: { thresholdAmount: "0", notes: "other wording" } });
    await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: officerLive.key, json: { isActive: false } });
    // A PATCH that changes nothing writes nothing.
    await call(`/api/v2/thresholds/${t.id}`, { method: "PATCH", key: officerLive.key, json: { isActive: false } });
    const live = await call(`/api/v2/audit-log?entityType=Threshold&entityId=${t.id}`, { key: ownerLive.key });
    expectOk(live);
    expect(live.body.data.map((e: any) => e.action)).toEqual(["threshold.disabled", "threshold.updated", "threshold.created"]);
    for (const e of live.body.data) expect(e.environment).toBe("live");
    const [disabled, updated, created] = live.body.data;
    expect(created.actor).toEqual({ type: "member", memberId: ownerLive.memberId, apiKeyId: ownerLive.id });
    expect(created.detail).toEqual({ countryCode: "AU", type: "tr", thresholdAmount: "1000", thresholdCurrency: "AUD", isActive: true });
    expect(updated.actor).toEqual({ type: "member", memberId: officerLive.memberId, apiKeyId: officerLive.id });
    expect(updated.detail).toEqual({ countryCode: "AU", type: "tr", fields: ["thresholdAmount", "notes"], changes: { thresholdAmount: { from: "1000", to: "0" } } });
    expect(JSON.stringify(live.body.data)).not.toContain("wording");
    expect(disabled.detail).toMatchObject({ fields: ["isActive"], changes: { isActive: { from: true, to: false } } });
    const all = await call("/api/v2/audit-log?entityType=Threshold&limit=200", { key: ownerLive.key });
    const list = (await call("/api/v2/thresholds?limit=100", { key: ownerLive.key })).body.data;
    expect(all.body.data.filter((e: any) => e.action === "threshold.created").length).toBe(list.length);
    const test_ = await call("/api/v2/audit-log?entityType=Threshold", { key: ownerTest.key });
    expectOk(test_);
    expect(test_.body.data).toEqual([]);
  });
});

describe("company profile (CLI) and which threshold applies", () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await openStorage(db);
  });
  afterAll(() => storage?.close());
  const companyId = () => (storage.stmt("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;

  test("companies profile: empty until set, set, read back, partial change, identifier removal; audited in both logs", async () => {
    expect(JSON.parse(await cli("companies", "profile", "--slug", "default", "--json"))).toEqual({ legalName: null, country: null, identifiers: [] });
    const set = JSON.parse(
      await cli("companies", "profile", "--slug", "default", "--legal-name", "Caravan Test GmbH", "--country", "de", "--lei", "5493001KJTIIGC8Y1R12", "--identifier", "RAID:HRB 12345", "--identifier", "TXID:DE123", "--json"),
    );
    expect(set).toEqual({ legalName: "Caravan Test GmbH", country: "DE", identifiers: [{ type: "LEI", value: "5493001KJTIIGC8Y1R12" }, { type: "RAID", value: "HRB 12345" }, { type: "TXID", value: "DE123" }] });
    expect(JSON.parse(await cli("companies", "profile", "--slug", "default", "--json"))).toEqual(set);
    // The same values again change nothing and are not audited.
    await cli("companies", "profile", "--slug", "default", "--country", "DE", "--legal-name", "Caravan Test GmbH");
    const changed = JSON.parse(await cli("companies", "profile", "--slug", "default", "--identifier", "TXID:", "--json"));
    expect(changed.identifiers.map((i: any) => i.type)).toEqual(["LEI", "RAID"]);
    expect(changed.country).toBe("DE");
    const human = await cli("companies", "profile", "--slug", "default");
    expect(human).toContain("Caravan Test GmbH");
    expect(human).toContain("LEI:5493001KJTIIGC8Y1R12");
    expect(companyProfile(storage, companyId())).toEqual(changed);
    for (const k of [ownerLive, ownerTest]) {
      const r = await call("/api/v2/audit-log?entityType=Company&action=company.profile_updated", { key: k.key });
      expect(r.body.data.length).toBe(2);
      expect(r.body.data[0].detail).toEqual({ fields: ["identifiers"] });
      expect(r.body.data[1].detail).toEqual({ fields: ["legalName", "country", "identifiers"] });
    }
  });

  test("companies profile refuses a bad country, LEI, identifier or company, and changes nothing", async () => {
    const before = companyProfile(storage, companyId());
    for (const [args, message] of [
      [["--country", "XX"], /ISO 3166-1/],
      [["--lei", "5493001KJTIIGC8Y1R13"], /LEI/],
      [["--identifier", "novalue"], /<type>:<value>/],
      [["--legal-name", "x".repeat(201)], /200/],
    ] as [string[], RegExp][]) {
      const r = await runCli(["companies", "profile", "--slug", "default", ...args], { CARAVAN_DB: db });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
    }
    const nope = await runCli(["companies", "profile", "--slug", "nope"], { CARAVAN_DB: db });
    expect(nope.code).toBe(1);
    expect(companyProfile(storage, companyId())).toEqual(before);
  });

  test("selection over the stored thresholds: country (DE) → EU → DEFAULT → FATF fallback, following the profile", async () => {
    const now = Date.now();
    // DE has no tr threshold yet; EU tr (effective 2024-12-30) applies to a German company.
    expect(applicableThreshold(storage, companyId(), { type: "tr", now })).toMatchObject({ source: "company", threshold: { jurisdiction: "EU", amount: "0", currency: "EUR" } });
    const de = await createThreshold(base({ countryCode: "DE", thresholdAmount: "0", thresholdCurrency: "EUR", name: "Germany" }));
    expect(applicableThreshold(storage, companyId(), { type: "tr", now })).toMatchObject({ source: "company", threshold: { id: de.id, jurisdiction: "DE" } });
    // A company in a non-member state without its own threshold and no DEFAULT: the fallback.
    await cli("companies", "profile", "--slug", "default", "--country", "NO");
    expect(applicableThreshold(storage, companyId(), { type: "tr", now })).toMatchObject({ source: "fatf_fallback", threshold: { jurisdiction: "DEFAULT", amount: "1000", currency: "USD" } });
    await createThreshold(base({ countryCode: "DEFAULT", thresholdAmount: "1000", name: "Everywhere else" }));
    expect(applicableThreshold(storage, companyId(), { type: "tr", now })).toMatchObject({ source: "company", threshold: { jurisdiction: "DEFAULT" } });
    // str: the EU str threshold (effective 2024-12-29T23:00Z) for a member state; DEFAULT str absent → fallback for Norway.
    expect(applicableThreshold(storage, companyId(), { type: "str", now })).toMatchObject({ source: "fatf_fallback", threshold: { amount: "0" } });
    await cli("companies", "profile", "--slug", "default", "--country", "FR");
    expect(applicableThreshold(storage, companyId(), { type: "str", now })).toMatchObject({ source: "company", threshold: { jurisdiction: "EU", amount: "0.5" } });
  });
});

describe("a role with thresholds:update but not thresholds:disable", () => {
  // No built-in role has one without the other (owner and compliance_officer hold all three threshold
  // permissions; analyst and developer hold none that change). To prove the refusal end to end, this
  // in-process server runs with the compliance officer's role temporarily lacking thresholds:disable.
  const pdir = tempDir();
  let svc: RunningService;
  const perms = ROLE_DEFINITIONS.compliance_officer.permissions as Set<Permission>;
  beforeAll(async () => {
    svc = await startService({ dbPath: join(pdir, "p.db"), host: "127.0.0.1", port: 0, logLevel: "silent", env: {} });
    perms.delete("thresholds:disable");
  });
  afterAll(async () => {
    perms.add("thresholds:disable");
    await svc?.stop();
  });

  test("switching an active threshold off → 403 INSUFFICIENT_PERMISSION naming thresholds:disable; other changes, and switching on, are allowed", async () => {
    const company = await svc.tenancy.requireCompany("default");
    const m = await svc.tenancy.createMember(company.id, "co@example.test", "compliance_officer");
    const { key } = await svc.tenancy.createKey({ companyId: company.id, memberId: m.id, environment: "live" });
    const post = await call("/api/v2/thresholds", { at: svc.url, method: "POST", key, json: base({ countryCode: "FR", thresholdAmount: "0", thresholdCurrency: "EUR" }) });
    expectOk(post, 201);
    const id = post.body.data.id;
    const off = await call(`/api/v2/thresholds/${id}`, { at: svc.url, method: "PATCH", key, json: { isActive: false, name: "x" } });
    expectError(off, 403, "INSUFFICIENT_PERMISSION");
    expect(off.body.details).toEqual({ permission: "thresholds:disable" });
    const still = await call(`/api/v2/thresholds/${id}`, { at: svc.url, key });
    expect(still.body.data).toMatchObject({ isActive: true, name: "Travel Rule" });
    const rename = await call(`/api/v2/thresholds/${id}`, { at: svc.url, method: "PATCH", key, json: { name: "France", isActive: true } });
    expectOk(rename);
    const inactive = await call("/api/v2/thresholds", { at: svc.url, method: "POST", key, json: base({ countryCode: "IT", isActive: false }) });
    expectOk(inactive, 201);
    // Already off: isActive false switches nothing off.
    const keepOff = await call(`/api/v2/thresholds/${inactive.body.data.id}`, { at: svc.url, method: "PATCH", key, json: { isActive: false, notes: "n" } });
    expectOk(keepOff);
    expect(keepOff.body.data).toMatchObject({ isActive: false, notes: "n" });
    const on = await call(`/api/v2/thresholds/${inactive.body.data.id}`, { at: svc.url, method: "PATCH", key, json: { isActive: true } });
    expectOk(on);
    expect(on.body.data.isActive).toBe(true);
  });
});
