// CustomerActor (`customer:<id>`): the only writer of one customer and its wallets, so changes never interleave.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { ActorKind, ActorContext } from "./types.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import { Customers, type CustomerRow } from "../adapters/storage/repos/customers.ts";
import { Wallets, type WalletRow } from "../adapters/storage/repos/wallets.ts";
import { AuditLog, type AuditActor } from "../adapters/storage/repos/audit.ts";
import type { Storage } from "../adapters/storage/index.ts";
import { iso } from "../domain/ids.ts";
import { keepReason, normalizeForSearch, trigrams, type CreateCustomerInput } from "../domain/customers.ts";
import { personsCountry, type Person } from "../domain/ivms101/index.ts";
import type { ErrorCode } from "../domain/errors.ts";
import type { Environment } from "../domain/types.ts";
import { personNames } from "../domain/ivms101/index.ts";
import { SCHEMA_NAME, type CreateTransferInput } from "../domain/transfers.ts";
import { Transfers, type TransferRow } from "../adapters/storage/repos/transfers.ts";
import { ownVasp } from "../adapters/storage/repos/thresholds.ts";
import { transferEventData, type HistoryEntry } from "./transfer-presenter.ts";
import { Proofs, noteAad, proofState, type ProofRow } from "../adapters/storage/repos/proofs.ts";
import { deriveVerification, type Verification } from "../domain/proofs/index.ts";
import { beneficiaryMatches } from "../domain/provider_b/names.ts";
import { holderReason, screeningReason, type IncomingReason, type Verdict } from "../domain/provider_b/decisions.ts";
import { VaspDirectory } from "../adapters/storage/repos/vasps.ts";

/** Every message names the tenant and who acts, so the actor needs no other context. */
interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

export type CustomerMsg =
  | (Scoped & { type: "create"; input: CreateCustomerInput })
  | (Scoped & { type: "deactivate"; reason: string | null })
  | (Scoped & { type: "reactivate" })
  | (Scoped & { type: "erase"; reason: string })
  | (Scoped & { type: "setIdentity"; status: "verified" | "unverified" | "blocked"; persons: Person[] })
  | (Scoped & { type: "registerWallet"; walletId: string; address: string; network: string; label: string | null })
  | (Scoped & { type: "updateWalletLabel"; walletId: string; label: string | null; labelGiven: boolean })
  | (Scoped & { type: "deleteWallet"; walletId: string })
  | (Scoped & { type: "createTransfer"; transfer: NewTransfer })
  // An incoming transfer to one of the customer's wallets: checked and created here, so it never interleaves with an erasure.
  | (Scoped & { type: "receiveIncoming"; transfer: IncomingTransfer })
  // Ownership proofs change `verified`, so they are serialized with the wallet's deletion here.
  | (Scoped & { type: "issueWalletChallenge"; walletId: string })
  | (Scoped & { type: "proveWallet"; walletId: string; signature: string; challengeId: string | null; expiresAt: string | null })
  | (Scoped & { type: "attestWallet"; walletId: string; note: string; expiresAt: string | null })
  | (Scoped & { type: "revokeWalletProof"; proofId: string })
  | (Scoped & { type: "expireWalletProofs"; walletId: string });

/** A priced, validated outgoing transfer the HTTP layer asks the originator's actor to create. */
export interface NewTransfer {
  id: string;
  idempotencyKey: string | null;
  input: CreateTransferInput;
  assetCode: string;
  assetId: string;
  /** Originator address in its canonical registry form (or null). */
  originatorAddress: string | null;
  beneficiaryAddress: string;
  outcome: "completed" | "queued";
  thresholdInfo: Record<string, unknown>;
  fxRateId: string;
  expiresAt: string | null;
}

/**
 * An incoming transfer a provider delivers to a wallet of this customer (Part 3, provider_b transfers → Incoming),
 * after the request was decrypted and the wallet found; the holder and name checks happen in the actor.
 */
