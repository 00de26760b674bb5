// Every requirement of the report write routes (the operator routes that draft, edit, submit, approve and file), as the
// pipeline enforces it and as the OpenAPI document prints it from the same declaration: the key's scopes strs:write
// and reports:read (INSUFFICIENT_SCOPE), strs:read (INSUFFICIENT_PERMISSION, the reports' second scope), then the
// role's permissions strs:update and, to draft or edit, reports:create and pii:view (INSUFFICIENT_PERMISSION). A key
// missing several is refused for the first one missing.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError } from "../support/api.ts";
import { ALL_SCOPES, type Permission } from "../../src/domain/access.ts";
import { authorize, requirementsOf, type AuthContext, type ScopedAccess } from "../../src/http/auth.ts";
import { REPORT_ACCESS } from "../../src/http/reports.ts";
import { ApiError } from "../../src/domain/errors.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "report-requirements.db");
let S: ChildServer;
const { newKey, call } = apiClient(db, () => S.url);
let doc: any;

const REPORT = "rpt_00000000000000000000000000";
const TRANSFER = "trf_00000000000000000000000000";
/** The five write routes: method, path as the document names it, path to call, body. */
const WRITES = [
  { method: "POST", doc: "/api/v2/reports", path: "/api/v2/reports", json: { transferId: TRANSFER }, action: "draft" },
  { method: "PATCH", doc: "/api/v2/reports/{id}", path: `/api/v2/reports/${REPORT}`, json: { narrative: "The customer moved funds received from a sanctioned exchange within minutes." }, action: "edit" },
  { method: "POST", doc: "/api/v2/reports/{id}/submit", path: `/api/v2/reports/${REPORT}/submit`, json: undefined, action: "submit" },
  { method: "POST", doc: "/api/v2/reports/{id}/approve", path: `/api/v2/reports/${REPORT}/approve`, json: undefined, action: "approve" },
  { method: "POST", doc: "/api/v2/reports/{id}/file", path: `/api/v2/reports/${REPORT}/file`, json: { reference: "FIU-2026-000123" }, action: "file" },
] as const;

const keys: Record<string, string> = {};
const allBut = (...drop: string[]) => ALL_SCOPES.filter((s) => !drop.includes(s)).join(",");

