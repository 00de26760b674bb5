// What provider_d's sweep reads of the service's transfers: open provider_d transfers past their expiry, in pages
// over the (updated_at, id) cursor of the sweep index; and the counterparty that approved a chain address before.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { DueTransfer, ProviderDRepository } from "../../../ports/provider-stores.ts";
import { SWEEP_OPEN, SWEEP_PAGE, duePages } from "./provider-a-store.ts";

export type { ProviderDRepository } from "../../../ports/provider-stores.ts";

export const PROVIDER_D_DUE_FOR_EXPIRY = `SELECT id, company_id, environment, updated_at FROM transfers WHERE protocol = 'provider_d' AND ${SWEEP_OPEN}
  AND state <> 'held' AND expires_at IS NOT NULL AND expires_at <= ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;

/** The beneficiary VASP that approved this chain address in the company's latest provider_d transfer to it. */
export const PROVIDER_D_KNOWN_BENEFICIARY = `SELECT beneficiary_vasp_id FROM transfers WHERE company_id = ? AND environment = ? AND protocol = 'provider_d'
  AND direction = 'outgoing' AND network = ? AND beneficiary_address = ? AND theirs_status = 'accepted' AND beneficiary_vasp_id IS NOT NULL
  ORDER BY created_at DESC, id DESC LIMIT 1`;

export class ProviderDStore implements ProviderDRepository {
  constructor(private readonly s: Storage) {}

  /**
   * The VASP ID of the counterparty that approved `address` (canonical, on `network`) in an earlier outgoing provider_d
   * transfer of the company: it said over mutual TLS that the address is its customer's. Null when none did.
   */
  knownBeneficiary(companyId: string, env: Environment, network: string, address: string): Promise<string | null> {
    return this.s.run(() => {
      const r = this.s.stmt(PROVIDER_D_KNOWN_BENEFICIARY).get(companyId, env, network, address) as { beneficiary_vasp_id: string } | undefined;
      return r?.beneficiary_vasp_id ?? null;
    });
  }

  /** provider_d transfers still open (not held) at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize = SWEEP_PAGE): Promise<DueTransfer[]> {
    return this.s.run(() => duePages(this.s, PROVIDER_D_DUE_FOR_EXPIRY, [new Date(now).toISOString()], pageSize));
  }
}
