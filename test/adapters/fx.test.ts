// Valuing amounts: the snapshot, the CoinGecko-protocol HTTP source over the sandbox peer, Pricing, configuration.
import { test, expect, describe, afterAll, beforeAll, setDefaultTimeout } from "bun:test";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import catalog from "../../db/assets/catalog.json" with { type: "json" };
import { SnapshotRateSource, checkSnapshot, type SnapshotData } from "../../src/adapters/fx/snapshot.ts";
import snapshotJson from "../../src/adapters/fx/snapshot.json" with { type: "json" };
import { HttpRateSource } from "../../src/adapters/fx/http.ts";
import { FxValuations } from "../../src/adapters/storage/repos/fx-valuations.ts";
import { Pricing, configureFx, createPricing, type PricingAsset } from "../../src/adapters/fx/pricing.ts";
import { FxConfigError, FxTimeout, FxUnavailable, type Rate, type RateAsset, type RateSource } from "../../src/adapters/fx/types.ts";
import { startFxPeer, type FxPeer } from "../../src/sandbox/fx.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

type CatalogEntry = { id: string; aliases: string[]; marketDataIds: string[]; decimals: number; defaultEnabled: boolean; origin: string; network: string };
const assets = (catalog as unknown as { assets: CatalogEntry[] }).assets;
const byCode = (code: string, network: string): PricingAsset => {
  const a = assets.find((x) => x.network === network && x.aliases.includes(code));
  if (!a) throw new Error(`no ${code} on ${network} in the catalog`);
  return { id: a.id, marketDataIds: a.marketDataIds, aliases: a.aliases, decimals: a.decimals };
};
const BTC = byCode("BTC", "bitcoin");
const ETH = byCode("ETH", "ethereum");
const ALGO = byCode("ALGO", "algorand");
const USDC_BASE = byCode("USDC", "base");
const UNKNOWN: PricingAsset = { id: "eip155:1/erc20:0x0000000000000000000000000000000000000001", marketDataIds: ["no-such-coin"], aliases: ["NOPE"], decimals: 18 };

const signal = () => new AbortController().signal;
const NOW = Date.parse("2026-11-23T10:00:00.000Z");
const clock = () => NOW;
const company = { companyId: "com_test", environment: "test" as const };

/** A source with a fixed answer, counting its calls. */
class StaticSource implements RateSource {
  calls = 0;
  constructor(
    readonly name: string,
    private readonly answer: Rate | null | (() => Promise<Rate | null>),
  ) {}
  async rate(): Promise<Rate | null> {
    this.calls++;
    return typeof this.answer === "function" ? this.answer() : this.answer;
  }
}
const fixed = (rate: string, name = "static:a") => new StaticSource(name, { rate, asOf: "2026-11-20T00:00:00.000Z" });

let storage: Storage;
beforeAll(async () => {
  storage = await openStorage(":memory:");
});
afterAll(() => storage.close());
const rowCount = () => (storage.stmt("SELECT count(*) AS n FROM fx_valuations").get() as { n: number }).n;

