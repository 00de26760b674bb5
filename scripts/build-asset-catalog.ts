// Builds db/assets/catalog.json from the installed Uniswap default token list plus a hand-written table of native assets.
//
// Usage: bun scripts/build-asset-catalog.ts [output path]   (default: db/assets/catalog.json of this checkout)
//
// The same source bytes always give the same output bytes: nothing depends on the clock, the locale or the
// machine (fetchedAt is the list's own build timestamp; every list is sorted by code-unit order).
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { SUPPORTED_NETWORKS, type Network } from "../src/domain/networks/index.ts";
import { CAIP19, CHAIN_IDS, compareAliases, type Catalog, type CatalogAsset } from "../src/domain/assets/catalog.ts";

export const SOURCE_PACKAGE = "@uniswap/default-token-list";
export const SOURCE_FILE = "build/uniswap-default.tokenlist.json";

/** The token list's `chainId` → our network. 501000101 is the list's own number for Solana mainnet. */
const SOURCE_CHAINS: Readonly<Record<number, Network>> = {
  1: "ethereum",
  10: "optimism",
  56: "bsc",
  137: "polygon",
  250: "fantom",
  8453: "base",
  42161: "arbitrum",
  43114: "avalanche",
  501000101: "solana",
};

interface NativeAsset {
  network: Network;
  /** SLIP-44 coin type of the native asset. */
  slip44: number;
  name: string;
  decimals: number;
  aliases: string[];
  /** CoinGecko IDs. */
  marketDataIds: string[];
}

/**
 * HAND-WRITTEN, not from the source: the token list has no native assets (it lists contracts only), so the native
 * asset of each supported network comes from here. Coin types are SLIP-44's; decimals are each chain's base unit
 * (satoshi, wei, lamport, sun, drops, stroops, microalgo, lovelace, uatom, yoctoNEAR, planck); market-data IDs are
 * CoinGecko's. MATIC is kept as an alias of POL, which replaced it as Polygon's native token in 2024.
 */
export const NATIVE_ASSETS: readonly NativeAsset[] = [
  { network: "bitcoin", slip44: 0, name: "Bitcoin", decimals: 8, aliases: ["BTC", "XBT"], marketDataIds: ["bitcoin"] },
  { network: "ethereum", slip44: 60, name: "Ether", decimals: 18, aliases: ["ETH"], marketDataIds: ["ethereum"] },
  { network: "polygon", slip44: 966, name: "Polygon Ecosystem Token", decimals: 18, aliases: ["POL", "MATIC"], marketDataIds: ["polygon-ecosystem-token"] },
  { network: "bsc", slip44: 714, name: "BNB", decimals: 18, aliases: ["BNB"], marketDataIds: ["binancecoin"] },
  { network: "solana", slip44: 501, name: "Solana", decimals: 9, aliases: ["SOL"], marketDataIds: ["solana"] },
  { network: "tron", slip44: 195, name: "TRON", decimals: 6, aliases: ["TRX"], marketDataIds: ["tron"] },
  { network: "avalanche", slip44: 9000, name: "Avalanche", decimals: 18, aliases: ["AVAX"], marketDataIds: ["avalanche-2"] },
  { network: "arbitrum", slip44: 60, name: "Ether", decimals: 18, aliases: ["ETH"], marketDataIds: ["ethereum"] },
  { network: "optimism", slip44: 60, name: "Ether", decimals: 18, aliases: ["ETH"], marketDataIds: ["ethereum"] },
  { network: "base", slip44: 60, name: "Ether", decimals: 18, aliases: ["ETH"], marketDataIds: ["ethereum"] },
  { network: "litecoin", slip44: 2, name: "Litecoin", decimals: 8, aliases: ["LTC"], marketDataIds: ["litecoin"] },
  { network: "ripple", slip44: 144, name: "XRP", decimals: 6, aliases: ["XRP"], marketDataIds: ["ripple"] },
  { network: "stellar", slip44: 148, name: "Stellar Lumens", decimals: 7, aliases: ["XLM"], marketDataIds: ["stellar"] },
  { network: "algorand", slip44: 283, name: "Algorand", decimals: 6, aliases: ["ALGO"], marketDataIds: ["algorand"] },
  { network: "dogecoin", slip44: 3, name: "Dogecoin", decimals: 8, aliases: ["DOGE"], marketDataIds: ["dogecoin"] },
  { network: "cardano", slip44: 1815, name: "Cardano", decimals: 6, aliases: ["ADA"], marketDataIds: ["cardano"] },
  { network: "cosmos", slip44: 118, name: "Cosmos Hub Atom", decimals: 6, aliases: ["ATOM"], marketDataIds: ["cosmos"] },
  { network: "near", slip44: 397, name: "NEAR Protocol", decimals: 24, aliases: ["NEAR"], marketDataIds: ["near"] },
  { network: "polkadot", slip44: 354, name: "Polkadot", decimals: 10, aliases: ["DOT"], marketDataIds: ["polkadot"] },
  { network: "fantom", slip44: 1007, name: "Fantom", decimals: 18, aliases: ["FTM"], marketDataIds: ["fantom"] },
  { network: "bitcoin-cash", slip44: 145, name: "Bitcoin Cash", decimals: 8, aliases: ["BCH"], marketDataIds: ["bitcoin-cash"] },
];

