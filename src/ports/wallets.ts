// The wallets port: customers' hosted addresses, in the domain's records. Written by hand; the SQLite engine
// implements it in storage's repos/wallets.ts, and the storage contract suite (test/storage/contract/) holds
// every engine to it. Its writes run inside the unit of work of the wallet's customer actor (src/actors/customer.ts).
// `verified` is derived from the wallet's ownership proofs and changed with them (src/ports/proofs.ts).
import type { Environment } from "../domain/types.ts";

export interface Wallet {
  id: string;
  companyId: string;
  environment: Environment;
  customerId: string;
  /** As registered, with its destination tag in canonical form (`r…?dt=12`). */
  address: string;
  network: string;
  label: string | null;
  verified: boolean;
  verifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The fields a change may set. */
export type WalletChange = Partial<Pick<Wallet, "network" | "label" | "updatedAt">>;

export interface WalletFilter {
  network?: string;
  verified?: boolean;
  customerId?: string;
  /** Text found in the address, the label or the customer ID. */
  search?: string;
}

export interface WalletRepository {
  get(companyId: string, env: Environment, id: string): Promise<Wallet | undefined>;
  byAddress(companyId: string, env: Environment, address: string): Promise<Wallet | undefined>;
  /** The wallets registered under any of the addresses. */
  byAddresses(companyId: string, env: Environment, addresses: string[]): Promise<Wallet[]>;
  insert(w: Wallet): Promise<void>;
  update(id: string, set: WalletChange): Promise<void>;
  /** Removes the wallet with its challenges and proofs. */
  delete(id: string): Promise<void>;
  /** Newest first; keyset on (createdAt, id): pass the last item's pair as `after` for the next page. */
  page(companyId: string, env: Environment, f: WalletFilter, after: [string, string] | null, limit: number): Promise<Wallet[]>;
  count(companyId: string, env: Environment, f: WalletFilter): Promise<number>;
}