export interface IncomingTransfer {
  id: string;
  /** The provider's reference of the request (`provider_b-inbound:<request ID>`): one transfer per reference. */
  externalId: string;
  protocol: "provider_b";
  walletId: string;
  asset: string;
  assetId: string;
  amount: string;
  network: string;
  /** The wallet's address in its canonical registry form. */
  beneficiaryAddress: string;
  originatorAddress: string;
  originatorPersons: Person[];
  /** The beneficiary persons as the originating VASP sent them. */
  beneficiaryPersons: Person[];
  originatorVasp: { id: string; name: string | null };
  beneficiaryVasp: { id: string; name: string | null };
  thresholdInfo: Record<string, unknown>;
}

/** The answer to `receiveIncoming`: denied before creation (nothing recorded), or the transfer created (or found again). */
export type IncomingOutcome =
  | { result: "denied"; reasonType: IncomingReason; transfer: null }
  | { result: "verified" | "denied"; reasonType: string | null; transfer: TransferRow; created: boolean };

/** A message before the HTTP layer adds tenant and actor. */
export type CustomerCommand = CustomerMsg extends infer T ? (T extends unknown ? Omit<T, keyof Scoped> : never) : never;

/** Refusals are values: the HTTP layer turns them into the spec's error. */
export type Outcome<T = unknown> = { ok: true; data: T; status?: number } | { ok: false; code: ErrorCode; message?: string; details?: Record<string, unknown> };

export interface CustomerDeps {
  pii: Sealer;
  /** HMAC key of the blind name index. */
  nameIndexKey: Uint8Array;
  /** Transfers of the customer not in a final state (erasure refuses while there are any). */
  activeTransferIds(companyId: string, env: Environment, customerId: string): string[];
  /**
   * Screening of a new incoming transfer with rules and screening integrations (Part 3). None exist yet, so the
   * default approves; the seam is here so that a verdict lands in the same transaction as the creation.
   */
  screenIncoming?(t: TransferRow, persons: { originator: Person[]; beneficiary: Person[] }): Verdict;
}

const refuse = (code: ErrorCode, details?: Record<string, unknown>, message?: string): Outcome => ({ ok: false, code, details, message });

export function nameGrams(key: Uint8Array, name: string): string[] {
  return trigrams(normalizeForSearch(name)).map((g) => bytesToHex(hmac(sha256, key, utf8ToBytes(g)).slice(0, 12)));
}

export function customerActor(deps: CustomerDeps): ActorKind<Record<string, never>, CustomerMsg> {
  return {
    kind: "customer",
    initialState: () => ({}),
    handle(ctx, msg) {
      const h = new Handling(ctx, msg, deps);
      ctx.reply(h.run());
    },
  };
}

class Handling {
  private readonly customers: Customers;
  private readonly wallets: Wallets;
  private readonly at: string;

  constructor(
    private readonly ctx: ActorContext<Record<string, never>>,
    private readonly msg: CustomerMsg,
    private readonly deps: CustomerDeps,
  ) {
    this.customers = new Customers(ctx.storage);
    this.wallets = new Wallets(ctx.storage);
    this.at = iso(ctx.now);
  }

