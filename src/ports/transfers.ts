// The transfers port: transfers as the domain sees them (one `Transfer` record each: camelCase fields, the JSON text
// columns parsed, flags as booleans, amounts decimal strings, times ISO 8601 strings), and the reads the API, the
// sweeps and the provider callbacks make of them. Written by hand; the SQLite engine implements it in
// storage's repos/transfers.ts (with the search index behind `page` and `count`), and the storage contract
// suite (test/storage/contract/) holds every engine to it. Writes run inside a caller's unit of work: the actors that
// own a transfer (the customer actor creates it, the transfer actor changes it) are its only writers.
import type { IntegrationName } from "../domain/providers/catalog.ts";
import type { Stage } from "../domain/rules/types.ts";
import type { Protocol } from "../domain/transfers.ts";
import type { Environment } from "../domain/types.ts";

/** One entry of a transfer's history: a state change (from → to) or a note (from = to). */
export interface HistoryEntry {
  type: string;
  from: string | null;
  to: string;
  at: string;
  detail?: Record<string, unknown>;
}

/** A check as the transfer records it (`checks`); the vendor response is sealed (it names people). */
export interface StoredCheck {
  id: string;
  integration: IntegrationName | null;
  integrationId: string;
  displayName: string;
  type: string;
  stage: Stage;
  /** Which evaluation of the checkpoint (0 first; provider_e and further persons get their own). */
  evaluation: number;
  status: "pending" | "success" | "error" | "skipped";
  requestedAt: string;
  durationMs: number | null;
  error: string | null;
  responseSealed: string | null;
  /** The checkpoint run this check belongs to (a replay after a crash replaces the run's pending checks). */
  run: string;
}

/** One step of the routing cascade (`attempts`): a provider's discovery or submission. */
export interface Attempt {
  id: string;
  provider: Protocol | null;
  displayName: string | null;
  protocol: Protocol | null;
  order: number;
  status: "discovering" | "vasp_not_found" | "error" | "submitting" | "sent" | "submission_unknown";
  externalId: string | null;
  error: string | null;
  durationMs: number;
}

/** A Travel Rule message exchanged with the counterparty (`messages`). */
export interface TransferMessage {
  type: string;
  direction: string;
  timestamp: string;
  [more: string]: unknown;
}

/** A transfer. Person data (IVMS101 persons, rejection details) stays sealed: the `…Sealed` fields are envelopes. */
export interface Transfer {
  id: string;
  companyId: string;
  environment: Environment;
  direction: "outgoing" | "incoming";
  state: string;
  /** Compliance verdict: pending, approved, rejected. */
  status: string;
  /** The caller's Idempotency-Key, or an incoming transfer's external reference. */
  externalId: string | null;
  /** The asset code as the caller gave it, and the catalog asset it resolved to (CAIP-19). */
  asset: string;
  assetId: string | null;
  /** A decimal string. */
  amount: string;
  network: string;
  blockchainType: string | null;
  originatorCustomerId: string | null;
  originatorAddress: string | null;
  beneficiaryAddress: string;
  beneficiaryCustomerId: string | null;
  isUnhostedWallet: boolean;
  originatorSealed: string | null;
  beneficiarySealed: string | null;
  originatorVaspId: string | null;
  originatorVaspName: string | null;
  beneficiaryVaspId: string | null;
  beneficiaryVaspName: string | null;
  preferredProtocol: string | null;
  /** The provider that carries it, once one does, and its reference there. */
  protocol: string | null;
  providerExternalId: string | null;
  matchedAt: string | null;
  oursStatus: string | null;
  theirsStatus: string | null;
  rejectionReason: string | null;
  rejectionDetailsSealed: string | null;
  txHash: string | null;
  sanctionsStatus: string | null;
  sanctionsProvider: string | null;
  /** What the threshold comparison recorded at creation (Part 1 `thresholdInfo`), or null. */
  thresholdInfo: Record<string, unknown> | null;
  fxRateId: string | null;
  checks: StoredCheck[];
  attempts: Attempt[];
  messages: TransferMessage[];
  history: HistoryEntry[];
  expiresAt: string | null;
  acceptedAt: string | null;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The list's filters (Part 1 GET /transfers); `search` matches the searched text fields (a substring, any case). */
export interface TransferFilter {
  direction?: string;
  state?: string;
  status?: string;
  protocol?: string;
  search?: string;
}

/** A transfer the expiry sweep tells its actor about. */
export interface DueTransfer {
  id: string;
  companyId: string;
  environment: Environment;
}

export interface TransferRepository {
  get(companyId: string, env: Environment, id: string): Promise<Transfer | undefined>;
  /** The transfer a provider knows by its own reference (`providerExternalId`), carried by that provider. */
  byProviderReference(companyId: string, env: Environment, protocol: string, providerExternalId: string): Promise<Transfer | undefined>;
  /** The company's outgoing provider_b transfer to `beneficiaryVaspId` that provider_b knows by `providerExternalId`. */
  outgoingProviderB(companyId: string, env: Environment, providerExternalId: string, beneficiaryVaspId: string): Promise<Transfer | undefined>;
  /** The company's outgoing provider_b transfers to `beneficiaryVaspId` whose txHash is one of `txHashes`, oldest first. */
  outgoingProviderBByTx(companyId: string, env: Environment, txHashes: readonly string[], beneficiaryVaspId: string): Promise<Transfer[]>;
  /** The transfer created under this Idempotency-Key (or incoming external reference). */
  byExternalId(companyId: string, env: Environment, externalId: string): Promise<Transfer | undefined>;
  /** A new transfer (an ID or Idempotency-Key already taken in its environment is refused by the engine). */
  insert(t: Transfer): Promise<void>;
  /** Changes the fields given (the ID never changes). */
  update(id: string, set: Partial<Transfer>): Promise<void>;
  /** IDs of the customer's transfers (either side) not in a final state, oldest first. */
  activeForCustomer(companyId: string, env: Environment, customerId: string): Promise<string[]>;
  /**
   * Transfers due to be cancelled at `nowIso`: outgoing ones no provider has taken past their expiry, and failed ones
   * no action can move on (docs/transfers.md). The sweep tells each one's actor, which checks again.
   */
  dueForCancel(nowIso: string, limit?: number): Promise<DueTransfer[]>;
  /** Through which provider the environment last reached the VASP `vaspId`, other than by `exceptId`; null if none. */
  lastReached(companyId: string, env: Environment, vaspId: string, exceptId: string): Promise<{ protocol: string; at: string } | null>;
  /** Newest first ((createdAt, id) descending), after the keyset position `after` when given. */
  page(companyId: string, env: Environment, f: TransferFilter, after: [string, string] | null, limit: number): Promise<Transfer[]>;
  count(companyId: string, env: Environment, f: TransferFilter): Promise<number>;
  /**
   * Whether search reads an index fed from a queue (SQLite: the index in its own file, filled off the request thread)
   * rather than one the engine keeps in the transaction that writes the row (PostgreSQL's pg_trgm indexes). Without a
   * queue nothing is ever pending: the three upkeep methods below answer 0. Either way a transfer is found from its
   * commit on.
   */
  readonly searchQueued: boolean;
  /** The search index's upkeep: index up to `limit` queued transfers (answers how many), trim what it reflects. */
  indexPending(limit: number): Promise<number>;
  trimSearchQueue(): Promise<number>;
  /** Transfers queued and not yet in the search index. */
  pendingIndex(): Promise<number>;
}
