// The customer overview port: one customer at a glance for officers (the console's customer view), in the domain's
// records: the customer with its identity's status, its wallets, its latest transfers (either side) and the cases
// linked to them. Reads only; the route masks and scopes. The SQLite engine implements it in
// storage's repos/customer-overview.ts; the storage contract suite holds every engine to it.
import type { Environment } from "../domain/types.ts";

export interface OverviewCustomer {
  id: string;
  externalId: string | null;
  /** Sealed under `customer:<id>:name`. */
  nameSealed: string | null;
  identityStatus: string | null;
  identityCountry: string | null;
  deactivatedAt: string | null;
  erasedAt: string | null;
  createdAt: string;
}

export interface OverviewWallet {
  id: string;
  network: string;
  address: string;
  label: string | null;
  verified: boolean;
  verifiedAt: string | null;
  createdAt: string;
}

export interface OverviewTransfer {
  id: string;
  direction: string;
  state: string;
  status: string;
  /** Decimal text. */
  amount: string;
  asset: string;
  network: string;
  protocol: string | null;
  createdAt: string;
}

export interface OverviewCase {
  id: string;
  caseNumber: string;
  type: string;
  status: string;
  resolution: string | null;
  priority: string;
  transferIds: string[];
  createdAt: string;
}

export interface CustomerOverviewRepository {
  customer(companyId: string, env: Environment, id: string): Promise<OverviewCustomer | undefined>;
  /** The customer's wallets, newest first, at most 200. */
  wallets(companyId: string, env: Environment, customerId: string): Promise<OverviewWallet[]>;
  /** The customer's latest transfers, originator or beneficiary side, newest first. */
  transfers(companyId: string, env: Environment, customerId: string, limit: number): Promise<OverviewTransfer[]>;
  /** Cases whose linked transfers include one of `transferIds`, newest first, at most 200. */
  cases(companyId: string, env: Environment, transferIds: string[]): Promise<OverviewCase[]>;
}
