// The recorded valuations on PostgreSQL: the twin of ../../repos/fx-valuations.ts (decimal text kept as text; a second
// valuation under the same ID is refused by the primary key).
import type { Environment } from "../../../../domain/types.ts";
import { VALUATION_COLUMNS, VALUATION_READ, toValuation, valuationValues } from "../../repos/fx-valuations.ts";
import type { FxValuationRecord, FxValuationRepository } from "../../../../ports/fx-valuations.ts";
import type { PgSession } from "../session.ts";

export class PgFxValuations implements FxValuationRepository {
  constructor(private readonly db: PgSession) {}

  /** Records a valuation (in the caller's unit of work, if any). */
  async record(r: FxValuationRecord): Promise<void> {
    await this.db.q(`INSERT INTO fx_valuations (${VALUATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, valuationValues(r));
  }

  async get(companyId: string, environment: Environment, fxRateId: string): Promise<FxValuationRecord | undefined> {
    const [r] = await this.db.read<Record<string, string>>(`SELECT ${VALUATION_READ} FROM fx_valuations WHERE id = $1 AND company_id = $2 AND environment = $3`, [fxRateId, companyId, environment]);
    return r ? toValuation(r, companyId, environment) : undefined;
  }
}
