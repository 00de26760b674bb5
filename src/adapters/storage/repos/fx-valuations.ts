// The recorded valuations (fx_valuations): every amount valued for a transfer, with its rate and source, kept as the
// transfer's `fxRateId`.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { FxValuationRecord, FxValuationRepository } from "../../../ports/fx-valuations.ts";

export type { FxValuationRecord, FxValuationRepository } from "../../../ports/fx-valuations.ts";

/** The columns a valuation is written to, in the order of `valuationValues` (both engines). */
export const VALUATION_COLUMNS = "id, company_id, environment, asset_id, amount, currency, rate, value, source, rate_as_of, created_at";

/** A valuation's column values, in the order of VALUATION_COLUMNS. */
export const valuationValues = (r: FxValuationRecord): string[] => [r.fxRateId, r.companyId, r.environment, r.assetId, r.amount, r.currency, r.rate, r.value, r.source, r.asOf, r.createdAt];

/** The columns a valuation is read from (`toValuation` maps them). */
export const VALUATION_READ = "id, asset_id, amount, currency, rate, value, source, rate_as_of, created_at";

/** A fx_valuations row (VALUATION_READ) as the record, in the company and environment it was read under. */
export function toValuation(r: Record<string, string>, companyId: string, environment: Environment): FxValuationRecord {
  return {
    fxRateId: r.id!,
    companyId,
    environment,
    assetId: r.asset_id!,
    amount: r.amount!,
    currency: r.currency!,
    rate: r.rate!,
    value: r.value!,
    source: r.source!,
    asOf: r.rate_as_of!,
    createdAt: r.created_at!,
  };
}

/** Inserts the fx_valuations row of a valuation, in the caller's transaction (if any). */
function insertValuation(storage: Pick<Storage, "stmt">, r: FxValuationRecord): void {
  storage.stmt(`INSERT INTO fx_valuations (${VALUATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...valuationValues(r));
}

export class FxValuations implements FxValuationRepository {
  constructor(private readonly s: Storage) {}

  /** Records a valuation (in the caller's transaction, if any: SQLite has one connection). */
  record(r: FxValuationRecord): Promise<void> {
    return this.s.run(() => insertValuation(this.s, r));
  }

  /** A recorded valuation of the company and environment, or undefined. */
  get(companyId: string, environment: Environment, fxRateId: string): Promise<FxValuationRecord | undefined> {
    return this.s.run(() => this.read(companyId, environment, fxRateId));
  }

  private read(companyId: string, environment: Environment, fxRateId: string): FxValuationRecord | undefined {
    const r = this.s
      .stmt(`SELECT ${VALUATION_READ} FROM fx_valuations WHERE id = ? AND company_id = ? AND environment = ?`)
      .get(fxRateId, companyId, environment) as Record<string, string> | null | undefined;
    return r ? toValuation(r, companyId, environment) : undefined;
  }
}
