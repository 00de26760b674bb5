// What provider_d's sweep reads of the service's transfers, on PostgreSQL: the twin of ../../repos/provider-d-store.ts
// (SQLite's statement text, `$n` numbered).
import type { Environment } from "../../../../domain/types.ts";
import type { DueTransfer, ProviderDRepository } from "../../../../ports/provider-stores.ts";
import { SWEEP_PAGE } from "../../repos/provider-a-store.ts";
import { PROVIDER_D_DUE_FOR_EXPIRY, PROVIDER_D_KNOWN_BENEFICIARY } from "../../repos/provider-d-store.ts";
import { pgDuePages } from "./provider-a-store.ts";
import { numbered } from "../numbered.ts";
import type { PgSession } from "../session.ts";

const DUE_FOR_EXPIRY = numbered(PROVIDER_D_DUE_FOR_EXPIRY);
const KNOWN_BENEFICIARY = numbered(PROVIDER_D_KNOWN_BENEFICIARY);

export class PgProviderDStore implements ProviderDRepository {
  constructor(private readonly db: PgSession) {}

  /** The VASP ID of the counterparty that approved `address` (canonical, on `network`) in an earlier outgoing provider_d transfer of the company, or null. */
  async knownBeneficiary(companyId: string, env: Environment, network: string, address: string): Promise<string | null> {
    const r = (await this.db.read<{ beneficiary_vasp_id: string }>(KNOWN_BENEFICIARY, [companyId, env, network, address]))[0];
    return r?.beneficiary_vasp_id ?? null;
  }

  /** provider_d transfers still open (not held) at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return pgDuePages(this.db, DUE_FOR_EXPIRY, [new Date(now).toISOString()], pageSize);
  }
}
