// screening_d's network mapping and address comparison (Part 3 "screening_d screening"): pure, no I/O.
//
// Decisions where Part 3 says only "the service's network aliases and the vendor's own identifiers are accepted":
// - a network is trimmed and compared ignoring case;
// - the vendor's own identifiers (`btc`, `eth`, `matic`, …) map to themselves;
// - the service's aliases are the other common spellings of the table's networks (SCREENING_D_ALIASES below); the
//   service's own network names (Part 1) that the table lists are the table's keys. Nothing else is guessed: any
//   other name, including the service's networks the vendor does not cover (`avalanche`, `fantom`, `dogecoin`,
//   `algorand`, `cosmos`, `near`, `polkadot`), is `UNSUPPORTED_NETWORK`.

/** The vendor's blockchain identifiers that Part 3 maps to. */
export const SCREENING_D_BLOCKCHAINS = ["btc", "bch", "ltc", "eth", "etc", "arb", "op", "base", "matic", "bsc", "trx", "sol", "xrp", "xlm", "ada", "xdc", "adi"] as const;

export type ScreeningDBlockchain = (typeof SCREENING_D_BLOCKCHAINS)[number];

/** Part 3, "Network mapping (network to vendor blockchain)", row by row. */
export const SCREENING_D_NETWORKS: Readonly<Record<string, ScreeningDBlockchain>> = {
  bitcoin: "btc",
  "bitcoin-cash": "bch",
  litecoin: "ltc",
  ethereum: "eth",
  "ethereum-classic": "etc",
  arbitrum: "arb",
  "arbitrum-one": "arb",
  optimism: "op",
  base: "base",
  polygon: "matic",
  bsc: "bsc",
  tron: "trx",
  solana: "sol",
  ripple: "xrp",
  stellar: "xlm",
  cardano: "ada",
  xinfin: "xdc",
  adi: "adi",
};

/** Other spellings of the table's networks, each to its network name in the table. */
export const SCREENING_D_ALIASES: Readonly<Record<string, string>> = {
  bitcoincash: "bitcoin-cash",
  ethereumclassic: "ethereum-classic",
  "polygon-pos": "polygon",
  pol: "polygon",
  bnb: "bsc",
  "bnb-chain": "bsc",
  "bnb-smart-chain": "bsc",
  "binance-smart-chain": "bsc",
  "op-mainnet": "optimism",
  xrpl: "ripple",
  "xrp-ledger": "ripple",
  "xdc-network": "xinfin",
};

/** Blockchains whose addresses are hex and compared ignoring case (Part 3: the others are compared exactly). */
export const CASE_INSENSITIVE_BLOCKCHAINS: ReadonlySet<ScreeningDBlockchain> = new Set(["eth", "etc", "arb", "op", "base", "bsc", "matic", "xdc", "adi"]);

export type BlockchainMapping = { ok: true; blockchain: ScreeningDBlockchain } | { ok: false; code: "UNSUPPORTED_NETWORK" };

const VENDOR_IDS: ReadonlySet<string> = new Set(SCREENING_D_BLOCKCHAINS);
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The vendor blockchain for a network (table name, alias or vendor identifier, any case), or UNSUPPORTED_NETWORK. */
export function screeningDBlockchain(network: unknown): BlockchainMapping {
  if (typeof network !== "string") return { ok: false, code: "UNSUPPORTED_NETWORK" };
  const name = network.trim().toLowerCase();
  if (own(SCREENING_D_NETWORKS, name)) return { ok: true, blockchain: SCREENING_D_NETWORKS[name]! };
  if (own(SCREENING_D_ALIASES, name)) return { ok: true, blockchain: SCREENING_D_NETWORKS[SCREENING_D_ALIASES[name]!]! };
  if (VENDOR_IDS.has(name)) return { ok: true, blockchain: name as ScreeningDBlockchain };
  return { ok: false, code: "UNSUPPORTED_NETWORK" };
}

/** Whether the vendor's `data.counterparty.address` names the screened address on that blockchain. */
export function sameScreenedAddress(blockchain: ScreeningDBlockchain, screened: string, answered: string): boolean {
  return CASE_INSENSITIVE_BLOCKCHAINS.has(blockchain) ? screened.toLowerCase() === answered.toLowerCase() : screened === answered;
}
