// The customers port: a company's customers per environment, in the domain's records, and the blind index of their
// names. Written by hand; the SQLite engine implements it in storage's repos/customers.ts, and the storage
// contract suite (test/storage/contract/) holds every engine to it. Personal data stays sealed in the record exactly
// as it is stored (sealing and opening happen above storage, with the PII sealer). Its writes run inside a caller's
// unit of work: the customer's actor (src/actors/customer.ts) is the one writer, the legal-hold command beside it.
import type { Environment } from "../domain/types.ts";

export type CustomerStatus = "active" | "deactivated" | "erased";
export type IdentityStatus = "verified" | "unverified" | "blocked";

/** One customer as stored. `…Sealed` fields are sealed under `customer:<id>:<field>` (src/actors/customer.ts). */
export interface Customer {
  id: string;
  companyId: string;
  environment: Environment;
  externalId: string | null;
  /** externalId lower-cased (Unicode) at write time, for the substring search. */
  externalIdSearch: string | null;
  nameSealed: string | null;
  metadataSealed: string | null;
  /** IVMS101 persons, sealed; never returned. */
  identitySealed: string | null;
  identityStatus: IdentityStatus | null;
  /** Country of the identity (ISO 3166-1), kept for jurisdiction rules. */
  identityCountry: string | null;
  /** secp256k1 public key, compressed, hex. */
  publicKey: string | null;
  privateKeySealed: string | null;
  status: CustomerStatus;
  deactivatedAt: string | null;
  deactivatedBy: string | null;
  deactivationReasonSealed: string | null;
  erasedAt: string | null;
  erasedBy: string | null;
  erasureReasonSealed: string | null;
  legalHold: boolean;
  /** Optimistic concurrency: every change bumps it (`update` refuses a stale one). */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A customer as a list shows it: with how many wallets it has. */
export interface CustomerListItem extends Customer {
  walletCount: number;
}

/** A new customer: every field but the ones the store starts (version 1, no legal hold). */
export type NewCustomer = Omit<Customer, "version" | "legalHold">;

/** The fields a change may set (never the ID, tenant, version or legal hold). */
export type CustomerChange = Partial<Omit<Customer, "id" | "companyId" | "environment" | "version" | "legalHold" | "createdAt">>;

export interface CustomerListFilter {
  includeDeactivated: boolean;
  /** Lower-cased search text matched inside externalId. */
  externalIdContains?: string;
  /** Customers whose name matched (already verified against the sealed name). */
  nameMatchIds?: string[];
}

/** A customer's sealed name, for a name search to open and confirm. */
export interface SealedName {
  id: string;
  nameSealed: string | null;
}

/** What the legal-hold command reads of a customer it names by ID alone (either environment). */
export interface HoldState {
  id: string;
  environment: Environment;
  legalHold: boolean;
  status: CustomerStatus;
}

/** The optimistic check failed: another writer changed the customer between read and commit (the caller retries). */
export class VersionConflict extends Error {
  override name = "VersionConflict";
}

export interface CustomerRepository {
  /** A customer of the company in either environment (the legal-hold command names it by ID alone). */
  holdState(companyId: string, id: string): Promise<HoldState | undefined>;
  /** Sets or releases the legal hold; the version bump makes a concurrent change by the customer actor retry on fresh data. */
  setLegalHold(id: string, hold: boolean, updatedAt: string): Promise<void>;
  get(companyId: string, env: Environment, id: string): Promise<Customer | undefined>;
  byExternalId(companyId: string, env: Environment, externalId: string): Promise<Customer | undefined>;
  insert(c: NewCustomer): Promise<void>;
  /** Writes the given fields if the customer is still at `version`, and bumps it; else rejects with VersionConflict. */
  update(id: string, version: number, set: CustomerChange): Promise<void>;
  /** Replaces the customer's name index tags (HMAC tags of its name's trigrams: src/domain/blind-index.ts). */
  replaceNameGrams(companyId: string, env: Environment, customerId: string, grams: string[]): Promise<void>;
  /** Customers that have every tag, at most `cap` (candidates: the caller confirms them on the opened name). */
  withAllGrams(companyId: string, env: Environment, grams: string[], cap: number): Promise<string[]>;
  /** Every sealed name of the environment: the fallback of name searches too short for trigrams. */
  allSealedNames(companyId: string, env: Environment): Promise<SealedName[]>;
  sealedNames(ids: string[]): Promise<SealedName[]>;
  /** Newest first; keyset on (createdAt, id): pass the last item's pair as `after` for the next page. */
  page(companyId: string, env: Environment, f: CustomerListFilter, after: [string, string] | null, limit: number): Promise<CustomerListItem[]>;
  count(companyId: string, env: Environment, f: CustomerListFilter): Promise<number>;
  walletCount(companyId: string, env: Environment, customerId: string): Promise<number>;
}
