// Property: random JSON bodies, query strings and IDs at every customer, wallet, VASP and asset route never give a 5xx,
// and every answer is a well-formed envelope (Part 1, Conventions and Errors); and hardening shapes (deep, large,
// invisible, not UTF-8) at every write route and every provider callback give no 500, no stack trace, no secret.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import fc from "fast-check";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { closedLoopbackOrigin, runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess, withMember } from "../support/cli.ts";
import { readFileSync } from "node:fs";
import { PROVIDER_B_CALLBACKS } from "../../src/domain/provider_b/endpoints.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "fuzz.db");
let server: ChildServer;
let key: string;
let customerId: string;
let walletId: string;
let transferId: string;

interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: (id: string) => string;
  idKind?: "cus" | "wal" | "trf";
  params: string[];
  fields: string[];
}

const ROUTES: Route[] = [
  { method: "GET", path: () => "/api/v2/customers", params: ["includeDeactivated", "search", "limit", "cursor"], fields: [] },
  { method: "POST", path: () => "/api/v2/customers", params: [], fields: ["externalId", "name", "metadata"] },
  { method: "POST", path: (id) => `/api/v2/customers/${id}/deactivate`, idKind: "cus", params: [], fields: ["reason"] },
  { method: "POST", path: (id) => `/api/v2/customers/${id}/reactivate`, idKind: "cus", params: [], fields: [] },
  { method: "POST", path: (id) => `/api/v2/customers/${id}/erase`, idKind: "cus", params: [], fields: ["reason"] },
  { method: "PUT", path: (id) => `/api/v2/customers/${id}/travel-rule-identity`, idKind: "cus", params: [], fields: ["status", "persons"] },
  { method: "GET", path: () => "/api/v2/wallets", params: ["network", "verified", "customerId", "search", "limit", "cursor"], fields: [] },
  { method: "POST", path: () => "/api/v2/wallets", params: [], fields: ["address", "network", "customerId", "label"] },
  { method: "GET", path: (id) => `/api/v2/wallets/${id}`, idKind: "wal", params: [], fields: [] },
  { method: "PATCH", path: (id) => `/api/v2/wallets/${id}`, idKind: "wal", params: [], fields: ["label", "address"] },
  { method: "DELETE", path: (id) => `/api/v2/wallets/${id}`, idKind: "wal", params: [], fields: [] },
  { method: "POST", path: () => "/api/v2/wallets/verify", params: [], fields: ["address", "network"] },
  { method: "GET", path: () => "/api/v2/vasps/search", params: ["q", "limit", "cursor"], fields: [] },
  { method: "GET", path: () => "/api/v2/assets", params: ["q", "network", "assetId", "limit", "offset"], fields: [] },
  { method: "GET", path: () => "/api/v2/transfers", params: ["direction", "state", "status", "complianceStatus", "protocol", "search", "limit", "cursor"], fields: [] },
  {
    method: "POST",
    path: () => "/api/v2/transfers",
    params: [],
    fields: ["asset", "amount", "network", "originatorCustomerId", "originatorAddress", "beneficiaryAddress", "originator", "beneficiary", "preferredProtocol", "isUnhostedWallet", "beneficiaryVaspId"],
  },
  { method: "GET", path: (id) => `/api/v2/transfers/${id}`, idKind: "trf", params: ["checksLimit", "checksOffset"], fields: [] },
  { method: "PATCH", path: (id) => `/api/v2/transfers/${id}`, idKind: "trf", params: [], fields: ["action", "txHash", "status", "reason", "details"] },
];

const NETWORKS = ["bitcoin", "ethereum", "ripple", "stellar", "eth", ""];

/** Values that break parsers: odd numbers, long and unicode text, nested structures. */
const nasty = fc.oneof(
  fc.jsonValue(),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.constantFrom("", " ", "null", "-1", "0", "1e309", "NaN", "\u0000", "\u202e", "💥".repeat(200), "x".repeat(5000), "cus_" + "0".repeat(26)),
  fc.constantFrom(...NETWORKS),
  fc.integer(),
  fc.double(),
);

