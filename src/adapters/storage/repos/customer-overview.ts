// One customer at a glance for officers (Caravan's operator view): the customer row with its identity's status, its
// wallets, its latest transfers (either side) and the cases linked to them. Reads only; the route masks and scopes.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";

export interface OverviewCustomer {
  id: string;
  external_id: string | null;
  name_sealed: string | null;
  identity_status: string | null;
  identity_country: string | null;
  deactivated_at: string | null;
  erased_at: string | null;
  created_at: string;
}

export class CustomerOverview {
  constructor(private readonly s: Storage) {}

  customer(companyId: string, env: Environment, id: string): OverviewCustomer | undefined {
    return (this.s
      .stmt("SELECT id, external_id, name_sealed, identity_status, identity_country, deactivated_at, erased_at, created_at FROM customers WHERE id = ? AND company_id = ? AND environment = ?")
      .get(id, companyId, env) ?? undefined) as OverviewCustomer | undefined;
  }

  wallets(companyId: string, env: Environment, customerId: string) {
    return this.s
      .stmt("SELECT id, network, address, label, verified, verified_at, created_at FROM wallets WHERE company_id = ? AND environment = ? AND customer_id = ? ORDER BY created_at DESC LIMIT 200")
      .all(companyId, env, customerId) as { id: string; network: string; address: string; label: string | null; verified: number; verified_at: string | null; created_at: string }[];
  }

  /** The customer's latest transfers, originator or beneficiary side, newest first. */
  transfers(companyId: string, env: Environment, customerId: string, limit: number) {
    return this.s
      .stmt(
        `SELECT id, direction, state, status, amount, asset, network, protocol, originator_customer_id, beneficiary_customer_id, created_at FROM transfers
         WHERE company_id = ? AND environment = ? AND (originator_customer_id = ? OR beneficiary_customer_id = ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all(companyId, env, customerId, customerId, limit) as {
      id: string;
      direction: string;
      state: string;
      status: string;
      amount: string;
      asset: string;
      network: string;
      protocol: string | null;
      created_at: string;
    }[];
  }

  /** Cases whose linked transfers include one of `transferIds`. */
  cases(companyId: string, env: Environment, transferIds: string[]) {
    if (transferIds.length === 0) return [];
    return this.s
      .stmt(
        `SELECT DISTINCT c.id, c.case_number, c.type, c.status, c.resolution, c.priority, c.transfer_ids, c.created_at FROM cases c, json_each(c.transfer_ids) t
         WHERE c.company_id = ? AND c.environment = ? AND t.value IN (SELECT value FROM json_each(?)) ORDER BY c.created_at DESC LIMIT 200`,
      )
      .all(companyId, env, JSON.stringify(transferIds)) as { id: string; case_number: string; type: string; status: string; resolution: string | null; priority: string; transfer_ids: string; created_at: string }[];
  }
}
