// One customer at a glance for officers, in SQLite (src/ports/customer-overview.ts): the customer with its identity's
// status, its wallets, its latest transfers (either side) and the cases linked to them. Reads only.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { CustomerOverviewRepository, OverviewCase, OverviewCustomer, OverviewTransfer, OverviewWallet } from "../../../ports/customer-overview.ts";

/** The rows the overview reads, by the columns its SELECTs name (both engines' SQL names the same ones). */
export type OverviewCustomerRow = {
  id: string;
  external_id: string | null;
  name_sealed: string | null;
  identity_status: string | null;
  identity_country: string | null;
  deactivated_at: string | null;
  erased_at: string | null;
  created_at: string;
};
export type OverviewWalletRow = {
  id: string;
  network: string;
  address: string;
  label: string | null;
  verified: number;
  verified_at: string | null;
  created_at: string;
};
/** The record's fields, but the time under its column's name. */
export type OverviewTransferRow = Omit<OverviewTransfer, "createdAt"> & { created_at: string };
export type OverviewCaseRow = {
  id: string;
  case_number: string;
  type: string;
  status: string;
  resolution: string | null;
  priority: string;
  transfer_ids: string;
  created_at: string;
};

/** The columns each SELECT of the overview reads (the rows above). */
export const OVERVIEW_COLUMNS = {
  customer: "id, external_id, name_sealed, identity_status, identity_country, deactivated_at, erased_at, created_at",
  wallet: "id, network, address, label, verified, verified_at, created_at",
  transfer: "id, direction, state, status, amount, asset, network, protocol, created_at",
} as const;

export const toOverviewCustomer = (r: OverviewCustomerRow): OverviewCustomer => ({
  id: r.id,
  externalId: r.external_id,
  nameSealed: r.name_sealed,
  identityStatus: r.identity_status,
  identityCountry: r.identity_country,
  deactivatedAt: r.deactivated_at,
  erasedAt: r.erased_at,
  createdAt: r.created_at,
});

export const toOverviewWallet = (w: OverviewWalletRow): OverviewWallet => ({
  id: w.id,
  network: w.network,
  address: w.address,
  label: w.label,
  verified: w.verified === 1,
  verifiedAt: w.verified_at,
  createdAt: w.created_at,
});

export const toOverviewTransfer = (t: OverviewTransferRow): OverviewTransfer => ({
  id: t.id,
  direction: t.direction,
  state: t.state,
  status: t.status,
  amount: t.amount,
  asset: t.asset,
  network: t.network,
  protocol: t.protocol,
  createdAt: t.created_at,
});

export const toOverviewCase = (x: OverviewCaseRow): OverviewCase => ({
  id: x.id,
  caseNumber: x.case_number,
  type: x.type,
  status: x.status,
  resolution: x.resolution,
  priority: x.priority,
  transferIds: JSON.parse(x.transfer_ids) as string[],
  createdAt: x.created_at,
});

export class CustomerOverview implements CustomerOverviewRepository {
  constructor(private readonly s: Storage) {}

  customer(companyId: string, env: Environment, id: string): Promise<OverviewCustomer | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt(`SELECT ${OVERVIEW_COLUMNS.customer} FROM customers WHERE id = ? AND company_id = ? AND environment = ?`).get(id, companyId, env) as OverviewCustomerRow | null | undefined;
      return r ? toOverviewCustomer(r) : undefined;
    });
  }

  wallets(companyId: string, env: Environment, customerId: string): Promise<OverviewWallet[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt(`SELECT ${OVERVIEW_COLUMNS.wallet} FROM wallets WHERE company_id = ? AND environment = ? AND customer_id = ? ORDER BY created_at DESC LIMIT 200`)
          .all(companyId, env, customerId) as OverviewWalletRow[]
      ).map(toOverviewWallet),
    );
  }

  /** The customer's latest transfers, originator or beneficiary side, newest first. */
  transfers(companyId: string, env: Environment, customerId: string, limit: number): Promise<OverviewTransfer[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt(
            `SELECT ${OVERVIEW_COLUMNS.transfer} FROM transfers
         WHERE company_id = ? AND environment = ? AND (originator_customer_id = ? OR beneficiary_customer_id = ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
          )
          .all(companyId, env, customerId, customerId, limit) as OverviewTransferRow[]
      ).map(toOverviewTransfer),
    );
  }

  /** Cases whose linked transfers include one of `transferIds`. */
  cases(companyId: string, env: Environment, transferIds: string[]): Promise<OverviewCase[]> {
    return this.s.run(() => {
      if (transferIds.length === 0) return [];
      return (
        this.s
          .stmt(
            `SELECT DISTINCT c.id, c.case_number, c.type, c.status, c.resolution, c.priority, c.transfer_ids, c.created_at FROM cases c, json_each(c.transfer_ids) t
         WHERE c.company_id = ? AND c.environment = ? AND t.value IN (SELECT value FROM json_each(?)) ORDER BY c.created_at DESC LIMIT 200`,
          )
          .all(companyId, env, JSON.stringify(transferIds)) as OverviewCaseRow[]
      ).map(toOverviewCase);
    });
  }
}
