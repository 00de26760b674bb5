// Part 1, VASP search: each VASP once under its latest name, sorted by name, own cursor, rate limit on non-empty q.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { VaspDirectory } from "../../src/adapters/storage/repos/vasps.ts";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess, withMember } from "../support/cli.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "vasps.db");
let server: ChildServer;
let key: string;
let liveKey: string;

async function keyFor(...args: string[]) {
  const r = await runCliInProcess(["keys", "create", ...(await withMember(args, { CARAVAN_DB: db })), "--json"], { CARAVAN_DB: db });
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!).key as string;
}

async function search(query: string, k = key) {
  const res = await fetch(`${server.url}/api/v2/vasps/search${query}`, { headers: { "x-api-key": k } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  key = await keyFor("--env", "test", "--role", "analyst");
  liveKey = await keyFor("--env", "live", "--role", "owner");
  // What transfers and wallet discovery record as they see counterparties (the writers of later issues).
  const s = await openStorage(db);
  const d = new VaspDirectory(s);
  const company = (s.client.prepare("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;
  await d.record(company, "test", "did:ethr:0xaaa1", "Old Exchange Name", "discovery", "2026-01-01T00:00:00.000Z");
  await d.record(company, "test", "did:ethr:0xaaa1", "Zeta Exchange", "discovery", "2026-02-01T00:00:00.000Z");
  // A later sighting without a name does not replace the latest name.
  await d.record(company, "test", "did:ethr:0xaaa1", null, "transfer_history", "2026-03-15T00:00:00.000Z");
  await d.record(company, "test", "provider_b:vasp-42", "Alpha Custody", "discovery", "2026-03-01T00:00:00.000Z");
  await d.record(company, "test", "provider_e:VASP9", null, "trisa_directory", "2026-03-02T00:00:00.000Z");
  for (let i = 0; i < 7; i++) await d.record(company, "test", `did:web:bulk${i}.example`, `Bulk Exchange ${i}`, "discovery", "2026-04-01T00:00:00.000Z");
  await d.record(company, "live", "did:web:live-only.example", "Exchange Live Only", "transfer_history", "2026-04-01T00:00:00.000Z");
  s.close();
  server = await startServer({ CARAVAN_DB: db, CARAVAN_RATE_LIMITS: "vasp_search=25/60" });
});

afterAll(async () => {
  await server?.stop();
});

test("q matches anywhere in a VASP's ID or any name it has had; each VASP once under its latest name", async () => {
  const r = await search("?q=old%20exchange");
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual([{ id: "did:ethr:0xaaa1", name: "Zeta Exchange", source: "transfer_history" }]);
  expect((await search("?q=0xAAA1")).body.data.map((v: any) => v.id)).toEqual(["did:ethr:0xaaa1"]);
});

test("results are sorted by name; a VASP without a name is listed under its ID; source is how it was seen", async () => {
  const r = await search("?q=a&limit=50");
  const names = r.body.data.map((v: any) => v.name);
  expect(names).toEqual([...names].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())));
  expect(r.body.data).toContainEqual({ id: "provider_e:VASP9", name: "provider_e:VASP9", source: "trisa_directory" });
  expect(r.body.data).toContainEqual({ id: "provider_b:vasp-42", name: "Alpha Custody", source: "discovery" });
});

test("meta has query (trimmed), count, cursor, hasMore, limit; the cursor pages to the end", async () => {
  const first = await search("?q=%20%20bulk%20&limit=3");
  expect(first.body.meta).toMatchObject({ query: "bulk", count: 3, hasMore: true, limit: 3 });
  const seen = first.body.data.map((v: any) => v.id);
  let cursor = first.body.meta.cursor;
  while (cursor) {
    const next = await search(`?q=bulk&limit=3&cursor=${encodeURIComponent(cursor)}`);
    expect(next.status).toBe(200);
    seen.push(...next.body.data.map((v: any) => v.id));
    cursor = next.body.meta.cursor;
    expect(next.body.meta.hasMore).toBe(cursor !== null);
  }
  expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `did:web:bulk${i}.example`));
});

test("an empty q finds nothing; limit over 50 is read as 50; default 20", async () => {
  const empty = await search("?q=");
  expect(empty.body).toMatchObject({ data: [], meta: { query: "", count: 0, cursor: null, hasMore: false } });
  expect((await search("?q=%20%20")).body.data).toEqual([]);
  expect((await search("?q=a&limit=500")).body.meta.limit).toBe(50);
  expect((await search("?q=a")).body.meta.limit).toBe(20);
});

test("limit not a positive whole number or q over 100 characters → 400 INVALID_QUERY; a foreign cursor → 400 INVALID_CURSOR", async () => {
  for (const bad of ["?q=a&limit=0", "?q=a&limit=-3", "?q=a&limit=2.5", "?q=a&limit=x", `?q=${"a".repeat(101)}`, "?q=a&other=1"]) {
    const r = await search(bad);
    expect({ bad, status: r.status, code: r.body.code }).toEqual({ bad, status: 400, code: "INVALID_QUERY" });
  }
  expect((await search(`?q=${"a".repeat(100)}`)).status).toBe(200);
  const other = await search("?q=bulk&limit=1");
  expect((await search(`?q=alpha&cursor=${encodeURIComponent(other.body.meta.cursor)}`)).body.code).toBe("INVALID_CURSOR");
  expect((await search(`?q=bulk&cursor=did:web:bulk1.example`)).body.code).toBe("INVALID_CURSOR");
});

test("the environment's VASPs only", async () => {
  expect((await search("?q=live")).body.data).toEqual([]);
  expect((await search("?q=live", liveKey)).body.data).toEqual([{ id: "did:web:live-only.example", name: "Exchange Live Only", source: "transfer_history" }]);
});

test("over the search limit → 429 RATE_LIMITED with Retry-After; searches with an empty q do not count", async () => {
  const k = await keyFor("--env", "test", "--role", "owner");
  // Earlier tests in this file spent some of the shared test-environment budget; empty searches spend none.
  for (let i = 0; i < 40; i++) expect((await search("?q=", k)).status).toBe(200);
  let last;
  let n = 0;
  do {
    last = await search("?q=bulk", k);
    n++;
  } while (last.status === 200 && n < 30);
  expect(last.status).toBe(429);
  expect(last.body.code).toBe("RATE_LIMITED");
  expect(Number(last.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  // The limit is per company and environment: live is unaffected.
  expect((await search("?q=live", liveKey)).status).toBe(200);
});
