// The networks Caravan validates addresses for (one list, below both the validators and the destination-tag rules).
export const SUPPORTED_NETWORKS = [
  "bitcoin",
  "ethereum",
  "polygon",
  "bsc",
  "solana",
  "tron",
  "avalanche",
  "arbitrum",
  "optimism",
  "base",
  "litecoin",
  "ripple",
  "stellar",
  "algorand",
  "dogecoin",
  "cardano",
  "cosmos",
  "near",
  "polkadot",
  "fantom",
  "bitcoin-cash",
] as const;

export type Network = (typeof SUPPORTED_NETWORKS)[number];

export function isSupportedNetwork(name: string): name is Network {
  return (SUPPORTED_NETWORKS as readonly string[]).includes(name);
}