describe("snapshot", () => {
  const snap = new SnapshotRateSource();

  test("is dated, named by its date, and says it is not live prices", () => {
    expect(snap.asOf).toBe("2026-11-01T00:00:00.000Z");
    expect(snap.name).toBe("snapshot:2026-11-01");
    expect(snapshotJson.note).toContain("NOT live prices");
  });

  test("rates by market-data ID, tokens through the catalog; stablecoins are 1 USD", async () => {
    expect(await snap.rate(BTC, "USD", signal())).toEqual({ rate: "95000", asOf: "2026-11-01T00:00:00.000Z" });
    expect(await snap.rate(ETH, "eur", signal())).toEqual({ rate: "2752", asOf: "2026-11-01T00:00:00.000Z" });
    expect((await snap.rate(USDC_BASE, "usd", signal()))?.rate).toBe("1");
    expect((await snap.rate(byCode("USDT", "bsc"), "USD", signal()))?.rate).toBe("1");
    expect((await snap.rate(byCode("WBTC", "ethereum"), "USD", signal()))?.rate).toBe("95000");
  });

  test("every native asset, every asset enabled by default and every USDC/USDT/DAI/WBTC/WETH has USD and EUR", async () => {
    const major = new Set(["USDC", "USDT", "DAI", "WBTC", "WETH"]);
    const wanted = assets.filter((a) => a.marketDataIds.length && (a.origin === "native_table" || a.defaultEnabled || a.aliases.some((c) => major.has(c))));
    expect(wanted.filter((a) => a.origin === "native_table").length).toBe(21);
    const missing: string[] = [];
    for (const a of wanted) {
      for (const cur of ["USD", "EUR"]) if ((await snap.rate(a, cur, signal())) === null) missing.push(`${a.id} ${cur}`);
    }
    expect(missing).toEqual([]);
  });

  test("no rate (null) for an unknown ID or currency; tickers are never used; prototype keys are not IDs", async () => {
    expect(await snap.rate(UNKNOWN, "USD", signal())).toBeNull();
    expect(await snap.rate(BTC, "GBP", signal())).toBeNull();
    expect(await snap.rate({ id: "x", marketDataIds: [], aliases: ["BTC"] }, "USD", signal())).toBeNull();
    expect(await snap.rate({ id: "x", marketDataIds: ["constructor", "__proto__"], aliases: [] }, "USD", signal())).toBeNull();
  });

  test("a broken table fails at load, not at the first transfer", () => {
    const base = snapshotJson as SnapshotData;
    expect(() => checkSnapshot({ ...base, rates: { x: { usd: "0", eur: "1" } } })).toThrow(/positive decimal/);
    expect(() => checkSnapshot({ ...base, rates: { x: { usd: "-1", eur: "1" } } })).toThrow(/positive decimal/);
    expect(() => checkSnapshot({ ...base, rates: { x: { usd: "1" } } })).toThrow(/x\.eur/);
    expect(() => checkSnapshot({ ...base, asOf: "2026-11-01" })).toThrow(/asOf/);
  });
});

describe("Pricing: exact decimals and the recorded valuation", () => {
  test("0.1 + 0.2 style amounts are multiplied exactly, then rounded half-even to 8 decimals", async () => {
    const p = new Pricing(new FxValuations(storage), [new SnapshotRateSource()], clock);
    // 0.30000000000000004 × 0.1204 = 0.036120000000000004816; a double gives 0.036120000000000006.
    expect((await p.value({ ...company, asset: ALGO, amount: "0.3", currency: "EUR" })).value).toBe("0.03612");
    expect((await p.value({ ...company, asset: ETH, amount: "0.30000000000000004", currency: "USD" })).value).toBe("960");
    const big = await p.value({ ...company, asset: ETH, amount: "123456789012345678.123456789012345678", currency: "USD" });
    expect(big.value).toBe("395061724839506169995.06172484"); // a double: 395061724839506150000
    const half = new Pricing(new FxValuations(storage), [fixed("1")], clock);
    const at = (amount: string) => half.value({ ...company, asset: ETH, amount, currency: "USD" }).then((v) => v.value);
    expect(await at("0.000000005")).toBe("0"); // half to even: down to 0
    expect(await at("0.000000015")).toBe("0.00000002"); // up to the even 2
    expect(await at("0.000000025")).toBe("0.00000002"); // down to the even 2
    expect(await at("0.000000025000000001")).toBe("0.00000003");
    expect(await at("1.10000000")).toBe("1.1"); // trailing zeros of the amount are not decimals
  });

  test("one fx_valuations row per valuation, with source, rate and its asOf; readable back within its tenant", async () => {
    const p = new Pricing(new FxValuations(storage), [new SnapshotRateSource()], clock);
    const before = rowCount();
    const v = await p.value({ ...company, asset: BTC, amount: "0.5", currency: "eur" });
    expect(v).toEqual({ fxRateId: expect.stringMatching(/^fx_[0-9a-z]{26}$/), value: "40850", rate: "81700", currency: "EUR", source: "snapshot:2026-11-01", asOf: "2026-11-01T00:00:00.000Z" });
    expect(rowCount()).toBe(before + 1);
    const row = storage.stmt("SELECT * FROM fx_valuations WHERE id = ?").get(v.fxRateId);
    expect(row).toEqual({
      id: v.fxRateId,
      company_id: "com_test",
      environment: "test",
      asset_id: BTC.id,
      amount: "0.5",
      currency: "EUR",
      rate: "81700",
      value: "40850",
      source: "snapshot:2026-11-01",
      rate_as_of: "2026-11-01T00:00:00.000Z",
      created_at: "2026-11-23T10:00:00.000Z",
    });
    expect(await p.get("com_test", "test", v.fxRateId)).toEqual({ ...v, assetId: BTC.id, amount: "0.5", createdAt: "2026-11-23T10:00:00.000Z" });
    expect(await p.get("com_test", "live", v.fxRateId)).toBeNull();
    expect(await p.get("com_other", "test", v.fxRateId)).toBeNull();
  });

  test("malformed amounts and currencies are refused before anything is asked or stored", async () => {
    const src = fixed("1");
    const p = new Pricing(new FxValuations(storage), [src], clock);
    const before = rowCount();
    for (const amount of ["1e5", "-1", "", " 1", "1.", ".5", "0x10", "1".repeat(81)]) {
      await expect(p.value({ ...company, asset: ETH, amount, currency: "USD" })).rejects.toThrow(RangeError);
    }
    await expect(p.value({ ...company, asset: BTC, amount: "0.000000001", currency: "USD" })).rejects.toThrow(/8 decimals/);
    await expect(p.value({ ...company, asset: BTC, amount: "1", currency: "EURO" })).rejects.toThrow(RangeError);
    expect(src.calls).toBe(0);
    expect(rowCount()).toBe(before);
  });
});

