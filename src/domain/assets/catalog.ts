// The asset catalog: its shapes, the CAIP-2 chain of each network, and pure queries (API search, lookup by code).
//
// IDs are CAIP-19 (`<CAIP-2 chain>/<asset namespace>:<reference>`), so an ID is never a ticker alone. CAIP-2 chain
// IDs per network follow the ChainAgnostic namespace profiles where one exists:
// - bip122 (bitcoin, litecoin, dogecoin): the first 32 hex characters of the genesis block hash (BIP-122).
//   bitcoin-cash shares Bitcoin's genesis, so it is named by its first own block after the fork (478559,
//   000000000000000000651ef99cb9fcbe…), the form wallets use.
// - eip155 (EVM): the EIP-155 chain ID; tokens are `erc20:<lowercase address>`.
// - solana: the genesis hash prefix; tokens are `token:<mint>` (base58, case kept).
// - tron: `tron:728126428`, the decimal eth_chainId of mainnet (0x2b6653dc) as the tron profile specifies.
// - ripple `xrpl:0`, stellar `stellar:pubnet`, algorand (URL-safe genesis hash prefix), cosmos `cosmos:cosmoshub-4`,
//   polkadot (genesis hash prefix), near `near:mainnet`, cardano `cip34:1-764824073` (CIP-34; no CAIP profile yet).
// Native assets are `slip44:<coin type of the native asset>` (POL 966, BNB 714, AVAX 9000, FTM 1007); ETH on the
// rollups (arbitrum, optimism, base) is Ether, coin type 60.
import type { Network } from "../networks/index.ts";

export const CHAIN_IDS: Readonly<Record<Network, string>> = {
  bitcoin: "bip122:000000000019d6689c085ae165831e93",
  ethereum: "eip155:1",
  polygon: "eip155:137",
  bsc: "eip155:56",
  solana: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
  tron: "tron:728126428",
  avalanche: "eip155:43114",
  arbitrum: "eip155:42161",
  optimism: "eip155:10",
  base: "eip155:8453",
  litecoin: "bip122:12a765e31ffd4059bada1e25190f6e98",
  ripple: "xrpl:0",
  stellar: "stellar:pubnet",
  algorand: "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k",
  dogecoin: "bip122:1a91e3dace36e2be3bf030a65679fe82",
  cardano: "cip34:1-764824073",
  cosmos: "cosmos:cosmoshub-4",
  near: "near:mainnet",
  polkadot: "polkadot:91b171bb158e2d3848fa23a9f1c25182",
  fantom: "eip155:250",
  "bitcoin-cash": "bip122:000000000000000000651ef99cb9fcbe",
};

/** CAIP-19 syntax (CAIP-2 chain, then `/namespace:reference`). */
export const CAIP19 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}\/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128}$/;

export interface CatalogAsset {
  /** CAIP-19 = `${chainId}/${assetReference}`. */
  id: string;
  name: string;
  network: Network;
  /** CAIP-2 chain ID. */
  chainId: string;
  /** The part of the ID after the chain: `slip44:60`, `erc20:0x…`, `token:<mint>`. */
  assetReference: string;
  decimals: number;
  /** The chain as the source spelled it (the token list's numeric chainId; the network name for the native table). */
  sourceNetwork: string;
  /** The asset's codes, upper case, shortest first. */
  aliases: string[];
  /** CoinGecko IDs (plain, e.g. `usd-coin`), when known: the native table's, and the market-data mapping's. */
  marketDataIds: string[];
  /** Enabled for new outgoing transfers unless the company's policy says otherwise. */
  defaultEnabled: boolean;
  /** `source`: the asset list package; `native_table`: the build script's hand-written table of native assets. */
  origin: "source" | "native_table";
}

/** One file read from a registry package: its path inside the package, the SHA-256 (hex) of its bytes, its entries. */
export interface CatalogSourceFile {
  file: string;
  sha256: string;
  entryCount: number;
}

/** A hand-written table of the build script. */
export interface CatalogTableSupplement {
  file: string;
  table: string;
  entryCount: number;
  note: string;
}

/** A second registry package read by the build (the CAIP-19 → CoinGecko ID mapping). */
export interface CatalogPackageSupplement {
  package: string;
  version: string;
  license: string;
  /** The files read, in the fixed order of the build. */
  files: CatalogSourceFile[];
  /** Entries over `files`. */
  entryCount: number;
  note: string;
}