function bodyFor(route: Route) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.record(Object.fromEntries(route.fields.map((f) => [f, nasty])), { requiredKeys: [] }).map((o) => JSON.stringify(o)) },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant("") },
  );
}

function queryFor(route: Route) {
  const name = fc.oneof(fc.constantFrom(...(route.params.length ? route.params : ["x"])), fc.string({ maxLength: 10 }));
  const value = fc.oneof(fc.string({ unit: "binary", maxLength: 120 }), fc.integer().map(String), fc.constantFrom("true", "false", "", "0", "101", "201", "99999999999999999999", "a".repeat(201)));
  return fc.array(fc.tuple(name, value), { maxLength: 4 }).map((pairs) => {
    const p = new URLSearchParams();
    for (const [k, v] of pairs) p.append(k, v);
    const s = p.toString();
    return s ? `?${s}` : "";
  });
}

function idFor(route: Route) {
  const known = route.idKind === "cus" ? fc.constant(() => customerId) : route.idKind === "trf" ? fc.constant(() => transferId) : fc.constant(() => walletId);
  return fc.oneof(
    known.map((f) => f()),
    fc.stringMatching(/^(cus|wal|trf)_[0-9a-z]{26}$/),
    fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
  );
}

function expectEnvelope(status: number, text: string, what: string) {
  expect({ what, status: status < 500 }).toEqual({ what, status: true });
  const body = JSON.parse(text);
  expect(body.meta.apiVersion).toBe(2);
  expect(body.meta.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  if (status >= 400) {
    expect(typeof body.error).toBe("string");
    expect(body.code).toMatch(/^[A-Z_]+$/);
    if (body.details !== undefined) expect(typeof body.details).toBe("object");
  } else {
    expect("data" in body).toBe(true);
  }
}

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const r = await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "owner"], { CARAVAN_DB: db })), "--json"], { CARAVAN_DB: db });
  key = JSON.parse(r.stdout.trim().split("\n").at(-1)!).key;
  server = await startServer({ CARAVAN_DB: db, CARAVAN_RATE_LIMITS: "company=1000000/60,vasp_search=1000000/60" });
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const c = await (await fetch(`${server.url}/api/v2/customers`, { method: "POST", headers, body: JSON.stringify({ name: "Fuzz Target" }) })).json();
  customerId = c.data.id;
  const w = await (
    await fetch(`${server.url}/api/v2/wallets`, {
      method: "POST",
      headers,
      body: JSON.stringify({ customerId, network: "bitcoin", address: "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa" }),
    })
  ).json();
  walletId = w.data.id;
  const t = await (
    await fetch(`${server.url}/api/v2/transfers`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        asset: "BTC",
        amount: "0.0001",
        network: "bitcoin",
        originatorCustomerId: customerId,
        beneficiaryAddress: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Target", secondaryIdentifier: "Fuzz", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
      }),
    })
  ).json();
  transferId = t.data.id;
  expect(transferId).toMatch(/^trf_[0-9a-z]{26}$/);
});

afterAll(async () => {
  await server?.stop();
});

for (const route of ROUTES) {
  test(`${route.method} ${route.path(":id")}: random bodies, queries and IDs never give a 5xx and always a well-formed envelope`, async () => {
    await fc.assert(
      fc.asyncProperty(bodyFor(route), queryFor(route), idFor(route), async (body, query, id) => {
        const url = server.url + route.path(id) + query;
        const hasBody = route.method !== "GET" && route.method !== "DELETE";
        const res = await fetch(url, { method: route.method, headers: { "x-api-key": key, "content-type": "application/json" }, body: hasBody ? body : undefined });
        expectEnvelope(res.status, await res.text(), `${route.method} ${url} ${hasBody ? body.slice(0, 200) : ""}`);
      }),
      { numRuns: 100 },
    );
  }, 120_000);
}

