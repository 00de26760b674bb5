// Hardening end to end, each against a real server on loopback: deep JSON refused by the one body reader on every
// write route and on the provider_a and provider_b callbacks; a malformed Host is 400 without a log line; list cursors
// bound to company, environment and list; per-key and per-environment event-stream caps; provider_b's source
// allowlist against the connection's address (CF-Connecting-IP only from a trusted proxy); budgets charged only by
// accepted callbacks; names with no visible character refused.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { connect } from "node:net";
import { tempDir } from "../support/tmp.ts";
import { closedLoopbackOrigin, runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess, withMember } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { CARAVAN, newWebhookSecret } from "../support/provider_a.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "hard.db");
const DOMAIN = "caravan.test";
let S: ChildServer;
const { cli, newKey, newSession, call } = apiClient(db, () => S.url);
/** The owner's console sessions (test, live): the routes that are a member's, not a key's, are tried with them. */
let ownerSession: string, ownerLiveSession: string;
const acme = `acme.${DOMAIN}`;
const other = `other.${DOMAIN}`;
let owner: string;
let ownerLive: string;
let second: string;
let otherOwner: string;
let providerA: string;
let providerB: string;

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
/** The two shapes found by probing: 2 MB of nested arrays (37 × 28,000 deep), and a 32,000-deep array in 64 KB of `metadata`. */
const TWO_MB = Array.from({ length: 37 }, () => nested(28_000)).join("");
const DEEP_METADATA = `{"name":"Deep","metadata":${nested(32_000)}}`;

const rows = (table: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    d.close();
  }
};

async function post(path: string, body: string, headers: Record<string, string> = {}, method = "POST", base = S.url) {
  const res = await fetch(base + path, { method, headers: { host: acme, "content-type": "application/json", ...headers }, body });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: json, text, headers: res.headers };
}

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  await cli("companies", "create", "--slug", "acme");
  await cli("companies", "create", "--slug", "other");
  const k = await newKey("--env", "test", "--role", "owner", "--company", "acme");
  owner = k.key;
  ownerLive = (await newKey("--env", "live", "--role", "owner", "--company", "acme", "--member", k.memberEmail)).key;
  second = (await newKey("--env", "test", "--role", "owner", "--company", "acme", "--member", k.memberEmail)).key;
  otherOwner = (await newKey("--env", "test", "--role", "owner", "--company", "other")).key;
  const nowhere = await closedLoopbackOrigin();
  S = await startServer({
    CARAVAN_DB: db,
    CARAVAN_APP_DOMAIN: DOMAIN,
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    CARAVAN_PROVIDER_A_AUTH_URL: nowhere,
    CARAVAN_PROVIDER_A_API_ORIGINS: nowhere,
    PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    CARAVAN_STREAM_MAX_PER_KEY: "2",
    CARAVAN_STREAM_MAX_PER_ENVIRONMENT: "3",
    CARAVAN_STREAM_MAX_PER_COMPANY: "5",
  });
  // provider_a and provider_b saved and on, so that callbacks reach the body reader.
  const a = { apiUrl: nowhere, clientId: "caravan-client", clientSecret: "s3cret", vaspDid: CARAVAN, webhookSecret: newWebhookSecret() };
  const b = { apiUrl: nowhere, vaspEntityId: "CARAVAN-1", privateKey: randomSeedBase64(), legalName: "Caravan Test VASP", country: "NL" };
  for (const [name, credentials] of [["provider_a", a], ["provider_b", b]] as const) {
    for (const key of [owner, ownerLive]) expect((await call(`/api/v2/providers/${name}`, { method: "PUT", key, host: acme, json: { credentials } })).status).toBe(201);
    expect((await call(`/api/v2/providers/${name}`, { method: "PATCH", key: ownerLive, host: acme, json: { enabled: true } })).status).toBe(200);
  }
  const signedIn = await newSession({ email: k.memberEmail }, "test", { host: acme, company: "acme" });
  ownerSession = signedIn.token;
  ownerLiveSession = await signedIn.login("live");
  const idOf = async (name: string, at: number) => (await call(`/api/v2/providers/${name}`, { key: owner, host: acme })).body.data.callbackPaths[0].path.split("/")[at];
  providerA = await idOf("provider_a", 6);
  providerB = await idOf("provider_b", 7);
  expect(providerA).toMatch(/^prv_/);
  expect(providerB).toMatch(/^prv_/);
});

afterAll(async () => {
  await S?.stop();
});

