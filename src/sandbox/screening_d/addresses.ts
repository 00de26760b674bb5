// The sandbox screening_d's embedded risk list: fictional addresses (valid formats, no real owner) with their scores.

export interface RiskyAddress {
  blockchain: string;
  address: string;
  /** 0 to 1, as the vendor reports it. */
  riskscore: number;
  name: string;
  category: string;
}

/** Every address not on the list scores this (an ordinary wallet with some indirect exposure). */
export const DEFAULT_RISKSCORE = 0.05;

/** The blockchains the sandbox knows, as `GET /monitor/currency/list` lists them (Part 3 mapping's vendor side). */
export const SANDBOX_CURRENCIES: { currency: string; name: string }[] = [
  { currency: "btc", name: "Bitcoin" },
  { currency: "bch", name: "Bitcoin Cash" },
  { currency: "ltc", name: "Litecoin" },
  { currency: "eth", name: "Ethereum" },
  { currency: "etc", name: "Ethereum Classic" },
  { currency: "arb", name: "Arbitrum One" },
  { currency: "op", name: "Optimism" },
  { currency: "base", name: "Base" },
  { currency: "matic", name: "Polygon" },
  { currency: "bsc", name: "BNB Smart Chain" },
  { currency: "trx", name: "Tron" },
  { currency: "sol", name: "Solana" },
  { currency: "xrp", name: "XRP Ledger" },
  { currency: "xlm", name: "Stellar" },
  { currency: "ada", name: "Cardano" },
  { currency: "xdc", name: "XDC Network" },
  { currency: "adi", name: "ADI Chain" },
];

/** EVM addresses are keyed and answered in lower case (the vendor's spelling); the others exactly. */
export const HEX_BLOCKCHAINS = new Set(["eth", "etc", "arb", "op", "base", "bsc", "matic", "xdc", "adi"]);

export const RISKY_ADDRESSES: RiskyAddress[] = [
  { blockchain: "eth", address: "0x83Ff1aB69B2203EAC2bD0254D2c52b07A40dEBc1", riskscore: 0.92, name: "Sandbox Tumbler", category: "sanctioned mixer" },
  { blockchain: "eth", address: "0x47e1bd946367252eb2C10DA5dA78beD9894b01Da", riskscore: 0.55, name: "Sandbox Swap Desk", category: "high-risk exchange" },
  { blockchain: "btc", address: "bc1qgja8xpzcvvmk4kerfcjdzfnsyactrnwlcacat2", riskscore: 0.92, name: "Sandbox Tumbler", category: "sanctioned mixer" },
  { blockchain: "btc", address: "bc1qk6zzygg8lks37j5t5q5ykjfqxlep94vl0vdamh", riskscore: 0.55, name: "Sandbox Casino", category: "gambling" },
  { blockchain: "trx", address: "TS1Cas5UKsGD7HGn16Kkwr5ThBMronKs12", riskscore: 0.92, name: "Sandbox Tumbler", category: "sanctioned mixer" },
  { blockchain: "trx", address: "TDTMkhQxae2aD5bcv78xP9TnbeGcCq1skc", riskscore: 0.55, name: "Sandbox OTC", category: "unlicensed exchange" },
  { blockchain: "sol", address: "GCMbV5aSVt9K5y77L5zcToLyQwJeZJwXVAvpVJCHsAS2", riskscore: 0.55, name: "Sandbox Launchpad", category: "scam" },
];

/** Low-risk examples (not on the list; they score DEFAULT_RISKSCORE), for demos and tests. */
export const LOW_RISK_EXAMPLES = {
  eth: "0x53224ab23E00Be4833a61442e99e1006900Fba63",
  btc: "bc1q9drvgm9glmtk50tgxtn4hxjfe2j8w26x6whcdr",
  trx: "TZCePuXLJKKtTSmszViT9tYcAFAj13AeLM",
} as const;

export const keyOf = (blockchain: string, address: string) => `${blockchain}:${HEX_BLOCKCHAINS.has(blockchain) ? address.toLowerCase() : address}`;
