// Part 1 Conventions, Authentication, Errors, Limits, Versioning: every general status and code, over real HTTP.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { withDb } from "../support/db.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess, withMember } from "../support/cli.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const dbA = join(dir, "a.db");
const dbB = join(dir, "b.db");
let A: ChildServer;
let B: ChildServer;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function cli(db: string, ...args: string[]) {
  const r = await runCliInProcess(args, { CARAVAN_DB: db });
  if (r.code !== 0) throw new Error(`cli ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

async function newKey(db: string, ...args: string[]): Promise<{ key: string; id: string; memberId: string; memberEmail: string }> {
  const out = await cli(db, "keys", "create", ...(await withMember(args, { CARAVAN_DB: db })), "--json");
  return JSON.parse(out.split("\n").at(-1)!);
}

async function call(server: ChildServer, path: string, init: RequestInit & { key?: string; host?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key !== undefined) headers.set("x-api-key", init.key);
  if (init.host) headers.set("host", init.host);
  const res = await fetch(server.url + path, { ...init, headers });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body, text };
}

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
  expect(typeof r.body.error).toBe("string");
  expect(r.body.meta.apiVersion).toBe(2);
  expect(r.body.meta.timestamp).toMatch(ISO_MS);
}

let owner: string;
let ownerLive: string;

beforeAll(async () => {
  await cli(dbA, "migrate");
  owner = (await newKey(dbA, "--env", "test", "--role", "owner")).key;
  ownerLive = (await newKey(dbA, "--env", "live", "--role", "owner")).key;
  A = await startServer({ CARAVAN_DB: dbA });
  await cli(dbB, "migrate");
  for (const slug of ["acme", "globex", "ratey", "broken"]) await cli(dbB, "companies", "create", "--slug", slug);
  B = await startServer({ CARAVAN_DB: dbB, CARAVAN_APP_DOMAIN: "caravan.test", CARAVAN_RATE_LIMITS: "company=8/60" });
});

afterAll(async () => {
  await A?.stop();
  await B?.stop();
});

describe("envelopes", () => {
  test("a list answers {data, meta} with apiVersion 2, an ISO timestamp with milliseconds, cursor, hasMore, total, limit", async () => {
    const r = await call(A, "/api/v2/audit-log", { key: owner });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(r.body.meta.apiVersion).toBe(2);
    expect(r.body.meta.timestamp).toMatch(ISO_MS);
    expect(r.body.meta).toMatchObject({ hasMore: false, limit: 50, cursor: null });
    expect(r.body.meta.total).toBe(r.body.data.length);
    expect(r.headers.get("content-type")).toContain("application/json");
  });

  test("an error answers {error, code, meta} and nothing else when there are no details", async () => {
    const r = await call(A, "/api/v2/nope", { key: owner });
    expectError(r, 404, "NOT_FOUND");
    expect(Object.keys(r.body).sort()).toEqual(["code", "error", "meta"]);
  });
});

describe("general rules", () => {
  test("unknown path → 404 NOT_FOUND (with or without a key)", async () => {
    expectError(await call(A, "/api/v2/unknown/thing"), 404, "NOT_FOUND");
    expectError(await call(A, "/nothing-here", { key: owner }), 404, "NOT_FOUND");
  });

  test("known path with another method → 405 METHOD_NOT_ALLOWED with an Allow header", async () => {
    const r = await call(A, "/api/v2/audit-log", { method: "POST", key: owner, body: "{}" });
    expectError(r, 405, "METHOD_NOT_ALLOWED");
    expect(r.headers.get("allow")).toBe("GET, OPTIONS");
    const d = await call(A, "/api/v2/audit-log/aud_x", { method: "DELETE", key: owner });
    expectError(d, 405, "METHOD_NOT_ALLOWED");
    expect(d.headers.get("allow")).toBe("GET, OPTIONS");
    const h = await call(A, "/api/v2/audit-log", { method: "HEAD", key: owner });
    expect(h.status).toBe(405);
  });

  test("OPTIONS on a known path → 204 with Allow", async () => {
    const r = await call(A, "/api/v2/audit-log", { method: "OPTIONS" });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(r.headers.get("allow")).toBe("GET, OPTIONS");
  });

  test("a NUL character in path or query → 400 VALIDATION_ERROR", async () => {
    expectError(await call(A, "/api/v2/audit-log/aud%00x", { key: owner }), 400, "VALIDATION_ERROR");
    expectError(await call(A, "/api/v2/audit-log?action=a%00b", { key: owner }), 400, "VALIDATION_ERROR");
  });

  test("a body over 65,536 bytes → 413 BODY_TOO_LARGE before it is read; 65,536 bytes is not refused for size", async () => {
    const over = await call(A, "/api/v2/audit-log", { method: "POST", key: owner, body: "x".repeat(65_537), headers: { "content-type": "application/json" } });
    expectError(over, 413, "BODY_TOO_LARGE");
    const exact = await call(A, "/api/v2/audit-log", { method: "POST", key: owner, body: "x".repeat(65_536), headers: { "content-type": "application/json" } });
    expect(exact.status).toBe(405); // routing answers; the size was accepted
  });

  test("on a real route, a body of exactly 65,536 bytes is accepted (201) and 65,537 bytes are 413, streamed or declared", async () => {
    const sized = (n: number) => {
      const body = JSON.stringify({ metadata: { pad: "" } });
      return JSON.stringify({ metadata: { pad: "x".repeat(n - body.length) } });
    };
    expect(sized(65_536).length).toBe(65_536);
    const okRes = await call(A, "/api/v2/customers", { method: "POST", key: owner, body: sized(65_536), headers: { "content-type": "application/json" } });
    expect(okRes.status).toBe(201);
    expectError(await call(A, "/api/v2/customers", { method: "POST", key: owner, body: sized(65_537), headers: { "content-type": "application/json" } }), 413, "BODY_TOO_LARGE");
    // Without a Content-Length the body is counted as it streams in.
    const chunk = new TextEncoder().encode(sized(65_537));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(chunk.slice(0, 40_000));
        c.enqueue(chunk.slice(40_000));
        c.close();
      },
    });
    const res = await fetch(A.url + "/api/v2/customers", { method: "POST", body: stream, headers: { "x-api-key": owner, "content-type": "application/json" }, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).code).toBe("BODY_TOO_LARGE");
  });

  test("a dashboard session cookie on POST/PUT/PATCH/DELETE → 403 CSRF_VALIDATION_FAILED; on GET it is ignored", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const cookie of ["session=abc", "theme=dark; caravan_session=xyz"]) {
        expectError(await call(A, "/api/v2/audit-log", { method, key: owner, headers: { cookie }, body: method === "DELETE" ? undefined : "{}" }), 403, "CSRF_VALIDATION_FAILED");
      }
    }
    expect((await call(A, "/api/v2/audit-log", { key: owner, headers: { cookie: "session=abc" } })).status).toBe(200);
    // Another cookie name is not a dashboard session.
    expect((await call(A, "/api/v2/audit-log", { method: "POST", key: owner, headers: { cookie: "sessionid=1" }, body: "{}" })).status).toBe(405);
  });

  test("unknown query parameters and unreadable values → 400 INVALID_QUERY naming each in details.issues", async () => {
    const r = await call(A, "/api/v2/audit-log?colour=red&limit=0", { key: owner });
    expectError(r, 400, "INVALID_QUERY");
    expect(r.body.details.issues).toEqual([
      { path: "colour", message: "is not an accepted parameter" },
      { path: "limit", message: "must be an integer from 1 to 200" },
    ]);
    for (const limit of ["201", "abc", "-1", "1.5", ""]) expectError(await call(A, `/api/v2/audit-log?limit=${limit}`, { key: owner }), 400, "INVALID_QUERY");
    expect((await call(A, "/api/v2/audit-log?limit=200", { key: owner })).status).toBe(200);
    expectError(await call(A, "/api/v2/audit-log?limit=1&limit=2", { key: owner }), 400, "INVALID_QUERY");
    // Names of Object.prototype are parameters like any other: unknown (found by the property test).
    const proto = await call(A, "/api/v2/audit-log?__proto__=x&constructor=y", { key: owner });
    expectError(proto, 400, "INVALID_QUERY");
    expect(proto.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["__proto__", "constructor"]);
  });

  test("an unexpected error → 500 that says nothing more (the cause goes to the log)", async () => {
    const k = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "broken");
    withDb(dbB, (d) => {
      const company = d.prepare("SELECT id FROM companies WHERE slug = 'broken'").get() as { id: string };
      d.prepare(
        "INSERT INTO audit_log (id, company_id, environment, actor_type, action, entity_type, entity_id, detail, created_at) VALUES ('aud_broken', ?, 'test', 'system', 'x', 'X', 'x', '{not json SECRET-CAUSE', '2026-01-01T00:00:00.000Z')",
      ).run(company.id);
    });
    const r = await call(B, "/api/v2/audit-log", { key: k.key, host: "broken.caravan.test" });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: "Internal server error", code: "INTERNAL_ERROR", meta: r.body.meta });
    expect(r.text).not.toContain("SECRET");
    expect(r.text).not.toContain("JSON");
  });
});

describe("authentication", () => {
  test("no key, or an empty one → 401 MISSING_KEY", async () => {
    expectError(await call(A, "/api/v2/audit-log"), 401, "MISSING_KEY");
    expectError(await call(A, "/api/v2/audit-log", { key: "" }), 401, "MISSING_KEY");
  });

  test("a key not in the issued format → 401 INVALID_FORMAT", async () => {
    for (const bad of ["abc", "crv_test_" + "a".repeat(63), "crv_test_" + "A".repeat(64), "crv_prod_" + "a".repeat(64), owner + "0"])
      expectError(await call(A, "/api/v2/audit-log", { key: bad }), 401, "INVALID_FORMAT");
  });

  test("a well-formed unknown key → 401 KEY_NOT_FOUND", async () => {
    expectError(await call(A, "/api/v2/audit-log", { key: "crv_test_" + "0".repeat(64) }), 401, "KEY_NOT_FOUND");
  });

  test("another company's key → 401 KEY_NOT_FOUND", async () => {
    const acme = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "acme");
    expect((await call(B, "/api/v2/audit-log", { key: acme.key, host: "acme.caravan.test" })).status).toBe(200);
    expectError(await call(B, "/api/v2/audit-log", { key: acme.key, host: "globex.caravan.test" }), 401, "KEY_NOT_FOUND");
  });

  test("a revoked key → 401 KEY_REVOKED", async () => {
    const k = await newKey(dbA, "--env", "test", "--role", "owner");
    expect((await call(A, "/api/v2/audit-log", { key: k.key })).status).toBe(200);
    await cli(dbA, "keys", "revoke", "--id", k.id);
    expectError(await call(A, "/api/v2/audit-log", { key: k.key }), 401, "KEY_REVOKED");
  });

  test("a key whose member is disabled → 401 KEY_REVOKED", async () => {
    const k = await newKey(dbA, "--env", "test", "--role", "analyst");
    expect((await call(A, "/api/v2/audit-log", { key: k.key })).status).toBe(200);
    await cli(dbA, "members", "disable", "--email", k.memberEmail);
    expectError(await call(A, "/api/v2/audit-log", { key: k.key }), 401, "KEY_REVOKED");
  });

  test("a live key whose member's role no longer allows live → 401 KEY_REVOKED", async () => {
    const k = await newKey(dbA, "--env", "live", "--role", "compliance_officer");
    expect((await call(A, "/api/v2/audit-log", { key: k.key })).status).toBe(200);
    await cli(dbA, "members", "role", "--email", k.memberEmail, "--role", "developer");
    expectError(await call(A, "/api/v2/audit-log", { key: k.key }), 401, "KEY_REVOKED");
  });

  test("the company's access to API keys turned off → 401 KEY_REVOKED", async () => {
    const k = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "globex");
    expect((await call(B, "/api/v2/audit-log", { key: k.key, host: "globex.caravan.test" })).status).toBe(200);
    await cli(dbB, "companies", "feature", "--slug", "globex", "--disable", "api_keys");
    expectError(await call(B, "/api/v2/audit-log", { key: k.key, host: "globex.caravan.test" }), 401, "KEY_REVOKED");
    await cli(dbB, "companies", "feature", "--slug", "globex", "--enable", "api_keys");
    expect((await call(B, "/api/v2/audit-log", { key: k.key, host: "globex.caravan.test" })).status).toBe(200);
  });

  test("a key without the route's scope → 403 INSUFFICIENT_SCOPE naming the scope", async () => {
    const k = await newKey(dbA, "--env", "test", "--role", "owner", "--scopes", "customers:read,transfers:read");
    const r = await call(A, "/api/v2/audit-log", { key: k.key });
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("audit:read");
  });

  test("a key with the scope whose owner's role lacks the permission → 403 INSUFFICIENT_PERMISSION", async () => {
    const k = await newKey(dbA, "--env", "test", "--role", "developer", "--scopes", "audit:read");
    const r = await call(A, "/api/v2/audit-log", { key: k.key });
    expectError(r, 403, "INSUFFICIENT_PERMISSION");
    expect(r.body.error).toContain("audit:view");
  });

  test("a suspended company → 403 TENANT_SUSPENDED; reactivated, the same key works again", async () => {
    const k = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "acme");
    await cli(dbB, "companies", "suspend", "--slug", "acme");
    expectError(await call(B, "/api/v2/audit-log", { key: k.key, host: "acme.caravan.test" }), 403, "TENANT_SUSPENDED");
    await cli(dbB, "companies", "reactivate", "--slug", "acme");
    expect((await call(B, "/api/v2/audit-log", { key: k.key, host: "acme.caravan.test" })).status).toBe(200);
  });

  test("a plan feature turned off → 403 TENANT_FEATURE_DISABLED", async () => {
    const k = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "acme");
    await cli(dbB, "companies", "feature", "--slug", "acme", "--disable", "audit_log");
    expectError(await call(B, "/api/v2/audit-log", { key: k.key, host: "acme.caravan.test" }), 403, "TENANT_FEATURE_DISABLED");
    await cli(dbB, "companies", "feature", "--slug", "acme", "--enable", "audit_log");
  });
});

describe("companies by host", () => {
  test("with CARAVAN_APP_DOMAIN, <slug>.<domain> selects the company; an unknown slug or foreign host → 404 NOT_FOUND", async () => {
    const k = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "acme");
    expect((await call(B, "/api/v2/audit-log", { key: k.key, host: "acme.caravan.test:8443" })).status).toBe(200);
    expectError(await call(B, "/api/v2/audit-log", { key: k.key, host: "nobody.caravan.test" }), 404, "NOT_FOUND");
    expectError(await call(B, "/api/v2/audit-log", { key: k.key, host: "acme.elsewhere.test" }), 404, "NOT_FOUND");
  });

  test("without CARAVAN_APP_DOMAIN every host is company default", async () => {
    expect((await call(A, "/api/v2/audit-log", { key: owner, host: "whatever.example" })).status).toBe(200);
  });
});

describe("test and live", () => {
  test("a key sees only its environment's records; the other environment's record is 404 with the resource's code", async () => {
    const testList = await call(A, "/api/v2/audit-log?limit=200", { key: owner });
    const liveList = await call(A, "/api/v2/audit-log?limit=200", { key: ownerLive });
    expect(testList.body.data.every((e: any) => e.environment === "test")).toBe(true);
    expect(liveList.body.data.every((e: any) => e.environment === "live")).toBe(true);
    const testEntry = testList.body.data[0];
    expect((await call(A, `/api/v2/audit-log/${testEntry.id}`, { key: owner })).body.data.id).toBe(testEntry.id);
    const r = await call(A, `/api/v2/audit-log/${testEntry.id}`, { key: ownerLive });
    expectError(r, 404, "AUDIT_ENTRY_NOT_FOUND");
  });
});

describe("cursors", () => {
  test("pages follow meta.cursor to the end without repeats; an item ID or an edited cursor → 400 INVALID_CURSOR", async () => {
    for (let i = 0; i < 3; i++) await newKey(dbA, "--env", "test", "--role", "analyst");
    const all = await call(A, "/api/v2/audit-log?limit=200", { key: owner });
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await call(A, `/api/v2/audit-log?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: owner });
      expect(r.status).toBe(200);
      expect(r.body.meta.limit).toBe(2);
      ids.push(...r.body.data.map((e: any) => e.id));
      cursor = r.body.meta.cursor;
      expect(r.body.meta.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 100);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, all.body.data.length)).toEqual(all.body.data.map((e: any) => e.id));

    const first = await call(A, "/api/v2/audit-log?limit=1", { key: owner });
    const good: string = first.body.meta.cursor;
    expect(typeof good).toBe("string");
    expectError(await call(A, `/api/v2/audit-log?cursor=${first.body.data[0].id}`, { key: owner }), 400, "INVALID_CURSOR");
    const edited = (good[0] === "A" ? "B" : "A") + good.slice(1);
    expectError(await call(A, `/api/v2/audit-log?cursor=${encodeURIComponent(edited)}`, { key: owner }), 400, "INVALID_CURSOR");
    // A cursor continues only the list (and filters) it came from.
    expectError(await call(A, `/api/v2/audit-log?action=member.created&cursor=${encodeURIComponent(good)}`, { key: owner }), 400, "INVALID_CURSOR");
  });
});

