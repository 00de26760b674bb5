// CustomerActor (`customer:<id>`): the only writer of one customer and its wallets, so changes never interleave.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ActorKind, ActorContext } from "./types.ts";
import { refuse, type Outcome } from "./outcome.ts";
import type { CustomerRow } from "../adapters/storage/repos/customers.ts";
import type { WalletRow } from "../adapters/storage/repos/wallets.ts";
import { iso } from "../domain/ids.ts";
import { keepReason, type CreateCustomerInput } from "../domain/customers.ts";
import { blindGrams } from "../domain/blind-index.ts";
import { personsCountry, type Person } from "../domain/ivms101/index.ts";
import { noteAad, proofState, type ProofRow } from "../adapters/storage/repos/proofs.ts";
import { deriveVerification, type Verification } from "../domain/proofs/index.ts";
import type { CustomerDeps, CustomerScope, CustomerScoped } from "./customer-scope.ts";
import { createTransfer, receiveIncoming, type IncomingTransfer, type NewTransfer } from "./customer-transfers.ts";
import { receiveProviderAIncoming, type ProviderAIncoming } from "./provider_a-incoming.ts";
import { receiveProviderEIncoming, type ProviderEIncoming } from "./provider_e-incoming.ts";
import { receiveProviderDIncoming, type ProviderDIncoming } from "./provider_d-incoming.ts";
import { identityContext } from "../domain/identity.ts";
export type { IncomingOutcome, IncomingTransfer, NewTransfer } from "./customer-transfers.ts";

type Scoped = CustomerScoped;

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
  // provider_a: an incoming transfer created from a provider event (src/actors/provider_a-incoming.ts).
  | (Scoped & { type: "receiveProviderAIncoming"; transfer: ProviderAIncoming })
  // provider_e: an incoming transfer created from a permission request (src/actors/provider_e-incoming.ts).
  | (Scoped & { type: "receiveProviderEIncoming"; transfer: ProviderEIncoming })
  | (Scoped & { type: "receiveProviderDIncoming"; transfer: ProviderDIncoming })
  // Ownership proofs change `verified`, so they are serialized with the wallet's deletion here.
  | (Scoped & { type: "issueWalletChallenge"; walletId: string })
  | (Scoped & { type: "proveWallet"; walletId: string; signature: string; challengeId: string | null; expiresAt: string | null })
  | (Scoped & { type: "attestWallet"; walletId: string; note: string; expiresAt: string | null })
  | (Scoped & { type: "revokeWalletProof"; proofId: string })
  | (Scoped & { type: "expireWalletProofs"; walletId: string });

/** A message before the HTTP layer adds tenant and actor. */
export type CustomerCommand = CustomerMsg extends infer T ? (T extends unknown ? Omit<T, keyof Scoped> : never) : never;

export type { Outcome } from "./outcome.ts";
export type { CustomerDeps, CustomerScope } from "./customer-scope.ts";

/** The blind-index tags of a customer's name (the same index as case texts: src/domain/blind-index.ts). */
export const nameGrams = blindGrams;

export function customerActor(deps: CustomerDeps): ActorKind<Record<string, never>, CustomerMsg> {
  return {
    kind: "customer",
    initialState: () => ({}),
    handle(ctx, msg) {
      const h = new Handling(ctx, msg, deps);
      const out = h.run();
      // Only an incoming transfer waits (for its screening); every other message is answered without an await.
      if (out instanceof Promise) return out.then((v) => ctx.reply(v));
      ctx.reply(out);
    },
  };
}

class Handling implements CustomerScope {
  readonly customers: CustomerScope["customers"];
  readonly wallets: CustomerScope["wallets"];
  readonly at: string;

  constructor(
    readonly ctx: ActorContext<Record<string, never>>,
    readonly msg: CustomerMsg,
    readonly deps: CustomerDeps,
  ) {
    this.customers = deps.repositories.customers;
    this.wallets = deps.repositories.wallets;
    this.at = iso(ctx.now);
  }

  run(): Outcome | Promise<Outcome> {
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
        return createTransfer(this, m.transfer);
      case "receiveIncoming":
        return receiveIncoming(this, m.transfer);
      case "receiveProviderAIncoming":
        return receiveProviderAIncoming(this, m.transfer);
      case "receiveProviderEIncoming":
        return receiveProviderEIncoming(this, m.transfer);
      case "receiveProviderDIncoming":
        return receiveProviderDIncoming(this, m.transfer);
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

  audit(action: string, entityType: string, entityId: string, detail?: Record<string, unknown>): void {
    const { companyId, environment, actor } = this.msg;
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.audit.record({ companyId, environment, actor, action, entityType, entityId, detail }, now));
  }