describe("deep JSON: refused by the body reader, before anything else reads it", () => {
  test("every write route: a 32,000-deep array in 64 KB → 400 INVALID_JSON naming the limit; 2 MB of nesting → 413 BODY_TOO_LARGE; nothing stored", async () => {
    const doc = (await call("/api/v2/openapi.json", { host: acme })).body;
    const writes: [string, string][] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
      for (const m of ["post", "put", "patch"]) if (ops[m] && path.startsWith("/api/v2/")) writes.push([m.toUpperCase(), path.replace(/\{[^}]+\}/g, "x_0")]);
    expect(writes.length).toBeGreaterThanOrEqual(20);
    const before = { customers: rows("customers"), audit: rows("audit_log") };
    for (const [method, path] of writes) {
      // Changes only a live key may make (thresholds, provider switches) are tried with the live key.
      let auth: Record<string, string> = { "x-api-key": owner };
      let deep = await post(path, DEEP_METADATA, auth, method);
      if (deep.body?.code === "LIVE_KEY_REQUIRED") deep = await post(path, DEEP_METADATA, (auth = { "x-api-key": ownerLive }), method);
      // An officer's route (filing, promoting, keys, members) takes the owner's session instead of a key.
      if (deep.body?.code === "OFFICER_SESSION_REQUIRED") deep = await post(path, DEEP_METADATA, (auth = { authorization: `Bearer ${ownerSession}` }), method);
      if (deep.body?.code === "LIVE_KEY_REQUIRED") deep = await post(path, DEEP_METADATA, (auth = { authorization: `Bearer ${ownerLiveSession}` }), method);
      expect({ method, path, status: deep.status, code: deep.body?.code }).toEqual({ method, path, status: 400, code: "INVALID_JSON" });
      expect(deep.body.error).toContain("deeper than 32 levels");
      const big = await post(path, TWO_MB, auth, method);
      expect({ method, path, status: big.status, code: big.body?.code }).toEqual({ method, path, status: 413, code: "BODY_TOO_LARGE" });
    }
    expect({ customers: rows("customers"), audit: rows("audit_log") }).toEqual(before);
    // Within the limit the same route stores: the refusal was the depth, not the route.
    const fine = await post("/api/v2/customers", `{"name":"Shallow","metadata":{"a":${nested(20).replace("[]", "[1]")}}}`, { "x-api-key": owner });
    expect(fine.status).toBe(201);
  });

  test("provider_a callback: a deep body is 400 Invalid JSON before the signature is looked at (unsigned, not 401); 2 MB → 413", async () => {
    const path = `/api/system/trp/provider_a/test/${providerA}`;
    expect(await post(path, DEEP_METADATA)).toMatchObject({ status: 400, body: { error: "Invalid JSON" } });
    expect(await post(path, TWO_MB)).toMatchObject({ status: 413, body: { error: "Body too large" } });
    // The same unsigned call with a shallow body reaches the signature check.
    expect(await post(path, "{}")).toMatchObject({ status: 401, body: { error: "Invalid signature" } });
  });

  test("provider_b callbacks: a deep body is 422 MISSING_REQUIRED_MSG_FIELD (not JSON we read), before any payload is opened; 2 MB → 413", async () => {
    const sender = { "X-Request-Origin": "code:kimchi-exchange", "X-Code-Req-PubKey": publicKeyBase64(randomSeedBase64()) };
    for (const [method, endpoint] of [["POST", "v1/beneficiary/transfer"], ["POST", "v1/beneficiary/VerifyAddress"], ["PUT", "v1/verification/tx"], ["POST", "v1/beneficiary/transfer/txid"], ["PUT", "v1/vasp/transfer/status"]] as const) {
      const path = `/api/system/trp/provider_b/test/connections/${providerB}/${endpoint}`;
      expect({ endpoint, ...(await post(path, DEEP_METADATA, sender, method)) }).toMatchObject({ endpoint, status: 422, body: { errorType: "MISSING_REQUIRED_MSG_FIELD" } });
      expect({ endpoint, ...(await post(path, TWO_MB, sender, method)) }).toMatchObject({ endpoint, status: 413, body: { errorType: "MESSAGE_TOO_LARGE" } });
    }
  });
});

