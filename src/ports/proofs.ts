// The wallet proofs port: ownership challenges and proofs of customers' wallets, in the domain's records
// (src/domain/proofs/records.ts), and the plan that checks a signed proof against the challenges stored (judged by
// src/domain/proofs/judge.ts; the plan reads what it needs). A challenge, an attestation and a revocation are decided
// by src/domain/proofs/decide.ts against what the caller loaded here. Written
// by hand; the SQLite engine implements it in storage's repos/proofs.ts, and the storage contract suite
// (test/storage/contract/) holds every engine to it. Writes run inside a caller's unit of work: the wallet's customer
// actor, or the wallets command of the CLI in its own transaction. An attestation's note stays sealed in the record.
import type { Environment } from "../domain/types.ts";
import type { SignedScheme, Verification } from "../domain/proofs/index.ts";
import type { Plan, WalletChallenge, WalletProof } from "../domain/proofs/records.ts";

export type { Plan, ProofType, SignedEvidence, WalletChallenge, WalletProof } from "../domain/proofs/records.ts";
import type { Wallet } from "./wallets.ts";

/** A wallet with a valid proof past its expiry: the sweep hands it to its customer's actor. */
export interface DueExpiry {
  walletId: string;
  customerId: string;
  companyId: string;
  environment: Environment;
}

/** The associated data of an attestation's sealed note: bound to its proof. */
export const noteAad = (proofId: string) => `wallet_proof:${proofId}:note`;

export interface ProofRepository {
  /** A wallet of the company in either environment (the CLI names wallets by ID only). */
  wallet(companyId: string, id: string): Promise<Wallet | undefined>;
  challenge(companyId: string, id: string): Promise<WalletChallenge | undefined>;
  /** The wallet's challenges, newest first, at most `limit`. */
  challengesOf(walletId: string, limit?: number): Promise<WalletChallenge[]>;
  get(companyId: string, id: string): Promise<WalletProof | undefined>;
  /** The wallet's proofs, newest first. */
  ofWallet(walletId: string): Promise<WalletProof[]>;
  insertChallenge(c: WalletChallenge): Promise<void>;
  /** Inserts the proof, spends its challenge (rejects when another writer spent it), and refreshes the wallet's verification. */
  record(proof: WalletProof, now: number): Promise<Verification>;
  /** Revokes a valid proof and refreshes the wallet's verification. */
  revoke(proofId: string, walletId: string, by: string | null, now: number): Promise<Verification>;
  /** Marks expired proofs and sets the wallet's `verified`/`verifiedAt` from its proofs (updatedAt only when they change). */
  refresh(walletId: string, now: number): Promise<Verification>;
  /** Wallets with a valid proof past its expiry, at most `limit`. */
  dueForExpiry(now: number, limit?: number): Promise<DueExpiry[]>;
  /** The name a challenge is issued in: the company's, else "Caravan". */
  issuer(companyId: string): Promise<string>;
  /** Verifies the signature against the wallet's challenges: the proof to record, or why not. */
  planSignedProof(w: Wallet, p: { signature: string; challengeId: string | null; expiresAt: string | null; recordedBy: string | null }, now: number): Promise<Plan<WalletProof>>;
}
