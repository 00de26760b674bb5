// Wallet proofs and challenges in SQLite (src/ports/proofs.ts): reads, and the signed proof's plan (the challenges it
// is judged against), shared by the customer actor and the CLI; writes inside their transaction. A challenge, an
// attestation and a revocation are decided by src/domain/proofs/decide.ts, not here.
import { iso, newId } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import { deriveVerification, judgeSignedProof, parseSignature, proofRecord, signedSchemeFor, type Verification } from "../../../domain/proofs/index.ts";
import type { Storage, SqlValue } from "../types.ts";
import { toWallet, type WalletRow } from "./wallets.ts";
import type { RowOf } from "./row.ts";
import type { walletChallenges as walletChallengesTable, walletProofs as walletProofsTable } from "../../../../db/schema/proofs.ts";
import type { Wallet } from "../../../ports/wallets.ts";
import type { DueExpiry, Plan, ProofRepository, SignedEvidence, WalletChallenge, WalletProof } from "../../../ports/proofs.ts";

type ChallengeRow = RowOf<typeof walletChallengesTable>;

type ProofRow = RowOf<typeof walletProofsTable>;

const toChallenge = (c: ChallengeRow): WalletChallenge => ({
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

const challengeRow = (c: WalletChallenge): ChallengeRow => ({
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

const toProof = (p: ProofRow): WalletProof => ({
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

const proofRow = (p: WalletProof): ProofRow => ({
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

/** Other wallets' challenges read to explain a refusal: the last day's, at most this many. */
const OTHERS_WINDOW_MS = 24 * 60 * 60 * 1000;
const OTHERS_LIMIT = 200;
const OWN_LIMIT = 50;

export class Proofs implements ProofRepository {
  constructor(private readonly s: Storage) {}

  wallet(companyId: string, id: string): Promise<Wallet | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM wallets WHERE id = ? AND company_id = ?").get(id, companyId) as WalletRow | null | undefined;
      return r ? toWallet(r) : undefined;
    });
  }

  challenge(companyId: string, id: string): Promise<WalletChallenge | undefined> {
    return this.s.run(() => this.challengeOf(companyId, id));
  }

  challengesOf(walletId: string, limit = OWN_LIMIT): Promise<WalletChallenge[]> {
    return this.s.run(() => this.ownChallenges(walletId, limit));
  }

  get(companyId: string, id: string): Promise<WalletProof | undefined> {
    return this.s.run(() => this.proof(companyId, id));
  }

  /** Newest first. */
  ofWallet(walletId: string): Promise<WalletProof[]> {
    return this.s.run(() => this.proofsOf(walletId));
  }

  insertChallenge(c: WalletChallenge): Promise<void> {
    return this.s.run(() => insertRow(this.s, "wallet_challenges", challengeRow(c)));
  }

  /** Inserts the proof, spends its challenge, and refreshes the wallet's verification. */
  record(proof: WalletProof, now: number): Promise<Verification> {
    return this.s.run(() => {
      insertRow(this.s, "wallet_proofs", proofRow(proof));
      if (proof.challengeId !== null) {
        const r = this.s.stmt("UPDATE wallet_challenges SET used_at = ?, proof_id = ? WHERE id = ? AND used_at IS NULL").run(proof.recordedAt, proof.id, proof.challengeId);
        // Another writer spent it since the plan was made: fail the transaction, the retry refuses it.
        if (r.changes !== 1) throw new Error(`challenge ${proof.challengeId} was used meanwhile`);
      }
      return this.refreshNow(proof.walletId, now);
    });
  }

  revoke(proofId: string, walletId: string, by: string | null, now: number): Promise<Verification> {
    return this.s.run(() => {
      this.s.stmt("UPDATE wallet_proofs SET status = 'revoked', revoked_at = ?, revoked_by = ? WHERE id = ? AND status = 'valid'").run(iso(now), by, proofId);
      return this.refreshNow(walletId, now);
    });
  }

  refresh(walletId: string, now: number): Promise<Verification> {
    return this.s.run(() => this.refreshNow(walletId, now));
  }

  /** Wallets with a valid proof past its expiry, for the sweep to hand to their customer's actor. */
  dueForExpiry(now: number, limit = 500): Promise<DueExpiry[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt(
            "SELECT DISTINCT p.wallet_id, w.customer_id, p.company_id, p.environment FROM wallet_proofs p JOIN wallets w ON w.id = p.wallet_id WHERE p.status = 'valid' AND p.expires_at IS NOT NULL AND p.expires_at <= ? LIMIT ?",
          )
          .all(iso(now), limit) as unknown as { wallet_id: string; customer_id: string; company_id: string; environment: Environment }[]
      ).map((r) => ({ walletId: r.wallet_id, customerId: r.customer_id, companyId: r.company_id, environment: r.environment })),
    );
  }

  issuer(companyId: string): Promise<string> {
    return this.s.run(() => this.companyName(companyId));
  }

  planSignedProof(w: Wallet, p: { signature: string; challengeId: string | null; expiresAt: string | null; recordedBy: string | null }, now: number): Promise<Plan<WalletProof>> {
    return this.s.run((): Plan<WalletProof> => {
      const scheme = signedSchemeFor(w.network, w.address);
      if (!scheme.ok) return scheme;
      const sig = parseSignature(scheme.scheme, p.signature);
      if ("error" in sig) return { ok: false, reason: sig.error };
      const requested = p.challengeId === null ? undefined : { id: p.challengeId, row: this.challengeOf(w.companyId, p.challengeId) ?? null };
      const verdict = judgeSignedProof({
        wallet: w,
        sig,
        requested,
        own: this.ownChallenges(w.id, OWN_LIMIT),
        others: () => this.recentChallenges(w.companyId, w.environment, w.id, iso(now - OTHERS_WINDOW_MS)),
        now,
      });
      if (!verdict.ok) return verdict;
      const evidence: SignedEvidence = { scheme: scheme.scheme, challengeId: verdict.challenge.id, message: verdict.challenge.message, signature: p.signature.trim(), signer: verdict.signer };
      return { ok: true, value: proofRecord(w, scheme.scheme, { evidence, challengeId: verdict.challenge.id, expiresAt: p.expiresAt, recordedBy: p.recordedBy }, newId("prf", now), now) };
    });
  }

  private companyName(companyId: string): string {
    const r = this.s.stmt("SELECT name FROM companies WHERE id = ?").get(companyId) as { name: string } | undefined;
    return r?.name ?? "Caravan";
  }

  private challengeOf(companyId: string, id: string): WalletChallenge | undefined {
    const r = this.s.stmt("SELECT * FROM wallet_challenges WHERE id = ? AND company_id = ?").get(id, companyId) as ChallengeRow | null | undefined;
    return r ? toChallenge(r) : undefined;
  }

  private ownChallenges(walletId: string, limit: number): WalletChallenge[] {
    return (this.s.stmt("SELECT * FROM wallet_challenges WHERE wallet_id = ? ORDER BY created_at DESC, id DESC LIMIT ?").all(walletId, limit) as unknown as ChallengeRow[]).map(toChallenge);
  }

  private recentChallenges(companyId: string, env: Environment, exceptWalletId: string, since: string, limit = OTHERS_LIMIT): WalletChallenge[] {
    return (
      this.s
        .stmt("SELECT * FROM wallet_challenges WHERE company_id = ? AND environment = ? AND created_at >= ? AND wallet_id <> ? ORDER BY created_at DESC LIMIT ?")
        .all(companyId, env, since, exceptWalletId, limit) as unknown as ChallengeRow[]
    ).map(toChallenge);
  }

  private proof(companyId: string, id: string): WalletProof | undefined {
    const r = this.s.stmt("SELECT * FROM wallet_proofs WHERE id = ? AND company_id = ?").get(id, companyId) as ProofRow | null | undefined;
    return r ? toProof(r) : undefined;
  }

  private proofsOf(walletId: string): WalletProof[] {
    return (this.s.stmt("SELECT * FROM wallet_proofs WHERE wallet_id = ? ORDER BY recorded_at DESC, id DESC").all(walletId) as unknown as ProofRow[]).map(toProof);
  }

  /** Marks expired proofs and sets `wallets.verified`/`verified_at` from the proofs (updated_at only when they change). */
  private refreshNow(walletId: string, now: number): Verification {
    const v = deriveVerification(this.proofsOf(walletId), now);
    for (const id of v.expire) this.s.stmt("UPDATE wallet_proofs SET status = 'expired' WHERE id = ? AND status = 'valid'").run(id);
    const w = this.s.stmt("SELECT verified, verified_at FROM wallets WHERE id = ?").get(walletId) as { verified: number; verified_at: string | null } | undefined;
    if (w && ((w.verified === 1) !== v.verified || w.verified_at !== v.verifiedAt))
      this.s.stmt("UPDATE wallets SET verified = ?, verified_at = ?, updated_at = ? WHERE id = ?").run(v.verified ? 1 : 0, v.verifiedAt, iso(now), walletId);
    return v;
  }
}

function insertRow(s: Storage, table: string, row: object): void {
  const cols = Object.keys(row);
  s.stmt(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
}