describe("Pricing: sources in order", () => {
  test("the first source with a rate wins; later ones are not asked", async () => {
    const a = new StaticSource("static:none", null);
    const b = fixed("2", "static:b");
    const c = fixed("3", "static:c");
    const v = await new Pricing(new FxValuations(storage), [a, b, c], clock).value({ ...company, asset: ETH, amount: "10", currency: "USD" });
    expect(v).toMatchObject({ value: "20", rate: "2", source: "static:b", asOf: "2026-11-20T00:00:00.000Z" });
    expect([a.calls, b.calls, c.calls]).toEqual([1, 1, 0]);
  });

  test("no rate from any source: FxUnavailable no_rate naming the asset, and nothing stored", async () => {
    const before = rowCount();
    const p = new Pricing(new FxValuations(storage), [new StaticSource("static:none", null), new SnapshotRateSource()], clock);
    const err = await p.value({ ...company, asset: UNKNOWN, amount: "1", currency: "USD" }).catch((e) => e);
    expect(err).toBeInstanceOf(FxUnavailable);
    expect(err.reason).toBe("no_rate");
    expect(err.message).toContain(UNKNOWN.id);
    expect(err.message).toContain("snapshot:2026-11-01");
    expect(rowCount()).toBe(before);
  });

  test("a failing source is passed over for the next (the snapshot fallback); the source used is recorded", async () => {
    const down = new StaticSource("static:down", () => Promise.reject(new FxUnavailable("down", "static:down", "unreachable")));
    const v = await new Pricing(new FxValuations(storage), [down, new SnapshotRateSource()], clock).value({ ...company, asset: BTC, amount: "1", currency: "USD" });
    expect(v.source).toBe("snapshot:2026-11-01");
  });

  test("when every source fails, a timeout among them makes it FxTimeout; a lone failure is thrown as it is", async () => {
    const slow = new StaticSource("static:slow", () => new Promise(() => {})); // ignores its signal, never settles
    const down = new StaticSource("static:down", () => Promise.reject(new Error("ECONNREFUSED")));
    const both = await new Pricing(new FxValuations(storage), [slow, down], clock, 50).value({ ...company, asset: BTC, amount: "1", currency: "USD" }).catch((e) => e);
    expect(both).toBeInstanceOf(FxTimeout);
    expect(both.message).toContain("static:slow");
    expect(both.message).toContain("ECONNREFUSED");
    const lone = await new Pricing(new FxValuations(storage), [down], clock).value({ ...company, asset: BTC, amount: "1", currency: "USD" }).catch((e) => e);
    expect(lone).toBeInstanceOf(FxUnavailable);
    expect(lone.reason).toBe("unreachable");
  });

  test("a source's answer is checked: a zero, negative or undated rate is FxUnavailable malformed", async () => {
    for (const answer of [
      { rate: "0", asOf: "2026-11-20T00:00:00.000Z" },
      { rate: "-5", asOf: "2026-11-20T00:00:00.000Z" },
      { rate: "5", asOf: "yesterday" },
      { rate: 5 as unknown as string, asOf: "2026-11-20T00:00:00.000Z" },
    ]) {
      const err = await new Pricing(new FxValuations(storage), [new StaticSource("static:bad", answer)], clock).quote(BTC, "USD").catch((e) => e);
      expect(err).toBeInstanceOf(FxUnavailable);
      expect(err.reason).toBe("malformed");
    }
  });

  test("a source with rates in memory answers through rateNow (no timeout); its failure falls through to the next source", async () => {
    const never = (): Promise<Rate | null> => Promise.reject(new Error("rate() must not be called when rateNow exists"));
    const inMemory: RateSource = { name: "memory:a", rate: never, rateNow: () => ({ rate: "2.5", asOf: "2026-11-20T00:00:00.000Z" }) };
    const q = await new Pricing(new FxValuations(storage), [inMemory], clock).quote(BTC, "USD");
    expect(q).toEqual({ rate: "2.5", asOf: "2026-11-20T00:00:00.000Z", source: "memory:a" });
    // It is checked like any answer, and a throwing or empty rateNow hands over to the next source.
    const bad: RateSource = { name: "memory:bad", rate: never, rateNow: () => ({ rate: "0", asOf: "2026-11-20T00:00:00.000Z" }) };
    expect(await new Pricing(new FxValuations(storage), [bad], clock).quote(BTC, "USD").catch((e) => e)).toBeInstanceOf(FxUnavailable);
    const broken: RateSource = { name: "memory:broken", rate: never, rateNow: () => { throw new Error("table gone"); } };
    const empty: RateSource = { name: "memory:empty", rate: never, rateNow: () => null };
    expect((await new Pricing(new FxValuations(storage), [broken, empty, inMemory], clock).quote(BTC, "USD")).source).toBe("memory:a");
    const none = await new Pricing(new FxValuations(storage), [broken, empty], clock).quote(BTC, "USD").catch((e) => e);
    expect(none).toBeInstanceOf(FxUnavailable);
    expect(String(none.message)).toContain("table gone");
    // The snapshot is such a source, and answers the same through both.
    const snap = new SnapshotRateSource();
    expect(snap.rateNow(ETH, "EUR")).toEqual(await snap.rate(ETH, "EUR", new AbortController().signal));
  });

  test("the caller giving up stops everything: its reason is thrown and no fallback is tried", async () => {
    const ctl = new AbortController();
    const slow = new StaticSource("static:slow", () => new Promise(() => {}));
    const after = fixed("1", "static:after");
    const pending = new Pricing(new FxValuations(storage), [slow, after], clock, 10_000).value({ ...company, asset: BTC, amount: "1", currency: "USD", signal: ctl.signal });
    ctl.abort(new Error("client went away"));
    await expect(pending).rejects.toThrow("client went away");
    expect(after.calls).toBe(0);
  });
});

