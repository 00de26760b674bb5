// Market-data rates for valuing transfer amounts: the source contract and the two failures that mean "503 TIMEOUT".

/** The part of a catalog asset a rate source reads (`CatalogAsset` fits). */
export interface RateAsset {
  /** CAIP-19 ID, for messages and logs. */
  id: string;
  /** CoinGecko IDs (plain, e.g. `usd-coin`), most specific first: sources try them in this order. */
  marketDataIds: string[];
  /** Tickers, for sources keyed by ticker. CoinGecko-keyed sources ignore them: one ticker names many coins. */
  aliases: string[];
}

export interface Rate {
  /** Decimal text in plain notation: units of the currency per 1 whole asset unit. Always > 0. */
  rate: string;
  /** ISO 8601 UTC: when the source last updated this rate (not when we asked). */
  asOf: string;
}

/**
 * A source of rates.
 *
 * `rate` resolves `null` when the source has no rate for the asset in that currency (unknown market-data ID,
 * currency not quoted, a zero price): the source works, it just cannot help. The caller decides what that means;
 * `Pricing` asks the next source and, when none has a rate, throws `FxUnavailable` (reason `no_rate`).
 * It rejects with `FxTimeout` or `FxUnavailable` when the source could not answer at all. It should stop work
 * when `signal` aborts; `Pricing` does not rely on that (it stops waiting either way).
 */
export interface RateSource {
  /** Recorded as `fx_valuations.source`: `snapshot:<date>`, `http:<origin>`. */
  readonly name: string;
  rate(asset: RateAsset, currency: string, signal: AbortSignal): Promise<Rate | null>;
  /**
   * Optional, for sources holding their rates in memory (the snapshot): the same answer as `rate`, synchronously.
   * `Pricing` then calls it without a timeout, so a valuation sets no timer.
   */
  rateNow?(asset: RateAsset, currency: string): Rate | null;
}

/** Base of the pricing failures. The API answers both with 503 TIMEOUT, `Retry-After: 5`, and creates nothing. */
export abstract class FxError extends Error {
  /** The source that failed, or null when the failure is about every source. */
  readonly source: string | null;
  constructor(message: string, source: string | null, options?: { cause?: unknown }) {
    super(message, options);
    this.source = source;
  }
}

/** The source did not answer within the timeout. */
export class FxTimeout extends FxError {
  override name = "FxTimeout";
}

export type FxUnavailableReason =
  /** Connection refused, reset, DNS failure: the source is down or unreachable. */
  | "unreachable"
  /** An HTTP status other than 200 (rate limit, server error, not found). */
  | "http_status"
  /** A 3xx: redirects are never followed (the configured URL is the only host we send the API key to). */
  | "redirect"
  /** The answer is not the expected JSON shape, or a rate is not a positive decimal. */
  | "malformed"
  /** Every source answered, none had a rate for the asset in that currency. */
  | "no_rate";

/** The source is down, answered an error, or answered something unusable; or no source has a rate. */
export class FxUnavailable extends FxError {
  override name = "FxUnavailable";
  readonly reason: FxUnavailableReason;
  constructor(message: string, source: string | null, reason: FxUnavailableReason, options?: { cause?: unknown }) {
    super(message, source, options);
    this.reason = reason;
  }
}

/** Bad CARAVAN_FX_* configuration: the composition root reports it like its own ConfigError and does not start. */
export class FxConfigError extends Error {
  override name = "FxConfigError";
}
