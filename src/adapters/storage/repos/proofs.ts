// Wallet proofs and challenges: reads and plans shared by the customer actor and the CLI, writes inside their transaction.
import { iso, newId } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import {
  CHALLENGE_TTL_MS,
  challengeMessage,
  deriveVerification,
  effectiveStatus,
  judgeSignedProof,
  newNonce,
  parseSignature,
  signedSchemeFor,
  type ChallengeView,
  type ProofState,
  type SignedScheme,
  type Verification,
} from "../../../domain/proofs/index.ts";
import type { Storage, SqlValue } from "../types.ts";
import type { WalletRow } from "./wallets.ts";
import type { RowOf } from "./row.ts";
import type { walletChallenges as walletChallengesTable, walletProofs as walletProofsTable } from "../../../../db/schema/proofs.ts";

export type ChallengeRow = RowOf<typeof walletChallengesTable>;

export type ProofRow = RowOf<typeof walletProofsTable>;

/** What a signed proof keeps as evidence: enough to verify it again, no personal data. */
export interface SignedEvidence {
  scheme: SignedScheme;
  challengeId: string;
  message: string;
  signature: string;
  signer: string;
}

export type Plan<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The AAD of an attestation's sealed note: bound to its proof. */
export const noteAad = (proofId: string) => `wallet_proof:${proofId}:note`;

export const challengeView = (c: ChallengeRow): ChallengeView => ({
  id: c.id,
  walletId: c.wallet_id,
  address: c.address,
  message: c.message,
  expiresAt: c.expires_at,
  usedAt: c.used_at,
  proofId: c.proof_id,
});

export const proofState = (p: ProofRow): ProofState => ({ id: p.id, status: p.status, recordedAt: p.recorded_at, expiresAt: p.expires_at });

/** Other wallets' challenges read to explain a refusal: the last day's, at most this many. */
const OTHERS_WINDOW_MS = 24 * 60 * 60 * 1000;
const OTHERS_LIMIT = 200;
const OWN_LIMIT = 50;

export class Proofs {
  constructor(private readonly s: Storage) {}

  /** A wallet of the company in either environment (the CLI names wallets by ID only). */
  wallet(companyId: string, id: string): WalletRow | undefined {
    return (this.s.stmt("SELECT * FROM wallets WHERE id = ? AND company_id = ?").get(id, companyId) ?? undefined) as WalletRow | undefined;
  }

  companyName(companyId: string): string {
    const r = this.s.stmt("SELECT name FROM companies WHERE id = ?").get(companyId) as { name: string } | undefined;
    return r?.name ?? "Caravan";
  }

  challenge(companyId: string, id: string): ChallengeRow | undefined {
    return (this.s.stmt("SELECT * FROM wallet_challenges WHERE id = ? AND company_id = ?").get(id, companyId) ?? undefined) as ChallengeRow | undefined;
  }

  challengesOf(walletId: string, limit = OWN_LIMIT): ChallengeRow[] {
    return this.s.stmt("SELECT * FROM wallet_challenges WHERE wallet_id = ? ORDER BY created_at DESC, id DESC LIMIT ?").all(walletId, limit) as unknown as ChallengeRow[];
  }

  recentChallenges(companyId: string, env: Environment, exceptWalletId: string, since: string, limit = OTHERS_LIMIT): ChallengeRow[] {
    return this.s
      .stmt("SELECT * FROM wallet_challenges WHERE company_id = ? AND environment = ? AND created_at >= ? AND wallet_id <> ? ORDER BY created_at DESC LIMIT ?")
      .all(companyId, env, since, exceptWalletId, limit) as unknown as ChallengeRow[];
  }

  get(companyId: string, id: string): ProofRow | undefined {
    return (this.s.stmt("SELECT * FROM wallet_proofs WHERE id = ? AND company_id = ?").get(id, companyId) ?? undefined) as ProofRow | undefined;
  }

  /** Newest first. */
  ofWallet(walletId: string): ProofRow[] {
    return this.s.stmt("SELECT * FROM wallet_proofs WHERE wallet_id = ? ORDER BY recorded_at DESC, id DESC").all(walletId) as unknown as ProofRow[];
  }

  insertChallenge(row: ChallengeRow): void {
    insertRow(this.s, "wallet_challenges", row);
  }

  /** Inserts the proof, spends its challenge, and refreshes the wallet's verification. */
  record(proof: ProofRow, now: number): Verification {
    insertRow(this.s, "wallet_proofs", proof);
    if (proof.challenge_id !== null) {
      const r = this.s.stmt("UPDATE wallet_challenges SET used_at = ?, proof_id = ? WHERE id = ? AND used_at IS NULL").run(proof.recorded_at, proof.id, proof.challenge_id);
      // Another writer spent it since the plan was made: fail the transaction, the retry refuses it.
      if (r.changes !== 1) throw new Error(`challenge ${proof.challenge_id} was used meanwhile`);
    }
    return this.refresh(proof.wallet_id, now);
  }

  revoke(proofId: string, walletId: string, by: string | null, now: number): Verification {
    this.s.stmt("UPDATE wallet_proofs SET status = 'revoked', revoked_at = ?, revoked_by = ? WHERE id = ? AND status = 'valid'").run(iso(now), by, proofId);
    return this.refresh(walletId, now);
  }