describe("HTTP source over the sandbox peer", () => {
  let peer: FxPeer;
  beforeAll(async () => {
    peer = await startFxPeer({
      rates: { bitcoin: { usd: "67187.123456789012345", eur: 57800.5 }, "usd-coin": { usd: "0.9998" }, ethereum: { usd: "1e-7" }, dead: { usd: "0" } },
      asOf: "2026-11-23T09:59:00.000Z",
    });
  });
  afterAll(() => peer.stop());

  test("rate from the JSON text exactly, asOf from last_updated_at, the CoinGecko query, the API key header", async () => {
    const src = new HttpRateSource({ baseUrl: peer.url, apiKey: "demo-key" });
    expect(src.name).toBe(`http:${peer.url}`);
    expect(await src.rate(BTC, "USD", signal())).toEqual({ rate: "67187.123456789012345", asOf: "2026-11-23T09:59:00.000Z" });
    const req = peer.requests.at(-1)!;
    expect(req.path).toBe("/api/v3/simple/price");
    expect(req.query).toEqual({ ids: "bitcoin", vs_currencies: "usd", include_last_updated_at: "true", precision: "full" });
    expect(req.apiKey).toEqual({ header: "x-cg-demo-api-key", value: "demo-key" });
    expect((await src.rate(BTC, "eur", signal()))?.rate).toBe("57800.5");
    expect((await src.rate(ETH, "usd", signal()))?.rate).toBe("0.0000001"); // exponent form turned into plain decimal
  });

  test("a base URL ending in /api/v3 is used as is; an explicit key header is sent", async () => {
    const src = new HttpRateSource({ baseUrl: `${peer.url}/api/v3/`, apiKey: "pro-key", apiKeyHeader: "x-cg-pro-api-key" });
    expect((await src.rate(USDC_BASE, "usd", signal()))?.rate).toBe("0.9998");
    expect(peer.requests.at(-1)!.path).toBe("/api/v3/simple/price");
    expect(peer.requests.at(-1)!.apiKey).toEqual({ header: "x-cg-pro-api-key", value: "pro-key" });
  });

  test("all of an asset's IDs in one request; the first quoted one in the asset's order wins", async () => {
    const src = new HttpRateSource({ baseUrl: peer.url });
    const asset = { id: "eip155:1/erc20:0xabc", marketDataIds: ["no-such-coin", "usd-coin", "bitcoin"], aliases: [] };
    expect((await src.rate(asset, "usd", signal()))?.rate).toBe("0.9998");
    expect(peer.requests.at(-1)!.query.ids).toBe("no-such-coin,usd-coin,bitcoin");
    expect(peer.requests.at(-1)!.apiKey).toBeNull();
  });

  test("unknown asset, unquoted currency or a zero price: null; then Pricing throws FxUnavailable no_rate", async () => {
    const src = new HttpRateSource({ baseUrl: peer.url });
    expect(await src.rate(UNKNOWN, "usd", signal())).toBeNull();
    expect(await src.rate(BTC, "gbp", signal())).toBeNull();
    expect(await src.rate({ id: "x", marketDataIds: ["dead"], aliases: [] }, "usd", signal())).toBeNull();
    expect(await src.rate({ id: "x", marketDataIds: [], aliases: ["BTC"] }, "usd", signal())).toBeNull();
    const err = await new Pricing(new FxValuations(storage), [src], clock).value({ ...company, asset: UNKNOWN, amount: "1", currency: "USD" }).catch((e) => e);
    expect(err).toBeInstanceOf(FxUnavailable);
    expect(err.reason).toBe("no_rate");
  });

  test("setRate changes the answer; Pricing values through it and records the live source", async () => {
    peer.setRate("ethereum", "eur", "2999.99", "2026-11-23T09:58:00.000Z");
    const v = await new Pricing(new FxValuations(storage), [new HttpRateSource({ baseUrl: peer.url })], clock).value({ ...company, asset: ETH, amount: "0.30000000000000004", currency: "EUR" });
    // 0.30000000000000004 × 2999.99 = 899.99700000000011999…
    expect(v).toMatchObject({ value: "899.997", rate: "2999.99", source: `http:${peer.url}`, asOf: "2026-11-23T09:58:00.000Z" });
  });

  test("slower than the timeout: FxTimeout (source and Pricing), and nothing stored", async () => {
    const slow = await startFxPeer({ rates: { bitcoin: { usd: "1" } }, delayMs: 30_000 });
    try {
      await expect(new HttpRateSource({ baseUrl: slow.url, timeoutMs: 100 }).rate(BTC, "usd", signal())).rejects.toBeInstanceOf(FxTimeout);
      const before = rowCount();
      const p = new Pricing(new FxValuations(storage), [new HttpRateSource({ baseUrl: slow.url, timeoutMs: 10_000 })], clock, 100);
      await expect(p.value({ ...company, asset: BTC, amount: "1", currency: "USD" })).rejects.toBeInstanceOf(FxTimeout);
      expect(rowCount()).toBe(before);
      // With the snapshot fallback the same outage still values the transfer, from the snapshot.
      const withFallback = new Pricing(new FxValuations(storage), [new HttpRateSource({ baseUrl: slow.url, timeoutMs: 100 }), new SnapshotRateSource()], clock, 100);
      expect((await withFallback.value({ ...company, asset: BTC, amount: "1", currency: "USD" })).source).toBe("snapshot:2026-11-01");
    } finally {
      await slow.stop();
    }
  });

  test("HTTP 500, garbage and a redirect are FxUnavailable with their reason; redirects are not followed", async () => {
    const bad = await startFxPeer({ rates: { bitcoin: { usd: "1" } } });
    try {
      const src = new HttpRateSource({ baseUrl: bad.url });
      const cases = [
        ["500", "http_status"],
        ["garbage", "malformed"],
        ["redirect", "redirect"],
      ] as const;
      for (const [mode, reason] of cases) {
        bad.setFail(mode);
        const err = await src.rate(BTC, "usd", signal()).catch((e) => e);
        expect(err).toBeInstanceOf(FxUnavailable);
        expect(err.reason).toBe(reason);
      }
      expect(bad.requests.every((r) => r.path === "/api/v3/simple/price")).toBe(true); // the redirect target was never asked
      bad.setFail(null);
      expect((await src.rate(BTC, "usd", signal()))?.rate).toBe("1");
    } finally {
      await bad.stop();
    }
  });

  test("a stopped peer (connection refused) is FxUnavailable unreachable", async () => {
    const gone = await startFxPeer();
    const url = gone.url;
    await gone.stop();
    const err = await new HttpRateSource({ baseUrl: url }).rate(BTC, "usd", signal()).catch((e) => e);
    expect(err).toBeInstanceOf(FxUnavailable);
    expect(err.reason).toBe("unreachable");
  });
});

