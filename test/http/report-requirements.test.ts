// Every requirement of the report write routes (the operator routes that draft, edit, submit, approve and file), as the
// pipeline enforces it and as the OpenAPI document prints it from the same declaration. These are officers' powers:
// any API key, whatever its scopes and role, is refused 403 OFFICER_SESSION_REQUIRED before anything else is looked
// at. A member's console session carries no scopes of its own (its role decides), so its role's permissions are
// checked in the declared order: strs:update and, to draft or edit, reports:create and pii:view
// (INSUFFICIENT_PERMISSION). A session passing them all reaches the handler.
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
const { newKey, newSession, call } = apiClient(db, () => S.url);
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
const sessions: Record<string, string> = {};
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
  // One member's console session per role, signed in the way an officer does (setup code, passphrase, TOTP).
  for (const role of ["owner", "compliance_officer", "analyst", "developer"]) sessions[role] = (await newSession(role)).token;
  doc = (await call("/api/v2/openapi.json")).body;
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

const send = (w: (typeof WRITES)[number], credential: { key: string } | { session: string }) => call(w.path, { method: w.method, ...credential, json: w.json });
/** What a refusal says, with the route it came from (a failure names the route). */
const said = (w: (typeof WRITES)[number], r: { status: number; body: any }) => ({ route: w.path, status: r.status, code: r.body?.code, details: r.body?.details });

describe("an API key is refused first, whatever it holds: 403 OFFICER_SESSION_REQUIRED", () => {
  test("a key with every scope and the owner's role is refused, and nothing is acted on", async () => {
    for (const w of WRITES) {
      const r = await send(w, { key: keys.all! });
      expectError(r, 403, "OFFICER_SESSION_REQUIRED");
      expect(said(w, r)).toEqual({ route: w.path, status: 403, code: "OFFICER_SESSION_REQUIRED", details: undefined });
    }
  });

  test("a key lacking a scope or a permission is not told which: the officer rule comes before scopes and permissions", async () => {
    for (const name of ["noStrsWrite", "noReportsRead", "noStrsRead", "noReadScopes", "analyst", "analystNoStrsRead"]) {
      for (const w of WRITES) {
        const r = await send(w, { key: keys[name]! });
        expect({ key: name, ...said(w, r) }).toEqual({ key: name, route: w.path, status: 403, code: "OFFICER_SESSION_REQUIRED", details: undefined });
      }
    }
  });

  test("the report reads still answer keys, scopes first: reports:read INSUFFICIENT_SCOPE, strs:read INSUFFICIENT_PERMISSION", async () => {
    const noReports = await call("/api/v2/reports", { key: keys.noReportsRead });
    expectError(noReports, 403, "INSUFFICIENT_SCOPE");
    expect(noReports.body.details).toEqual({ scope: "reports:read" });
    const noStrs = await call("/api/v2/reports", { key: keys.noStrsRead });
    expectError(noStrs, 403, "INSUFFICIENT_PERMISSION");
    expect(noStrs.body.details).toEqual({ scope: "strs:read" });
    expect((await call("/api/v2/reports", { key: keys.all })).status).toBe(200);
  });
});

describe("a member's session: no scopes of its own, its role's permissions in the declared order", () => {
  test("an owner's and a compliance officer's session pass every requirement: 404 REPORT_NOT_FOUND or 422 TRANSFER_NOT_FOUND (nothing to act on)", async () => {
    for (const role of ["owner", "compliance_officer"]) {
      for (const w of WRITES) {
        const r = await send(w, { session: sessions[role]! });
        const want = w.action === "draft" ? { status: 422, code: "TRANSFER_NOT_FOUND" } : { status: 404, code: "REPORT_NOT_FOUND" };
        expect({ role, route: w.path, status: r.status, code: r.body.code }).toEqual({ role, route: w.path, ...want });
      }
    }
  });

  test("a role without strs:update (analyst, developer) → 403 INSUFFICIENT_PERMISSION naming strs:update, the first permission of every write", async () => {
    for (const role of ["analyst", "developer"]) {
      for (const w of WRITES) {
        const r = await send(w, { session: sessions[role]! });
        expect({ role, ...said(w, r) }).toEqual({ role, route: w.path, status: 403, code: "INSUFFICIENT_PERMISSION", details: { permission: "strs:update" } });
      }
    }
  });
});

/**
 * A principal holding every permission except those named: a member's console session (`session`), whose key scopes
 * the pipeline does not look at, or an API key holding every scope except those named.
 */
