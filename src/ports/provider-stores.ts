// The provider stores port: what the provider flows and callbacks keep and read besides the transfers themselves, in
// the domain's records. provider_a's processed webhook messages and the transfers its callback binds; provider_b's
// callback requests recorded for idempotency (claim, finish, release, the answer sealed by the caller); and the
// transfers each provider's sweeps tell (polling, stall, expiry), every one read in pages. Asynchronous like every port
// (src/ports/store.ts); writes run inside the caller's unit of work unless a method says it takes its own. The SQLite
// engine implements it in storage's repos/provider-{a,b,d,e}-*.ts, and the storage contract suite
// (test/storage/contract/) holds every engine to it.
import type { Environment } from "../domain/types.ts";
import type { Person } from "../domain/ivms101/index.ts";
import type { ClaimDecision } from "../domain/provider_b/decisions.ts";
import type { Unseal } from "../domain/identity.ts";

/** A transfer a sweep tells: its ID and tenant. */
export interface DueTransfer {
  id: string;
  companyId: string;
  environment: Environment;
}

// ---- provider_a ----

/** A provider_a webhook message as delivered (Part 3 "provider_a callback"): processed once per entity, ID and body. */
export interface MessageKey {
  companyId: string;
  environment: Environment;
  entity: string;
  messageId: string;
  bodySha256: string;
}

/** The transfer a provider_a event concerns: its ID and the provider's transfer ID once bound (null before). */
export interface ProviderATransferRef {
  id: string;
  providerExternalId: string | null;
}

export interface ProviderARepository {
  processed(k: MessageKey): Promise<boolean>;
  /** Recorded after the event was applied (a failure leaves it unrecorded: its redelivery is processed again). */
  record(k: MessageKey, providerTransferId: string, transferId: string | null, now: number): Promise<void>;
  /** The transfer this environment holds for a provider transfer ID (outgoing or incoming). */
  byProviderTransferId(companyId: string, env: Environment, providerTransferId: string): Promise<ProviderATransferRef | undefined>;
  /** An outgoing provider_a transfer by our ID (a lost answer at creation: bound by a later event). */
  outgoingByRef(companyId: string, env: Environment, id: string): Promise<ProviderATransferRef | undefined>;
  /** `exchanging` or `awaiting_counterparty` and unchanged since `before`: every one, read in pages of `pageSize`. */
  dueForPoll(before: number, pageSize?: number): Promise<DueTransfer[]>;
  /** `exchanging` unchanged since `before` (the stall): every one, read in pages of `pageSize`. */
  dueForStall(before: number, pageSize?: number): Promise<DueTransfer[]>;
  /** A customer's verified identity (persons opened with `open`), or null when not verified, blocked, inactive or gone. */
  verifiedIdentity(open: Unseal, companyId: string, env: Environment, customerId: string): Promise<Person[] | null>;
  /** The originator customer of the company's transfer, or null. */
  originatorCustomerOf(companyId: string, env: Environment, transferId: string): Promise<string | null>;
}

// ---- provider_b ----

/** Which provider_b callback a request is (a record of one kind never answers the other). */
export type ProviderBRequestKind = "transfer" | "transfer_data";

/** A provider_b callback request as recorded (Part 3 "provider_b callbacks"). */
export interface ProviderBRequest {
  id: string;
  companyId: string;
  environment: Environment;
  sender: string;
  transferId: string;
  kind: ProviderBRequestKind;
  contentHash: string;
  state: "in_progress" | "done";
  startedAt: string;
  completedAt: string | null;
  /** The first answer, sealed by the caller under `answerAad(id)`. */
  answerSealed: string | null;
  /** The transfer the request created or concerns, once known. */
  transferRef: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A provider_b request's identity: one record per sender and transfer ID in an environment. */
export interface RequestKey {
  companyId: string;
  environment: Environment;
  sender: string;
  transferId: string;
}

export type Claim = { decision: ClaimDecision; request: ProviderBRequest };

/** The associated data that binds a sealed answer to its request record. */
export const answerAad = (id: string) => `provider_b_request:${id}`;

export interface ProviderBRequestRepository {
  get(k: RequestKey): Promise<ProviderBRequest | undefined>;
  /**
   * Records the request as in progress unless it is known, in a unit of work of its own: of concurrent duplicates
   * exactly one gets `new` (or `reclaim`) and the others `in_progress`.
   */
  claim(k: RequestKey, kind: ProviderBRequestKind, contentHash: string, now: number): Promise<Claim>;
  /** The answer is recorded; later identical requests get it again. */
  finish(id: string, answerSealed: string, transferRef: string | null, now: number): Promise<void>;
  /** Processing failed without an answer: the next identical request may process it again at once. */
  release(id: string, now: number): Promise<void>;
}

// ---- provider_d ----

export interface ProviderDRepository {
  /**
   * The VASP ID of the counterparty that approved `address` (canonical, on `network`) in the company's latest outgoing
   * provider_d transfer to it. Null when none did.
   */
  knownBeneficiary(companyId: string, env: Environment, network: string, address: string): Promise<string | null>;
  /** provider_d transfers still open (not held) at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize?: number): Promise<DueTransfer[]>;
}

// ---- provider_e ----

export interface ProviderERepository {
  /** The verified identity of the originator customer of the company's transfer (persons opened with `open`), or null. */
  originatorIdentity(open: Unseal, companyId: string, env: Environment, transferId: string): Promise<Person[] | null>;
  /** Outgoing provider_e transfers waiting and unchanged since `before`: every one, in pages. */
  dueForPoll(before: number, pageSize?: number): Promise<DueTransfer[]>;
  /** provider_e transfers still open at their expiry: every one, in pages. */
  dueForExpiry(now: number, pageSize?: number): Promise<DueTransfer[]>;
}
