// The kit checks each answer against the route's description (src/http/answers.ts, what the OpenAPI document prints):
// a success status or a refusal code the description does not list is answered as it is and logged once per route,
// status and code, so a route cannot drift from its document unnoticed; what the description lists is not logged.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { Elysia } from "elysia";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { ApiKit, created, ok } from "../../src/http/kit.ts";
import { RateLimiter } from "../../src/http/ratelimit.ts";
import { openApiDocument } from "../../src/http/openapi.ts";
import { apiError } from "../../src/domain/errors.ts";
import { tempDir } from "../support/tmp.ts";

let storage: Storage;
let key: string;
let narrowKey: string;
let app: Elysia<any, any, any, any, any, any, any>;
let kit: ApiKit;
const logged: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
const access = { scope: "cases:read", permission: "cases:view" } as const;

beforeAll(async () => {
  storage = await openStorage(join(tempDir(), "kit.db"));
  const tenancy = new Tenancy(storage, Date.now);
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "dev@example.com", "owner");
  key = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" })).key;
  narrowKey = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test", scopes: ["transfers:read"] })).key;
  kit = new ApiKit({ tenancy, limiter: new RateLimiter({}, Date.now), clock: Date.now, log: (level, msg, fields) => logged.push({ level, msg, fields }) });
  app = new Elysia({ normalize: false }).use(
    kit.group("/api/v2/probe", (r) =>
      r
        .get("/ok", { summary: "answers 200", access }, () => ok({}))
        .get("/created", { summary: "answers 201, described as 200", access }, () => created({}))
        .get("/closed", { summary: "refuses with a code it does not list", access }, () => {
          throw apiError("CASE_CLOSED");
        }),
    ),
  );
});

afterAll(() => storage.close());

const get = (path: string, k = key) => app.handle(new Request(`http://localhost/api/v2/probe${path}`, { headers: { "x-api-key": k } }));
const warnings = (): Record<string, unknown>[] => logged.filter((l) => l.msg === "answer not in the OpenAPI description").map((l) => ({ level: l.level, ...l.fields }));

test("described answers (200, and the pipeline's own refusals) are not logged", async () => {
  expect((await get("/ok")).status).toBe(200);
  expect((await get("/ok", narrowKey)).status).toBe(403); // INSUFFICIENT_SCOPE: derived from the access declaration
  expect((await get("/ok", "crv_test_" + "0".repeat(64))).status).toBe(401);
  expect(warnings()).toEqual([]);
});

test("an undescribed success status and an undescribed refusal code are answered as they are and logged once each", async () => {
  expect((await get("/created")).status).toBe(201);
  expect((await get("/created")).status).toBe(201);
  const closed = await get("/closed");
  expect(closed.status).toBe(409);
  expect(((await closed.json()) as { code: string }).code).toBe("CASE_CLOSED");
  expect(warnings()).toEqual([
    { level: "warn", route: "GET /api/v2/probe/created", status: 201, code: undefined },
    { level: "warn", route: "GET /api/v2/probe/closed", status: 409, code: "CASE_CLOSED" },
  ]);
});

test("the document lists for a route exactly what the kit checks against", () => {
  const doc = openApiDocument(kit) as { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
  const ok = doc.paths["/api/v2/probe/ok"]!.get!.responses;
  expect(Object.keys(ok).filter((s) => s.startsWith("2"))).toEqual(["200"]);
  expect(ok["403"].content["application/json"].schema.allOf[1].properties.code.enum).toEqual(["TENANT_SUSPENDED", "INSUFFICIENT_SCOPE", "INSUFFICIENT_PERMISSION"]);
  expect(ok["409"]).toBeUndefined();
});
