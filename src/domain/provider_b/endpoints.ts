// Part 3, provider_b callbacks: the endpoint table, once, for the callback router and the settings' callbackPaths.
export const PROVIDER_B_CALLBACKS = [
  { method: "GET", path: "v1/vasp/health", endpoint: "health", label: "Health check" },
  { method: "POST", path: "v1/beneficiary/VerifyAddress", endpoint: "verifyAddress", label: "Address verification" },
  { method: "POST", path: "v1/beneficiary/transfer", endpoint: "transfer", label: "Transfer authorization" },
  { method: "POST", path: "v1/beneficiary/transfer/txid", endpoint: "txid", label: "Transaction report" },
  { method: "POST", path: "v1/vasp/transfer/status", endpoint: "status", label: "Transfer status" },
  { method: "PUT", path: "v1/vasp/transfer/status", endpoint: "cancel", label: "Transfer cancellation" },
  { method: "POST", path: "v1/verification/tx", endpoint: "verifyTx", label: "Transaction verification" },
  { method: "PUT", path: "v1/verification/tx", endpoint: "transferData", label: "Transaction data request" },
] as const;

export type ProviderBCallback = (typeof PROVIDER_B_CALLBACKS)[number]["endpoint"];
