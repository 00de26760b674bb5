// The wallet proofs' records: a challenge a wallet's key must sign, and a proof of a wallet (signed, or an officer's
// attestation), as the customer actor decides them (decide.ts) and the proofs port (src/ports/proofs.ts) stores them.
import type { Environment } from "../types.ts";
import type { ChallengeView } from "./judge.ts";
import type { SignedScheme } from "./signed.ts";
import type { ProofState, ProofStatus } from "./status.ts";

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

/** A decision: the value, or why not (in words). */
export type Plan<T> = { ok: true; value: T } | { ok: false; reason: string };

