// The asset catalog: search and lookup rules, and the invariants of the committed snapshot against its source.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import {
  CAIP19,
  CHAIN_IDS,
  compareAliases,
  findAsset,
  searchAssets,
  type CatalogAsset,
  type CatalogPackageSupplement,
} from "../../src/domain/assets/catalog.ts";
import { SUPPORTED_NETWORKS } from "../../src/domain/networks/index.ts";
import { loadCatalog } from "../../src/adapters/assets/catalog.ts";
import {
  buildCatalog,
  DEFAULT_ENABLED_TOKENS,
  MARKET_DATA_FILES,
  MARKET_DATA_PACKAGE,
  NATIVE_ASSETS,
  readSource,
  serializeCatalog,
  SOURCE_FILE,
  SOURCE_PACKAGE,
} from "../../scripts/build-asset-catalog.ts";
import { tempDir } from "../support/tmp.ts";
import { repoRoot } from "../support/server.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

function asset(p: Partial<CatalogAsset> & Pick<CatalogAsset, "id" | "network" | "aliases">): CatalogAsset {
  const [chainId, assetReference] = p.id.split("/");
  return { name: p.aliases[0], chainId, assetReference, decimals: 18, sourceNetwork: p.network, marketDataIds: [], defaultEnabled: false, origin: "source", ...p };
}

