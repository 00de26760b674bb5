// A route's body reader, over real HTTP: the pipeline runs it after access and before the handler, the handler gets
// what it returned, a refusal it throws is the answer (the handler never runs), and a route without one is checked
// against its schema.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { listen, type RunningServer } from "../../src/adapters/server/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { ApiKit, checked, ok } from "../../src/http/kit.ts";
import { RateLimiter } from "../../src/http/ratelimit.ts";
import { apiError } from "../../src/domain/errors.ts";

// Servers on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

let storage: Storage;
let server: RunningServer;
let key: string;
let url: string;
const handled: unknown[] = [];

const Body = Type.Object({ n: Type.Integer() }, { additionalProperties: false });
const readN = (b: unknown) =>
  typeof b === "object" && b !== null && typeof (b as { n?: unknown }).n === "number" ? { ok: true as const, value: { doubled: (b as { n: number }).n * 2 } } : { ok: false as const, issues: [{ path: "n", message: "must be a number" }] };

beforeAll(async () => {
  storage = await openStorage(":memory:");
  const tenancy = new Tenancy(storage, Date.now);
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "dev@example.com", "owner");
  key = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" })).key;
  const kit = new ApiKit({ tenancy, limiter: new RateLimiter({}, Date.now), clock: Date.now, log: () => {} });
  const access = { scope: "cases:write", permission: "cases:create" } as const;
  const routes = kit.group("/api/v2/read", (r) =>
    r
      .post("/checked", { summary: "checked", access, body: Body, read: checked(readN) }, ({ body }) => (handled.push(body), ok({ doubled: body.doubled })))
      .post(
        "/:id/own",
        {
          summary: "own code, with the resource first",
          access,
          body: Body,
          read: (b, c) => {
            if (c.params.id !== "known") throw apiError("CASE_NOT_FOUND", { details: { resource: "Case", id: c.params.id } });
            if (b === undefined) throw apiError("MISSING_FIELDS", { message: "Missing fields: n", details: { fields: ["n"] } });
            return { id: c.params.id, raw: b };
          },
        },
        ({ body }) => (handled.push(body), ok(body)),
      )
      .post("/schema", { summary: "schema", access, body: Body, validationStatus: 422 }, ({ body }) => (handled.push(body), ok(body))),
  );
  const app = new Elysia({ normalize: false }).use(routes);
  server = await listen((req) => app.fetch(req), { hostname: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${server.port}/api/v2/read`;
});

afterAll(async () => {
  await server.stop();
  storage.close();
});

function post(path: string, body?: unknown) {
  return fetch(url + path, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body), headers: { "x-api-key": key, "content-type": "application/json" } });
}

test("the handler gets what the reader returned", async () => {
  handled.length = 0;
  const r = await post("/checked", { n: 21 });
  expect(r.status).toBe(200);
  expect((await r.json()).data).toEqual({ doubled: 42 });
  expect(handled).toEqual([{ doubled: 42 }]);
});

test("a reader's refusal is the answer, with the domain's issues; the handler does not run", async () => {
  handled.length = 0;
  const r = await post("/checked", { n: "x" });
  const j = await r.json();
  expect({ status: r.status, code: j.code, issues: j.details.issues, error: j.error }).toEqual({ status: 422, code: "VALIDATION_ERROR", issues: [{ path: "n", message: "must be a number" }], error: "n: must be a number" });
  expect(handled).toEqual([]);
});

test("a reader sees the route's parameters: the resource's 404 comes before the body's refusal", async () => {
  handled.length = 0;
  const missing = await post("/other/own");
  expect({ status: missing.status, code: (await missing.json()).code }).toEqual({ status: 404, code: "CASE_NOT_FOUND" });
  const noBody = await post("/known/own");
  expect({ status: noBody.status, code: (await noBody.json()).code }).toEqual({ status: 400, code: "MISSING_FIELDS" });
  const fine = await post("/known/own", { anything: true });
  expect((await fine.json()).data).toEqual({ id: "known", raw: { anything: true } });
  expect(handled).toEqual([{ id: "known", raw: { anything: true } }]);
});

test("without a reader the body is checked against the schema before the handler", async () => {
  handled.length = 0;
  const bad = await post("/schema", { n: 1, extra: 2 });
  const j = await bad.json();
  expect({ status: bad.status, code: j.code }).toEqual({ status: 422, code: "VALIDATION_ERROR" });
  expect(j.details.issues.length).toBeGreaterThan(0);
  const good = await post("/schema", { n: 1 });
  expect((await good.json()).data).toEqual({ n: 1 });
  expect(handled).toEqual([{ n: 1 }]);
});
