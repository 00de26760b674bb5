// The recorded valuations port: every amount valued for a transfer, with its rate and source, kept under the
// transfer's `fxRateId`. Asynchronous like every port (src/ports/store.ts); `record` runs inside the caller's unit of
// work (the transfer create records it in the same commit as the transfer). The SQLite engine implements it in
// storage's repos/fx-valuations.ts, and the storage contract suite (test/storage/contract/) holds every
// engine to it.
import type { Environment } from "../domain/types.ts";

/** A valuation as recorded: the transfer's `fxRateId` and what it was computed from (amounts and rates decimal text). */
export interface FxValuationRecord {
  fxRateId: string;
  companyId: string;
  environment: Environment;
  assetId: string;
  amount: string;
  currency: string;
  rate: string;
  value: string;
  source: string;
  /** When the source last updated the rate (ISO 8601). */
  asOf: string;
  createdAt: string;
}

export interface FxValuationRepository {
  /** Records a valuation (in the caller's unit of work, if any). */
  record(r: FxValuationRecord): Promise<void>;
  /** A recorded valuation of the company and environment, or undefined. */
  get(companyId: string, environment: Environment, fxRateId: string): Promise<FxValuationRecord | undefined>;
}
