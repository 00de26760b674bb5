// provider_e currencies → Caravan networks. Sygna Bridge names a currency by a `currency_id` built on the coin's
// SLIP-44 type (`sygna:0x8000003c` is Ether; a token is `sygna:0x8000003c.<contract>`), and a token's `platform`
// object names the chain it lives on (`{ id: "sygna:0x8000003c", name, symbol, token_address }`, `null` for a native
// coin). The network is the one of the platform's ID (else the currency's own ID), else the platform's name. Pure.
import { isSupportedNetwork } from "../networks/index.ts";

/** SLIP-44 coin types (hardened, as Sygna writes them) of the networks Caravan knows. */
export const SLIP44_NETWORKS: Record<string, string> = {
  "0x80000000": "bitcoin",
  "0x80000002": "litecoin",
  "0x80000003": "dogecoin",
  "0x8000003c": "ethereum",
  "0x80000076": "cosmos",
  "0x80000090": "ripple",
  "0x80000091": "bitcoin-cash",
  "0x80000094": "stellar",
  "0x800000c3": "tron",
  "0x8000011b": "algorand",
  "0x80000162": "polkadot",
  "0x8000018d": "near",
  "0x800001f5": "solana",
  "0x80000266": "optimism",
  "0x800003c6": "polygon",
  "0x800003ef": "fantom",
  "0x80000717": "cardano",
  "0x80002105": "base",
  "0x80002328": "avalanche",
  "0x80002329": "arbitrum",
  "0x8000232e": "bsc",
};

export interface CurrencyPlatform {
  id?: string;
  name?: string;
  symbol?: string;
  token_address?: string | null;
}

/** The coin part of a Sygna currency ID: `sygna:0x8000003c.0xdac1…` → `0x8000003c`. */
export function coinTypeOf(currencyId: string): string | null {
  const m = /^sygna:(0x[0-9a-fA-F]{8})(?:\.|$)/.exec(currencyId);
  return m ? m[1].toLowerCase() : null;
}

/** The Caravan network a provider_e currency lives on, or null when it is none Caravan knows. */
export function networkOfCurrency(currencyId: string, platform: CurrencyPlatform | null | undefined): string | null {
  const coin = coinTypeOf(platform?.id ?? currencyId);
  if (coin && SLIP44_NETWORKS[coin]) return SLIP44_NETWORKS[coin];
  const name = (platform?.name ?? "").toLowerCase().replace(/\s+/g, "-");
  return isSupportedNetwork(name) ? name : null;
}

/** Sygna's currency ID of a network's native coin (for the sandbox and examples). */
export function nativeCurrencyId(network: string): string | null {
  const hit = Object.entries(SLIP44_NETWORKS).find(([, n]) => n === network);
  return hit ? `sygna:${hit[0]}` : null;
}