/**
 * Tokens enabled by default besides every native asset: the main stablecoins (USDC, USDT, DAI) and the standard
 * wrapped BTC/ETH of each network, at their canonical contracts (named by ID so that a look-alike symbol is never
 * enabled). Bridged variants (USDC.e, DAI.e) stay off. The build fails if the source stops listing one of them.
 */
export const DEFAULT_ENABLED_TOKENS: readonly string[] = [
  // ethereum: USDC, USDT, DAI, WBTC, WETH
  "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
  "eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7",
  "eip155:1/erc20:0x6b175474e89094c44da98b954eedeac495271d0f",
  "eip155:1/erc20:0x2260fac5e5542a773aa44fbcfedf7c193bc2c599",
  "eip155:1/erc20:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
  // optimism: USDC, USDT, DAI, WBTC, WETH
  "eip155:10/erc20:0x0b2c639c533813f4aa9d7837caf62653d097ff85",
  "eip155:10/erc20:0x94b008aa00579c1307b0ef2c499ad98a8ce58e58",
  "eip155:10/erc20:0xda10009cbd5d07dd0cecc66161fc93d7c9000da1",
  "eip155:10/erc20:0x68f180fcce6836688e9084f035309e29bf0a2095",
  "eip155:10/erc20:0x4200000000000000000000000000000000000006",
  // bsc: USDC, USDT, DAI, WETH
  "eip155:56/erc20:0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d",
  "eip155:56/erc20:0x55d398326f99059ff775485246999027b3197955",
  "eip155:56/erc20:0x1af3f329e8be154074d8769d1ffa4ee058b1dbc3",
  "eip155:56/erc20:0x2170ed0880ac9a755fd29b2688956bd959f933f8",
  // polygon: USDC, USDT, DAI, WBTC, WETH
  "eip155:137/erc20:0x3c499c542cef5e3811e1192ce70d8cc03d5c3359",
  "eip155:137/erc20:0xc2132d05d31c914a87c6611c10748aeb04b58e8f",
  "eip155:137/erc20:0x8f3cf7ad23cd3cadbd9735aff958023239c6a063",
  "eip155:137/erc20:0x1bfd67037b42cf73acf2047067bd4f2c47d9bfd6",
  "eip155:137/erc20:0x7ceb23fd6bc0add59e62ac25578270cff1b9f619",
  // base: USDC, DAI, WETH
  "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
  "eip155:8453/erc20:0x50c5725949a6f0c72e6c4a641f24049a917db0cb",
  "eip155:8453/erc20:0x4200000000000000000000000000000000000006",
  // arbitrum: USDC, USDT0 (Tether's USDT on Arbitrum), DAI, WBTC, WETH
  "eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831",
  "eip155:42161/erc20:0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9",
  "eip155:42161/erc20:0xda10009cbd5d07dd0cecc66161fc93d7c9000da1",
  "eip155:42161/erc20:0x2f2a2543b76a4166549f7aab2e75bef0aefc5b0f",
  "eip155:42161/erc20:0x82af49447d8a07e3bd95bd0d56f35241523fbab1",
  // avalanche: USDC, USDT, WBTC, WETH
  "eip155:43114/erc20:0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e",
  "eip155:43114/erc20:0x9702230a8ea53601f5cd2dc00fdbc13d4df4a8c7",
  "eip155:43114/erc20:0x50b7545627a5162f82a992c33b87adc75187b218",
  "eip155:43114/erc20:0x49d5c2bdffac6ce2bfdb6640f4f80f226bc10bab",
  // solana: USDC, USDT
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
];

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_MINT = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

interface SourceToken {
  chainId: number;
  address: string;
  name: string;
  symbol: string;
  decimals: number;
}

interface SourceList {
  name: string;
  timestamp: string;
  tokens: SourceToken[];
}