describe("a malformed Host header", () => {
  test.each(["exa mple", "[::1", "a b.caravan.test", ""])("Host %p → 400 VALIDATION_ERROR on API routes and /healthz, 404 on callbacks; nothing logged", async (host) => {
    const raw = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const port = Number(new URL(S.url).port);
        const c = connect(port, "127.0.0.1", () => c.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${owner}\r\nConnection: close\r\n\r\n`));
        let d = "";
        c.on("data", (b) => (d += b));
        c.on("end", () => resolve(d));
        c.on("error", reject);
      });
    for (const path of ["/api/v2/customers", "/healthz", "/api/v2/nowhere"]) {
      const res = await raw(path);
      expect(res.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
      const body = JSON.parse(res.slice(res.indexOf("\r\n\r\n") + 4));
      expect(body.code).toBe("VALIDATION_ERROR");
      expect(body.error).toContain("Host");
      expect(res).not.toMatch(/at .*\.ts:\d+|stack|TypeError/);
    }
    expect((await raw(`/api/system/trp/provider_a/test/${providerA}`)).split("\r\n")[0]).toBe("HTTP/1.1 404 Not Found");
    expect(S.output()).not.toContain("unexpected error");
    expect(S.output()).not.toContain("Invalid URL");
  });
});

describe("list cursors are bound to their company, environment and list", () => {
  test("a cursor continues its own list only: another company, environment or list refuses it with 400 INVALID_CURSOR", async () => {
    for (const name of ["Ann", "Ben", "Cai"]) expect((await call("/api/v2/customers", { method: "POST", key: owner, host: acme, json: { name } })).status).toBe(201);
    for (const name of ["Dee", "Eve"]) expect((await call("/api/v2/customers", { method: "POST", key: otherOwner, host: other, json: { name } })).status).toBe(201);
    const first = await call("/api/v2/customers?limit=1", { key: owner, host: acme });
    const cursor = first.body.meta.cursor as string;
    expect(cursor).toBeString();
    // Its own list: the next page.
    const next = await call(`/api/v2/customers?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: owner, host: acme });
    expect(next.status).toBe(200);
    expect(next.body.data[0].id).not.toBe(first.body.data[0].id);
    // The same key's other environment, another company's list, another list of the same company.
    for (const [key, host, path] of [
      [ownerLive, acme, "/api/v2/customers"],
      [otherOwner, other, "/api/v2/customers"],
      [owner, acme, "/api/v2/wallets"],
      [owner, acme, "/api/v2/transfers"],
    ] as const) {
      const r = await call(`${path}?limit=1&cursor=${encodeURIComponent(cursor)}`, { key, host });
      expect({ path, host, status: r.status, code: r.body.code }).toEqual({ path, host, status: 400, code: "INVALID_CURSOR" });
    }
  });
});

describe("event-stream caps under the company's", () => {
  test("a key at most 2 (here), an environment at most 3, the company at most 5: 429 RATE_LIMITED with Retry-After, closing frees a place", async () => {
    const open: AbortController[] = [];
    // The open streams' responses are kept until the end: a response nobody holds can be collected, and collecting it
    // closes its connection, which frees its place early (seen once on a loaded machine).
    const held: Response[] = [];
    const openStream = async (key: string) => {
      const ac = new AbortController();
      const res = await fetch(`${S.url}/api/v2/events/stream`, { headers: { "x-api-key": key, host: acme }, signal: ac.signal });
      if (res.status === 200) {
        open.push(ac);
        held.push(res);
      }
      else await res.body?.cancel();
      return res;
    };
    try {
      expect((await openStream(owner)).status).toBe(200);
      expect((await openStream(owner)).status).toBe(200);
      const perKey = await openStream(owner);
      expect(perKey.status).toBe(429);
      expect(perKey.headers.get("retry-after")).toMatch(/^\d+$/);
      // Another key of the same environment still gets one, up to the environment's 3.
      expect((await openStream(second)).status).toBe(200);
      const perEnv = await openStream(second);
      expect(perEnv.status).toBe(429);
      // The live environment is not held by the test environment's streams.
      expect((await openStream(ownerLive)).status).toBe(200);
      // Closing one frees its place for its key.
      open.shift()!.abort();
      let again = 0;
      for (let i = 0; i < 100 && again !== 200; i++) {
        await Bun.sleep(50);
        again = (await openStream(owner)).status;
      }
      expect(again).toBe(200);
    } finally {
      for (const ac of open) ac.abort();
      held.length = 0;
    }
  });

  test("the defaults: 100 per key, 400 per environment, 500 per company", async () => {
    const { streamSettings } = await import("../../src/domain/events.ts");
    expect(streamSettings({})).toMatchObject({ maxPerKey: 100, maxPerEnvironment: 400, maxPerCompany: 500 });
  });
});