// ---------------------------------------------------------------------------------------------------------------
// Hardening shapes at every write route and every provider callback (a server of its own, providers saved and on):
// deep nesting around and far past the 32-level limit, large bodies, invisible and bidi text, NUL escapes, brackets
// inside strings, prototype keys, bytes that are not UTF-8. Bounded in count and time. Never a 500 (callbacks answer
// 503 only with their refusal bodies), never a stack trace, never a secret.

const hard = { dir: tempDir(), server: undefined as ChildServer | undefined, key: "", liveKey: "", secrets: [] as string[], writes: [] as [string, string][] };
const hardDb = join(hard.dir, "fuzz-hard.db");

const nest = (depth: number, open = "[", close = "]") => open.repeat(depth) + close.repeat(depth);
const objNest = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

/** Bodies that once stalled, crashed or slipped past checks elsewhere. */
const hardBody = fc.oneof(
  fc.integer({ min: 30, max: 40 }).map((d) => nest(d)),
  fc.integer({ min: 30, max: 40 }).map((d) => objNest(d)),
  fc.integer({ min: 1_000, max: 32_000 }).map((d) => `{"name":"x","metadata":${nest(d)}}`),
  fc.constant(Array.from({ length: 37 }, () => nest(28_000)).join("")),
  fc.constantFrom("\u200b", "\u202e\u2066", "\ufeff", "\u3164", "\u0000", "\u00ad").map((s) => JSON.stringify({ name: s, title: s, label: s, reason: s, note: s })),
  fc.string({ maxLength: 50 }).map((s) => JSON.stringify({ name: "[[[[{{{{" + s, metadata: { "__proto__": { polluted: true }, constructor: { prototype: { x: 1 } } } })),
  fc.constant('{"a":1,"a":2,"__proto__":{"isAdmin":true}}'),
  fc.constant("\"" + "\\\\".repeat(1000) + "[".repeat(100) + "\""),
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => new Uint8Array([0x7b, 0xff, 0xfe, ...b, 0x7d])),
  fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify(v)),
);

function hardAnswer(status: number, text: string, what: string, callback: boolean) {
  // No internal error: the API answers < 500; callbacks may answer 503 only with their documented refusal bodies.
  if (callback && status === 503) {
    // A refusal body of the provider's own shape: short codes or phrases, nothing else.
    const body = JSON.parse(text) as Record<string, unknown>;
    const shape = Object.entries(body).every(([k, v]) => ["error", "errorType", "code"].includes(k) && typeof v === "string" && v.length <= 100);
    expect({ what, body, shape }).toMatchObject({ what, shape: true });
  } else expect({ what, status: status < 500 }).toEqual({ what, status: true });
  expect(status).not.toBe(500);
  expect({ what, stack: /\n\s+at |\.ts:\d+|node_modules|SyntaxError|TypeError|RangeError/.test(text) }).toEqual({ what, stack: false });
  for (const s of hard.secrets) expect({ what, leaked: text.includes(s) }).toEqual({ what, leaked: false });
}