beforeAll(async () => {
  const m = await runCli(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  keys.all = (await newKey("--env", "test", "--role", "owner", "--scopes", allBut())).key;
  keys.noStrsWrite = (await newKey("--env", "test", "--role", "owner", "--scopes", allBut("strs:write"))).key;
  keys.noReportsRead = (await newKey("--env", "test", "--role", "owner", "--scopes", allBut("reports:read"))).key;
  keys.noStrsRead = (await newKey("--env", "test", "--role", "owner", "--scopes", allBut("strs:read"))).key;
  keys.noReadScopes = (await newKey("--env", "test", "--role", "owner", "--scopes", allBut("reports:read", "strs:read"))).key;
  keys.analyst = (await newKey("--env", "test", "--role", "analyst", "--scopes", allBut())).key;
  keys.analystNoStrsRead = (await newKey("--env", "test", "--role", "analyst", "--scopes", allBut("strs:read"))).key;
  S = await startServer({ CARAVAN_DB: db });
  doc = (await call("/api/v2/openapi.json")).body;
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

const send = (w: (typeof WRITES)[number], key: string) => call(w.path, { method: w.method, key, json: w.json });

describe("the server refuses a key for the first requirement it lacks", () => {
  test("a key with every requirement gets past them all: 404 REPORT_NOT_FOUND or 422 TRANSFER_NOT_FOUND (nothing to act on)", async () => {
    for (const w of WRITES) {
      const r = await send(w, keys.all!);
      if (w.action === "draft") expectError(r, 422, "TRANSFER_NOT_FOUND");
      else expectError(r, 404, "REPORT_NOT_FOUND");
    }
  });

  test("no strs:write → 403 INSUFFICIENT_SCOPE naming strs:write", async () => {
    for (const w of WRITES) {
      const r = await send(w, keys.noStrsWrite!);
      expectError(r, 403, "INSUFFICIENT_SCOPE");
      expect({ route: w.path, details: r.body.details }).toEqual({ route: w.path, details: { scope: "strs:write" } });
    }
  });

  test("no reports:read → 403 INSUFFICIENT_SCOPE naming reports:read (the endpoint's own scope, not a permission)", async () => {
    for (const w of WRITES) {
      const r = await send(w, keys.noReportsRead!);
      expect({ route: w.path, status: r.status, code: r.body.code, details: r.body.details }).toEqual({ route: w.path, status: 403, code: "INSUFFICIENT_SCOPE", details: { scope: "reports:read" } });
    }
  });

  test("no strs:read → 403 INSUFFICIENT_PERMISSION naming strs:read (the reports' second scope, as on every report route)", async () => {
    for (const w of WRITES) {
      const r = await send(w, keys.noStrsRead!);
      expect({ route: w.path, status: r.status, code: r.body.code, details: r.body.details }).toEqual({ route: w.path, status: 403, code: "INSUFFICIENT_PERMISSION", details: { scope: "strs:read" } });
    }
    // The read routes answer the same for the same key.
    expectError(await call("/api/v2/reports", { key: keys.noStrsRead }), 403, "INSUFFICIENT_PERMISSION");
  });

  test("missing both read scopes: refused for reports:read, the first one (scopes before second scopes)", async () => {
    for (const w of WRITES) {
      const r = await send(w, keys.noReadScopes!);
      expect({ route: w.path, code: r.body.code, details: r.body.details }).toEqual({ route: w.path, code: "INSUFFICIENT_SCOPE", details: { scope: "reports:read" } });
    }
  });

  test("a role without strs:update (analyst) → 403 INSUFFICIENT_PERMISSION naming strs:update; a scope it also lacks is named first", async () => {
    for (const w of WRITES) {
      const r = await send(w, keys.analyst!);
      expect({ route: w.path, status: r.status, code: r.body.code, details: r.body.details }).toEqual({ route: w.path, status: 403, code: "INSUFFICIENT_PERMISSION", details: { permission: "strs:update" } });
      const s = await send(w, keys.analystNoStrsRead!);
      expect({ route: w.path, details: s.body.details }).toEqual({ route: w.path, details: { scope: "strs:read" } });
    }
  });
});

/** A principal holding every scope and every permission except those named. */
function principal(lacks: { scopes?: string[]; permissions?: Permission[] }): AuthContext {
  return {
    company: { id: "cmp_x", slug: "default", disabledFeatures: new Set() },
    environment: "test",
    member: { id: "mem_x", email: "x@example.com", role: "compliance_officer" },
    key: { id: "key_x", scopes: new Set(ALL_SCOPES.filter((s) => !(lacks.scopes ?? []).includes(s))) },
    piiView: !(lacks.permissions ?? []).includes("pii:view"),
    actor: { type: "member", memberId: "mem_x", apiKeyId: "key_x" } as AuthContext["actor"],
    can: (p: Permission) => !(lacks.permissions ?? []).includes(p),
  };
}

function refusal(access: ScopedAccess, lacks: Parameters<typeof principal>[0]): { code: string; details: unknown } | null {
  try {
    authorize(principal(lacks), access);
    return null;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { code: e.code, details: e.details };
  }
}

describe("the permissions no built-in role lacks alone, through the pipeline's own check and the routes' declarations", () => {
  // Every built-in role with strs:update also holds reports:create and pii:view, so these two are shown on the
  // declaration the pipeline runs (REPORT_ACCESS) with a principal that lacks only them.
  test("draft: no reports:create → INSUFFICIENT_PERMISSION reports:create; no pii:view → INSUFFICIENT_PERMISSION pii:view; both → reports:create", () => {
    const draft = REPORT_ACCESS.draft as ScopedAccess;
    expect(refusal(draft, {})).toBeNull();
    expect(refusal(draft, { permissions: ["reports:create"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "reports:create" } });
    expect(refusal(draft, { permissions: ["pii:view"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "pii:view" } });
    expect(refusal(draft, { permissions: ["pii:view", "reports:create"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "reports:create" } });
    // Scopes come before permissions whatever else is missing.
    expect(refusal(draft, { scopes: ["reports:read"], permissions: ["strs:update", "pii:view"] })).toEqual({ code: "INSUFFICIENT_SCOPE", details: { scope: "reports:read" } });
  });

  test("edit needs pii:view but not reports:create; submit, approve and file need only strs:update", () => {
    const edit = REPORT_ACCESS.edit as ScopedAccess;
    expect(refusal(edit, { permissions: ["reports:create"] })).toBeNull();
    expect(refusal(edit, { permissions: ["pii:view"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "pii:view" } });
    for (const action of ["submit", "approve", "file"] as const) {
      const a = REPORT_ACCESS[action] as ScopedAccess;
      expect(refusal(a, { permissions: ["reports:create", "pii:view"] })).toBeNull();
      expect(refusal(a, { permissions: ["strs:update"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "strs:update" } });
    }
  });
});

describe("the OpenAPI document prints the same requirements, in the order they are checked", () => {
  const expected = {
    draft: ["strs:update", "reports:create", "pii:view"],
    edit: ["strs:update", "pii:view"],
    submit: ["strs:update"],
    approve: ["strs:update"],
    file: ["strs:update"],
  } as const;

  test("each write route: the key's three scopes in its security requirement; x-requirements with each refusal; a sentence in the description", () => {
    for (const w of WRITES) {
      const op = doc.paths[w.doc][w.method.toLowerCase()];
      expect({ route: w.doc, security: op.security }).toEqual({ route: w.doc, security: [{ ApiKey: ["strs:write", "reports:read", "strs:read"] }] });
      expect({ route: w.doc, requirements: op["x-requirements"] }).toEqual({
        route: w.doc,
        requirements: [
          { scope: "strs:write", refusal: "INSUFFICIENT_SCOPE" },
          { scope: "reports:read", refusal: "INSUFFICIENT_SCOPE" },
          { scope: "strs:read", refusal: "INSUFFICIENT_PERMISSION" },
          ...expected[w.action].map((p) => ({ permission: p, refusal: "INSUFFICIENT_PERMISSION" })),
        ],
      });
      expect(op.description).toContain("reports:read (else INSUFFICIENT_SCOPE)");
      expect(op.description).toContain("strs:read (else INSUFFICIENT_PERMISSION)");
      const codes403 = op.responses["403"].content["application/json"].schema.allOf[1].properties.code.enum;
      expect(codes403).toEqual(expect.arrayContaining(["INSUFFICIENT_SCOPE", "INSUFFICIENT_PERMISSION"]));
      // What is printed is the declaration the pipeline runs.
      expect(op["x-requirements"].length).toBe(requirementsOf(REPORT_ACCESS[w.action] as ScopedAccess).length);
    }
  });

  test("the download: transfers:read as a second scope, pii:view refused with PII_ACCESS_REQUIRED before strs:view", () => {
    const op = doc.paths["/api/v2/reports/{id}/download"].get;
    expect(op["x-requirements"]).toEqual([
      { scope: "reports:read", refusal: "INSUFFICIENT_SCOPE" },
      { scope: "strs:read", refusal: "INSUFFICIENT_PERMISSION" },
      { scope: "transfers:read", refusal: "INSUFFICIENT_PERMISSION" },
      { permission: "reports:view", refusal: "INSUFFICIENT_PERMISSION" },
      { permission: "pii:view", refusal: "PII_ACCESS_REQUIRED" },
      { permission: "strs:view", refusal: "INSUFFICIENT_PERMISSION" },
      { permission: "transfers:view", refusal: "INSUFFICIENT_PERMISSION" },
    ]);
    expect(op.responses["403"].content["application/json"].schema.allOf[1].properties.code.enum).toContain("PII_ACCESS_REQUIRED");
  });

  test("the event stream's two alternatives are two security requirements (either one)", () => {
    expect(doc.paths["/api/v2/events/stream"].get.security).toEqual([{ ApiKey: ["transfers:read"] }, { ApiKey: ["cases:read"] }]);
  });
});
