// A signed proof's plan: the signature parsed for the wallet's scheme and judged (judge.ts) against the challenges it
// may answer, read through the caller's loaders (a proofs repository's statements, whatever the engine): the requested
// challenge, the wallet's own newest first and, only to explain a refusal, other wallets' of the last day.
import { iso, newId } from "../ids.ts";
import type { Environment } from "../types.ts";
import { proofRecord, type ProvenWallet } from "./decide.ts";
import { explainUnmatched, judgeOwn } from "./judge.ts";
import type { Plan, SignedEvidence, WalletChallenge, WalletProof } from "./records.ts";
import { parseSignature, signedSchemeFor } from "./signed.ts";

/** How many of the wallet's own challenges a signature is checked against, newest first. */
export const OWN_CHALLENGES = 50;
/** Other wallets' challenges read to explain a refusal: the last day's, at most this many. */
export const OTHERS_WINDOW_MS = 24 * 60 * 60 * 1000;
export const OTHERS_LIMIT = 200;

/** The challenges a plan reads. */
export interface ChallengeReads {
  challenge(companyId: string, id: string): Promise<WalletChallenge | undefined>;
  /** The wallet's challenges, newest first, at most `limit`. */
  challengesOf(walletId: string, limit: number): Promise<WalletChallenge[]>;
  /** The environment's challenges since `since` of wallets other than `exceptWalletId`, newest first, at most `limit`. */
  recentChallenges(companyId: string, env: Environment, exceptWalletId: string, since: string, limit: number): Promise<WalletChallenge[]>;
}

export interface SignedProofRequest {
  signature: string;
  challengeId: string | null;
  expiresAt: string | null;
  recordedBy: string | null;
}

/** Verifies the signature against the wallet's challenges: the proof to record, or why not. */
export async function planSignedProof(w: ProvenWallet, p: SignedProofRequest, now: number, reads: ChallengeReads): Promise<Plan<WalletProof>> {
  const scheme = signedSchemeFor(w.network, w.address);
  if (!scheme.ok) return scheme;
  const sig = parseSignature(scheme.scheme, p.signature);
  if ("error" in sig) return { ok: false, reason: sig.error };
  const requested = p.challengeId === null ? undefined : { id: p.challengeId, row: (await reads.challenge(w.companyId, p.challengeId)) ?? null };
  const input = { wallet: w, sig, requested, own: await reads.challengesOf(w.id, OWN_CHALLENGES), now };
  const verdict = judgeOwn(input) ?? explainUnmatched(input, await reads.recentChallenges(w.companyId, w.environment, w.id, iso(now - OTHERS_WINDOW_MS), OTHERS_LIMIT));
  if (!verdict.ok) return verdict;
  const evidence: SignedEvidence = { scheme: scheme.scheme, challengeId: verdict.challenge.id, message: verdict.challenge.message, signature: p.signature.trim(), signer: verdict.signer };
  return { ok: true, value: proofRecord(w, scheme.scheme, { evidence, challengeId: verdict.challenge.id, expiresAt: p.expiresAt, recordedBy: p.recordedBy }, newId("prf", now), now) };
}