describe("hardening shapes", () => {
  beforeAll(async () => {
    expect((await runCliInProcess(["migrate"], { CARAVAN_DB: hardDb })).code).toBe(0);
    const k = JSON.parse((await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "owner"], { CARAVAN_DB: hardDb })), "--json"], { CARAVAN_DB: hardDb })).stdout.trim().split("\n").at(-1)!);
    hard.key = k.key;
    hard.liveKey = JSON.parse((await runCliInProcess(["keys", "create", "--env", "live", "--role", "owner", "--member", k.memberEmail, "--json"], { CARAVAN_DB: hardDb })).stdout.trim().split("\n").at(-1)!).key;
    const nowhere = await closedLoopbackOrigin();
    hard.server = await startServer({
      CARAVAN_DB: hardDb,
      CARAVAN_RATE_LIMITS: "company=1000000/60,vasp_search=1000000/60",
      CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
      CARAVAN_PROVIDER_A_AUTH_URL: nowhere,
      CARAVAN_PROVIDER_A_API_ORIGINS: nowhere,
      PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    });
    const webhookSecret = "whsec_" + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
    const seed = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
    const creds = {
      provider_a: { apiUrl: nowhere, clientId: "fuzz-client", clientSecret: "fuzz-client-secret-9f8e7d", vaspDid: "did:web:caravan.example", webhookSecret },
      provider_b: { apiUrl: nowhere, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Fuzz VASP", country: "NL" },
    };
    const api = (path: string, method: string, key: string, body?: unknown) =>
      fetch(hard.server!.url + path, { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    for (const [name, credentials] of Object.entries(creds)) {
      for (const key of [hard.key, hard.liveKey]) expect((await api(`/api/v2/providers/${name}`, "PUT", key, { credentials })).status).toBe(201);
      expect((await api(`/api/v2/providers/${name}`, "PATCH", hard.liveKey, { enabled: true })).status).toBe(200);
    }
    const masterKey = readFileSync(join(hard.dir, "master.key"), "utf8").trim();
    hard.secrets = [hard.key, hard.liveKey, webhookSecret, webhookSecret.slice(6), seed, creds.provider_a.clientSecret, masterKey];
    const doc = await (await fetch(hard.server!.url + "/api/v2/openapi.json")).json();
    const ids: Record<string, string> = {};
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
      for (const m of ["post", "put", "patch"]) if (ops[m] && path.startsWith("/api/v2/")) hard.writes.push([m.toUpperCase(), path.replace(/\{[^}]+\}/g, (p) => (ids[p] ??= "x_0"))]);
    const pa = await (await api("/api/v2/providers/provider_a", "GET", hard.key)).json();
    const pb = await (await api("/api/v2/providers/provider_b", "GET", hard.key)).json();
    const aId = pa.data.callbackPaths[0].path.split("/")[6];
    const bId = pb.data.callbackPaths[0].path.split("/")[7];
    hard.writes.push(["CALLBACK", `POST /api/system/trp/provider_a/test/${aId}`]);
    for (const c of PROVIDER_B_CALLBACKS) if (c.method !== "GET") hard.writes.push(["CALLBACK", `${c.method} /api/system/trp/provider_b/test/connections/${bId}/${c.path}`]);
    for (const e of ["permission-request", "address-validation", "txid", "cancel", "cdd", "permission"]) hard.writes.push(["CALLBACK", `POST /api/system/trp/provider_e/test/prv_00000000000000000000000000/${e}`]);
  });

  afterAll(async () => {
    await hard.server?.stop();
  });

  test("every write route and every callback: no 500, no stack trace, no secret in any answer", async () => {
    expect(hard.writes.filter(([m]) => m !== "CALLBACK").length).toBeGreaterThanOrEqual(20);
    const sender = { "X-Request-Origin": "code:fuzz-vasp", "X-Code-Req-PubKey": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=" };
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...hard.writes), hardBody, async ([kind, where], body) => {
        const callback = kind === "CALLBACK";
        const [method, path] = callback ? where.split(" ") : [kind, where];
        const headers: Record<string, string> = callback ? { "content-type": "application/json", ...sender } : { "x-api-key": hard.key, "content-type": "application/json" };
        const res = await fetch(hard.server!.url + path, { method, headers, body });
        sent++;
        hardAnswer(res.status, await res.text(), `${method} ${path} ${typeof body === "string" ? body.slice(0, 80) : "<bytes>"}`, callback);
      }),
      { numRuns: 300, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: false },
    );
    expect(sent).toBeGreaterThan(0);
    // The server is still answering its health check at once after the run.
    expect((await fetch(hard.server!.url + "/healthz")).status).toBe(200);
    expect(hard.server!.output()).not.toContain("unexpected error");
  }, 150_000);
});