const ETH = asset({ id: "eip155:1/slip44:60", network: "ethereum", name: "Ether", aliases: ["ETH"], marketDataIds: ["ethereum"] });
const USDC = asset({ id: "eip155:1/erc20:0xa0b8", network: "ethereum", name: "USD Coin", aliases: ["USDC"], marketDataIds: ["usd-coin"] });
const USDC_ARB = asset({ id: "eip155:42161/erc20:0xaf88", network: "arbitrum", name: "USD Coin", aliases: ["USDC"], marketDataIds: ["usd-coin"] });
const USDCE_ARB = asset({ id: "eip155:42161/erc20:0xff97", network: "arbitrum", name: "Bridged USDC", aliases: ["USDC.E"] });
const LIT1 = asset({ id: "eip155:1/erc20:0x0001", network: "ethereum", name: "Litentry", aliases: ["LIT"] });
const LIT2 = asset({ id: "eip155:1/erc20:0x0002", network: "ethereum", name: "Lighter", aliases: ["LIT"] });
const SOL = asset({ id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", network: "solana", name: "Solana", aliases: ["SOL"] });
const WSOL = asset({ id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:So11111111111111111111111111111111111111112", network: "solana", name: "Wrapped SOL", aliases: ["SOL"] });
const BTC = asset({ id: "bip122:000000000019d6689c085ae165831e93/slip44:0", network: "bitcoin", name: "Bitcoin", aliases: ["BTC", "XBT"], marketDataIds: ["bitcoin"] });
const SAMPLE = [ETH, USDC, USDC_ARB, USDCE_ARB, LIT1, LIT2, BTC, SOL, WSOL];
const ids = (xs: CatalogAsset[]) => xs.map((a) => a.id);

describe("searchAssets", () => {
  const cases: [string, Parameters<typeof searchAssets>[1], CatalogAsset[]][] = [
    ["no filter: everything, in catalog order", {}, SAMPLE],
    ["one word in an alias, any case", { q: "usdc" }, [USDC, USDC_ARB, USDCE_ARB]],
    ["two words must both appear (alias and network)", { q: "USDC arbitrum" }, [USDC_ARB, USDCE_ARB]],
    ["words may come from different fields (market-data ID and network)", { q: "usd-coin ETHEREUM" }, [USDC]],
    ["a word that appears nowhere excludes", { q: "usdc solana" }, []],
    ["a word in the name", { q: "bridged" }, [USDCE_ARB]],
    ["a word in the ID", { q: "0xff97" }, [USDCE_ARB]],
    ["an alternate code", { q: "xbt" }, [BTC]],
    ["extra whitespace is ignored", { q: "  usdc   arbitrum " }, [USDC_ARB, USDCE_ARB]],
    ["network filter", { network: "arbitrum" }, [USDC_ARB, USDCE_ARB]],
    ["assetId filter is exact", { assetId: "eip155:1/slip44:60" }, [ETH]],
    ["assetId of another case is not the ID", { assetId: "EIP155:1/SLIP44:60" }, []],
    ["filters combine", { q: "usdc", network: "ethereum" }, [USDC]],
  ];
  for (const [name, filter, want] of cases) test(name, () => expect(ids(searchAssets(SAMPLE, filter))).toEqual(ids(want)));
});

describe("findAsset", () => {
  test("a code of the network, any case", () => {
    expect(findAsset(SAMPLE, { asset: "usdc", network: "ethereum" })).toEqual({ ok: true, asset: USDC });
    expect(findAsset(SAMPLE, { asset: "USDC", network: "arbitrum" })).toEqual({ ok: true, asset: USDC_ARB });
    expect(findAsset(SAMPLE, { asset: "xbt", network: "bitcoin" })).toEqual({ ok: true, asset: BTC });
  });
  test("the ID itself", () => {
    expect(findAsset(SAMPLE, { asset: "eip155:42161/erc20:0xff97", network: "arbitrum" })).toEqual({ ok: true, asset: USDCE_ARB });
  });
  test("null when the network has no such code, or the ID is of another network", () => {
    expect(findAsset(SAMPLE, { asset: "BTC", network: "ethereum" })).toBeNull();
    expect(findAsset(SAMPLE, { asset: "eip155:1/slip44:60", network: "arbitrum" })).toBeNull();
    expect(findAsset(SAMPLE, { asset: "", network: "ethereum" })).toBeNull();
    expect(findAsset(SAMPLE, { asset: "USDC", network: "nowhere" })).toBeNull();
  });
  test("a network's native code means the native asset even where a token reuses it; the token by its ID", () => {
    expect(findAsset(SAMPLE, { asset: "sol", network: "solana" })).toEqual({ ok: true, asset: SOL });
    expect(findAsset(SAMPLE, { asset: WSOL.id, network: "solana" })).toEqual({ ok: true, asset: WSOL });
  });
  test("two tokens of the network with the code: ambiguous, with both candidates", () => {
    expect(findAsset(SAMPLE, { asset: "lit", network: "ethereum" })).toEqual({ ok: false, reason: "ambiguous", candidates: [LIT1, LIT2] });
  });
});

describe("the committed catalog snapshot", () => {
  const catalog = loadCatalog();
  const source = readSource();
  const dir = tempDir("caravan-catalog-");

  const installed = (name: string, file: string) => readFileSync(join(repoRoot, "node_modules", name, file));
  const hex = (bytes: Uint8Array | string) => bytesToHex(sha256(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes));
  const primaryBytes = installed(SOURCE_PACKAGE, SOURCE_FILE);
  const primaryEntries: number = JSON.parse(primaryBytes.toString("utf8")).tokens.length;
  const mappingFiles = MARKET_DATA_FILES.map((file) => {
    const bytes = installed(MARKET_DATA_PACKAGE, file);
    return { file, bytes, map: JSON.parse(bytes.toString("utf8")) as Record<string, string> };
  });
  /** The installed mapping, read here on its own (not through the build script): CAIP-19 ID → CoinGecko ID. */
  const mapping = new Map(mappingFiles.flatMap((f) => Object.entries(f.map)));
  const marketSupplement = catalog.supplements.find((s): s is CatalogPackageSupplement => "package" in s && s.package === MARKET_DATA_PACKAGE);
  const tokens = catalog.assets.filter((a) => a.origin === "source");

  test("names its primary source: the installed package, its version and licence, the SHA-256 and entries of the file", () => {
    const pkg = JSON.parse(installed(SOURCE_PACKAGE, "package.json").toString("utf8"));
    expect(catalog.source).toMatchObject({ package: SOURCE_PACKAGE, version: pkg.version, file: SOURCE_FILE, license: pkg.license });
    expect(catalog.source.license).toBe("GPL-3.0-or-later");
    expect(catalog.source.sha256).toBe(hex(primaryBytes));
    expect(catalog.source.entryCount).toBe(primaryEntries);
    expect(catalog.fetchedAt).toBe(new Date(JSON.parse(primaryBytes.toString("utf8")).timestamp).toISOString());
  });

  test("names its market-data source: the installed package, its version, a permissive licence, each file's SHA-256 and entries", () => {
    const pkg = JSON.parse(installed(MARKET_DATA_PACKAGE, "package.json").toString("utf8"));
    expect(marketSupplement).toBeDefined();
    expect(marketSupplement!).toMatchObject({ package: MARKET_DATA_PACKAGE, version: pkg.version, license: pkg.license });
    expect(["MIT", "ISC", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "CC0-1.0"]).toContain(marketSupplement!.license);
    expect(marketSupplement!.files).toEqual(mappingFiles.map((f) => ({ file: f.file, sha256: hex(f.bytes), entryCount: Object.keys(f.map).length })));
    expect(marketSupplement!.entryCount).toBe(mappingFiles.reduce((n, f) => n + Object.keys(f.map).length, 0));
  });

  test("sourceSha256 and sourceEntryCount cover the same files: the primary list, then the mapping files in order", () => {
    // sha256sum's output for those files (`<hex>  <package>/<file>` lines), hashed again: `sha256sum … | sha256sum`.
    const manifest = [
      `${hex(primaryBytes)}  ${SOURCE_PACKAGE}/${SOURCE_FILE}\n`,
      ...mappingFiles.map((f) => `${hex(f.bytes)}  ${MARKET_DATA_PACKAGE}/${f.file}\n`),
    ].join("");
    expect(catalog.sourceSha256).toBe(hex(manifest));
    expect(catalog.sourceSha256).not.toBe(hex(primaryBytes));
    expect(catalog.sourceEntryCount).toBe(primaryEntries + mapping.size);
    expect(catalog.sourceEntryCount).toBe(catalog.source.entryCount + marketSupplement!.entryCount);
  });

  test("every asset the mapping covers carries its CoinGecko ID; other tokens none; natives keep their table's", () => {
    for (const a of catalog.assets) {
      const cg = mapping.get(a.id);
      if (cg !== undefined) expect({ id: a.id, ids: a.marketDataIds }).toEqual({ id: a.id, ids: expect.arrayContaining([cg]) });
      else if (a.origin === "source") expect({ id: a.id, ids: a.marketDataIds }).toEqual({ id: a.id, ids: [] });
      expect(a.marketDataIds).toEqual([...new Set(a.marketDataIds)].sort());
      for (const x of a.marketDataIds) expect(x).toMatch(/^[-_.a-z0-9]{1,100}$/);
    }
    for (const n of NATIVE_ASSETS) {
      const a = catalog.assets.find((x) => x.network === n.network && x.assetReference === `slip44:${n.slip44}`)!;
      expect(a.marketDataIds).toEqual(expect.arrayContaining(n.marketDataIds));
    }
    // Most tokens are covered; every default-enabled asset is.
    const covered = tokens.filter((a) => mapping.has(a.id)).length;
    expect(tokens.filter((a) => a.marketDataIds.length > 0).length).toBe(covered);
    expect(covered).toBeGreaterThan(tokens.length - covered);
    for (const a of catalog.assets.filter((x) => x.defaultEnabled)) expect({ id: a.id, n: a.marketDataIds.length > 0 }).toEqual({ id: a.id, n: true });
  });

  test("well-known market-data IDs", () => {
    const cases: [string, string, string[]][] = [
      ["USDC on ethereum", "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", ["usd-coin"]],
      ["USDT on ethereum", "eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7", ["tether"]],
      ["WBTC on ethereum", "eip155:1/erc20:0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", ["wrapped-bitcoin"]],
      ["WETH on ethereum", "eip155:1/erc20:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", ["weth"]],
      ["USDC on arbitrum (native, not USDC.e)", "eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831", ["usd-coin"]],
      ["USDC on solana", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", ["usd-coin"]],
      ["ETH (native table and mapping agree)", "eip155:1/slip44:60", ["ethereum"]],
      ["SOL (native table and mapping agree)", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", ["solana"]],
      ["BTC (native table only)", "bip122:000000000019d6689c085ae165831e93/slip44:0", ["bitcoin"]],
    ];
    for (const [name, id, want] of cases) expect({ name, ids: catalog.assets.find((a) => a.id === id)?.marketDataIds }).toEqual({ name, ids: want });
  });

  test("the build refuses a malformed mapping: a bad CoinGecko ID, files that disagree, files missing or reordered", () => {
    const withFiles = (files: { file: string; bytes: Uint8Array }[]) => ({ ...source, marketData: { ...source.marketData, files } });
    const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
    const [first, ...rest] = source.marketData.files;
    const usdc = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
    expect(() => buildCatalog(withFiles([{ file: first.file, bytes: enc({ [usdc]: "USD Coin" }) }, ...rest]))).toThrow("is not a CoinGecko ID");
    expect(() => buildCatalog(withFiles([{ file: first.file, bytes: enc({ "USDC": "usd-coin" }) }, ...rest]))).toThrow("is not CAIP-19");
    expect(() => buildCatalog(withFiles([{ file: first.file, bytes: enc([]) }, ...rest]))).toThrow("not a CAIP-19 → CoinGecko ID object");
    const clash = [...rest];
    clash[clash.length - 1] = { file: clash[clash.length - 1].file, bytes: enc({ [usdc]: "tether" }) };
    expect(() => buildCatalog(withFiles([first, ...clash]))).toThrow("another file says usd-coin");
    expect(() => buildCatalog(withFiles(rest))).toThrow("in that order");
    expect(() => buildCatalog(withFiles([...rest, first]))).toThrow("in that order");
  });

  test("counts match the assets", () => {
    expect(catalog.assetCount).toBe(catalog.assets.length);
    expect(catalog.networkCount).toBe(new Set(catalog.assets.map((a) => a.network)).size);
    expect(catalog.networkCount).toBe(SUPPORTED_NETWORKS.length);
  });

  test("every ID is a chain-qualified CAIP-19 ID of its network's chain, unique, never a bare ticker", () => {
    const seen = new Set<string>();
    for (const a of catalog.assets) {
      expect(a.id).toMatch(CAIP19);
      expect(a.id).toBe(`${a.chainId}/${a.assetReference}`);
      expect(a.chainId).toBe(CHAIN_IDS[a.network]);
      expect(a.aliases.map((x) => x.toUpperCase())).not.toContain(a.id.toUpperCase());
      expect(seen.has(a.id)).toBe(false);
      seen.add(a.id);
      if (a.chainId.startsWith("eip155:") && a.assetReference.startsWith("erc20:")) expect(a.assetReference).toMatch(/^erc20:0x[0-9a-f]{40}$/);
    }
  });

  test("every asset is on a supported network, with integer decimals 0-36 and upper-case aliases shortest first", () => {
    for (const a of catalog.assets) {
      expect(SUPPORTED_NETWORKS as readonly string[]).toContain(a.network);
      expect(Number.isInteger(a.decimals) && a.decimals >= 0 && a.decimals <= 36).toBe(true);
      expect(a.aliases.length).toBeGreaterThan(0);
      expect(a.aliases).toEqual([...a.aliases].sort(compareAliases));
      for (let i = 1; i < a.aliases.length; i++) expect(a.aliases[i].length).toBeGreaterThanOrEqual(a.aliases[i - 1].length);
      for (const x of a.aliases) expect(x).toBe(x.toUpperCase());
      expect(typeof a.defaultEnabled).toBe("boolean");
    }
  });

  test("every supported network has its native asset, enabled by default", () => {
    for (const n of SUPPORTED_NETWORKS) {
      const natives = catalog.assets.filter((a) => a.network === n && a.assetReference.startsWith("slip44:"));
      expect({ n, count: natives.length }).toEqual({ n, count: 1 });
      expect(natives[0].defaultEnabled).toBe(true);
    }
    expect(NATIVE_ASSETS.length).toBe(SUPPORTED_NETWORKS.length);
  });

  test("well-known tokens: USDC and USDT by code where the source has them, and the default-enabled list", () => {
    const expectOne = (code: string, network: string, id: string) => {
      const r = findAsset(catalog.assets, { asset: code, network });
      expect(r && r.ok ? r.asset.id : r).toBe(id);
    };
    expectOne("USDC", "ethereum", "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
    expectOne("usdt", "ethereum", "eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7");
    expectOne("USDC", "solana", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    expectOne("ETH", "base", "eip155:8453/slip44:60");
    expectOne("MATIC", "polygon", "eip155:137/slip44:966");
    expectOne("SOL", "solana", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501");
    expect(findAsset(catalog.assets, { asset: "WBTC", network: "solana" })).toMatchObject({ ok: false, reason: "ambiguous" });
    const on = new Set(catalog.assets.filter((a) => a.defaultEnabled).map((a) => a.id));
    for (const id of DEFAULT_ENABLED_TOKENS) expect(on.has(id)).toBe(true);
    expect(on.size).toBe(DEFAULT_ENABLED_TOKENS.length + NATIVE_ASSETS.length);
  });

  test("the snapshot is what the build script makes from the installed source, byte for byte", () => {
    const committed = readFileSync(join(repoRoot, "db/assets/catalog.json"), "utf8");
    expect(serializeCatalog(buildCatalog(source))).toBe(committed);
  });

  test("the build script run twice writes byte-identical files", async () => {
    const outs = [join(dir, "a.json"), join(dir, "b.json")];
    for (const out of outs) {
      const p = Bun.spawn(["bun", join(repoRoot, "scripts/build-asset-catalog.ts"), out], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" });
      expect(await p.exited).toBe(0);
    }
    const [a, b] = outs.map((p) => readFileSync(p));
    expect(a.equals(b)).toBe(true);
    expect(a.toString("utf8")).toBe(readFileSync(join(repoRoot, "db/assets/catalog.json"), "utf8"));
  });
});
