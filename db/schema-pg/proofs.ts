// PostgreSQL twin of db/schema (same tables, columns and keys; types mapped as in docs/architecture.md). Wallet ownership proofs and the challenges signed-message proofs answer; `wallets.verified` derives from the proofs.
import { sql } from "drizzle-orm";
import { pgTable, text, index, uniqueIndex } from "drizzle-orm/pg-core";
import { wallets } from "./wallets.ts";

/** A text the wallet's key must sign: single use, expires; removed with its wallet. */
export const walletChallenges = pgTable(
  "wallet_challenges",
  {
    id: text("id").primaryKey(),
    walletId: text("wallet_id")
      .notNull()
      .references(() => wallets.id, { onDelete: "cascade" }),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    /** The wallet's address when issued (addresses never change), to name another wallet's challenge in a refusal. */
    address: text("address").notNull(),
    /** The exact text to sign; it names the wallet, address, network, nonce and expiry. */
    message: text("message").notNull(),
    nonce: text("nonce").notNull(),
    issuedBy: text("issued_by"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    proofId: text("proof_id"),
  },
  (t) => [
    index("wallet_challenges_wallet").on(t.walletId, t.createdAt),
    index("wallet_challenges_recent").on(t.companyId, t.environment, t.createdAt),
  ],
);

/** One proof of a wallet: a signed message (`eip191`, `bip137`) or an officer's attestation. Removed with its wallet. */
export const walletProofs = pgTable(
  "wallet_proofs",
  {
    id: text("id").primaryKey(),
    walletId: text("wallet_id")
      .notNull()
      .references(() => wallets.id, { onDelete: "cascade" }),
    companyId: text("company_id").notNull(),
    environment: text("environment", { enum: ["test", "live"] }).notNull(),
    type: text("type", { enum: ["eip191", "bip137", "attestation"] }).notNull(),
    status: text("status", { enum: ["valid", "revoked", "expired"] }).notNull(),
    /** Member ID, or null when recorded from the CLI without --member (signed proofs only). */
    recordedBy: text("recorded_by"),
    recordedAt: text("recorded_at").notNull(),
    /** JSON without personal data: the challenge, the signed text, the signature and the recovered signer. */
    evidence: text("evidence"),
    /** The attestation's note, sealed (it may name people). */
    noteSealed: text("note_sealed"),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    revokedBy: text("revoked_by"),
    /** The challenge a signed proof answered: unique, so a challenge proves once even if two writers race. */
    challengeId: text("challenge_id"),
  },
  (t) => [
    index("wallet_proofs_wallet").on(t.walletId, t.recordedAt),
    uniqueIndex("wallet_proofs_challenge").on(t.challengeId),
    // The expiry sweep reads only valid proofs that can expire.
    index("wallet_proofs_due")
      .on(t.expiresAt)
      .where(sql`status = 'valid' AND expires_at IS NOT NULL`),
  ],
);
