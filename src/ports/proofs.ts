// The wallet proofs port: ownership challenges and proofs of customers' wallets, in the domain's records, and the plans
// that check a new proof against what is stored (src/domain/proofs/ decides; the plans read what it needs). Written
// by hand; the SQLite engine implements it in storage's repos/proofs.ts, and the storage contract suite
// (test/storage/contract/) holds every engine to it. Writes run inside a caller's unit of work: the wallet's customer
// actor, or the wallets command of the CLI in its own transaction. An attestation's note stays sealed in the record.
import type { Environment } from "../domain/types.ts";
import type { ChallengeView, ProofState, ProofStatus, SignedScheme, Verification } from "../domain/proofs/index.ts";
import type { Wallet } from "./wallets.ts";

/** A challenge as stored: the text a wallet's key must sign, single use, expiring. */
export interface WalletChallenge extends ChallengeView {
  companyId: string;
  environment: Environment;
  nonce: string;
  /** The member who asked for it, or null (the CLI without --member). */
  issuedBy: string | null;
  createdAt: string;
}

/** What a signed proof keeps as evidence: enough to verify it again, no personal data. */
export interface SignedEvidence {
  scheme: SignedScheme;
  challengeId: string;
  message: string;
  signature: string;
  signer: string;
}

export type ProofType = "eip191" | "bip137" | "attestation";

/** One proof of a wallet (a `ProofState` as src/domain/proofs/ reads it, with what it records). */
export interface WalletProof extends ProofState {
  id: string;
  walletId: string;
  companyId: string;
  environment: Environment;
  type: ProofType;
  status: ProofStatus;
  /** Member ID, or null when recorded from the CLI without --member (signed proofs only). */
  recordedBy: string | null;
  recordedAt: string;
  /** A signed proof's evidence; null for an attestation. */
  evidence: SignedEvidence | null;
  /** An attestation's note, sealed under `wallet_proof:<id>:note` (noteAad). */
  noteSealed: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
  /** The challenge a signed proof answered (a challenge proves once). */
  challengeId: string | null;
}

/** A wallet with a valid proof past its expiry: the sweep hands it to its customer's actor. */
export interface DueExpiry {
  walletId: string;
  customerId: string;
  companyId: string;
  environment: Environment;
}

export type Plan<T> = { ok: true; value: T } | { ok: false; reason: string };

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
  /** A new challenge for a wallet whose network has a signed-message scheme. */
  planChallenge(w: Wallet, issuedBy: string | null, now: number): Promise<Plan<{ challenge: WalletChallenge; scheme: SignedScheme }>>;
  /** Verifies the signature against the wallet's challenges: the proof to record, or why not. */
  planSignedProof(w: Wallet, p: { signature: string; challengeId: string | null; expiresAt: string | null; recordedBy: string | null }, now: number): Promise<Plan<WalletProof>>;
  /** An officer's attestation; the note arrives sealed (under the new proof's ID). */
  planAttestation(w: Wallet, p: { noteSealed: (proofId: string) => string; expiresAt: string | null; recordedBy: string }, now: number): Promise<WalletProof>;
  /** Only a proof that counts now can be revoked. */
  planRevocation(companyId: string, proofId: string, now: number): Promise<Plan<WalletProof>>;
}
