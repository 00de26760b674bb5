// Wallet proofs and challenges on PostgreSQL: the statements under the engine-neutral proofs repository
// (../../repos/proofs-base.ts records, revokes and refreshes once for every engine; the signed proof's plan is
// src/domain/proofs/plan.ts), the twin of ../../repos/proofs.ts. A proof's `challenge_id` is unique (a second proof of
// one challenge is refused by the index as on SQLite).
import { iso } from "../../../../domain/ids.ts";
import type { Environment } from "../../../../domain/types.ts";
import { OWN_CHALLENGES } from "../../../../domain/proofs/index.ts";
import { toWallet, type WalletRow } from "../../repos/wallets.ts";
import { challengeRow, ProofsBase, toChallenge, toDue, toProof, type ChallengeRow, type DueRow, type ProofRow } from "../../repos/proofs-base.ts";
import type { Wallet } from "../../../../ports/wallets.ts";
import type { DueExpiry, WalletChallenge, WalletProof } from "../../../../ports/proofs.ts";
import { insertRow } from "../rows.ts";
import type { PgSession } from "../session.ts";

export class PgProofs extends ProofsBase {
  constructor(private readonly db: PgSession) {
    super();
  }

  async wallet(companyId: string, id: string): Promise<Wallet | undefined> {
    const r = (await this.db.read<WalletRow>("SELECT * FROM wallets WHERE id = $1 AND company_id = $2", [id, companyId]))[0];
    return r ? toWallet(r) : undefined;
  }

  async challenge(companyId: string, id: string): Promise<WalletChallenge | undefined> {
    const r = (await this.db.read<ChallengeRow>("SELECT * FROM wallet_challenges WHERE id = $1 AND company_id = $2", [id, companyId]))[0];
    return r ? toChallenge(r) : undefined;
  }

  async challengesOf(walletId: string, limit = OWN_CHALLENGES): Promise<WalletChallenge[]> {
    return (await this.db.read<ChallengeRow>("SELECT * FROM wallet_challenges WHERE wallet_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2", [walletId, limit])).map(toChallenge);
  }

  async recentChallenges(companyId: string, env: Environment, exceptWalletId: string, since: string, limit: number): Promise<WalletChallenge[]> {
    return (
      await this.db.read<ChallengeRow>("SELECT * FROM wallet_challenges WHERE company_id = $1 AND environment = $2 AND created_at >= $3 AND wallet_id <> $4 ORDER BY created_at DESC LIMIT $5", [
        companyId,
        env,
        since,
        exceptWalletId,
        limit,
      ])
    ).map(toChallenge);
  }

  async get(companyId: string, id: string): Promise<WalletProof | undefined> {
    const r = (await this.db.read<ProofRow>("SELECT * FROM wallet_proofs WHERE id = $1 AND company_id = $2", [id, companyId]))[0];
    return r ? toProof(r) : undefined;
  }

  /** Newest first. */
  async ofWallet(walletId: string): Promise<WalletProof[]> {
    return (await this.db.read<ProofRow>("SELECT * FROM wallet_proofs WHERE wallet_id = $1 ORDER BY recorded_at DESC, id DESC", [walletId])).map(toProof);
  }

  insertChallenge(c: WalletChallenge): Promise<void> {
    return insertRow(this.db, "wallet_challenges", challengeRow(c));
  }

  /** Wallets with a valid proof past its expiry, for the sweep to hand to their customer's actor. */
  async dueForExpiry(now: number, limit = 500): Promise<DueExpiry[]> {
    return (
      await this.db.read<DueRow>(
        "SELECT DISTINCT p.wallet_id, w.customer_id, p.company_id, p.environment FROM wallet_proofs p JOIN wallets w ON w.id = p.wallet_id WHERE p.status = 'valid' AND p.expires_at IS NOT NULL AND p.expires_at <= $1 LIMIT $2",
        [iso(now), limit],
      )
    ).map(toDue);
  }

  async issuer(companyId: string): Promise<string> {
    return (await this.db.read<{ name: string }>("SELECT name FROM companies WHERE id = $1", [companyId]))[0]?.name ?? "Caravan";
  }

  protected insertProof(row: ProofRow): Promise<void> {
    return insertRow(this.db, "wallet_proofs", row);
  }

  protected spendChallenge(challengeId: string, proofId: string, at: string): Promise<number> {
    return this.db.run("UPDATE wallet_challenges SET used_at = $1, proof_id = $2 WHERE id = $3 AND used_at IS NULL", [at, proofId, challengeId]);
  }

  protected async revokeProof(proofId: string, at: string, by: string | null): Promise<void> {
    await this.db.run("UPDATE wallet_proofs SET status = 'revoked', revoked_at = $1, revoked_by = $2 WHERE id = $3 AND status = 'valid'", [at, by, proofId]);
  }

  protected async expireProof(proofId: string): Promise<void> {
    await this.db.run("UPDATE wallet_proofs SET status = 'expired' WHERE id = $1 AND status = 'valid'", [proofId]);
  }

  protected async verificationOf(walletId: string): Promise<{ verified: number; verified_at: string | null } | undefined> {
    return (await this.db.read<{ verified: number; verified_at: string | null }>("SELECT verified, verified_at FROM wallets WHERE id = $1", [walletId]))[0];
  }

  protected async setVerification(walletId: string, verified: boolean, verifiedAt: string | null, updatedAt: string): Promise<void> {
    await this.db.run("UPDATE wallets SET verified = $1, verified_at = $2, updated_at = $3 WHERE id = $4", [verified ? 1 : 0, verifiedAt, updatedAt, walletId]);
  }
}
