// Issue 19: a `readOnly` GET route runs its authentication and its handler's reads in one read transaction (one
// snapshot). What must hold, over real HTTP: the handler of a readOnly GET runs inside Storage.read with the key
// already checked; other routes (a GET without the flag, a POST) do not; a refused key never reaches the handler;
// the handler's snapshot does not see another connection's commit made while it runs.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Elysia } from "elysia";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { listen, type RunningServer } from "../../src/adapters/server/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { ApiKit, ok } from "../../src/http/kit.ts";
import { RateLimiter } from "../../src/http/ratelimit.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

let storage: Storage;
let other: Storage;
let server: RunningServer;
let key: string;
let url: string;
let inRead = 0;
const seen: { route: string; inRead: boolean }[] = [];

beforeAll(async () => {
  const file = join(tempDir(), "kit.db");
  storage = await openStorage(file);
  other = await openStorage(file, { migrate: false });
  storage.client.exec("CREATE TABLE probe (n INTEGER)");
  const tenancy = new Tenancy(storage, Date.now);
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "dev@example.com", "owner");
  key = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" })).key;
  // The real Storage.read, counted: the handler records whether it runs inside it.
  const reads = {
    readTurn: <T>(fn: () => T): T | Promise<T> => storage.readTurn(() => { inRead++; try { return fn(); } finally { inRead--; } }),
    faultOf: storage.faultOf,
  };
  const kit = new ApiKit({ tenancy, limiter: new RateLimiter({}, Date.now), clock: Date.now, log: () => {}, storage: reads });
  const count = () => (storage.stmt("SELECT count(*) AS n FROM probe").get() as { n: number }).n;
  const access = { scope: "transfers:read", permission: "transfers:view" } as const;
  const routes = kit.group("/api/v2/probe", (r) =>
    r
      .get("/ro", { summary: "read only", access, readOnly: true }, () => {
        seen.push({ route: "ro", inRead: inRead > 0 });
        const before = count();
        other.stmt("INSERT INTO probe (n) VALUES (1)").run(); // another connection commits meanwhile
        return ok({ before, after: count() });
      })
      .get("/plain", { summary: "plain", access }, () => (seen.push({ route: "plain", inRead: inRead > 0 }), ok({})))
      .post("/write", { summary: "write", access: { scope: "transfers:write", permission: "transfers:create" }, readOnly: true }, () => (seen.push({ route: "write", inRead: inRead > 0 }), ok({}))),
  );
  const app = new Elysia({ normalize: false }).use(routes);
  server = await listen((req) => app.fetch(req), { hostname: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${server.port}/api/v2/probe`;
});

afterAll(async () => {
  await server.stop();
  other.close();
  storage.close();
});

test("a readOnly GET's handler runs in one read transaction: one snapshot for all its reads", async () => {
  const res = await fetch(`${url}/ro`, { headers: { "x-api-key": key } });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { before: number; after: number } };
  expect(data.after).toBe(data.before); // the commit made meanwhile is not in the handler's snapshot
  expect(seen.at(-1)).toEqual({ route: "ro", inRead: true });
  // The next request sees it.
  const again = (await (await fetch(`${url}/ro`, { headers: { "x-api-key": key } })).json()) as { data: { before: number } };
  expect(again.data.before).toBe(data.before + 1);
});

test("other routes run without it; a POST never does, even if flagged; a refused key never reaches the handler", async () => {
  expect((await fetch(`${url}/plain`, { headers: { "x-api-key": key } })).status).toBe(200);
  expect(seen.at(-1)).toEqual({ route: "plain", inRead: false });
  expect((await fetch(`${url}/write`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: "{}" })).status).toBe(200);
  expect(seen.at(-1)).toEqual({ route: "write", inRead: false });
  const n = seen.length;
  const refused = await fetch(`${url}/ro`, { headers: { "x-api-key": "cvn_test_nope" } });
  expect(refused.status).toBe(401);
  expect(seen.length).toBe(n);
  expect(inRead).toBe(0);
});
