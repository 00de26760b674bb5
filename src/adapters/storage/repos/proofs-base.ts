// The wallet proofs repository's engine-neutral part (src/ports/proofs.ts), written once for every engine: challenges
// and proofs as their rows map them, a proof's recording (its challenge spent once), a revocation, the refresh that
// expires proofs and sets the wallet's verification, and the signed proof's plan (src/domain/proofs/plan.ts) over the
// engine's reads. Each engine extends it with its statements: SQLite's Proofs (./proofs.ts), PostgreSQL's PgProofs
// (../postgres/repos/proofs.ts).
import { iso } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import { deriveVerification, planSignedProof, type ChallengeReads, type SignedProofRequest, type Verification } from "../../../domain/proofs/index.ts";
import type { RowOf } from "./row.ts";
import type { walletChallenges as walletChallengesTable, walletProofs as walletProofsTable } from "../../../../db/schema/proofs.ts";
import type { Wallet } from "../../../ports/wallets.ts";
import type { DueExpiry, Plan, ProofRepository, SignedEvidence, WalletChallenge, WalletProof } from "../../../ports/proofs.ts";

export type ChallengeRow = RowOf<typeof walletChallengesTable>;

export type ProofRow = RowOf<typeof walletProofsTable>;

export const toChallenge = (c: ChallengeRow): WalletChallenge => ({
  id: c.id,
  walletId: c.wallet_id,
  companyId: c.company_id,
  environment: c.environment,
  address: c.address,
  message: c.message,
  nonce: c.nonce,
  issuedBy: c.issued_by,
  createdAt: c.created_at,
  expiresAt: c.expires_at,
  usedAt: c.used_at,
  proofId: c.proof_id,
});

export const challengeRow = (c: WalletChallenge): ChallengeRow => ({
  id: c.id,
  wallet_id: c.walletId,
  company_id: c.companyId,
  environment: c.environment,
  address: c.address,
  message: c.message,
  nonce: c.nonce,
  issued_by: c.issuedBy,
  created_at: c.createdAt,
  expires_at: c.expiresAt,
  used_at: c.usedAt,
  proof_id: c.proofId,
});

export const toProof = (p: ProofRow): WalletProof => ({
  id: p.id,
  walletId: p.wallet_id,
  companyId: p.company_id,
  environment: p.environment,
  type: p.type,
  status: p.status,
  recordedBy: p.recorded_by,
  recordedAt: p.recorded_at,
  evidence: p.evidence === null ? null : (JSON.parse(p.evidence) as SignedEvidence),
  noteSealed: p.note_sealed,
  expiresAt: p.expires_at,
  revokedAt: p.revoked_at,
  revokedBy: p.revoked_by,
  challengeId: p.challenge_id,
});

export const proofRow = (p: WalletProof): ProofRow => ({
  id: p.id,
  wallet_id: p.walletId,
  company_id: p.companyId,
  environment: p.environment,
  type: p.type,
  status: p.status,
  recorded_by: p.recordedBy,
  recorded_at: p.recordedAt,
  evidence: p.evidence === null ? null : JSON.stringify(p.evidence),
  note_sealed: p.noteSealed,
  expires_at: p.expiresAt,
  revoked_at: p.revokedAt,
  revoked_by: p.revokedBy,
  challenge_id: p.challengeId,
});

/** A wallet with a valid proof past its expiry, as the sweep's statement reads it. */
export interface DueRow {
  wallet_id: string;
  customer_id: string;
  company_id: string;
  environment: Environment;
}

export const toDue = (r: DueRow): DueExpiry => ({ walletId: r.wallet_id, customerId: r.customer_id, companyId: r.company_id, environment: r.environment });

/** The proofs port over an engine's statements; writes run in the caller's unit of work. */
export abstract class ProofsBase implements ProofRepository, ChallengeReads {
  // ---- the engine's statements ----

  abstract wallet(companyId: string, id: string): Promise<Wallet | undefined>;
  abstract challenge(companyId: string, id: string): Promise<WalletChallenge | undefined>;
  abstract challengesOf(walletId: string, limit?: number): Promise<WalletChallenge[]>;
  abstract recentChallenges(companyId: string, env: Environment, exceptWalletId: string, since: string, limit: number): Promise<WalletChallenge[]>;
  abstract get(companyId: string, id: string): Promise<WalletProof | undefined>;
  abstract ofWallet(walletId: string): Promise<WalletProof[]>;
  abstract insertChallenge(c: WalletChallenge): Promise<void>;
  abstract dueForExpiry(now: number, limit?: number): Promise<DueExpiry[]>;
  abstract issuer(companyId: string): Promise<string>;
  protected abstract insertProof(row: ProofRow): Promise<void>;
  /** Marks the challenge used by the proof if it is still unused: the rows changed. */
  protected abstract spendChallenge(challengeId: string, proofId: string, at: string): Promise<number>;
  /** Revokes the proof if it is still valid. */
  protected abstract revokeProof(proofId: string, at: string, by: string | null): Promise<void>;
  /** Marks the proof expired if it is still valid. */
  protected abstract expireProof(proofId: string): Promise<void>;
  /** The wallet's `verified` (0/1) and `verified_at` as stored. */
  protected abstract verificationOf(walletId: string): Promise<{ verified: number; verified_at: string | null } | undefined>;
  protected abstract setVerification(walletId: string, verified: boolean, verifiedAt: string | null, updatedAt: string): Promise<void>;

  // ---- the port, once ----

  /** Inserts the proof, spends its challenge, and refreshes the wallet's verification. */
  async record(proof: WalletProof, now: number): Promise<Verification> {
    await this.insertProof(proofRow(proof));
    // Another writer spent it since the plan was made: fail the transaction, the retry refuses it.
    if (proof.challengeId !== null && (await this.spendChallenge(proof.challengeId, proof.id, proof.recordedAt)) !== 1) throw new Error(`challenge ${proof.challengeId} was used meanwhile`);
    return this.refresh(proof.walletId, now);
  }

  async revoke(proofId: string, walletId: string, by: string | null, now: number): Promise<Verification> {
    await this.revokeProof(proofId, iso(now), by);
    return this.refresh(walletId, now);
  }

  /** Marks expired proofs and sets `wallets.verified`/`verified_at` from the proofs (updated_at only when they change). */
  async refresh(walletId: string, now: number): Promise<Verification> {
    const v = deriveVerification(await this.ofWallet(walletId), now);
    for (const id of v.expire) await this.expireProof(id);
    const w = await this.verificationOf(walletId);
    if (w && ((w.verified === 1) !== v.verified || w.verified_at !== v.verifiedAt)) await this.setVerification(walletId, v.verified, v.verifiedAt, iso(now));
    return v;
  }

  planSignedProof(w: Wallet, p: SignedProofRequest, now: number): Promise<Plan<WalletProof>> {
    return planSignedProof(w, p, now, this);
  }
}
