// Values an amount in a currency from the first rate source that has a rate, and records every valuation (fx_valuations).
import type { FxValuationRepository } from "../../ports/fx-valuations.ts";
import type { Environment } from "../../domain/types.ts";
import { newId, iso } from "../../domain/ids.ts";
import { Dec, MAX_AMOUNT_DIGITS, toRate } from "./decimal.ts";
import { DEFAULT_TIMEOUT_MS, HttpRateSource, priceEndpoint } from "./http.ts";
import { SnapshotRateSource } from "./snapshot.ts";
import { FxConfigError, FxError, FxTimeout, FxUnavailable, type Rate, type RateAsset, type RateSource } from "./types.ts";

/** Decimal places of a value; rounding is half-even (banker's), so no direction is favoured over many valuations. */
export const VALUE_DECIMALS = 8;

export interface PricingAsset extends RateAsset {
  /** The asset's smallest unit: an amount finer than that is not an amount of this asset. */
  decimals: number;
}

export interface ValueRequest {
  companyId: string;
  environment: Environment;
  asset: PricingAsset;
  /** Decimal text in whole asset units (the transfer's amount as given). */
  amount: string;
  /** ISO 4217 code, any case; recorded and answered upper-case. */
  currency: string;
  /** The caller giving up (request aborted): no further source is tried, its reason is thrown. */
  signal?: AbortSignal;
}

export interface Valuation {
  /** `fx_…`: the fx_valuations row, the transfer's `fxRateId`. */
  fxRateId: string;
  /** amount × rate, rounded half-even to 8 decimals, plain notation without trailing zeros. */
  value: string;
  rate: string;
  currency: string;
  /** Name of the source that gave the rate: `http:<origin>` or `snapshot:<date>`. */
  source: string;
  /** When the source last updated the rate (ISO 8601 UTC). */
  asOf: string;
}

export interface StoredValuation extends Valuation {
  assetId: string;
  amount: string;
  createdAt: string;
}

/** A valuation not yet recorded: plain data (it travels in an actor message), written by `FxValuationRepository.record`. */
export interface ValuationRecord extends Valuation {
  companyId: string;
  environment: Environment;
  assetId: string;
  amount: string;
  createdAt: string;
}

const AMOUNT = /^\d+(\.\d+)?$/;
const CURRENCY = /^[A-Za-z]{3}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/**
 * Values amounts. Sources are asked in order, each with its own `timeoutMs`; the first that answers a rate wins.
 * A source that has no rate (null) or fails (FxTimeout, FxUnavailable, anything thrown) is passed over, so a
 * fallback after a live source answers when the live source is down. When no source has a rate:
 * - every source answered null → `FxUnavailable` reason `no_rate`;
 * - some failed → the failure (one source) or an aggregate: `FxTimeout` if any timed out, else `FxUnavailable`.
 * Either way the API answers 503 TIMEOUT and creates nothing. "No rate known" is a 503, not a 400, on purpose:
 * the request is valid (the asset is enabled), the gap is the service's market data; refusing it as the caller's
 * fault would be wrong, and valuing it at anything (zero, a guess) could let a transfer above the threshold pass
 * as below it.
 */
export class Pricing {
  readonly sources: readonly RateSource[];
  readonly timeoutMs: number;

  constructor(
    private readonly valuations: FxValuationRepository,
    sources: readonly RateSource[],
    private readonly clock: () => number = Date.now,
    timeoutMs: number = DEFAULT_TIMEOUT_MS,
  ) {
    if (sources.length === 0) throw new RangeError("Pricing needs at least one rate source");
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new RangeError(`timeoutMs must be a positive integer, got ${timeoutMs}`);
    this.sources = [...sources];
    this.timeoutMs = timeoutMs;
  }