  private withCustomer(fn: (c: CustomerRow) => Outcome | Promise<Outcome>): Outcome | Promise<Outcome> {
    const c = this.customers.get(this.msg.companyId, this.msg.environment, this.ctx.id);
    if (!c) return refuse("CUSTOMER_NOT_FOUND", undefined, { resource: "Customer", id: this.ctx.id });
    return fn(c);
  }

  private seal(value: string, field: string): string {
    return this.deps.pii.seal(value, `customer:${this.ctx.id}:${field}`);
  }

  private create(input: CreateCustomerInput): Outcome {
    const { companyId, environment } = this.msg;
    const id = this.ctx.id;
    if (this.customers.get(companyId, environment, id)) return refuse("CONFLICT", "The customer already exists");
    if (input.externalId !== null) {
      const taken = this.customers.byExternalId(companyId, environment, input.externalId);
      if (taken) return refuse("EXTERNAL_ID_IN_USE", undefined, { customerId: taken.id, deactivated: taken.status !== "active" });
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
    this.ctx.write(() => {
      const repo = this.customers;
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
    this.ctx.write(() =>
      this.customers.update(c.id, c.version, {
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
    if (c.status === "erased") return refuse("CUSTOMER_ERASED", "An erased customer cannot be reactivated");
    if (c.status === "deactivated") {
      this.ctx.write(() =>
        this.customers.update(c.id, c.version, { status: "active", deactivated_at: null, deactivated_by: null, deactivation_reason_sealed: null, updated_at: this.at }),
      );
      this.audit("customer.reactivated", "Customer", c.id);
    }
    return { ok: true, data: { id: c.id, deactivatedAt: null } };
  }

  private async erase(c: CustomerRow, reason: string): Promise<Outcome> {
    if (c.status === "erased") return { ok: true, data: { id: c.id, erasedAt: c.erased_at, alreadyErased: true } };
    // Part 1: a legal hold is answered without saying which; in-flight transfers are listed.
    if (c.legal_hold) return refuse("LEGAL_HOLD", "The customer's records are under a legal hold or retention obligation");
    const active = await this.deps.activeTransferIds(c.company_id, c.environment, c.id);
    if (active.length) return refuse("IN_FLIGHT", "The customer has transfers not in a final state", { activeTransferIds: active });
    const by = this.msg.actor.memberId ?? null;
    const deactivatedAt = c.deactivated_at ?? this.at;
    this.ctx.write(() => {
      const repo = this.customers;
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
    if (c.status !== "active") return refuse("CUSTOMER_NOT_FOUND", undefined, { resource: "Customer", id: c.id });
    if (c.metadata_sealed !== null) {
      const metadata = JSON.parse(this.deps.pii.open(c.metadata_sealed, `customer:${c.id}:metadata`));
      if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))
        return refuse("METADATA_NOT_OBJECT", "The customer's metadata is not a JSON object");
    }
    const sealed = this.deps.pii.seal(JSON.stringify(persons), identityContext(c.id));
    this.ctx.write(() =>
      this.customers.update(c.id, c.version, { identity_sealed: sealed, identity_status: status, identity_country: personsCountry(persons), updated_at: this.at }),
    );
    // The audit log records the status only (Part 1).
    this.audit("customer.identity_set", "Customer", c.id, { status });
    return { ok: true, data: { id: c.id, status } };
  }

  private registerWallet(c: CustomerRow, m: { walletId: string; address: string; network: string; label: string | null }): Outcome {
    if (c.status !== "active") return refuse("CUSTOMER_DEACTIVATED", "The customer is deactivated and cannot take new wallets");
    const { companyId, environment } = this.msg;
    const existing = this.wallets.byAddress(companyId, environment, m.address);
    if (existing && existing.customer_id !== c.id) return refuse("WALLET_ADDRESS_TAKEN", "The address is registered to another customer");
    if (existing) {
      // Re-registering an address the customer already has updates its network and label (Part 1).
      const updated: WalletRow = { ...existing, network: m.network, label: m.label, updated_at: this.at };
      this.ctx.write(() => this.wallets.update(existing.id, { network: m.network, label: m.label, updated_at: this.at }));
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
    this.ctx.write(() => this.wallets.insert(row));
    this.audit("wallet.created", "Wallet", row.id, { network: m.network });
    return { ok: true, status: 201, data: row };
  }

  ownWallet(walletId: string): WalletRow | undefined {
    const w = this.wallets.get(this.msg.companyId, this.msg.environment, walletId);
    return w && w.customer_id === this.ctx.id ? w : undefined;
  }

  private updateWalletLabel(walletId: string, label: string | null, labelGiven: boolean): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: walletId });
    if (!labelGiven || w.label === label) return { ok: true, data: w };
    this.ctx.write(() => this.wallets.update(w.id, { label, updated_at: this.at }));
    this.audit("wallet.updated", "Wallet", w.id, { label: label === null ? "cleared" : "set" });
    return { ok: true, data: { ...w, label, updated_at: this.at } };
  }

  private deleteWallet(walletId: string): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: walletId });
    this.ctx.write(() => this.wallets.delete(w.id));
    this.audit("wallet.deleted", "Wallet", w.id);
    return { ok: true, data: { id: w.id, deleted: true } };
  }

  private issueWalletChallenge(walletId: string): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: walletId });
    const plan = this.deps.repositories.proofs.planChallenge(w, this.msg.actor.memberId ?? null, this.ctx.now);
    if (!plan.ok) return refuse("VALIDATION_ERROR", plan.reason);
    const { row } = plan.value;
    this.ctx.write(() => this.deps.repositories.proofs.insertChallenge(row));
    this.audit("wallet.challenge_issued", "Wallet", w.id, { challengeId: row.id, expiresAt: row.expires_at });
    return { ok: true, status: 201, data: plan.value };
  }

  private proveWallet(m: { walletId: string; signature: string; challengeId: string | null; expiresAt: string | null }): Outcome {
    const w = this.ownWallet(m.walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: m.walletId });
    const plan = this.deps.repositories.proofs.planSignedProof(w, { ...m, recordedBy: this.msg.actor.memberId ?? null }, this.ctx.now);
    if (!plan.ok) return refuse("VALIDATION_ERROR", plan.reason);
    return this.recordProof(w, plan.value);
  }

  private attestWallet(m: { walletId: string; note: string; expiresAt: string | null }): Outcome {
    const w = this.ownWallet(m.walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: m.walletId });
    const by = this.msg.actor.memberId;
    if (!by) return refuse("VALIDATION_ERROR", "An attestation is recorded by a member");
    if (m.note.trim() === "") return refuse("VALIDATION_ERROR", "An attestation needs a note saying how ownership was established");
    const proof = this.deps.repositories.proofs.planAttestation(w, { noteSealed: (id) => this.deps.pii.seal(m.note, noteAad(id)), expiresAt: m.expiresAt, recordedBy: by }, this.ctx.now);
    return this.recordProof(w, proof);
  }

  private recordProof(w: WalletRow, proof: ProofRow): Outcome {
    const next = deriveVerification([proof, ...this.deps.repositories.proofs.ofWallet(w.id)].map(proofState), this.ctx.now);
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.proofs.record(proof, now));
    this.auditExpired(w.id, next);
    this.audit("wallet.proof_recorded", "Wallet", w.id, { proofId: proof.id, type: proof.type, expiresAt: proof.expires_at, verified: next.verified });
    return { ok: true, status: 201, data: { proof, wallet: { ...w, verified: next.verified ? 1 : 0, verified_at: next.verifiedAt } } };
  }

  private revokeWalletProof(proofId: string): Outcome {
    const proofs = this.deps.repositories.proofs;
    const found = proofs.get(this.msg.companyId, proofId);
    const w = found && this.ownWallet(found.wallet_id);
    if (!w) return refuse("NOT_FOUND", undefined, { resource: "WalletProof", id: proofId });
    const plan = proofs.planRevocation(this.msg.companyId, proofId, this.ctx.now);
    if (!plan.ok) return refuse("CONFLICT", plan.reason);
    const next = deriveVerification(proofs.ofWallet(w.id).map((p) => (p.id === proofId ? { ...proofState(p), status: "revoked" as const } : proofState(p))), this.ctx.now);
    const by = this.msg.actor.memberId ?? null;
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.proofs.revoke(proofId, w.id, by, now));
    this.auditExpired(w.id, next);
    this.audit("wallet.proof_revoked", "Wallet", w.id, { proofId, type: plan.value.type, verified: next.verified });
    return { ok: true, data: { proof: { ...plan.value, status: "revoked", revoked_at: this.at, revoked_by: by }, wallet: { ...w, verified: next.verified ? 1 : 0, verified_at: next.verifiedAt } } };
  }

  /** The sweep's message: proofs past their expiry stop counting; a no-op once done (the sweep may ask twice). */
  private expireWalletProofs(walletId: string): Outcome {
    const w = this.ownWallet(walletId);
    if (!w) return { ok: true, data: { walletId, expired: [] } };
    const next = deriveVerification(this.deps.repositories.proofs.ofWallet(w.id).map(proofState), this.ctx.now);
    if (next.expire.length === 0) return { ok: true, data: { walletId, expired: [] } };
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.proofs.refresh(w.id, now));
    this.auditExpired(w.id, next);
    return { ok: true, data: { walletId, expired: next.expire, verified: next.verified, verifiedAt: next.verifiedAt } };
  }

  private auditExpired(walletId: string, v: Verification): void {
    for (const proofId of v.expire) this.audit("wallet.proof_expired", "Wallet", walletId, { proofId, verified: v.verified });
  }
}