  run(): Outcome {
    const m = this.msg;
    switch (m.type) {
      case "create":
        return this.create(m.input);
      case "deactivate":
        return this.withCustomer((c) => this.deactivate(c, m.reason));
      case "reactivate":
        return this.withCustomer((c) => this.reactivate(c));
      case "erase":
        return this.withCustomer((c) => this.erase(c, m.reason));
      case "setIdentity":
        return this.withCustomer((c) => this.setIdentity(c, m.status, m.persons));
      case "registerWallet":
        return this.withCustomer((c) => this.registerWallet(c, m));
      case "updateWalletLabel":
        return this.updateWalletLabel(m.walletId, m.label, m.labelGiven);
      case "deleteWallet":
        return this.deleteWallet(m.walletId);
      case "createTransfer":
        return this.createTransfer(m.transfer);
      case "receiveIncoming":
        return this.receiveIncoming(m.transfer);
      case "issueWalletChallenge":
        return this.issueWalletChallenge(m.walletId);
      case "proveWallet":
        return this.proveWallet(m);
      case "attestWallet":
        return this.attestWallet(m);
      case "revokeWalletProof":
        return this.revokeWalletProof(m.proofId);
      case "expireWalletProofs":
        return this.expireWalletProofs(m.walletId);
      default: {
        const _exhaustive: never = m;
        throw new Error(`unknown customer message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }

  private audit(action: string, entityType: string, entityId: string, detail?: Record<string, unknown>): void {
    const { companyId, environment, actor } = this.msg;
    const now = this.ctx.now;
    this.ctx.write((s: Storage) => new AuditLog(s).record({ companyId, environment, actor, action, entityType, entityId, detail }, now));
  }

  private withCustomer(fn: (c: CustomerRow) => Outcome): Outcome {
    const c = this.customers.get(this.msg.companyId, this.msg.environment, this.ctx.id);
    if (!c) return refuse("CUSTOMER_NOT_FOUND", { resource: "Customer", id: this.ctx.id });
    return fn(c);
  }

  private seal(value: string, field: string): string {
    return this.deps.pii.seal(value, `customer:${this.ctx.id}:${field}`);
  }

  private create(input: CreateCustomerInput): Outcome {
    const { companyId, environment } = this.msg;
    const id = this.ctx.id;
    if (this.customers.get(companyId, environment, id)) return refuse("CONFLICT", undefined, "The customer already exists");
    if (input.externalId !== null) {
      const taken = this.customers.byExternalId(companyId, environment, input.externalId);
      if (taken) return refuse("EXTERNAL_ID_IN_USE", { customerId: taken.id, deactivated: taken.status !== "active" });
    }
    const secret = secp256k1.utils.randomSecretKey();
    const publicKey = bytesToHex(secp256k1.getPublicKey(secret, true));
    const row = {
      id,
      company_id: companyId,
      environment,
      external_id: input.externalId,
      external_id_search: input.externalId === null ? null : input.externalId.toLowerCase(),
      name_sealed: input.name === null ? null : this.seal(input.name, "name"),
      metadata_sealed: input.hasMetadata ? this.seal(JSON.stringify(input.metadata), "metadata") : null,
      identity_sealed: null,
      identity_status: null,
      identity_country: null,
      public_key: publicKey,
      private_key_sealed: this.seal(bytesToHex(secret), "private_key"),
      status: "active" as const,
      deactivated_at: null,
      deactivated_by: null,
      deactivation_reason_sealed: null,
      erased_at: null,
      erased_by: null,
      erasure_reason_sealed: null,
      created_at: this.at,
      updated_at: this.at,
    };
    const grams = input.name === null ? [] : nameGrams(this.deps.nameIndexKey, input.name);
    this.ctx.write((s) => {
      const repo = new Customers(s);
      repo.insert(row);
      if (grams.length) repo.replaceNameGrams(companyId, environment, id, grams);
    });
    this.audit("customer.created", "Customer", id, { externalId: input.externalId !== null });
    return {
      ok: true,
      status: 201,
      data: { id, externalId: input.externalId, name: input.name, publicKey, environment, createdAt: this.at },
    };
  }

  private deactivate(c: CustomerRow, reason: string | null): Outcome {
    if (c.status !== "active") return { ok: true, data: { id: c.id, deactivatedAt: c.deactivated_at } };
    const by = this.msg.actor.memberId ?? null;
    const kept = reason === null ? null : keepReason(reason);
    this.ctx.write((s) =>
      new Customers(s).update(c.id, c.version, {
        status: "deactivated",
        deactivated_at: this.at,
        deactivated_by: by,
        deactivation_reason_sealed: kept === null ? null : this.seal(kept, "deactivation_reason"),
        updated_at: this.at,
      }),
    );
    this.audit("customer.deactivated", "Customer", c.id);
    return { ok: true, data: { id: c.id, deactivatedAt: this.at, deactivatedBy: by, deactivationReason: kept } };
  }

  private reactivate(c: CustomerRow): Outcome {
    if (c.status === "erased") return refuse("CUSTOMER_ERASED", undefined, "An erased customer cannot be reactivated");
    if (c.status === "deactivated") {
      this.ctx.write((s) =>
        new Customers(s).update(c.id, c.version, { status: "active", deactivated_at: null, deactivated_by: null, deactivation_reason_sealed: null, updated_at: this.at }),
      );
      this.audit("customer.reactivated", "Customer", c.id);
    }
    return { ok: true, data: { id: c.id, deactivatedAt: null } };
  }

  private erase(c: CustomerRow, reason: string): Outcome {
    if (c.status === "erased") return { ok: true, data: { id: c.id, erasedAt: c.erased_at, alreadyErased: true } };
    // Part 1: a legal hold is answered without saying which; in-flight transfers are listed.
    if (c.legal_hold) return refuse("LEGAL_HOLD", undefined, "The customer's records are under a legal hold or retention obligation");
    const active = this.deps.activeTransferIds(c.company_id, c.environment, c.id);
    if (active.length) return refuse("IN_FLIGHT", { activeTransferIds: active }, "The customer has transfers not in a final state");
    const by = this.msg.actor.memberId ?? null;
    const deactivatedAt = c.deactivated_at ?? this.at;
    this.ctx.write((s) => {
      const repo = new Customers(s);
      // Personal data is nulled in place; the row, its keys and its links to transfers and wallets stay.
      repo.update(c.id, c.version, {
        status: "erased",
        external_id: null,
        external_id_search: null,
        name_sealed: null,
        metadata_sealed: null,
        identity_sealed: null,
        identity_status: null,
        identity_country: null,
        deactivation_reason_sealed: null,
        deactivated_at: deactivatedAt,
        deactivated_by: c.deactivated_by ?? by,
        erased_at: this.at,
        erased_by: by,
        erasure_reason_sealed: this.seal(keepReason(reason), "erasure_reason"),
        updated_at: this.at,
      });
      repo.replaceNameGrams(c.company_id, c.environment, c.id, []);
    });
    this.audit("customer.erased", "Customer", c.id);
    return { ok: true, data: { id: c.id, erasedAt: this.at, erasedBy: by, deactivatedAt } };
  }

  private setIdentity(c: CustomerRow, status: "verified" | "unverified" | "blocked", persons: Person[]): Outcome {
    if (c.status !== "active") return refuse("CUSTOMER_NOT_FOUND", { resource: "Customer", id: c.id });
    if (c.metadata_sealed !== null) {
      const metadata = JSON.parse(this.deps.pii.open(c.metadata_sealed, `customer:${c.id}:metadata`));
      if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))
        return refuse("METADATA_NOT_OBJECT", undefined, "The customer's metadata is not a JSON object");
    }
    const sealed = this.deps.pii.seal(JSON.stringify(persons), `customer:${c.id}:identity`);
    this.ctx.write((s) =>
      new Customers(s).update(c.id, c.version, { identity_sealed: sealed, identity_status: status, identity_country: personsCountry(persons), updated_at: this.at }),
    );
    // The audit log records the status only (Part 1).
    this.audit("customer.identity_set", "Customer", c.id, { status });
    return { ok: true, data: { id: c.id, status } };
  }

  private registerWallet(c: CustomerRow, m: { walletId: string; address: string; network: string; label: string | null }): Outcome {
    if (c.status !== "active") return refuse("CUSTOMER_DEACTIVATED", undefined, "The customer is deactivated and cannot take new wallets");
    const { companyId, environment } = this.msg;
    const existing = this.wallets.byAddress(companyId, environment, m.address);
    if (existing && existing.customer_id !== c.id) return refuse("WALLET_ADDRESS_TAKEN", undefined, "The address is registered to another customer");
    if (existing) {
      // Re-registering an address the customer already has updates its network and label (Part 1).
      const updated: WalletRow = { ...existing, network: m.network, label: m.label, updated_at: this.at };
      this.ctx.write((s) => new Wallets(s).update(existing.id, { network: m.network, label: m.label, updated_at: this.at }));
      this.audit("wallet.updated", "Wallet", existing.id, { network: m.network });
      return { ok: true, status: 201, data: updated };
    }
    const row: WalletRow = {
      id: m.walletId,
      company_id: companyId,
      environment,
      customer_id: c.id,
      address: m.address,
      network: m.network,
      label: m.label,
      verified: 0,
      verified_at: null,
      created_at: this.at,
      updated_at: this.at,
    };
    this.ctx.write((s) => new Wallets(s).insert(row));
    this.audit("wallet.created", "Wallet", row.id, { network: m.network });
    return { ok: true, status: 201, data: row };
  }

  /** Created here, not in the transfer's actor, so that a create and an erasure of the originator never interleave. */
  private createTransfer(n: NewTransfer): Outcome {
    const { companyId, environment, actor } = this.msg;
    const transfers = new Transfers(this.ctx.storage);
    if (n.idempotencyKey !== null) {
      const done = transfers.byExternalId(companyId, environment, n.idempotencyKey);
      if (done) return { ok: true, status: 200, data: { idempotent: true, transfer: done } };
    }
    const c = this.customers.get(companyId, environment, this.ctx.id);
    if (!c || c.status !== "active")
      return refuse("VALIDATION_ERROR", { schemaName: SCHEMA_NAME }, c ? "The originator customer is deactivated" : "The originator customer is unknown in this environment");
    if (n.originatorAddress !== null) {
      const w = this.wallets.byAddress(companyId, environment, n.originatorAddress);
      if (!w || w.customer_id !== c.id) return refuse("VALIDATION_ERROR", { schemaName: SCHEMA_NAME }, "originatorAddress is not a wallet registered to the originator customer");
    }
    const vasp = ownVasp(this.ctx.storage, companyId);
    const completed = n.outcome === "completed";
    const history: HistoryEntry[] = [{ type: "created", from: null, to: completed ? "completed" : "queued", at: this.at }];
    const row: TransferRow = {
      id: n.id,
      company_id: companyId,
      environment,
      direction: "outgoing",
      state: completed ? "completed" : "queued",
      status: completed ? "approved" : "pending",
      external_id: n.idempotencyKey,
      asset: n.assetCode,
      asset_id: n.assetId,
      amount: n.input.amount,
      network: n.input.network,
      blockchain_type: n.input.network,
      originator_customer_id: c.id,
      originator_address: n.originatorAddress,
      beneficiary_address: n.beneficiaryAddress,
      beneficiary_customer_id: null,
      is_unhosted_wallet: n.input.isUnhostedWallet ? 1 : 0,
      originator_sealed: this.deps.pii.seal(JSON.stringify(n.input.originatorPersons), `transfer:${n.id}:originator`),
      beneficiary_sealed: n.input.beneficiaryPersons.length ? this.deps.pii.seal(JSON.stringify(n.input.beneficiaryPersons), `transfer:${n.id}:beneficiary`) : null,
      // We are the originating VASP of an outgoing transfer.
      originator_vasp_id: vasp.id,
      originator_vasp_name: vasp.name,
      beneficiary_vasp_id: null,
      beneficiary_vasp_name: null,
      preferred_protocol: n.input.preferredProtocol,
      protocol: null,
      provider_external_id: null,
      matched_at: null,
      ours_status: completed ? null : "pending",
      theirs_status: null,
      rejection_reason: null,
      rejection_details_sealed: null,
      tx_hash: null,
      sanctions_status: null,
      sanctions_provider: null,
      threshold_info: JSON.stringify(n.thresholdInfo),
      fx_rate_id: n.fxRateId,
      checks: "[]",
      attempts: "[]",
      messages: "[]",
      history: JSON.stringify(history),
      expires_at: n.expiresAt,
      accepted_at: null,
      completed_at: completed ? this.at : null,
      created_at: this.at,
      updated_at: this.at,
    };
    this.ctx.write((s) => new Transfers(s).insert(row));
    const event = { companyId, environment, entityType: "transfer", entityId: row.id, data: transferEventData(row) };
    this.ctx.emit({ ...event, type: "transfer.created" });
    if (completed) this.ctx.emit({ ...event, type: "transfer.completed" });
    else this.ctx.tell(`transfer:${row.id}`, { type: "start", companyId, environment, actor });
    this.audit("transfer.created", "Transfer", row.id, { state: row.state, asset: row.asset, network: row.network });
    return { ok: true, status: completed ? 201 : 202, data: { idempotent: false, transfer: row, originatorName: personNames(n.input.originatorPersons)[0] ?? null, beneficiaryName: personNames(n.input.beneficiaryPersons)[0] ?? null } };
  }

  /**
   * Part 3, provider_b Incoming: the wallet must be verified and the customer's identity verified (NOT_KYC_USER,
   * SANCTION_LIST when blocked), the beneficiary persons sent must match the identity (INPUT_NAME_MISMATCHED); only
   * then is the transfer created, screened, and left `awaiting_counterparty` (approved) or `rejected` (denied).
   * A denial before creation records nothing. The same reference again answers the transfer it created.
   */
  private receiveIncoming(n: IncomingTransfer): Outcome<IncomingOutcome> {
    const { companyId, environment } = this.msg;
    const transfers = new Transfers(this.ctx.storage);
    const done = transfers.byExternalId(companyId, environment, n.externalId);
    if (done) return { ok: true, data: { result: done.state === "rejected" ? "denied" : "verified", reasonType: done.rejection_reason, transfer: done, created: false } };
    const deny = (reasonType: IncomingReason): Outcome<IncomingOutcome> => ({ ok: true, data: { result: "denied", reasonType, transfer: null } });
    const c = this.customers.get(companyId, environment, this.ctx.id);
    const w = this.ownWallet(n.walletId);
    // The wallet was found outside the actor: it may have been deleted or moved since.
    if (!c || !w || w.address !== n.beneficiaryAddress) return deny("NOT_FOUND_ADDRESS");
    const holder = holderReason({ customerActive: c.status === "active", walletVerified: w.verified === 1, identityStatus: c.identity_status });
    if (holder) return deny(holder);
    const identity = JSON.parse(this.deps.pii.open(c.identity_sealed!, `customer:${c.id}:identity`)) as Person[];
    if (!beneficiaryMatches(n.beneficiaryPersons, identity)) return deny("INPUT_NAME_MISMATCHED");

    const history: HistoryEntry[] = [{ type: "created", from: null, to: "exchanging", at: this.at, detail: { protocol: n.protocol } }];
    const created: TransferRow = {
      id: n.id,
      company_id: companyId,
      environment,
      direction: "incoming",
      state: "exchanging",
      status: "pending",
      external_id: n.externalId,
      asset: n.asset,
      asset_id: n.assetId,
      amount: n.amount,
      network: n.network,
      blockchain_type: n.network,
      originator_customer_id: null,
      originator_address: n.originatorAddress,
      beneficiary_address: n.beneficiaryAddress,
      beneficiary_customer_id: c.id,
      is_unhosted_wallet: 0,
      originator_sealed: this.deps.pii.seal(JSON.stringify(n.originatorPersons), `transfer:${n.id}:originator`),
      beneficiary_sealed: this.deps.pii.seal(JSON.stringify(n.beneficiaryPersons), `transfer:${n.id}:beneficiary`),
      originator_vasp_id: n.originatorVasp.id,
      originator_vasp_name: n.originatorVasp.name,
      beneficiary_vasp_id: n.beneficiaryVasp.id,
      beneficiary_vasp_name: n.beneficiaryVasp.name,
      preferred_protocol: null,
      protocol: n.protocol,
      provider_external_id: n.externalId,
      matched_at: null,
      ours_status: "pending",
      // The originating VASP asked for the authorization; it reports the transaction (txid) or cancels later.
      theirs_status: "pending",
      rejection_reason: null,
      rejection_details_sealed: null,
      tx_hash: null,
      sanctions_status: null,
      sanctions_provider: null,
      threshold_info: JSON.stringify(n.thresholdInfo),
      fx_rate_id: null,
      checks: "[]",
      attempts: "[]",
      messages: JSON.stringify([{ type: "transfer_request", direction: "inbound", timestamp: this.at }]),
      history: "[]",
      expires_at: null,
      accepted_at: null,
      completed_at: null,
      created_at: this.at,
      updated_at: this.at,
    };
    created.history = JSON.stringify(history);
    const verdict = this.deps.screenIncoming?.(created, { originator: n.originatorPersons, beneficiary: n.beneficiaryPersons }) ?? "approved";
    const reason = screeningReason(verdict);
    // Never held (Part 3): approved → awaiting_counterparty; a verdict needing review or a rejection → rejected.
    const to = reason === null ? "awaiting_counterparty" : "rejected";
    history.push({ type: reason === null ? "screened" : "screening_denied", from: "exchanging", to, at: this.at, ...(reason ? { detail: { reasonType: reason } } : {}) });
    const messages = [...JSON.parse(created.messages), { type: "transfer_response", direction: "outbound", timestamp: this.at }];
    const final: TransferRow = {
      ...created,
      state: to,
      status: reason === null ? "approved" : "rejected",
      ours_status: reason === null ? "accepted" : "rejected",
      matched_at: reason === null ? this.at : null,
      rejection_reason: reason,
      messages: JSON.stringify(messages),
      history: JSON.stringify(history),
    };
    this.ctx.write((s) => {
      new Transfers(s).insert(final);
      // The sender is a counterparty this environment has now exchanged a transfer with (VASP search).
      new VaspDirectory(s).record(companyId, environment, n.originatorVasp.id, n.originatorVasp.name, "transfer_history", this.at);
    });
    const event = { companyId, environment, entityType: "transfer", entityId: final.id };
    this.ctx.emit({ ...event, type: "transfer.created", data: transferEventData(reason === null ? final : created) });
    if (reason !== null) this.ctx.emit({ ...event, type: "transfer.rejected", data: transferEventData(final) });
    this.audit("transfer.created", "Transfer", final.id, { state: final.state, asset: final.asset, network: final.network, direction: "incoming", protocol: n.protocol });
    return { ok: true, status: 201, data: { result: reason === null ? "verified" : "denied", reasonType: reason, transfer: final, created: true } };
  }

  private ownWallet(walletId: string): WalletRow | undefined {
    const w = this.wallets.get(this.msg.companyId, this.msg.environment, walletId);
    return w && w.customer_id === this.ctx.id ? w : undefined;
  }

  private updateWalletLabel(walletId: string, label: string | null, labelGiven: boolean): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", { resource: "Wallet", id: walletId });
    if (!labelGiven || w.label === label) return { ok: true, data: w };
    this.ctx.write((s) => new Wallets(s).update(w.id, { label, updated_at: this.at }));
    this.audit("wallet.updated", "Wallet", w.id, { label: label === null ? "cleared" : "set" });
    return { ok: true, data: { ...w, label, updated_at: this.at } };
  }

  private deleteWallet(walletId: string): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", { resource: "Wallet", id: walletId });
    this.ctx.write((s) => new Wallets(s).delete(w.id));
    this.audit("wallet.deleted", "Wallet", w.id);
    return { ok: true, data: { id: w.id, deleted: true } };
  }

  private issueWalletChallenge(walletId: string): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", { resource: "Wallet", id: walletId });
    const plan = new Proofs(this.ctx.storage).planChallenge(w, this.msg.actor.memberId ?? null, this.ctx.now);
    if (!plan.ok) return refuse("VALIDATION_ERROR", undefined, plan.reason);
    const { row } = plan.value;
    this.ctx.write((s) => new Proofs(s).insertChallenge(row));
    this.audit("wallet.challenge_issued", "Wallet", w.id, { challengeId: row.id, expiresAt: row.expires_at });
    return { ok: true, status: 201, data: plan.value };
  }

  private proveWallet(m: { walletId: string; signature: string; challengeId: string | null; expiresAt: string | null }): Outcome {
    const w = this.ownWallet(m.walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", { resource: "Wallet", id: m.walletId });
    const plan = new Proofs(this.ctx.storage).planSignedProof(w, { ...m, recordedBy: this.msg.actor.memberId ?? null }, this.ctx.now);
    if (!plan.ok) return refuse("VALIDATION_ERROR", undefined, plan.reason);
    return this.recordProof(w, plan.value);
  }

  private attestWallet(m: { walletId: string; note: string; expiresAt: string | null }): Outcome {
    const w = this.ownWallet(m.walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", { resource: "Wallet", id: m.walletId });
    const by = this.msg.actor.memberId;
    if (!by) return refuse("VALIDATION_ERROR", undefined, "An attestation is recorded by a member");
    if (m.note.trim() === "") return refuse("VALIDATION_ERROR", undefined, "An attestation needs a note saying how ownership was established");
    const proof = new Proofs(this.ctx.storage).planAttestation(w, { noteSealed: (id) => this.deps.pii.seal(m.note, noteAad(id)), expiresAt: m.expiresAt, recordedBy: by }, this.ctx.now);
    return this.recordProof(w, proof);
  }

  private recordProof(w: WalletRow, proof: ProofRow): Outcome {
    const next = deriveVerification([proof, ...new Proofs(this.ctx.storage).ofWallet(w.id)].map(proofState), this.ctx.now);
    const now = this.ctx.now;
    this.ctx.write((s) => new Proofs(s).record(proof, now));
    this.auditExpired(w.id, next);
    this.audit("wallet.proof_recorded", "Wallet", w.id, { proofId: proof.id, type: proof.type, expiresAt: proof.expires_at, verified: next.verified });
    return { ok: true, status: 201, data: { proof, wallet: { ...w, verified: next.verified ? 1 : 0, verified_at: next.verifiedAt } } };
  }

  private revokeWalletProof(proofId: string): Outcome {
    const proofs = new Proofs(this.ctx.storage);
    const found = proofs.get(this.msg.companyId, proofId);
    const w = found && this.ownWallet(found.wallet_id);
    if (!w) return refuse("NOT_FOUND", { resource: "WalletProof", id: proofId });
    const plan = proofs.planRevocation(this.msg.companyId, proofId, this.ctx.now);
    if (!plan.ok) return refuse("CONFLICT", undefined, plan.reason);
    const next = deriveVerification(proofs.ofWallet(w.id).map((p) => (p.id === proofId ? { ...proofState(p), status: "revoked" as const } : proofState(p))), this.ctx.now);
    const by = this.msg.actor.memberId ?? null;
    const now = this.ctx.now;
    this.ctx.write((s) => new Proofs(s).revoke(proofId, w.id, by, now));
    this.auditExpired(w.id, next);
    this.audit("wallet.proof_revoked", "Wallet", w.id, { proofId, type: plan.value.type, verified: next.verified });
    return { ok: true, data: { proof: { ...plan.value, status: "revoked", revoked_at: this.at, revoked_by: by }, wallet: { ...w, verified: next.verified ? 1 : 0, verified_at: next.verifiedAt } } };
  }

  /** The sweep's message: proofs past their expiry stop counting; a no-op once done (the sweep may ask twice). */
  private expireWalletProofs(walletId: string): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return { ok: true, data: { walletId, expired: [] } };
    const next = deriveVerification(new Proofs(this.ctx.storage).ofWallet(w.id).map(proofState), this.ctx.now);
    if (next.expire.length === 0) return { ok: true, data: { walletId, expired: [] } };
    const now = this.ctx.now;
    this.ctx.write((s) => new Proofs(s).refresh(w.id, now));
    this.auditExpired(w.id, next);
    return { ok: true, data: { walletId, expired: next.expire, verified: next.verified, verifiedAt: next.verifiedAt } };
  }

  private auditExpired(walletId: string, v: Verification): void {
    for (const proofId of v.expire) this.audit("wallet.proof_expired", "Wallet", walletId, { proofId, verified: v.verified });
  }
}