  /** Marks expired proofs and sets `wallets.verified`/`verified_at` from the proofs (updated_at only when they change). */
  refresh(walletId: string, now: number): Verification {
    const v = deriveVerification(this.ofWallet(walletId).map(proofState), now);
    for (const id of v.expire) this.s.stmt("UPDATE wallet_proofs SET status = 'expired' WHERE id = ? AND status = 'valid'").run(id);
    const w = this.s.stmt("SELECT verified, verified_at FROM wallets WHERE id = ?").get(walletId) as { verified: number; verified_at: string | null } | undefined;
    if (w && ((w.verified === 1) !== v.verified || w.verified_at !== v.verifiedAt))
      this.s.stmt("UPDATE wallets SET verified = ?, verified_at = ?, updated_at = ? WHERE id = ?").run(v.verified ? 1 : 0, v.verifiedAt, iso(now), walletId);
    return v;
  }

  /** Wallets with a valid proof past its expiry, for the sweep to hand to their customer's actor. */
  dueForExpiry(now: number, limit = 500): { wallet_id: string; customer_id: string; company_id: string; environment: Environment }[] {
    return this.s
      .stmt(
        "SELECT DISTINCT p.wallet_id, w.customer_id, p.company_id, p.environment FROM wallet_proofs p JOIN wallets w ON w.id = p.wallet_id WHERE p.status = 'valid' AND p.expires_at IS NOT NULL AND p.expires_at <= ? LIMIT ?",
      )
      .all(iso(now), limit) as unknown as { wallet_id: string; customer_id: string; company_id: string; environment: Environment }[];
  }

  /** A new challenge for a wallet whose network has a signed-message scheme. */
  planChallenge(w: WalletRow, issuedBy: string | null, now: number): Plan<{ row: ChallengeRow; scheme: SignedScheme }> {
    const scheme = signedSchemeFor(w.network, w.address);
    if (!scheme.ok) return scheme;
    const id = newId("chl", now);
    const nonce = newNonce();
    const expiresAt = iso(now + CHALLENGE_TTL_MS);
    const message = challengeMessage({ issuer: this.companyName(w.company_id), walletId: w.id, address: w.address, network: w.network, nonce, expiresAt });
    const row: ChallengeRow = {
      id,
      wallet_id: w.id,
      company_id: w.company_id,
      environment: w.environment,
      address: w.address,
      message,
      nonce,
      issued_by: issuedBy,
      created_at: iso(now),
      expires_at: expiresAt,
      used_at: null,
      proof_id: null,
    };
    return { ok: true, value: { row, scheme: scheme.scheme } };
  }

  /** Verifies the signature against the wallet's challenges; the proof to record, or why not. */
  planSignedProof(w: WalletRow, p: { signature: string; challengeId: string | null; expiresAt: string | null; recordedBy: string | null }, now: number): Plan<ProofRow> {
    const scheme = signedSchemeFor(w.network, w.address);
    if (!scheme.ok) return scheme;
    const sig = parseSignature(scheme.scheme, p.signature);
    if ("error" in sig) return { ok: false, reason: sig.error };
    const requested = p.challengeId === null ? undefined : { id: p.challengeId, row: this.challengeViewOf(w.company_id, p.challengeId) };
    const verdict = judgeSignedProof({
      wallet: w,
      sig,
      requested,
      own: this.challengesOf(w.id).map(challengeView),
      others: () => this.recentChallenges(w.company_id, w.environment, w.id, iso(now - OTHERS_WINDOW_MS)).map(challengeView),
      now,
    });
    if (!verdict.ok) return verdict;
    const evidence: SignedEvidence = { scheme: scheme.scheme, challengeId: verdict.challenge.id, message: verdict.challenge.message, signature: p.signature.trim(), signer: verdict.signer };
    return { ok: true, value: this.newProof(w, scheme.scheme, { evidence: JSON.stringify(evidence), challengeId: verdict.challenge.id, expiresAt: p.expiresAt, recordedBy: p.recordedBy }, now) };
  }

  /** An officer's attestation; the note arrives sealed. */
  planAttestation(w: WalletRow, p: { noteSealed: (proofId: string) => string; expiresAt: string | null; recordedBy: string }, now: number): ProofRow {
    const row = this.newProof(w, "attestation", { evidence: null, challengeId: null, expiresAt: p.expiresAt, recordedBy: p.recordedBy }, now);
    return { ...row, note_sealed: p.noteSealed(row.id) };
  }

  /** Only a proof that counts now can be revoked. */
  planRevocation(companyId: string, proofId: string, now: number): Plan<ProofRow> {
    const p = this.get(companyId, proofId);
    if (!p) return { ok: false, reason: `no proof with id ${proofId}` };
    const status = effectiveStatus(proofState(p), now);
    if (status !== "valid") return { ok: false, reason: `proof ${p.id} is already ${status}${status === "expired" ? ` (at ${p.expires_at})` : ""}; only a valid proof can be revoked` };
    return { ok: true, value: p };
  }

  private challengeViewOf(companyId: string, id: string): ChallengeView | null {
    const c = this.challenge(companyId, id);
    return c ? challengeView(c) : null;
  }

  private newProof(
    w: WalletRow,
    type: ProofRow["type"],
    p: { evidence: string | null; challengeId: string | null; expiresAt: string | null; recordedBy: string | null },
    now: number,
  ): ProofRow {
    return {
      id: newId("prf", now),
      wallet_id: w.id,
      company_id: w.company_id,
      environment: w.environment,
      type,
      status: "valid",
      recorded_by: p.recordedBy,
      recorded_at: iso(now),
      evidence: p.evidence,
      note_sealed: null,
      expires_at: p.expiresAt,
      revoked_at: null,
      revoked_by: null,
      challenge_id: p.challengeId,
    };
  }
}

function insertRow(s: Storage, table: string, row: object): void {
  const cols = Object.keys(row);
  s.stmt(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
}