export interface BuildInput {
  bytes: Uint8Array;
  version: string;
  license: string;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function tokenAsset(t: SourceToken): CatalogAsset | null {
  const network = SOURCE_CHAINS[t.chainId];
  if (!network) return null;
  const name = typeof t.name === "string" ? t.name.trim() : "";
  const symbol = typeof t.symbol === "string" ? t.symbol.trim().toUpperCase() : "";
  if (!name || !symbol || /\s/.test(symbol)) return null;
  if (!Number.isInteger(t.decimals) || t.decimals < 0 || t.decimals > 36) return null;
  let assetReference: string;
  if (network === "solana") {
    if (typeof t.address !== "string" || !SOLANA_MINT.test(t.address)) return null;
    assetReference = `token:${t.address}`;
  } else {
    if (typeof t.address !== "string" || !EVM_ADDRESS.test(t.address)) return null;
    assetReference = `erc20:${t.address.toLowerCase()}`;
  }
  const chainId = CHAIN_IDS[network];
  return {
    id: `${chainId}/${assetReference}`,
    name,
    network,
    chainId,
    assetReference,
    decimals: t.decimals,
    sourceNetwork: String(t.chainId),
    aliases: [symbol],
    marketDataIds: [],
    defaultEnabled: false,
    origin: "source",
  };
}

function nativeAsset(n: NativeAsset): CatalogAsset {
  const chainId = CHAIN_IDS[n.network];
  const assetReference = `slip44:${n.slip44}`;
  return {
    id: `${chainId}/${assetReference}`,
    name: n.name,
    network: n.network,
    chainId,
    assetReference,
    decimals: n.decimals,
    sourceNetwork: n.network,
    aliases: [...n.aliases].sort(compareAliases),
    marketDataIds: [...n.marketDataIds].sort(cmp),
    defaultEnabled: true,
    origin: "native_table",
  };
}

/** Default-enabled first (so the first page shows the well-known assets), then network, natives first, code, ID. */
function compareAssets(a: CatalogAsset, b: CatalogAsset): number {
  return (
    Number(b.defaultEnabled) - Number(a.defaultEnabled) ||
    cmp(a.network, b.network) ||
    Number(b.origin === "native_table") - Number(a.origin === "native_table") ||
    cmp(a.aliases[0], b.aliases[0]) ||
    cmp(a.id, b.id)
  );
}

export function buildCatalog(input: BuildInput): Catalog {
  const list = JSON.parse(new TextDecoder().decode(input.bytes)) as SourceList;
  if (!list || !Array.isArray(list.tokens) || typeof list.timestamp !== "string") throw new Error(`${SOURCE_FILE}: not a token list`);
  const fetchedAt = new Date(list.timestamp);
  if (Number.isNaN(fetchedAt.getTime())) throw new Error(`${SOURCE_FILE}: timestamp "${list.timestamp}" is not a date`);
  const byId = new Map<string, CatalogAsset>();
  // The first entry of an ID wins; the list has no duplicates today, this keeps the output stable if it ever does.
  for (const t of list.tokens) {
    const a = tokenAsset(t);
    if (a && !byId.has(a.id)) byId.set(a.id, a);
  }
  for (const n of NATIVE_ASSETS) {
    const a = nativeAsset(n);
    byId.set(a.id, a);
  }
  for (const id of DEFAULT_ENABLED_TOKENS) {
    const a = byId.get(id);
    if (!a) throw new Error(`default-enabled token ${id} is not in the source any more: review DEFAULT_ENABLED_TOKENS`);
    a.defaultEnabled = true;
  }
  const assets = [...byId.values()].sort(compareAssets);
  for (const a of assets) {
    if (!CAIP19.test(a.id)) throw new Error(`asset ID ${a.id} is not CAIP-19`);
    if (!(SUPPORTED_NETWORKS as readonly string[]).includes(a.network)) throw new Error(`asset ${a.id}: unsupported network ${a.network}`);
  }
  return {
    fetchedAt: fetchedAt.toISOString(),
    source: { package: SOURCE_PACKAGE, version: input.version, file: SOURCE_FILE, license: input.license, listName: String(list.name) },
    supplements: [
      {
        file: "scripts/build-asset-catalog.ts",
        table: "NATIVE_ASSETS",
        entryCount: NATIVE_ASSETS.length,
        note: "hand-written: the native asset of each supported network (the source lists contracts only)",
      },
    ],
    sourceSha256: bytesToHex(sha256(input.bytes)),
    sourceEntryCount: list.tokens.length,
    assetCount: assets.length,
    networkCount: new Set(assets.map((a) => a.network)).size,
    assets,
  };
}

/** Pretty header, one asset per line: readable diffs when the source changes. */
export function serializeCatalog(c: Catalog): string {
  const { assets, ...head } = c;
  const top = JSON.stringify(head, null, 2).replace(/\n}$/, "");
  return `${top},\n  "assets": [\n${assets.map((a) => `    ${JSON.stringify(a)}`).join(",\n")}\n  ]\n}\n`;
}

/** The installed source package: its file bytes, version and license. */
export function readSource(): BuildInput {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve(`${SOURCE_PACKAGE}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string; license: string };
  return { bytes: readFileSync(join(dirname(pkgPath), SOURCE_FILE)), version: pkg.version, license: pkg.license };
}

export const DEFAULT_OUTPUT = fileURLToPath(new URL("../db/assets/catalog.json", import.meta.url));

if (import.meta.main) {
  const out = process.argv[2] ?? DEFAULT_OUTPUT;
  const catalog = buildCatalog(readSource());
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, serializeCatalog(catalog));
  console.log(
    `wrote ${out}: ${catalog.assetCount} assets on ${catalog.networkCount} networks from ${SOURCE_PACKAGE}@${catalog.source.version} (${catalog.sourceEntryCount} entries, sha256 ${catalog.sourceSha256})`,
  );
}