describe("HTTP source: malformed answers", () => {
  // A raw server answering whatever body the test sets: shapes the sandbox peer never writes.
  let body = "{}";
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(body, { headers: { "content-type": "application/json" } }) });
  });
  afterAll(() => server.stop(true));
  const ask = async (text: string) => {
    body = text;
    return new HttpRateSource({ baseUrl: `http://127.0.0.1:${server.port}` }).rate(BTC, "usd", signal()).catch((e) => e);
  };

  test("wrong shapes, non-numbers, negative or undated prices, error objects, huge bodies", async () => {
    for (const text of [
      "[]",
      "null",
      '"bitcoin"',
      '{"bitcoin":5}',
      '{"bitcoin":{"usd":"95000","last_updated_at":1700000000}}',
      '{"bitcoin":{"usd":-1,"last_updated_at":1700000000}}',
      '{"bitcoin":{"usd":95000}}',
      '{"bitcoin":{"usd":95000,"last_updated_at":0}}',
      '{"bitcoin":{"usd":95000,"last_updated_at":1.5}}',
      '{"error":"invalid vs_currency"}',
      '{"status":{"error_code":429,"error_message":"rate limited"}}',
      `{"pad":"${"x".repeat(300_000)}"}`,
      "{\"bitcoin\":",
    ]) {
      const err = await ask(text);
      expect(err, text.slice(0, 60)).toBeInstanceOf(FxUnavailable);
      expect(err.reason, text.slice(0, 60)).toBe("malformed");
    }
  });

  test("digits beyond a double survive; null prices and absent IDs are no rate", async () => {
    expect(await ask('{"bitcoin":{"usd":95000.000000000000000001,"last_updated_at":1700000000}}')).toEqual({ rate: "95000.000000000000000001", asOf: "2023-11-14T22:13:20.000Z" });
    expect(await ask('{"bitcoin":{"usd":null,"last_updated_at":1700000000}}')).toBeNull();
    expect(await ask('{"ethereum":{"usd":1,"last_updated_at":1700000000}}')).toBeNull();
    expect(await ask("{}")).toBeNull();
  });
});

