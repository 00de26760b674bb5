// Wallet proofs and challenges in SQLite (src/ports/proofs.ts): the statements under the engine-neutral proofs
// repository (./proofs-base.ts records, revokes and refreshes once for every engine; the signed proof's plan is
// src/domain/proofs/plan.ts), shared by the customer actor and the CLI; writes inside their transaction. A challenge,
// an attestation and a revocation are decided by src/domain/proofs/decide.ts, not here.
import { iso } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import { OWN_CHALLENGES } from "../../../domain/proofs/index.ts";
import type { Storage, SqlValue } from "../types.ts";
import { toWallet, type WalletRow } from "./wallets.ts";
import { challengeRow, ProofsBase, toChallenge, toDue, toProof, type ChallengeRow, type DueRow, type ProofRow } from "./proofs-base.ts";
import type { Wallet } from "../../../ports/wallets.ts";
import type { DueExpiry, WalletChallenge, WalletProof } from "../../../ports/proofs.ts";

export class Proofs extends ProofsBase {
  constructor(private readonly s: Storage) {
    super();
  }

  wallet(companyId: string, id: string): Promise<Wallet | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM wallets WHERE id = ? AND company_id = ?").get(id, companyId) as WalletRow | null | undefined;
      return r ? toWallet(r) : undefined;
    });
  }

  challenge(companyId: string, id: string): Promise<WalletChallenge | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM wallet_challenges WHERE id = ? AND company_id = ?").get(id, companyId) as ChallengeRow | null | undefined;
      return r ? toChallenge(r) : undefined;
    });
  }

  challengesOf(walletId: string, limit = OWN_CHALLENGES): Promise<WalletChallenge[]> {
    return this.s.run(() => (this.s.stmt("SELECT * FROM wallet_challenges WHERE wallet_id = ? ORDER BY created_at DESC, id DESC LIMIT ?").all(walletId, limit) as unknown as ChallengeRow[]).map(toChallenge));
  }

  recentChallenges(companyId: string, env: Environment, exceptWalletId: string, since: string, limit: number): Promise<WalletChallenge[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt("SELECT * FROM wallet_challenges WHERE company_id = ? AND environment = ? AND created_at >= ? AND wallet_id <> ? ORDER BY created_at DESC LIMIT ?")
          .all(companyId, env, since, exceptWalletId, limit) as unknown as ChallengeRow[]
      ).map(toChallenge),
    );
  }

  get(companyId: string, id: string): Promise<WalletProof | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM wallet_proofs WHERE id = ? AND company_id = ?").get(id, companyId) as ProofRow | null | undefined;
      return r ? toProof(r) : undefined;
    });
  }

  /** Newest first. */
  ofWallet(walletId: string): Promise<WalletProof[]> {
    return this.s.run(() => (this.s.stmt("SELECT * FROM wallet_proofs WHERE wallet_id = ? ORDER BY recorded_at DESC, id DESC").all(walletId) as unknown as ProofRow[]).map(toProof));
  }

  insertChallenge(c: WalletChallenge): Promise<void> {
    return this.s.run(() => insertRow(this.s, "wallet_challenges", challengeRow(c)));
  }

  /** Wallets with a valid proof past its expiry, for the sweep to hand to their customer's actor. */
  dueForExpiry(now: number, limit = 500): Promise<DueExpiry[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt(
            "SELECT DISTINCT p.wallet_id, w.customer_id, p.company_id, p.environment FROM wallet_proofs p JOIN wallets w ON w.id = p.wallet_id WHERE p.status = 'valid' AND p.expires_at IS NOT NULL AND p.expires_at <= ? LIMIT ?",
          )
          .all(iso(now), limit) as unknown as DueRow[]
      ).map(toDue),
    );
  }

  issuer(companyId: string): Promise<string> {
    return this.s.run(() => (this.s.stmt("SELECT name FROM companies WHERE id = ?").get(companyId) as { name: string } | undefined)?.name ?? "Caravan");
  }

  protected insertProof(row: ProofRow): Promise<void> {
    return this.s.run(() => insertRow(this.s, "wallet_proofs", row));
  }

  protected spendChallenge(challengeId: string, proofId: string, at: string): Promise<number> {
    return this.s.run(() => this.s.stmt("UPDATE wallet_challenges SET used_at = ?, proof_id = ? WHERE id = ? AND used_at IS NULL").run(at, proofId, challengeId).changes);
  }

  protected revokeProof(proofId: string, at: string, by: string | null): Promise<void> {
    return this.s.run(() => void this.s.stmt("UPDATE wallet_proofs SET status = 'revoked', revoked_at = ?, revoked_by = ? WHERE id = ? AND status = 'valid'").run(at, by, proofId));
  }

  protected expireProof(proofId: string): Promise<void> {
    return this.s.run(() => void this.s.stmt("UPDATE wallet_proofs SET status = 'expired' WHERE id = ? AND status = 'valid'").run(proofId));
  }

  protected verificationOf(walletId: string): Promise<{ verified: number; verified_at: string | null } | undefined> {
    return this.s.run(() => (this.s.stmt("SELECT verified, verified_at FROM wallets WHERE id = ?").get(walletId) ?? undefined) as { verified: number; verified_at: string | null } | undefined);
  }

  protected setVerification(walletId: string, verified: boolean, verifiedAt: string | null, updatedAt: string): Promise<void> {
    return this.s.run(() => void this.s.stmt("UPDATE wallets SET verified = ?, verified_at = ?, updated_at = ? WHERE id = ?").run(verified ? 1 : 0, verifiedAt, updatedAt, walletId));
  }
}

function insertRow(s: Storage, table: string, row: object): void {
  const cols = Object.keys(row);
  s.stmt(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
}