describe("rate limits", () => {
  test("over the company-wide budget → 429 RATE_LIMITED with Retry-After", async () => {
    const k = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "ratey");
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 10; i++) {
      last = await call(B, "/api/v2/audit-log", { key: k.key, host: "ratey.caravan.test" });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(200));
    expect(statuses.slice(8)).toEqual([429, 429]);
    expectError(last!, 429, "RATE_LIMITED");
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The budget is per company: another company is not affected.
    const other = await newKey(dbB, "--env", "test", "--role", "owner", "--company", "acme");
    expect((await call(B, "/api/v2/audit-log", { key: other.key, host: "acme.caravan.test" })).status).toBe(200);
  });
});

describe("OpenAPI", () => {
  test("GET /api/v2/openapi.json lists every route with its scope, generated from the validating schemas", async () => {
    const r = await call(A, "/api/v2/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    expect(r.body.paths["/api/v2/audit-log"].get["x-scope"]).toBe("audit:read");
    expect(r.body.paths["/api/v2/audit-log/{id}"].get["x-permission"]).toBe("audit:view");
    const limit = r.body.paths["/api/v2/audit-log"].get.parameters.find((p: any) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 200 });
    expect(r.body.paths["/api/v2/openapi.json"].get).toBeDefined();
    // Routes outside the API-key pipeline are listed too, with how they are authenticated.
    expect(r.body.paths["/healthz"].get).toBeDefined();
    expect(r.body.paths["/api/system/trp/provider_b/{environment}/connections/{providerId}/v1/beneficiary/transfer"].post["x-authentication"]).toContain("PROVIDER_B_ALLOWED_IPS");
    for (const p of ["/api/v2/customers", "/api/v2/wallets", "/api/v2/transfers", "/api/v2/thresholds", "/api/v2/webhooks", "/api/v2/providers", "/api/v2/assets", "/api/v2/vasps/search"])
      expect(r.body.paths[p]?.get).toBeDefined();
  });
});