function principal(lacks: { scopes?: string[]; permissions?: Permission[]; apiKey?: true }): AuthContext {
  return {
    company: { id: "cmp_x", slug: "default", disabledFeatures: new Set() },
    environment: "test",
    member: { id: "mem_x", email: "x@example.com", role: "compliance_officer" },
    key: { id: lacks.apiKey ? "key_x" : "ses_x", scopes: new Set(ALL_SCOPES.filter((s) => !(lacks.scopes ?? []).includes(s))) },
    ...(lacks.apiKey ? {} : { session: { id: "ses_x" } }),
    piiView: !(lacks.permissions ?? []).includes("pii:view"),
    actor: (lacks.apiKey ? { type: "member", memberId: "mem_x", apiKeyId: "key_x" } : { type: "member", memberId: "mem_x", sessionId: "ses_x" }) as AuthContext["actor"],
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
  // declaration the pipeline runs (REPORT_ACCESS) with a session whose member lacks only them.
  test("draft: no reports:create → INSUFFICIENT_PERMISSION reports:create; no pii:view → INSUFFICIENT_PERMISSION pii:view; both → reports:create", () => {
    const draft = REPORT_ACCESS.draft as ScopedAccess;
    expect(refusal(draft, {})).toBeNull();
    expect(refusal(draft, { permissions: ["reports:create"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "reports:create" } });
    expect(refusal(draft, { permissions: ["pii:view"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "pii:view" } });
    expect(refusal(draft, { permissions: ["pii:view", "reports:create"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "reports:create" } });
    expect(refusal(draft, { permissions: ["strs:update", "pii:view"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "strs:update" } });
    // A session's scopes are not looked at: the role decides.
    expect(refusal(draft, { scopes: ["reports:read", "strs:read", "strs:write"] })).toBeNull();
    expect(refusal(draft, { scopes: ["reports:read"], permissions: ["pii:view"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "pii:view" } });
    // An API key is refused before anything else, whatever else it has or lacks.
    expect(refusal(draft, { apiKey: true })).toEqual({ code: "OFFICER_SESSION_REQUIRED", details: undefined });
    expect(refusal(draft, { apiKey: true, scopes: ["reports:read"], permissions: ["strs:update", "pii:view"] })).toEqual({ code: "OFFICER_SESSION_REQUIRED", details: undefined });
  });

  test("edit needs pii:view but not reports:create; submit, approve and file need only strs:update; every one refuses an API key first", () => {
    const edit = REPORT_ACCESS.edit as ScopedAccess;
    expect(refusal(edit, { permissions: ["reports:create"] })).toBeNull();
    expect(refusal(edit, { permissions: ["pii:view"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "pii:view" } });
    expect(refusal(edit, { apiKey: true, permissions: ["pii:view"] })).toEqual({ code: "OFFICER_SESSION_REQUIRED", details: undefined });
    for (const action of ["submit", "approve", "file"] as const) {
      const a = REPORT_ACCESS[action] as ScopedAccess;
      expect(refusal(a, { permissions: ["reports:create", "pii:view"] })).toBeNull();
      expect(refusal(a, { permissions: ["strs:update"] })).toEqual({ code: "INSUFFICIENT_PERMISSION", details: { permission: "strs:update" } });
      expect(refusal(a, { apiKey: true })).toEqual({ code: "OFFICER_SESSION_REQUIRED", details: undefined });
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

  test("each write route: a member's session in its security requirement; x-requirements with each refusal, the officer rule first; a sentence in the description", () => {
    for (const w of WRITES) {
      const op = doc.paths[w.doc][w.method.toLowerCase()];
      expect({ route: w.doc, security: op.security, officer: op["x-officer-session-required"] }).toEqual({ route: w.doc, security: [{ Session: [] }], officer: true });
      expect({ route: w.doc, requirements: op["x-requirements"] }).toEqual({
        route: w.doc,
        requirements: [
          // No scope: a key is refused before them and a session carries none (its member's role decides).
          { officer: "member session", refusal: "OFFICER_SESSION_REQUIRED" },
          ...expected[w.action].map((p) => ({ permission: p, refusal: "INSUFFICIENT_PERMISSION" })),
        ],
      });
      expect(op.description).toStartWith("Needs, checked in this order (the first missing one is refused): a member's console session, never an API key (else OFFICER_SESSION_REQUIRED); then ");
      expect(op.description).not.toContain("INSUFFICIENT_SCOPE");
      expect(op.description).toContain(`${expected[w.action][0]} (else INSUFFICIENT_PERMISSION)`);
      const codes403 = op.responses["403"].content["application/json"].schema.allOf[1].properties.code.enum;
      expect(codes403).toEqual(expect.arrayContaining(["OFFICER_SESSION_REQUIRED", "INSUFFICIENT_PERMISSION"]));
      expect(codes403).not.toContain("INSUFFICIENT_SCOPE");
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
