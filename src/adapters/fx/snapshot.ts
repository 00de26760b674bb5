// The embedded, dated rate table (snapshot.json): offline reference rates, keyed by CoinGecko ID, never live prices.
import data from "./snapshot.json" with { type: "json" };
import { toRate } from "./decimal.ts";
import type { Rate, RateAsset, RateSource } from "./types.ts";

export interface SnapshotData {
  /** ISO 8601 UTC: the date the table is stated for; every rate of it carries this asOf. */
  asOf: string;
  note: string;
  /** Lower-case currency codes every entry quotes. */
  currencies: string[];
  /** CoinGecko ID → lower-case currency → decimal rate (currency units per 1 whole asset unit). */
  rates: Record<string, Record<string, string>>;
}

/**
 * Validates a table before anything is valued with it: a rate that is not a positive decimal, or an asOf that is
 * not a real instant, would be stored with every valuation, so a broken file fails at load, not at the first transfer.
 */
export function checkSnapshot(d: SnapshotData): SnapshotData {
  if (typeof d.asOf !== "string" || Number.isNaN(Date.parse(d.asOf)) || new Date(d.asOf).toISOString() !== d.asOf) {
    throw new Error(`fx snapshot: asOf must be ISO 8601 UTC with milliseconds, got ${JSON.stringify(d.asOf)}`);
  }
  const rates: Record<string, Record<string, string>> = {};
  for (const [id, quotes] of Object.entries(d.rates ?? {})) {
    rates[id] = {};
    for (const cur of d.currencies) {
      const text = quotes[cur];
      const rate = typeof text === "string" ? toRate(text) : null;
      if (rate === null || rate === "zero") throw new Error(`fx snapshot: ${id}.${cur} must be a positive decimal string, got ${JSON.stringify(text)}`);
      rates[id][cur] = rate;
    }
  }
  return { ...d, rates };
}

export class SnapshotRateSource implements RateSource {
  readonly name: string;
  readonly asOf: string;
  private readonly rates: Record<string, Record<string, string>>;

  constructor(table: SnapshotData = data as SnapshotData) {
    const t = checkSnapshot(table);
    this.asOf = t.asOf;
    this.rates = t.rates;
    this.name = `snapshot:${t.asOf.slice(0, 10)}`;
  }

  /** The first of the asset's market-data IDs the table quotes in `currency`; null when none is (tickers are not used). */
  async rate(asset: RateAsset, currency: string, _signal: AbortSignal): Promise<Rate | null> {
    return this.rateNow(asset, currency);
  }

  /** The same answer, synchronously: the table is in memory (Pricing sets no timeout for it). */
  rateNow(asset: RateAsset, currency: string): Rate | null {
    const cur = currency.toLowerCase();
    for (const id of asset.marketDataIds) {
      // Own properties only: an ID such as "constructor" must not reach Object.prototype.
      const quotes = Object.hasOwn(this.rates, id) ? this.rates[id] : undefined;
      if (quotes && Object.hasOwn(quotes, cur)) return { rate: quotes[cur], asOf: this.asOf };
    }
    return null;
  }
}