describe("configuration", () => {
  const names = (c: { sources: RateSource[] }) => c.sources.map((s) => s.name);

  test("no URL: the snapshot alone, 3 s; a URL: the live source alone unless the snapshot fallback is asked for", () => {
    expect(configureFx({})).toMatchObject({ timeoutMs: 3000 });
    expect(names(configureFx({}))).toEqual(["snapshot:2026-11-01"]);
    expect(names(configureFx({ CARAVAN_FX_URL: "https://api.coingecko.com" }))).toEqual(["http:https://api.coingecko.com"]);
    expect(names(configureFx({ CARAVAN_FX_URL: "https://api.coingecko.com", CARAVAN_FX_FALLBACK: "snapshot" }))).toEqual(["http:https://api.coingecko.com", "snapshot:2026-11-01"]);
    expect(names(configureFx({ CARAVAN_FX_URL: "", CARAVAN_FX_FALLBACK: "none" }))).toEqual(["snapshot:2026-11-01"]);
    expect(configureFx({ CARAVAN_FX_TIMEOUT_MS: "250" }).timeoutMs).toBe(250);
    const http = configureFx({ CARAVAN_FX_URL: "http://127.0.0.1:9/prefix", CARAVAN_FX_TIMEOUT_MS: "1500", CARAVAN_FX_API_KEY: "k" }).sources[0] as HttpRateSource;
    expect(http.timeoutMs).toBe(1500);
    expect(http.name).toBe("http:http://127.0.0.1:9");
  });

  test("a wrong setting is an FxConfigError that names it", () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ CARAVAN_FX_TIMEOUT_MS: "abc" }, /CARAVAN_FX_TIMEOUT_MS/],
      [{ CARAVAN_FX_TIMEOUT_MS: "0" }, /CARAVAN_FX_TIMEOUT_MS/],
      [{ CARAVAN_FX_TIMEOUT_MS: "60001" }, /CARAVAN_FX_TIMEOUT_MS/],
      [{ CARAVAN_FX_TIMEOUT_MS: "1.5" }, /CARAVAN_FX_TIMEOUT_MS/],
      [{ CARAVAN_FX_FALLBACK: "yes" }, /CARAVAN_FX_FALLBACK/],
      [{ CARAVAN_FX_API_KEY: "k" }, /CARAVAN_FX_URL is not/],
      [{ CARAVAN_FX_URL: "api.coingecko.com" }, /not a URL/],
      [{ CARAVAN_FX_URL: "ftp://example.com" }, /http/],
      [{ CARAVAN_FX_URL: "https://u:p@example.com" }, /credentials/],
      [{ CARAVAN_FX_URL: "https://example.com/?x=1" }, /query/],
      [{ CARAVAN_FX_URL: "http://prices.example.com", CARAVAN_FX_API_KEY: "k" }, /https/],
    ];
    for (const [env, message] of bad) {
      expect(() => configureFx(env), JSON.stringify(env)).toThrow(FxConfigError);
      expect(() => configureFx(env), JSON.stringify(env)).toThrow(message);
    }
  });

  test("createPricing from the environment values through the sandbox peer, falling back to the snapshot", async () => {
    const peer = await startFxPeer({ rates: { "usd-coin": { eur: "0.86123" } }, asOf: "2026-11-23T09:00:00.000Z" });
    try {
      const p = createPricing(new FxValuations(storage), { CARAVAN_FX_URL: peer.url, CARAVAN_FX_FALLBACK: "snapshot", CARAVAN_FX_TIMEOUT_MS: "2000" }, clock);
      expect(await p.value({ ...company, asset: USDC_BASE, amount: "1000.5", currency: "EUR" })).toMatchObject({ value: "861.660615", source: `http:${peer.url}` });
      // The peer has no BTC: the snapshot answers.
      expect(await p.value({ ...company, asset: BTC, amount: "1", currency: "EUR" })).toMatchObject({ value: "81700", source: "snapshot:2026-11-01" });
    } finally {
      await peer.stop();
    }
  });
});
