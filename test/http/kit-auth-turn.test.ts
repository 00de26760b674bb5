// The credential check in the request's own turn: a key the tenancy's cache holds is answered without a promise, so a
// GET whose handler answers synchronously gets its Response synchronously (the pipeline's fast path); a key not in
// the cache, and a company not yet cached, are looked up through the port and awaited, with the same answers.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { formatKey } from "../../src/domain/keys.ts";
import { ApiKit, ok, type Handler, type RouteSpec } from "../../src/http/kit.ts";
import { RateLimiter } from "../../src/http/ratelimit.ts";
import { tempDir } from "../support/tmp.ts";

let storage: Storage;
let tenancy: Tenancy;
let kit: ApiKit;
let key: string;

const spec: RouteSpec<{}> = { summary: "probe", access: { scope: "transfers:read", permission: "transfers:view" }, readOnly: true };
const handler: Handler<{}> = (c) => ok({ member: c.auth.member.email });
const get = (k: string) => kit.run(spec, handler, new Request("http://127.0.0.1/api/v2/probe", { headers: { "x-api-key": k } }), {});

beforeAll(async () => {
  storage = await openStorage(join(tempDir(), "turn.db"));
  tenancy = new Tenancy(storage, Date.now);
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "turn@example.com", "owner");
  key = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" })).key;
  kit = new ApiKit({ tenancy, limiter: new RateLimiter({}, Date.now), clock: Date.now, log: () => {}, storage });
});

afterAll(() => storage.close());

test("a key's first request awaits its lookup; every request after it is answered in its own turn, with the same answer", async () => {
  const first = get(key);
  expect(first).toBeInstanceOf(Promise);
  const a = await first;
  expect(a.status).toBe(200);
  const again = get(key);
  expect(again).toBeInstanceOf(Response);
  const b = again as Response;
  expect(b.status).toBe(200);
  expect(((await b.json()) as { data: unknown }).data).toEqual(((await a.json()) as { data: unknown }).data);
});

test("a revocation empties the cache: the next request is looked up again and refused 401 KEY_REVOKED", async () => {
  expect(get(key)).toBeInstanceOf(Response);
  const company = await tenancy.requireCompany("default");
  const listed = await tenancy.listKeys(company.id);
  await tenancy.revokeKey(company.id, listed.at(-1)!.id);
  const next = get(key);
  expect(next).toBeInstanceOf(Promise);
  const res = await next;
  expect(res.status).toBe(401);
  expect(((await res.json()) as { code: string }).code).toBe("KEY_REVOKED");
});

test("an unknown key is never cached: each request looks it up and is refused 401 KEY_NOT_FOUND", async () => {
  const unknown = formatKey("test", new Uint8Array(32).fill(7));
  for (let i = 0; i < 2; i++) {
    const r = get(unknown);
    expect(r).toBeInstanceOf(Promise);
    const res = await r;
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("KEY_NOT_FOUND");
  }
});
