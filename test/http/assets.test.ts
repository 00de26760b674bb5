// GET /api/v2/assets over real HTTP: shape, offset paging, filters, query errors, the policy per environment, scope.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { withMember } from "../support/cli.ts";
import { loadCatalog } from "../../src/adapters/assets/catalog.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "assets.db");
const catalog = loadCatalog();
const ETH = "eip155:1/slip44:60";
const USDC_ETH = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
let S: ChildServer;
let testKey: string;
let liveKey: string;

async function cli(...args: string[]) {
  const r = await runCli(args, { CARAVAN_DB: db });
  if (r.code !== 0) throw new Error(`cli ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

async function newKey(...args: string[]): Promise<string> {
  const out = await cli("keys", "create", ...(await withMember(args, { CARAVAN_DB: db })), "--json");
  return JSON.parse(out.split("\n").at(-1)!).key;
}

async function get(path: string, key: string) {
  const res = await fetch(S.url + path, { headers: { "x-api-key": key } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function expectInvalidQuery(r: { status: number; body: any }, path: string) {
  expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: "INVALID_QUERY" });
  expect(r.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  expect(r.body.meta.apiVersion).toBe(2);
}

beforeAll(async () => {
  await cli("migrate");
  testKey = await newKey("--env", "test", "--role", "owner");
  liveKey = await newKey("--env", "live", "--role", "owner");
  S = await startServer({ CARAVAN_DB: db });
});

afterAll(async () => {
  await S?.stop();
});

describe("GET /api/v2/assets", () => {
  test("lists the catalog: asset fields, the snapshot's meta, offset paging meta, never cached", async () => {
    const r = await get("/api/v2/assets", testKey);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body.data.length).toBe(50);
    for (const a of r.body.data) {
      expect(Object.keys(a).sort()).toEqual(["aliases", "assetReference", "chainId", "decimals", "enabled", "id", "marketDataIds", "name", "network", "sourceNetwork"]);
      expect(a.id).toBe(`${a.chainId}/${a.assetReference}`);
      expect(typeof a.enabled).toBe("boolean");
    }
    expect(r.body.meta).toMatchObject({
      apiVersion: 2,
      storage: "local_snapshot",
      fetchedAt: catalog.fetchedAt,
      sourceSha256: catalog.sourceSha256,
      sourceEntryCount: catalog.sourceEntryCount,
      assetCount: catalog.assetCount,
      networkCount: 21,
      coverage: "reference_only",
      total: catalog.assetCount,
      limit: 50,
      offset: 0,
    });
    expect(r.body.meta.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.meta.cursor).toBeUndefined();
  });

  test("pages by offset: consecutive pages join up, the total stays the catalog's, past the end is empty", async () => {
    const a = await get("/api/v2/assets?limit=7&offset=0", testKey);
    const b = await get("/api/v2/assets?limit=7&offset=7", testKey);
    const both = await get("/api/v2/assets?limit=14", testKey);
    expect(a.body.meta).toMatchObject({ total: catalog.assetCount, limit: 7, offset: 0 });
    expect(b.body.meta).toMatchObject({ total: catalog.assetCount, limit: 7, offset: 7 });
    expect([...a.body.data, ...b.body.data].map((x: any) => x.id)).toEqual(both.body.data.map((x: any) => x.id));
    const end = await get(`/api/v2/assets?offset=${catalog.assetCount}`, testKey);
    expect(end.body.data).toEqual([]);
    expect(end.body.meta.total).toBe(catalog.assetCount);
    const max = await get("/api/v2/assets?limit=200&offset=200", testKey);
    expect(max.body.data.length).toBe(200);
  });

  test("q: two words must both appear, in any case", async () => {
    const r = await get(`/api/v2/assets?q=${encodeURIComponent("usdc ETHEREUM")}&limit=200`, testKey);
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: any) => x.id)).toContain(USDC_ETH);
    for (const x of r.body.data) {
      const text = [x.id, x.name, x.network, ...x.aliases, ...x.marketDataIds].join(" ").toLowerCase();
      expect(text).toContain("usdc");
      expect(text).toContain("ethereum");
    }
    expect(r.body.meta.total).toBe(r.body.data.length);
    const none = await get("/api/v2/assets?q=usdc+dogecoin", testKey);
    expect(none.body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  test("q: a CoinGecko ID finds the tokens it names (the market-data mapping), USDC on ethereum and solana among them", async () => {
    const r = await get("/api/v2/assets?q=usd-coin&limit=200", testKey);
    expect(r.status).toBe(200);
    const found = r.body.data.map((x: any) => x.id);
    expect(found).toContain(USDC_ETH);
    expect(found).toContain("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    for (const x of r.body.data) {
      const text = [x.id, x.name, x.network, ...x.aliases, ...x.marketDataIds].join(" ").toLowerCase();
      expect(text).toContain("usd-coin");
    }
    expect(r.body.data.find((x: any) => x.id === USDC_ETH).marketDataIds).toEqual(["usd-coin"]);
    expect(r.body.meta.total).toBe(r.body.data.length);
    const eth = await get("/api/v2/assets?q=usd-coin&network=ethereum", testKey);
    expect(eth.body.data.map((x: any) => x.id)).toContain(USDC_ETH);
    expect(eth.body.data.every((x: any) => x.network === "ethereum")).toBe(true);
  });

  test("network and assetId filters", async () => {
    const tron = await get("/api/v2/assets?network=tron", testKey);
    expect(tron.body.data.length).toBeGreaterThan(0);
    expect(tron.body.data.every((x: any) => x.network === "tron")).toBe(true);
    expect(tron.body.data.map((x: any) => x.id)).toContain("tron:728126428/slip44:195");
    const one = await get(`/api/v2/assets?assetId=${encodeURIComponent(USDC_ETH)}`, testKey);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.data[0]).toMatchObject({ id: USDC_ETH, network: "ethereum", decimals: 6, aliases: ["USDC"], marketDataIds: ["usd-coin"], enabled: true });
    expect(one.body.meta.total).toBe(1);
    const unknown = await get("/api/v2/assets?assetId=USDC", testKey);
    expect(unknown.body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  test("an unreadable query → 400 INVALID_QUERY with details.issues", async () => {
    expectInvalidQuery(await get("/api/v2/assets?limit=0", testKey), "limit");
    expectInvalidQuery(await get("/api/v2/assets?limit=201", testKey), "limit");
    expectInvalidQuery(await get("/api/v2/assets?limit=ten", testKey), "limit");
    expectInvalidQuery(await get("/api/v2/assets?offset=-1", testKey), "offset");
    expectInvalidQuery(await get("/api/v2/assets?offset=1.5", testKey), "offset");
    expectInvalidQuery(await get("/api/v2/assets?cursor=abc", testKey), "cursor");
    expectInvalidQuery(await get("/api/v2/assets?network=atlantis", testKey), "network");
    expectInvalidQuery(await get("/api/v2/assets?q=", testKey), "q");
    expectInvalidQuery(await get(`/api/v2/assets?q=${"a".repeat(201)}`, testKey), "q");
    expect((await get(`/api/v2/assets?q=${"a".repeat(200)}`, testKey)).status).toBe(200);
  });

  test("a policy change shows on the next answer, in the key's environment only; the asset is listed, not omitted", async () => {
    const before = await get(`/api/v2/assets?assetId=${encodeURIComponent(ETH)}`, testKey);
    expect(before.body.data[0].enabled).toBe(true);
    const out = JSON.parse(await cli("assets", "disable", "--id", ETH, "--env", "test", "--json"));
    expect(out).toMatchObject({ id: ETH, environment: "test", enabled: false });
    const test_ = await get(`/api/v2/assets?assetId=${encodeURIComponent(ETH)}`, testKey);
    expect(test_.body.data).toHaveLength(1);
    expect(test_.body.data[0].enabled).toBe(false);
    const live = await get(`/api/v2/assets?assetId=${encodeURIComponent(ETH)}`, liveKey);
    expect(live.body.data[0].enabled).toBe(true);
    const all = await get("/api/v2/assets?limit=200&network=ethereum", testKey);
    expect(all.body.meta.total).toBe(catalog.assets.filter((a) => a.network === "ethereum").length);
    await cli("assets", "enable", "--id", ETH, "--env", "test");
    expect((await get(`/api/v2/assets?assetId=${encodeURIComponent(ETH)}`, testKey)).body.data[0].enabled).toBe(true);
    const audit = await get(`/api/v2/audit-log?entityType=Asset`, testKey);
    expect(audit.body.data.map((e: any) => e.action)).toEqual(["asset.enabled", "asset.disabled"]);
    expect(audit.body.data[0]).toMatchObject({ entityId: ETH, environment: "test" });
  });

  test("the CLI refuses an unknown asset ID and a missing environment", async () => {
    const r = await runCli(["assets", "disable", "--id", "ETH", "--env", "test"], { CARAVAN_DB: db });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no asset with ID "ETH"');
    const u = await runCli(["assets", "enable", "--id", ETH], { CARAVAN_DB: db });
    expect(u.code).toBe(1);
    expect(u.stderr).toContain("--env must be test or live");
  });

  test("a key without transfers:read → 403 INSUFFICIENT_SCOPE", async () => {
    const k = await newKey("--env", "test", "--role", "owner", "--scopes", "assets:read,customers:read");
    const r = await get("/api/v2/assets", k);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 403, code: "INSUFFICIENT_SCOPE" });
    expect(r.body.error).toContain("transfers:read");
  });
});
