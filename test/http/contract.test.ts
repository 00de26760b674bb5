// The API contract (src/api/) against the running server: one real answer per resource the console reads (and the
// writes that make them) must match its schema in the contract, with no field the contract does not name, so the
// contract, the OpenAPI document and the console's types cannot drift from what the server answers.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, type Answer } from "../support/api.ts";
import { ErrorEnvelope, ROUTES, apiPaths } from "../../src/api/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "contract.db");
let S: ChildServer;
const { newKey, newSession, call } = apiClient(db, () => S.url);
let owner: string;
let ownerLive: string;
/** The owner's console session: drafting a report is a member's, not a key's. */
let ownerSession: string;
const ids: Record<string, string> = {};

const JANE = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } };

/**
 * Fields the answer has and the schema does not name, by path. An object schema names its properties; a union is
 * read through the branch the value matches; `Unknown` and records take anything.
 */
function unnamed(schema: TSchema, value: unknown, path = "$"): string[] {
  const kind = (schema as unknown as Record<symbol, string>)[Kind];
  if (value === null || typeof value !== "object") return [];
  if (kind === "Union") {
    const branch = (schema.anyOf as TSchema[]).find((b) => Value.Check(b, value));
    return branch ? unnamed(branch, value, path) : [];
  }
  if (kind === "Array" && Array.isArray(value)) return value.flatMap((v, i) => unnamed(schema.items as TSchema, v, `${path}[${i}]`));
  if (kind === "Intersect") return [];
  if (kind === "Object") {
    const props = (schema.properties ?? {}) as Record<string, TSchema>;
    const out: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!(k in props)) out.push(`${path}.${k}`);
      else out.push(...unnamed(props[k], v, `${path}.${k}`));
    }
    return out;
  }
  return [];
}

/** The answer matches the route's contract: status, schema, and no field left unnamed in `data`. */
function conforms(route: string, r: Answer): void {
  const c = ROUTES[route];
  expect(c?.answer).toBeDefined();
  if (r.status !== (c.status ?? 200)) throw new Error(`${route}: expected ${c.status ?? 200}, got ${r.status}: ${r.text}`);
  const errors = [...Value.Errors(c.answer!, r.body)].slice(0, 10).map((e) => `${e.path}: ${e.message} (${JSON.stringify(e.value)?.slice(0, 80)})`);
  expect({ route, errors }).toEqual({ route, errors: [] });
  const data = (c.answer as { properties?: Record<string, TSchema> }).properties?.data;
  const extra = data ? unnamed(data, r.body.data, "data") : unnamed(c.answer!, r.body);
  expect({ route, extra }).toEqual({ route, extra: [] });
}

const get = (path: string, key = owner) => call(path, { key });
const send = (method: string, path: string, json?: unknown, key = owner) => call(path, { method, key, json });

