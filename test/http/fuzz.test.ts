// Property: random JSON bodies, query strings and IDs at every customer, wallet, VASP and asset route never give a 5xx,
// and every answer is a well-formed envelope (Part 1, Conventions and Errors).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import fc from "fast-check";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";

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
  expect((await runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const r = await runCli(["keys", "create", "--env", "test", "--role", "owner", "--json"], { CARAVAN_DB: db });
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
