// CustomerActor (`customer:<id>`): the only writer of one customer and its wallets, so changes never interleave.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ActorKind, ActorContext } from "./types.ts";
import { refuse, type Outcome } from "./outcome.ts";
import type { Customer, NewCustomer } from "../ports/customers.ts";
import type { Wallet } from "../ports/wallets.ts";
import type { AuditActor } from "../ports/audit.ts";
import { iso, newId } from "../domain/ids.ts";
import { keepReason, type CreateCustomerInput } from "../domain/customers.ts";
import { blindGrams } from "../domain/blind-index.ts";
import { personsCountry, type Person } from "../domain/ivms101/index.ts";
import { noteAad, type WalletProof } from "../ports/proofs.ts";
import { decideAttestation, decideChallenge, decideRevocation, deriveVerification, newNonce, type Verification } from "../domain/proofs/index.ts";
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
  // A legal hold (set or released by an operator): erasure is refused while one is set.
  | (Scoped & { type: "setLegalHold"; hold: boolean })
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
      return h.run().then((v) => ctx.reply(v));
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

  async run(): Promise<Outcome> {
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
      case "setLegalHold":
        return this.withCustomer((c) => this.setLegalHold(c, m.hold));
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

  /** An audit entry of this message's change, by who sent it unless `actor` says otherwise. */
  audit(action: string, entityType: string, entityId: string, detail?: Record<string, unknown>, actor: AuditActor = this.msg.actor): void {
    const { companyId, environment } = this.msg;
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.audit.record({ companyId, environment, actor, action, entityType, entityId, detail }, now));
  }

  private async withCustomer(fn: (c: Customer) => Outcome | Promise<Outcome>): Promise<Outcome> {
    const c = await this.customers.get(this.msg.companyId, this.msg.environment, this.ctx.id);
    if (!c) return refuse("CUSTOMER_NOT_FOUND", undefined, { resource: "Customer", id: this.ctx.id });
    return fn(c);
  }

  private seal(value: string, field: string): string {
    return this.deps.pii.seal(value, `customer:${this.ctx.id}:${field}`);
  }

  private async create(input: CreateCustomerInput): Promise<Outcome> {
    const { companyId, environment } = this.msg;
    const id = this.ctx.id;
    if (await this.customers.get(companyId, environment, id)) return refuse("CONFLICT", "The customer already exists");
    if (input.externalId !== null) {
      const taken = await this.customers.byExternalId(companyId, environment, input.externalId);
      if (taken) return refuse("EXTERNAL_ID_IN_USE", undefined, { customerId: taken.id, deactivated: taken.status !== "active" });
    }
    const secret = secp256k1.utils.randomSecretKey();
    const publicKey = bytesToHex(secp256k1.getPublicKey(secret, true));
    const record: NewCustomer = {
      id,
      companyId,
      environment,
      externalId: input.externalId,
      externalIdSearch: input.externalId === null ? null : input.externalId.toLowerCase(),
      nameSealed: input.name === null ? null : this.seal(input.name, "name"),
      metadataSealed: input.hasMetadata ? this.seal(JSON.stringify(input.metadata), "metadata") : null,
      identitySealed: null,
      identityStatus: null,
      identityCountry: null,
      publicKey,
      privateKeySealed: this.seal(bytesToHex(secret), "private_key"),
      status: "active",
      deactivatedAt: null,
      deactivatedBy: null,
      deactivationReasonSealed: null,
      erasedAt: null,
      erasedBy: null,
      erasureReasonSealed: null,
      createdAt: this.at,
      updatedAt: this.at,
    };
    const grams = input.name === null ? [] : nameGrams(this.deps.nameIndexKey, input.name);
    this.ctx.write(async () => {
      const repo = this.customers;
      await repo.insert(record);
      if (grams.length) await repo.replaceNameGrams(companyId, environment, id, grams);
    });
    this.audit("customer.created", "Customer", id, { externalId: input.externalId !== null });
    return {
      ok: true,
      status: 201,
      data: { id, externalId: input.externalId, name: input.name, publicKey, environment, createdAt: this.at },
    };
  }

  private deactivate(c: Customer, reason: string | null): Outcome {
    if (c.status !== "active") return { ok: true, data: { id: c.id, deactivatedAt: c.deactivatedAt } };
    const by = this.msg.actor.memberId ?? null;
    const kept = reason === null ? null : keepReason(reason);
    this.ctx.write(() =>
      this.customers.update(c.id, c.version, {
        status: "deactivated",
        deactivatedAt: this.at,
        deactivatedBy: by,
        deactivationReasonSealed: kept === null ? null : this.seal(kept, "deactivation_reason"),
        updatedAt: this.at,
      }),
    );
    this.audit("customer.deactivated", "Customer", c.id);
    return { ok: true, data: { id: c.id, deactivatedAt: this.at, deactivatedBy: by, deactivationReason: kept } };
  }

  private reactivate(c: Customer): Outcome {
    if (c.status === "erased") return refuse("CUSTOMER_ERASED", "An erased customer cannot be reactivated");
    if (c.status === "deactivated") {
      this.ctx.write(() =>
        this.customers.update(c.id, c.version, { status: "active", deactivatedAt: null, deactivatedBy: null, deactivationReasonSealed: null, updatedAt: this.at }),
      );
      this.audit("customer.reactivated", "Customer", c.id);
    }
    return { ok: true, data: { id: c.id, deactivatedAt: null } };
  }

  private async erase(c: Customer, reason: string): Promise<Outcome> {
    if (c.status === "erased") return { ok: true, data: { id: c.id, erasedAt: c.erasedAt, alreadyErased: true } };
    // Part 1: a legal hold is answered without saying which; in-flight transfers are listed.
    if (c.legalHold) return refuse("LEGAL_HOLD", "The customer's records are under a legal hold or retention obligation");
    const active = await this.deps.activeTransferIds(c.companyId, c.environment, c.id);
    if (active.length) return refuse("IN_FLIGHT", "The customer has transfers not in a final state", { activeTransferIds: active });
    const by = this.msg.actor.memberId ?? null;
    const deactivatedAt = c.deactivatedAt ?? this.at;
    this.ctx.write(async () => {
      const repo = this.customers;
      // Personal data is nulled in place; the record, its keys and its links to transfers and wallets stay.
      await repo.update(c.id, c.version, {
        status: "erased",
        externalId: null,
        externalIdSearch: null,
        nameSealed: null,
        metadataSealed: null,
        identitySealed: null,
        identityStatus: null,
        identityCountry: null,
        deactivationReasonSealed: null,
        deactivatedAt,
        deactivatedBy: c.deactivatedBy ?? by,
        erasedAt: this.at,
        erasedBy: by,
        erasureReasonSealed: this.seal(keepReason(reason), "erasure_reason"),
        updatedAt: this.at,
      });
      await repo.replaceNameGrams(c.companyId, c.environment, c.id, []);
    });
    this.audit("customer.erased", "Customer", c.id);
    return { ok: true, data: { id: c.id, erasedAt: this.at, erasedBy: by, deactivatedAt } };
  }

  /** Every request is written and audited, a repeated one too (the operator's act is what the log records). */
  private setLegalHold(c: Customer, hold: boolean): Outcome {
    this.ctx.write(() => this.customers.setLegalHold(c.id, hold, this.at));
    this.audit(hold ? "customer.legal_hold_set" : "customer.legal_hold_released", "Customer", c.id);
    return { ok: true, data: { id: c.id, environment: c.environment, legalHold: hold } };
  }

  private setIdentity(c: Customer, status: "verified" | "unverified" | "blocked", persons: Person[]): Outcome {
    if (c.status !== "active") return refuse("CUSTOMER_NOT_FOUND", undefined, { resource: "Customer", id: c.id });
    if (c.metadataSealed !== null) {
      const metadata = JSON.parse(this.deps.pii.open(c.metadataSealed, `customer:${c.id}:metadata`));
      if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))
        return refuse("METADATA_NOT_OBJECT", "The customer's metadata is not a JSON object");
    }
    const sealed = this.deps.pii.seal(JSON.stringify(persons), identityContext(c.id));
    this.ctx.write(() =>
      this.customers.update(c.id, c.version, { identitySealed: sealed, identityStatus: status, identityCountry: personsCountry(persons), updatedAt: this.at }),
    );
    // The audit log records the status only (Part 1).
    this.audit("customer.identity_set", "Customer", c.id, { status });
    return { ok: true, data: { id: c.id, status } };
  }

  private async registerWallet(c: Customer, m: { walletId: string; address: string; network: string; label: string | null }): Promise<Outcome> {
    if (c.status !== "active") return refuse("CUSTOMER_DEACTIVATED", "The customer is deactivated and cannot take new wallets");
    const { companyId, environment } = this.msg;
    const existing = await this.wallets.byAddress(companyId, environment, m.address);
    if (existing && existing.customerId !== c.id) return refuse("WALLET_ADDRESS_TAKEN", "The address is registered to another customer");
    if (existing) {
      // Re-registering an address the customer already has updates its network and label (Part 1).
      const updated: Wallet = { ...existing, network: m.network, label: m.label, updatedAt: this.at };
      this.ctx.write(() => this.wallets.update(existing.id, { network: m.network, label: m.label, updatedAt: this.at }));
      this.audit("wallet.updated", "Wallet", existing.id, { network: m.network });
      return { ok: true, status: 201, data: updated };
    }
    const wallet: Wallet = {
      id: m.walletId,
      companyId,
      environment,
      customerId: c.id,
      address: m.address,
      network: m.network,
      label: m.label,
      verified: false,
      verifiedAt: null,
      createdAt: this.at,
      updatedAt: this.at,
    };
    this.ctx.write(() => this.wallets.insert(wallet));
    this.audit("wallet.created", "Wallet", wallet.id, { network: m.network });
    return { ok: true, status: 201, data: wallet };
  }

  async ownWallet(walletId: string): Promise<Wallet | undefined> {
    const w = await this.wallets.get(this.msg.companyId, this.msg.environment, walletId);
    return w && w.customerId === this.ctx.id ? w : undefined;
  }

  private async updateWalletLabel(walletId: string, label: string | null, labelGiven: boolean): Promise<Outcome> {
    const w = await this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: walletId });
    if (!labelGiven || w.label === label) return { ok: true, data: w };
    this.ctx.write(() => this.wallets.update(w.id, { label, updatedAt: this.at }));
    this.audit("wallet.updated", "Wallet", w.id, { label: label === null ? "cleared" : "set" });
    return { ok: true, data: { ...w, label, updatedAt: this.at } };
  }

  private async deleteWallet(walletId: string): Promise<Outcome> {
    const w = await this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: walletId });
    this.ctx.write(() => this.wallets.delete(w.id));
    this.audit("wallet.deleted", "Wallet", w.id);
    return { ok: true, data: { id: w.id, deleted: true } };
  }

  private async issueWalletChallenge(walletId: string): Promise<Outcome> {
    const w = await this.ownWallet(walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: walletId });
    const issuer = await this.deps.repositories.proofs.issuer(w.companyId);
    const plan = decideChallenge(w, { issuer, issuedBy: this.msg.actor.memberId ?? null, id: newId("chl", this.ctx.now), nonce: newNonce() }, this.ctx.now);
    if (!plan.ok) return refuse("VALIDATION_ERROR", plan.reason);
    const { challenge } = plan.value;
    this.ctx.write(() => this.deps.repositories.proofs.insertChallenge(challenge));
    this.audit("wallet.challenge_issued", "Wallet", w.id, { challengeId: challenge.id, expiresAt: challenge.expiresAt });
    return { ok: true, status: 201, data: plan.value };
  }

  private async proveWallet(m: { walletId: string; signature: string; challengeId: string | null; expiresAt: string | null }): Promise<Outcome> {
    const w = await this.ownWallet(m.walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: m.walletId });
    const plan = await this.deps.repositories.proofs.planSignedProof(w, { ...m, recordedBy: this.msg.actor.memberId ?? null }, this.ctx.now);
    if (!plan.ok) return refuse("VALIDATION_ERROR", plan.reason);
    return this.recordProof(w, plan.value);
  }

  private async attestWallet(m: { walletId: string; note: string; expiresAt: string | null }): Promise<Outcome> {
    const w = await this.ownWallet(m.walletId);
    if (!w) return refuse("WALLET_NOT_FOUND", undefined, { resource: "Wallet", id: m.walletId });
    const plan = decideAttestation(w, { note: m.note, expiresAt: m.expiresAt, recordedBy: this.msg.actor.memberId }, newId("prf", this.ctx.now), this.ctx.now);
    if (!plan.ok) return refuse("VALIDATION_ERROR", plan.reason);
    // The note is sealed here, under the new proof's ID: the decision never sees the key.
    return this.recordProof(w, { ...plan.value, noteSealed: this.deps.pii.seal(m.note, noteAad(plan.value.id)) });
  }

  private async recordProof(w: Wallet, proof: WalletProof): Promise<Outcome> {
    const next = deriveVerification([proof, ...(await this.deps.repositories.proofs.ofWallet(w.id))], this.ctx.now);
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.proofs.record(proof, now));
    this.auditExpired(w.id, next);
    this.audit("wallet.proof_recorded", "Wallet", w.id, { proofId: proof.id, type: proof.type, expiresAt: proof.expiresAt, verified: next.verified });
    return { ok: true, status: 201, data: { proof, wallet: { ...w, verified: next.verified, verifiedAt: next.verifiedAt } } };
  }

  private async revokeWalletProof(proofId: string): Promise<Outcome> {
    const proofs = this.deps.repositories.proofs;
    const found = await proofs.get(this.msg.companyId, proofId);
    const w = found && (await this.ownWallet(found.walletId));
    if (!w) return refuse("NOT_FOUND", undefined, { resource: "WalletProof", id: proofId });
    const plan = decideRevocation(found, proofId, this.ctx.now);
    if (!plan.ok) return refuse("CONFLICT", plan.reason);
    const next = deriveVerification((await proofs.ofWallet(w.id)).map((p) => (p.id === proofId ? { ...p, status: "revoked" as const } : p)), this.ctx.now);
    const by = this.msg.actor.memberId ?? null;
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.proofs.revoke(proofId, w.id, by, now));
    this.auditExpired(w.id, next);
    this.audit("wallet.proof_revoked", "Wallet", w.id, { proofId, type: plan.value.type, verified: next.verified });
    return { ok: true, data: { proof: { ...plan.value, status: "revoked", revokedAt: this.at, revokedBy: by }, wallet: { ...w, verified: next.verified, verifiedAt: next.verifiedAt } } };
  }

  /** The sweep's message: proofs past their expiry stop counting; a no-op once done (the sweep may ask twice). */
  private async expireWalletProofs(walletId: string): Promise<Outcome> {
    const w = await this.ownWallet(walletId);
    if (!w) return { ok: true, data: { walletId, expired: [] } };
    const next = deriveVerification(await this.deps.repositories.proofs.ofWallet(w.id), this.ctx.now);
    if (next.expire.length === 0) return { ok: true, data: { walletId, expired: [] } };
    const now = this.ctx.now;
    this.ctx.write(() => this.deps.repositories.proofs.refresh(w.id, now));
    this.auditExpired(w.id, next);
    return { ok: true, data: { walletId, expired: next.expire, verified: next.verified, verifiedAt: next.verifiedAt } };
  }

  /** An expiry is the clock's doing, never the member's whose change found it: the system acts. */
  private auditExpired(walletId: string, v: Verification): void {
    for (const proofId of v.expire) this.audit("wallet.proof_expired", "Wallet", walletId, { proofId, verified: v.verified }, { type: "system" });
  }
}