describe("names with no visible character", () => {
  test.each([
    ["zero-width spaces", "\u200b\u200b"],
    ["bidi controls", "\u202e\u2066\u2069"],
    ["a BOM and a soft hyphen", "\ufeff\u00ad"],
    ["a Hangul filler", "\u3164"],
    ["no-break and ideographic spaces", "\u00a0\u3000"],
  ])("a rule named with only %s → 422 VALIDATION_ERROR on name", async (_n, name) => {
    const r = await call("/api/v2/rules", { method: "POST", key: owner, host: acme, json: { name, category: "sanctions", action: "hold", stage: "pre_transfer" } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(r.body.details)).toContain('"path":"name"');
  });
});

describe("provider_b's source address and the company budget (other servers)", () => {
  const extra: ChildServer[] = [];
  afterAll(async () => {
    for (const s of extra) await s.stop();
  });
  const health = (base: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/system/trp/provider_b/test/connections/prv_00000000000000000000000000/v1/vasp/health`, { headers });

  test("from 127.0.0.1 with the allowlist 203.0.113.7: a forged CF-Connecting-IP is 403 and not counted; provider_a calls without a valid signature are not counted either", async () => {
    const budgetDb = join(dir, "budget.db");
    expect((await runCliInProcess(["migrate"], { CARAVAN_DB: budgetDb })).code).toBe(0);
    const key = JSON.parse((await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "owner"], { CARAVAN_DB: budgetDb })), "--json"], { CARAVAN_DB: budgetDb })).stdout.trim().split("\n").at(-1)!).key as string;
    const live = JSON.parse((await runCliInProcess(["keys", "create", ...(await withMember(["--env", "live", "--role", "owner"], { CARAVAN_DB: budgetDb })), "--json"], { CARAVAN_DB: budgetDb })).stdout.trim().split("\n").at(-1)!).key as string;
    const nowhere = await closedLoopbackOrigin();
    const s = await startServer({
      CARAVAN_DB: budgetDb,
      PROVIDER_B_ALLOWED_IPS: "203.0.113.7",
      CARAVAN_RATE_LIMITS: "company=7/3600",
      CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
      CARAVAN_PROVIDER_A_AUTH_URL: nowhere,
      CARAVAN_PROVIDER_A_API_ORIGINS: nowhere,
    });
    extra.push(s);
    // provider_a saved and on: four requests of the budget of 7.
    const api = (path: string, method: string, k: string, body?: unknown) =>
      fetch(s.url + path, { method, headers: { "x-api-key": k, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const credentials = { apiUrl: nowhere, clientId: "caravan-client", clientSecret: "s3cret", vaspDid: CARAVAN, webhookSecret: newWebhookSecret() };
    for (const k of [key, live]) expect((await api("/api/v2/providers/provider_a", "PUT", k, { credentials })).status).toBe(201);
    expect((await api("/api/v2/providers/provider_a", "PATCH", live, { enabled: true })).status).toBe(200);
    const aId = (await (await api("/api/v2/providers/provider_a", "GET", key)).json()).data.callbackPaths[0].path.split("/")[6];
    for (const headers of [{}, { "CF-Connecting-IP": "203.0.113.7" }, { "X-Forwarded-For": "203.0.113.7" }] as Record<string, string>[]) {
      const r = await health(s.url, headers);
      expect(r.status).toBe(403);
      expect(await r.json()).toEqual({ errorType: "FORBIDDEN" });
    }
    for (let i = 0; i < 20; i++) expect((await health(s.url, { "CF-Connecting-IP": "203.0.113.7" })).status).toBe(403);
    // provider_a: no such provider (503) or no valid signature (401): refused, not accepted, so not charged.
    for (let i = 0; i < 20; i++) {
      expect((await fetch(`${s.url}/api/system/trp/provider_a/test/not-a-provider`, { method: "POST", body: "{}" })).status).toBe(503);
      const unsigned = await fetch(`${s.url}/api/system/trp/provider_a/test/${aId}`, { method: "POST", body: "{}" });
      expect(unsigned.status).toBe(401);
      const forged = await fetch(`${s.url}/api/system/trp/provider_a/test/${aId}`, {
        method: "POST",
        body: "{}",
        headers: { "svix-id": `msg_${i}`, "svix-timestamp": String(Math.floor(Date.now() / 1000)), "svix-signature": "v1,bm90IGEgc2lnbmF0dXJl" },
      });
      expect(forged.status).toBe(401);
    }
    // The company's own key still has the rest of its budget (3 of 7).
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/api/v2/customers`, { headers: { "x-api-key": key } })).status).toBe(200);
    expect((await fetch(`${s.url}/api/v2/customers`, { headers: { "x-api-key": key } })).status).toBe(429);
  });

  test("with 127.0.0.1 a trusted proxy, its CF-Connecting-IP is honoured (past the source check), and only its", async () => {
    const s = await startServer({ CARAVAN_DB: join(dir, "trusted.db"), PROVIDER_B_ALLOWED_IPS: "203.0.113.7", CARAVAN_TRUSTED_PROXIES: "127.0.0.1" });
    extra.push(s);
    // Past the source check, the unknown provider ID answers 503.
    const r = await health(s.url, { "CF-Connecting-IP": "203.0.113.7" });
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ errorType: "VASP_BACKEND_INTERNAL_ERROR" });
    expect((await health(s.url, { "X-Forwarded-For": "198.51.100.1, 203.0.113.7" })).status).toBe(503);
    for (const headers of [{}, { "CF-Connecting-IP": "198.51.100.1" }, { "X-Forwarded-For": "203.0.113.7, 198.51.100.1" }] as Record<string, string>[]) expect((await health(s.url, headers)).status).toBe(403);
  });
});