  /** The rate to use, with the name of the source that gave it; writes nothing. */
  async quote(asset: RateAsset, currency: string, signal?: AbortSignal): Promise<Rate & { source: string }> {
    const cur = checkCurrency(currency);
    const failures: FxError[] = [];
    for (const source of this.sources) {
      let answer: Rate | null;
      if (source.rateNow) {
        // Rates held in memory: answered at once, so no timeout (and no timer per valuation) is needed.
        if (signal?.aborted) throw signal.reason;
        try {
          answer = source.rateNow(asset, cur);
        } catch (e) {
          failures.push(e instanceof FxError ? e : new FxUnavailable(`${source.name}: ${e instanceof Error ? e.message : String(e)}`, source.name, "unreachable", { cause: e }));
          continue;
        }
      } else {
        const timeout = AbortSignal.timeout(this.timeoutMs);
        const sig = signal ? AbortSignal.any([signal, timeout]) : timeout;
        try {
          // Raced against the signal: a source that ignores it still cannot hold the request past the timeout.
          answer = await within(source.rate(asset, cur, sig), sig);
        } catch (e) {
          if (signal?.aborted) throw signal.reason;
          if (e instanceof FxError) failures.push(e);
          else if (timeout.aborted) failures.push(new FxTimeout(`${source.name}: no answer within ${this.timeoutMs} ms`, source.name, { cause: e }));
          else failures.push(new FxUnavailable(`${source.name}: ${e instanceof Error ? e.message : String(e)}`, source.name, "unreachable", { cause: e }));
          continue;
        }
      }
      if (answer === null) continue;
      // Sources are pluggable: what they answer is checked here before it is stored and compared with a threshold.
      const rate = typeof answer.rate === "string" ? toRate(answer.rate) : null;
      if (rate === null || rate === "zero" || typeof answer.asOf !== "string" || !ISO_UTC.test(answer.asOf) || Number.isNaN(Date.parse(answer.asOf))) {
        failures.push(new FxUnavailable(`${source.name}: malformed rate ${JSON.stringify(answer)}`, source.name, "malformed"));
        continue;
      }
      return { rate, asOf: new Date(answer.asOf).toISOString(), source: source.name };
    }
    throw noRate(asset, cur, this.sources, failures);
  }

  /** Values `amount` in `currency` and records the valuation; the returned `fxRateId` names the row. */
  async value(p: ValueRequest): Promise<Valuation> {
    const a = await this.appraise(p);
    await this.valuations.record(a.record);
    return a.valuation;
  }

  /**
   * Values `amount` in `currency` without recording it: the caller records `record` (`FxValuationRepository.record`) in the
   * same transaction as what refers to its `fxRateId` (the transfer create does, so a create commits once).
   */
  async appraise(p: ValueRequest): Promise<{ valuation: Valuation; record: ValuationRecord }> {
    const amount = checkAmount(p.amount, p.asset);
    const q = await this.quote(p.asset, p.currency, p.signal);
    const value = amount.times(q.rate).toDecimalPlaces(VALUE_DECIMALS, Dec.ROUND_HALF_EVEN).toFixed();
    const now = this.clock();
    const v: Valuation = { fxRateId: newId("fx", now), value, rate: q.rate, currency: checkCurrency(p.currency), source: q.source, asOf: q.asOf };
    const record: ValuationRecord = { ...v, companyId: p.companyId, environment: p.environment, assetId: p.asset.id, amount: p.amount, createdAt: iso(now) };
    return { valuation: v, record };
  }

  /** A recorded valuation of the company and environment, or null. */
  async get(companyId: string, environment: Environment, fxRateId: string): Promise<StoredValuation | null> {
    const r = await this.valuations.get(companyId, environment, fxRateId);
    if (!r) return null;
    return { fxRateId: r.fxRateId, assetId: r.assetId, amount: r.amount, currency: r.currency, rate: r.rate, value: r.value, source: r.source, asOf: r.asOf, createdAt: r.createdAt };
  }
}

/** Callers validate amounts first; these are guards so that nothing malformed is ever stored as a valuation. */
function checkAmount(amount: string, asset: PricingAsset): Dec {
  if (typeof amount !== "string" || !AMOUNT.test(amount) || amount.replace(".", "").length > MAX_AMOUNT_DIGITS) {
    throw new RangeError(`amount must be a plain decimal string of at most ${MAX_AMOUNT_DIGITS} digits, got ${JSON.stringify(amount)}`);
  }
  const fraction = (amount.split(".")[1] ?? "").replace(/0+$/, "");
  if (fraction.length > asset.decimals) throw new RangeError(`amount ${amount} has more than the ${asset.decimals} decimals of ${asset.id}`);
  return new Dec(amount);
}

