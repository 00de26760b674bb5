// The body pipeline of every route, over real HTTP: 64 KiB counted while streaming, JSON, NUL, schema validation.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { listen, type RunningServer } from "../../src/adapters/server/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { ApiKit, ok } from "../../src/http/kit.ts";
import { RateLimiter } from "../../src/http/ratelimit.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

let storage: Storage;
let server: RunningServer;
let key: string;
let url: string;

beforeAll(async () => {
  storage = await openStorage(":memory:");
  const tenancy = new Tenancy(storage, Date.now);
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "dev@example.com", "owner");
  key = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" })).key;
  const kit = new ApiKit({ tenancy, limiter: new RateLimiter({}, Date.now), clock: Date.now, log: () => {} });
  // A route like every resource's: the test declares it, the kit runs the real pipeline.
  const routes = kit.group("/api/v2/echo", (r) =>
    r
      .post("/", { summary: "echo", access: { scope: "customers:write", permission: "customers:create" } }, ({ body }) => ok({ size: JSON.stringify(body).length }))
      .post(
        "/typed",
        { summary: "typed", access: { scope: "cases:write", permission: "cases:create" }, validationStatus: 422, body: Type.Object({ title: Type.String({ minLength: 1, maxLength: 5 }) }, { additionalProperties: false }) },
        ({ body }) => ok(body),
      ),
  );
  const app = new Elysia({ normalize: false }).use(routes);
  server = await listen((req) => app.fetch(req), { hostname: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${server.port}/api/v2/echo`;
});

afterAll(async () => {
  await server.stop();
  storage.close();
});

/** A JSON body of exactly n bytes: {"p":"xxx…"}. */
const bodyOf = (n: number) => JSON.stringify({ p: "x".repeat(n - 8) });

function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  return fetch(url + path, { method: "POST", body, headers: { "x-api-key": key, "content-type": "application/json", ...headers } });
}

test("65,536 bytes are accepted; 65,537 are 413 BODY_TOO_LARGE", async () => {
  expect(bodyOf(65_536).length).toBe(65_536);
  const okRes = await post("", bodyOf(65_536));
  expect(okRes.status).toBe(200);
  expect((await okRes.json()).data.size).toBe(65_536);
  const big = await post("", bodyOf(65_537));
  expect(big.status).toBe(413);
  expect((await big.json()).code).toBe("BODY_TOO_LARGE");
});

test("a streamed body without Content-Length is counted as it arrives: over 65,536 bytes → 413", async () => {
  const chunk = new TextEncoder().encode("x".repeat(16_384));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= 5) return c.close();
      sent++;
      c.enqueue(chunk);
    },
  });
  const res = await fetch(url, { method: "POST", body: stream, headers: { "x-api-key": key }, duplex: "half" } as RequestInit);
  expect(res.status).toBe(413);
  expect((await res.json()).code).toBe("BODY_TOO_LARGE");
});

test("unreadable JSON → 400 INVALID_JSON, and the answer does not echo the body", async () => {
  const res = await post("", '{"name": "Jane Doe",');
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.code).toBe("INVALID_JSON");
  expect(JSON.stringify(body)).not.toContain("Jane");
});

test("a NUL character in body text (value or key) → 400 VALIDATION_ERROR", async () => {
  for (const raw of ['{"name":"a\\u0000b"}', '{"a\\u0000":1}', '{"list":["ok","\\u0000"]}']) {
    const res = await post("", raw);
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("VALIDATION_ERROR");
  }
});

test("schema validation names each problem in details.issues, with the resource's status (422 here)", async () => {
  const res = await post("/typed", JSON.stringify({ title: "too long title", extra: 1 }));
  expect(res.status).toBe(422);
  const body = await res.json();
  expect(body.code).toBe("VALIDATION_ERROR");
  const paths = body.details.issues.map((i: { path: string }) => i.path);
  expect(paths).toContain("title");
  expect(paths).toContain("extra");
  expect((await post("/typed", JSON.stringify({ title: "ok" }))).status).toBe(200);
});
