// Valuing amounts in a threshold's currency: the module's public surface.
export { FxConfigError, FxError, FxTimeout, FxUnavailable, type FxUnavailableReason, type Rate, type RateAsset, type RateSource } from "./types.ts";
export { SnapshotRateSource, type SnapshotData } from "./snapshot.ts";
export { HttpRateSource, DEFAULT_TIMEOUT_MS, type HttpRateSourceOptions } from "./http.ts";
export { Pricing, VALUE_DECIMALS, configureFx, createPricing, type FxConfig, type PricingAsset, type StoredValuation, type Valuation, type ValuationRecord, type ValueRequest } from "./pricing.ts";