function checkCurrency(currency: string): string {
  if (typeof currency !== "string" || !CURRENCY.test(currency)) throw new RangeError(`currency must be an ISO 4217 code, got ${JSON.stringify(currency)}`);
  return currency.toUpperCase();
}

function noRate(asset: RateAsset, cur: string, sources: readonly RateSource[], failures: FxError[]): FxError {
  if (failures.length === 0) {
    const ids = asset.marketDataIds.length ? asset.marketDataIds.join(", ") : "no market-data ID";
    return new FxUnavailable(`no rate for ${asset.id} (${ids}) in ${cur} from ${sources.map((s) => s.name).join(", ")}`, null, "no_rate");
  }
  if (failures.length === 1) return failures[0];
  const msg = `no source answered for ${asset.id} in ${cur}: ${failures.map((f) => f.message).join("; ")}`;
  const cause = new AggregateError(failures, msg);
  const timedOut = failures.find((f) => f instanceof FxTimeout);
  if (timedOut) return new FxTimeout(msg, null, { cause });
  return new FxUnavailable(msg, null, (failures[0] as FxUnavailable).reason, { cause });
}

function within<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export interface FxConfig {
  sources: RateSource[];
  timeoutMs: number;
}

/**
 * The rate sources from the environment:
 * - `CARAVAN_FX_URL`: a CoinGecko-protocol base URL (https, or http on loopback). Without it, the embedded snapshot
 *   is the only source (offline reference rates, not live prices).
 * - `CARAVAN_FX_FALLBACK`: `snapshot` puts the snapshot after the live source, used when it fails or has no rate;
 *   `none` or unset: none (a live source down means 503s, never a silently stale price).
 * - `CARAVAN_FX_TIMEOUT_MS`: per source, 1..60000, default 3000.
 * - `CARAVAN_FX_API_KEY`: sent as `x-cg-pro-api-key` to a `pro-api.` host, else `x-cg-demo-api-key`; only with a URL.
 * Anything else is an FxConfigError: a wrong setting stops the service at start, not at the first transfer.
 */
export function configureFx(env: Record<string, string | undefined>): FxConfig {
  const rawTimeout = env.CARAVAN_FX_TIMEOUT_MS ?? "";
  const timeoutMs = rawTimeout === "" ? DEFAULT_TIMEOUT_MS : Number(rawTimeout);
  if (!/^\d+$/.test(rawTimeout || "0") || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) {
    throw new FxConfigError(`CARAVAN_FX_TIMEOUT_MS must be a whole number of milliseconds, 1..60000, got "${rawTimeout}"`);
  }
  const fallback = env.CARAVAN_FX_FALLBACK || "none";
  if (fallback !== "snapshot" && fallback !== "none") throw new FxConfigError(`CARAVAN_FX_FALLBACK must be "snapshot" or "none", got "${fallback}"`);
  const url = env.CARAVAN_FX_URL || "";
  const apiKey = env.CARAVAN_FX_API_KEY || "";
  if (!url) {
    if (apiKey) throw new FxConfigError("CARAVAN_FX_API_KEY is set but CARAVAN_FX_URL is not: the key would never be used");
    return { sources: [new SnapshotRateSource()], timeoutMs };
  }
  const endpoint = priceEndpoint(url, !!apiKey);
  if (typeof endpoint === "string") throw new FxConfigError(`CARAVAN_FX_URL ${endpoint}`);
  const sources: RateSource[] = [new HttpRateSource({ baseUrl: url, apiKey: apiKey || undefined, timeoutMs })];
  if (fallback === "snapshot") sources.push(new SnapshotRateSource());
  return { sources, timeoutMs };
}

/** A Pricing over the environment's sources. */
export function createPricing(valuations: FxValuationRepository, env: Record<string, string | undefined>, clock: () => number = Date.now): Pricing {
  const c = configureFx(env);
  return new Pricing(valuations, c.sources, clock, c.timeoutMs);
}