export interface Catalog {
  /** When the source list was built (its own `timestamp`), not when this snapshot was written. */
  fetchedAt: string;
  /** The primary source: the asset list every token comes from. `sha256`/`entryCount` are of its one file. */
  source: { package: string; version: string; file: string; license: string; listName: string; sha256: string; entryCount: number };
  supplements: (CatalogTableSupplement | CatalogPackageSupplement)[];
  /**
   * SHA-256 (hex) over every registry file the build read, so it changes when any of them does: the hash of a
   * `sha256sum`-style manifest with one line `<sha256 of the file>  <package>/<file>\n` per file, the primary list
   * first, then each package supplement's files in their listed order (`sourceManifest` in the build script).
   * Hand-written tables are not in it (they are in the build script, under version control).
   */
  sourceSha256: string;
  /**
   * Entries over those same files, summed: the primary list's tokens (on every chain; most are on chains Caravan does
   * not support) plus the mapping entries of each supplement file. Each file's own count is in `source`/`supplements`.
   */
  sourceEntryCount: number;
  assetCount: number;
  networkCount: number;
  assets: CatalogAsset[];
}

/** Shortest first, then code-unit order, so the order never depends on a locale. */
export function compareAliases(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export interface AssetFilter {
  q?: string;
  network?: string;
  assetId?: string;
}

/** Lower-cased texts a search word may appear in. */
function fields(a: CatalogAsset): string[] {
  return [a.id, a.name, a.network, ...a.aliases, ...a.marketDataIds].map((s) => s.toLowerCase());
}

/** The API's filters: every word of `q` must appear (any case) in the ID, name, network, an alias or a market-data ID. */
export function searchAssets(assets: readonly CatalogAsset[], f: AssetFilter): CatalogAsset[] {
  const words = (f.q ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  return assets.filter((a) => {
    if (f.network !== undefined && a.network !== f.network) return false;
    if (f.assetId !== undefined && a.id !== f.assetId) return false;
    if (words.length === 0) return true;
    const texts = fields(a);
    return words.every((w) => texts.some((t) => t.includes(w)));
  });
}

/** The chain's own coin (CAIP-19 `slip44:` reference), not a token contract. */
export function isNative(a: CatalogAsset): boolean {
  return a.assetReference.startsWith("slip44:");
}

export type AssetLookup = { ok: true; asset: CatalogAsset } | { ok: false; reason: "ambiguous"; candidates: CatalogAsset[] };

/**
 * The one asset of `network` whose ID equals `asset`, or else whose code (alias) equals it in any case.
 * A network's native code means its native asset even where a token reuses it (the source lists Wrapped SOL as
 * "SOL" and Polygon's native-token contract as "MATIC"); those tokens stay reachable by ID.
 * null when none matches; `ambiguous` with the candidates when two tokens of the network share the code
 * (the caller must then ask for the ID: guessing between two contracts would move the wrong token).
 */
export function findAsset(assets: readonly CatalogAsset[], q: { asset: string; network: string }): AssetLookup | null {
  const code = q.asset.trim();
  if (!code) return null;
  // The catalog is immutable once loaded: its lookup index is built once per assets array, then each create's
  // lookup is two map reads instead of a walk over every asset (issue 19).
  const onNetwork = lookupIndex(assets).get(q.network);
  if (!onNetwork) return null;
  const byId = onNetwork.byId.get(code);
  if (byId) return { ok: true, asset: byId };
  const matches = onNetwork.byAlias.get(code.toUpperCase());
  if (!matches) return null;
  if (matches.length === 1) return { ok: true, asset: matches[0] };
  const natives = matches.filter(isNative);
  if (natives.length === 1) return { ok: true, asset: natives[0] };
  return { ok: false, reason: "ambiguous", candidates: [...matches] };
}

interface NetworkIndex {
  byId: Map<string, CatalogAsset>;
  /** Upper-case alias → the assets with it, in catalog order, each once. */
  byAlias: Map<string, CatalogAsset[]>;
}

const indexes = new WeakMap<readonly CatalogAsset[], Map<string, NetworkIndex>>();

function lookupIndex(assets: readonly CatalogAsset[]): Map<string, NetworkIndex> {
  let index = indexes.get(assets);
  if (index) return index;
  index = new Map();
  for (const a of assets) {
    let n = index.get(a.network);
    if (!n) index.set(a.network, (n = { byId: new Map(), byAlias: new Map() }));
    if (!n.byId.has(a.id)) n.byId.set(a.id, a);
    for (const alias of new Set(a.aliases.map((x) => x.toUpperCase()))) {
      const list = n.byAlias.get(alias);
      if (list) list.push(a);
      else n.byAlias.set(alias, [a]);
    }
  }
  indexes.set(assets, index);
  return index;
}
