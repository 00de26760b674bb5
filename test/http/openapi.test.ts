// The OpenAPI document the server serves, as a client author uses it: a standard linter (Redocly's, with the repo's
// redocly.yaml) finds nothing in it, TypeScript types generated from it (openapi-typescript) type-check a small client
// that then runs against the server, and what it says a route needs and answers is what the server does.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { tempDir } from "../support/tmp.ts";
import { repoRoot, runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError } from "../support/api.ts";
import { ROUTES } from "../../src/api/index.ts";
import { ALL_SCOPES } from "../../src/domain/access.ts";
import { generateTypes } from "../../scripts/openapi-types.ts";

// Servers, the linter and the compiler as child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "openapi.db");
let S: ChildServer;
const { newKey, call } = apiClient(db, () => S.url);
let owner: string;
let doc: any;
const JANE = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } };

beforeAll(async () => {
  const m = await runCli(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  owner = (await newKey("--env", "test", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db });
  const r = await fetch(S.url + "/api/v2/openapi.json");
  expect(r.status).toBe(200);
  doc = await r.json();
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

/** Runs `redocly lint` on `document` with the repo's redocly.yaml and lint-ignore file beside it; nothing is fetched. */
async function lint(document: unknown, name: string) {
  const folder = join(dir, name);
  await Bun.write(join(folder, "openapi.json"), JSON.stringify(document, null, 2));
  for (const f of ["redocly.yaml", ".redocly.lint-ignore.yaml"]) copyFileSync(join(repoRoot, f), join(folder, f));
  const proc = Bun.spawn([process.execPath, join(repoRoot, "node_modules/@redocly/cli/bin/cli.js"), "lint", "openapi.json", "--format=json", "--max-problems", "100000"], {
    cwd: folder,
    // No usage data, no update check: the lint reads only the file.
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true", NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  let report: { totals: { errors: number; warnings: number; ignored: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
  try {
    report = JSON.parse(out);
  } catch {
    throw new Error(`redocly printed no JSON report (exit ${code}): ${out}\n${err}`);
  }
  return { code, report, problems: report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`) };
}

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

describe("a standard linter finds nothing", () => {
  test("redocly lint (recommended rules, redocly.yaml): 0 errors, 0 warnings; only the never-succeeding callback's missing 2XX (provider_c; provider_d's is carried now) is ignored", async () => {
    const r = await lint(doc, "served");
    expect(r.problems).toEqual([]);
    expect(r.report.totals).toEqual({ errors: 0, warnings: 0, ignored: 1 });
    expect(r.code).toBe(0);
  });

  test("the same lint fails a document without servers or an operationId (the check can fail)", async () => {
    const broken = structuredClone(doc);
    delete broken.servers;
    delete broken.paths["/api/v2/transfers"].post.operationId;
    const r = await lint(broken, "broken");
    expect(r.code).not.toBe(0);
    expect(r.problems.some((p) => p.startsWith("no-empty-servers"))).toBe(true);
    expect(r.problems.filter((p) => p.startsWith("operation-operationId "))).toEqual(["operation-operationId #/paths/~1api~1v2~1transfers/post/operationId: Operation object should contain `operationId` field."]);
  });

  test("servers, and an operationId on each of the operations, unique and derived from method and path", () => {
    expect(doc.servers[0].url).toBe("/");
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(90);
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === "string" && /^[a-z]+[A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths["/api/v2/transfers"].post.operationId).toBe("postTransfers");
    expect(doc.paths["/api/v2/transfers/{id}/information-requests"].post.operationId).toBe("postTransfersByIdInformationRequests");
  });
});

describe("what each route answers", () => {
  test("POST /api/v2/transfers: 201 completed, 202 queued, 200 idempotent, each with its schema; takes the Idempotency-Key header", () => {
    const op = doc.paths["/api/v2/transfers"].post;
    expect(Object.keys(op.responses).filter((s) => s.startsWith("2")).sort()).toEqual(["200", "201", "202"]);
    for (const s of ["200", "201", "202"]) expect(op.responses[s].content["application/json"].schema.$ref).toBeUndefined();
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }));
    expect(op.responses["503"].content["application/json"].schema.allOf[1].properties.code.enum).toContain("TIMEOUT");
    expect(op.responses["503"].headers["Retry-After"]).toBeDefined();
    expect(op.responses["409"].content["application/json"].schema.allOf[1].properties.code.enum).toContain("CONFLICT");
  });

  test("POST …/information-requests answers 202; thresholds 201; a provider's first save 201, later 200; the PDF download application/pdf", () => {
    expect(Object.keys(doc.paths["/api/v2/transfers/{id}/information-requests"].post.responses).filter((s) => s.startsWith("2"))).toEqual(["202"]);
    expect(Object.keys(doc.paths["/api/v2/thresholds"].post.responses).filter((s) => s.startsWith("2"))).toEqual(["201"]);
    expect(Object.keys(doc.paths["/api/v2/providers/{name}"].put.responses).filter((s) => s.startsWith("2")).sort()).toEqual(["200", "201"]);
    expect(Object.keys(doc.paths["/api/v2/reports/{id}/download"].get.responses["200"].content)).toEqual(["application/pdf"]);
  });

  test("every /api/v2 operation lists its refusals per status with their codes: the pipeline's and its own", () => {
    for (const { path, method, op } of operations()) {
      if (!path.startsWith("/api/v2/") || path === "/api/v2/openapi.json") continue;
      const codes = (s: string) => op.responses[s]?.content["application/json"].schema.allOf[1].properties.code.enum as string[] | undefined;
      // Signing in takes no credential: its one 401 is the refused sign-in. Every other route takes a key or a
      // member's console session (Authorization: Bearer), and a session that ended is 401 SESSION_ENDED.
      const s401 = op["x-authentication"] ? ["SIGN_IN_FAILED"] : ["MISSING_KEY", "INVALID_FORMAT", "KEY_NOT_FOUND", "KEY_REVOKED", "SESSION_ENDED"];
      expect({ path, method, s401: codes("401") }).toEqual({ path, method, s401 });
      expect({ path, method, s500: codes("500") }).toEqual({ path, method, s500: ["INTERNAL_ERROR"] });
      expect({ path, method, has429: codes("429")?.includes("RATE_LIMITED") }).toEqual({ path, method, has429: true });
      if (path.includes("{id}") && method !== "post") expect({ path, method, has404: (codes("404") ?? []).some((c) => c.endsWith("_NOT_FOUND") && c !== "NOT_FOUND") }).toEqual({ path, method, has404: true });
    }
    const patch = doc.paths["/api/v2/transfers/{id}"].patch.responses;
    expect(patch["400"].content["application/json"].schema.allOf[1].properties.code.enum).toEqual(expect.arrayContaining(["MISSING_REQUIRED_FIELD", "INVALID_REQUEST", "INVALID_TRANSFER_STATE", "INVALID_JSON"]));
    expect(doc.paths["/api/v2/rules"].post.responses["422"].content["application/json"].schema.allOf[1].properties.code.enum).toContain("VALIDATION_ERROR");
  });

  test("real answers: a create below the threshold is 201, the same Idempotency-Key again 200, each matching the document's schema; the server logs no undescribed answer", async () => {
    const customer = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
    expect(customer.status).toBe(201);
    const body = { asset: "ETH", amount: "0.001", network: "ethereum", originatorCustomerId: customer.body.data.id, beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", originator: { originatorPersons: [JANE] } };
    const first = await call("/api/v2/transfers", { method: "POST", key: owner, json: body, headers: { "Idempotency-Key": "openapi-test-1" } });
    expect(first.status).toBe(201);
    expect(Value.Check(ROUTES["POST /api/v2/transfers"].answer!, first.body)).toBe(true);
    const again = await call("/api/v2/transfers", { method: "POST", key: owner, json: body, headers: { "Idempotency-Key": "openapi-test-1" } });
    expect(again.status).toBe(200);
    expect(Value.Check(ROUTES["POST /api/v2/transfers"].answers![200]!.answer!, again.body)).toBe(true);
    expect(again.body.data.id).toBe(first.body.data.id);
    expectError(await call("/api/v2/transfers/trf_00000000000000000000000000/information-requests", { method: "POST", key: owner, json: { action: "request" } }), 404, "TRANSFER_NOT_FOUND");
    expect(S.output()).not.toContain("answer not in the OpenAPI description");
  });
});

describe("what each route needs", () => {
  test("each /api/v2 operation with a key: its scopes in security, every requirement with its refusal in x-requirements, scopes first; an officer's operation: a member's session, every key refused first", () => {
    type Req = { scope?: string; permission?: string; officer?: string; refusal: string };
    expect(doc.paths["/api/v2/me"].get["x-scope"]).toBe("any valid key");
    let officers = 0;
    for (const { path, method, op } of operations()) {
      // Skipped: the document itself, signing in (no credential) and the routes any valid credential may call.
      if (!path.startsWith("/api/v2/") || path === "/api/v2/openapi.json" || op["x-authentication"] || op["x-scope"] === "any valid key") continue;
      // One list per alternative (the event stream has two), each paired with its security requirement.
      const lists: Req[][] = Array.isArray(op["x-requirements"]) ? [op["x-requirements"]] : op["x-requirements"].anyOf;
      expect({ path, method, alternatives: lists.length }).toEqual({ path, method, alternatives: op.security.length });
      lists.forEach((whole, i) => {
        // A dashboard power: only a member's console session (the Session scheme); an API key, whatever its scopes,
        // is refused OFFICER_SESSION_REQUIRED before anything else is looked at.
        const officer = whole[0]?.refusal === "OFFICER_SESSION_REQUIRED";
        expect({ path, method, officer }).toEqual({ path, method, officer: op["x-officer-session-required"] === true });
        expect({ path, method, later: whole.slice(1).some((r) => r.refusal === "OFFICER_SESSION_REQUIRED") }).toEqual({ path, method, later: false });
        const list = officer ? whole.slice(1) : whole;
        if (officer) (officers += 1), expect({ path, method, security: op.security[i] }).toEqual({ path, method, security: { Session: [] } });
        // A key's list starts with its scopes; an officer's lists none (a session carries no scopes: the role decides).
        expect({ path, method, first: list[0]?.refusal }).toEqual({ path, method, first: officer ? "INSUFFICIENT_PERMISSION" : "INSUFFICIENT_SCOPE" });
        if (officer) expect({ path, method, scopes: list.filter((r) => r.scope) }).toEqual({ path, method, scopes: [] });
        if (!officer) expect({ path, method, scopes: op.security[i].ApiKey }).toEqual({ path, method, scopes: list.filter((r) => r.scope).map((r) => r.scope) });
        const kinds = list.map((r) => (r.scope ? 0 : r.permission ? 1 : 2));
        expect({ path, method, kinds }).toEqual({ path, method, kinds: [...kinds].sort() });
      });
    }
    // Promoting a rule, the five report steps, keys ×3, members ×3 and replaying dead letters ×2.
    expect(officers).toBe(14);
  });

  test("permissions a handler needs only in some cases are listed with when: case assignment, threshold switch-off, a first save of settings", () => {
    expect(doc.paths["/api/v2/cases/{id}"].patch["x-conditional-requirements"]).toEqual([
      { permission: "cases:assign", when: "the body has assigneeId", refusal: "INSUFFICIENT_PERMISSION" },
      { permission: "cases:update", when: "the body has any other field", refusal: "INSUFFICIENT_PERMISSION" },
    ]);
    expect(doc.paths["/api/v2/cases"].post["x-conditional-requirements"].map((c: { permission: string }) => c.permission)).toEqual(["cases:assign"]);
    expect(doc.paths["/api/v2/thresholds/{id}"].patch["x-conditional-requirements"].map((c: { permission: string }) => c.permission)).toEqual(["thresholds:disable"]);
    expect(doc.paths["/api/v2/providers/{name}"].put["x-conditional-requirements"].map((c: { permission: string }) => c.permission)).toEqual(["providers:create"]);
    expect(doc.paths["/api/v2/integrations/{name}"].put["x-conditional-requirements"].map((c: { permission: string }) => c.permission)).toEqual(["integrations:create"]);
    expect(doc.paths["/api/v2/cases/{id}"].patch.description).toContain("cases:assign when the body has assigneeId");
  });
});

describe("a client generated from the document", () => {
  const gen = join(dir, "client");

  beforeAll(async () => {
    await Bun.write(join(gen, "openapi.json"), JSON.stringify(doc));
    const r = await generateTypes(join(gen, "openapi.json"), join(gen, "api.ts"));
    if (r.code !== 0) throw new Error(`openapi-typescript failed: ${r.output}`);
    writeFileSync(
      join(gen, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", allowImportingTsExtensions: true, lib: ["ES2022", "DOM"], types: [], skipLibCheck: false },
        files: ["client.ts"],
      }),
    );
    // A small client written against the generated types only.
    writeFileSync(
      join(gen, "client.ts"),
      `import type { paths } from "./api.ts";

type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;
type CreateCustomer = paths["/api/v2/customers"]["post"]["requestBody"]["content"]["application/json"];
type Customer = Json<paths["/api/v2/customers"]["post"]["responses"][201]>;
type CreateTransfer = paths["/api/v2/transfers"]["post"]["requestBody"]["content"]["application/json"];
type TransferAnswers = paths["/api/v2/transfers"]["post"]["responses"];
export type Created = Json<TransferAnswers[201]>;
export type Queued = Json<TransferAnswers[202]>;
export type Again = Json<TransferAnswers[200]>;
export type ReportRefusal = Json<paths["/api/v2/reports"]["post"]["responses"][403]>;
export type ReportsRefusal = Json<paths["/api/v2/reports"]["get"]["responses"][403]>;
type Me = Json<paths["/api/v2/me"]["get"]["responses"][200]>;

export class Caravan {
  constructor(private readonly base: string, private readonly key: string) {}

  private async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
    const r = await fetch(this.base + path, { method, headers: { "x-api-key": this.key, "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, json: await r.json() };
  }

  async me(): Promise<Me> {
    return (await this.send("GET", "/api/v2/me")).json as Me;
  }

  async createCustomer(body: CreateCustomer): Promise<Customer> {
    return (await this.send("POST", "/api/v2/customers", body)).json as Customer;
  }

  /** 201 completed, 202 queued or 200 answered again from the key: the status says which. */
  async createTransfer(body: CreateTransfer, idempotencyKey: NonNullable<paths["/api/v2/transfers"]["post"]["parameters"]["header"]>["Idempotency-Key"]): Promise<{ status: 201; answer: Created } | { status: 202; answer: Queued } | { status: 200; answer: Again }> {
    const r = await this.send("POST", "/api/v2/transfers", body, idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {});
    if (r.status === 201) return { status: 201, answer: r.json as Created };
    if (r.status === 202) return { status: 202, answer: r.json as Queued };
    if (r.status === 200) return { status: 200, answer: r.json as Again };
    throw new Error(\`refused: \${r.status}\`);
  }

  async draftReport(transferId: string): Promise<ReportRefusal["code"] | "drafted"> {
    const r = await this.send("POST", "/api/v2/reports", { transferId });
    return r.status === 403 ? (r.json as ReportRefusal).code : "drafted";
  }

  async listReports(): Promise<ReportsRefusal["code"] | "listed"> {
    const r = await this.send("GET", "/api/v2/reports");
    return r.status === 403 ? (r.json as ReportsRefusal).code : "listed";
  }
}

export async function demo(base: string, key: string, narrowKey: string) {
  const c = new Caravan(base, key);
  const me = await c.me();
  const customer = await c.createCustomer({ name: "Jane Doe", externalId: "generated-client-1" });
  const created = await c.createTransfer(
    { asset: "ETH", amount: "0.001", network: "ethereum", originatorCustomerId: customer.data.id, beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } }] } },
    "generated-client-transfer-1",
  );
  const state: string = created.status === 200 ? created.answer.data.state : created.answer.data.state;
  const refusal = await new Caravan(base, narrowKey).listReports();
  // Drafting a report is an officer's: any API key is refused, before its scopes are looked at.
  const draft = await new Caravan(base, key).draftReport(created.answer.data.id);
  return { role: me.data.member.role, customer: customer.data.id, status: created.status, state, refusal, draft };
}
`,
    );
  });

  async function tsc(): Promise<{ code: number; output: string }> {
    const proc = Bun.spawn([join(repoRoot, "node_modules/.bin/tsc"), "-p", join(gen, "tsconfig.json")], { cwd: gen, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, output: out + err };
  }

  test("openapi-typescript's types type-check the client (tsc --strict), and the client runs against the server", async () => {
    const checked = await tsc();
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
    const narrow = (await newKey("--env", "test", "--role", "owner", "--scopes", ALL_SCOPES.filter((s) => s !== "reports:read").join(","))).key;
    const { demo } = await import(join(gen, "client.ts"));
    expect(await demo(S.url, owner, narrow)).toMatchObject({ role: "owner", status: 201, state: "completed", refusal: "INSUFFICIENT_SCOPE", draft: "OFFICER_SESSION_REQUIRED" });
  });

  test("the types refuse what the API refuses: a number as an amount, an unknown refusal code, a missing status", async () => {
    const good = readFileSync(join(gen, "client.ts"), "utf8");
    try {
      writeFileSync(
        join(gen, "client.ts"),
        `${good}
export const wrongAmount: paths["/api/v2/transfers"]["post"]["requestBody"]["content"]["application/json"]["amount"] = 1.25;
export const wrongCode: ReportRefusal["code"] = "NOT_A_CODE";
export type NoSuchStatus = paths["/api/v2/transfers/{id}/information-requests"]["post"]["responses"][200];
`,
      );
      const checked = await tsc();
      expect(checked.code).not.toBe(0);
      // Exactly the three lines added, each for its reason.
      const added = good.split("\n").length + 1;
      expect(checked.output.match(/error TS\d+/g)?.length).toBe(3);
      expect(checked.output).toContain(`client.ts(${added},14): error TS2322: Type 'number' is not assignable to type 'string'`);
      expect(checked.output).toContain(`client.ts(${added + 1},14): error TS2322: Type '"NOT_A_CODE"' is not assignable`);
      expect(checked.output).toContain(`client.ts(${added + 2},`);
      expect(checked.output).toContain("Property '200' does not exist");
    } finally {
      writeFileSync(join(gen, "client.ts"), good);
    }
  });
});