beforeAll(async () => {
  const m = await runCli(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  const made = await newKey("--env", "test", "--role", "owner");
  owner = made.key;
  ownerLive = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2" });
  ownerSession = (await newSession({ email: made.memberEmail })).token;
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

describe("writes answer as the contract says", () => {
  test("POST /customers → 201 Customer; PUT travel-rule-identity accepts a contract SetIdentity body", async () => {
    const r = await send("POST", "/api/v2/customers", { name: "Jane Doe", externalId: "contract-1" });
    ids.customer = r.body.data?.id;
    conforms("POST /api/v2/customers", r);
    expect((await send("PUT", `/api/v2/customers/${ids.customer}/travel-rule-identity`, { status: "verified", persons: [JANE] })).status).toBe(200);
  });

  test("POST /wallets → 201 Wallet", async () => {
    const r = await send("POST", "/api/v2/wallets", { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", network: "ethereum", customerId: ids.customer, label: "Main" });
    ids.wallet = r.body.data?.id;
    conforms("POST /api/v2/wallets", r);
  });

  test("POST /transfers below the threshold → 201 TransferCreated", async () => {
    const r = await send("POST", "/api/v2/transfers", {
      asset: "ETH",
      amount: "0.001",
      network: "ethereum",
      originatorCustomerId: ids.customer,
      beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      originator: { originatorPersons: [JANE] },
    });
    ids.transfer = r.body.data?.id;
    conforms("POST /api/v2/transfers", r);
  });

  test("POST /cases → 201 CaseDetail; POST notes → 201 CaseNote", async () => {
    const r = await send("POST", "/api/v2/cases", { title: "Unusual volume", type: "compliance_review", transferId: ids.transfer });
    ids.case = r.body.data?.id;
    conforms("POST /api/v2/cases", r);
    conforms("POST /api/v2/cases/:id/notes", await send("POST", `/api/v2/cases/${ids.case}/notes`, { content: "Called the customer." }));
  });

  test("POST /rules → 201 RuleDetail", async () => {
    const r = await send("POST", "/api/v2/rules", ROUTES["POST /api/v2/rules"].example);
    ids.rule = r.body.data?.id;
    conforms("POST /api/v2/rules", r);
  });

  test("POST /webhooks → 201 { webhook, secret }", async () => {
    const r = await send("POST", "/api/v2/webhooks", { name: "Ops", url: "http://127.0.0.2:9/hook", events: ["case.resolved"] });
    ids.webhook = r.body.data?.webhook?.id;
    conforms("POST /api/v2/webhooks", r);
    // A test ping leaves one delivery to list (its receiver is not there: the delivery fails, which is fine here).
    expect((await send("POST", `/api/v2/webhooks/${ids.webhook}/test`)).status).toBeLessThan(500);
  });

  test("POST /reports (hand draft) → 201 ReportDrafted", async () => {
    const r = await call("/api/v2/reports", { method: "POST", session: ownerSession, json: { transferId: ids.transfer } });
    ids.report = r.body.data?.id;
    conforms("POST /api/v2/reports", r);
  });
});

describe("reads answer as the contract says (one per resource the console reads)", () => {
  const cases: [string, () => string, string?][] = [
    ["GET /api/v2/me", () => apiPaths.me()],
    ["GET /api/v2/customers", () => apiPaths.customers({ limit: 5 })],
    ["GET /api/v2/customers/:id/overview", () => apiPaths.customerOverview(ids.customer)],
    ["GET /api/v2/wallets", () => "/api/v2/wallets?limit=5"],
    ["GET /api/v2/wallets/:id", () => `/api/v2/wallets/${ids.wallet}`],
    ["GET /api/v2/transfers", () => apiPaths.transfers({ limit: 5 })],
    ["GET /api/v2/transfers/:id", () => apiPaths.transfer(ids.transfer)],
    ["GET /api/v2/transfers/:id/valuation", () => apiPaths.transferValuation(ids.transfer)],
    ["GET /api/v2/cases", () => apiPaths.cases({ limit: 5 })],
    ["GET /api/v2/cases/:id", () => apiPaths.case(ids.case)],
    ["GET /api/v2/cases/:id/notes", () => `${apiPaths.case(ids.case)}/notes`],
    ["GET /api/v2/cases/:id/history", () => `${apiPaths.case(ids.case)}/history`],
    ["GET /api/v2/rules", () => apiPaths.rules({ limit: 5 })],
    ["GET /api/v2/rules/:id", () => apiPaths.rule(ids.rule)],
    ["GET /api/v2/rules/promotable", () => apiPaths.promotableRules({ limit: 5 }), "live"],
    ["GET /api/v2/webhooks", () => apiPaths.webhooks({ limit: 5 })],
    ["GET /api/v2/webhooks/:id", () => apiPaths.webhook(ids.webhook)],
    ["GET /api/v2/webhooks/:id/deliveries", () => apiPaths.deliveries(ids.webhook)],
    ["GET /api/v2/reports", () => apiPaths.reports({ limit: 5 })],
    ["GET /api/v2/reports/:id", () => apiPaths.report(ids.report)],
    ["GET /api/v2/reports/:id/readiness", () => apiPaths.reportReadiness(ids.report)],
    ["GET /api/v2/audit-log", () => apiPaths.auditLog({ limit: 50 })],
    ["GET /api/v2/providers", () => "/api/v2/providers"],
    ["GET /api/v2/integrations", () => "/api/v2/integrations"],
  ];
  for (const [route, path, env] of cases)
    test(`${route} matches the contract`, async () => {
      const r = await get(path(), env === "live" ? ownerLive : owner);
      conforms(route, r);
      if (Array.isArray(r.body.data) && !route.endsWith("promotable")) expect(r.body.data.length).toBeGreaterThan(0);
    });

  test("a refusal is the contract's error envelope", async () => {
    const r = await get("/api/v2/cases/cas_00000000000000000000000000");
    expect(r.status).toBe(404);
    expect(Value.Check(ErrorEnvelope, r.body)).toBe(true);
    expect(r.body.code).toBe("CASE_NOT_FOUND");
  });
});

describe("the contract names only routes the server serves", () => {
  test("every route of the contract is in the OpenAPI document with the same method, its answer schema and its body", async () => {
    const doc = (await call("/api/v2/openapi.json")).body;
    for (const [route, c] of Object.entries(ROUTES)) {
      const [method, path] = route.split(" ");
      const op = doc.paths[path.replace(/:([A-Za-z_]+)/g, "{$1}")]?.[method.toLowerCase()];
      expect({ route, served: op !== undefined }).toEqual({ route, served: true });
      if (c.answer) expect(op.responses[String(c.status ?? 200)].content["application/json"].schema.$ref).toBeUndefined();
      if (c.body) expect(op.requestBody.content["application/json"].example).toBeDefined();
      if (c.body && c.example !== undefined) expect({ route, ok: Value.Check(c.body, c.example) }).toEqual({ route, ok: true });
    }
  });
});
