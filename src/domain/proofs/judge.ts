// Decides whether a signature proves a wallet: the text it signs must be an open challenge issued for that wallet.
import { checkSigner, type ParsedSignature } from "./signed.ts";

export interface ChallengeView {
  id: string;
  walletId: string;
  /** The address of the challenge's wallet. */
  address: string;
  message: string;
  expiresAt: string;
  usedAt: string | null;
  proofId: string | null;
}

export interface JudgeInput {
  wallet: { id: string; address: string };
  sig: ParsedSignature;
  /** With --challenge: that challenge (null when no such challenge exists in the company). */
  requested?: { id: string; row: ChallengeView | null };
  /** The wallet's challenges, newest first. */
  own: readonly ChallengeView[];
  /** Recent challenges of other wallets of the environment, read only to explain a refusal. */
  others: () => readonly ChallengeView[];
  now: number;
}

export type Judgement = { ok: true; challenge: ChallengeView; signer: string } | { ok: false; reason: string };

const reissue = (walletId: string) => `issue a new one with "wallets challenge --id ${walletId}"`;

function states(c: ChallengeView, walletId: string, now: number): Judgement | null {
  if (c.usedAt !== null)
    return { ok: false, reason: `challenge ${c.id} was already used (proof ${c.proofId} at ${c.usedAt}): a replayed challenge is refused; ${reissue(walletId)}` };
  if (Date.parse(c.expiresAt) <= now) return { ok: false, reason: `challenge ${c.id} expired at ${c.expiresAt}; ${reissue(walletId)}` };
  return null;
}

export function judgeSignedProof(i: JudgeInput): Judgement {
  return judgeOwn(i) ?? explainUnmatched(i, i.others());
}

/**
 * The judgement against the requested challenge or the wallet's own: null when no challenge of the wallet was signed by
 * its key (then `explainUnmatched` says why, from other wallets' recent challenges read only for that).
 */
export function judgeOwn(i: Omit<JudgeInput, "others">): Judgement | null {
  const { wallet, sig, now } = i;
  if (i.requested) {
    const c = i.requested.row;
    if (!c) return { ok: false, reason: `no challenge ${i.requested.id}` };
    if (c.walletId !== wallet.id)
      return { ok: false, reason: `challenge ${c.id} was issued for wallet ${c.walletId}, not ${wallet.id}: a signature proves only the wallet its challenge names` };
    const refused = states(c, wallet.id, now);
    if (refused) return refused;
    const r = checkSigner(sig, c.message, wallet.address);
    if (!r.matches) return { ok: false, reason: `the signature over challenge ${c.id} was made by ${r.signer ?? "no valid key"}, not by the wallet's address ${wallet.address}` };
    return { ok: true, challenge: c, signer: r.signer! };
  }
  for (const c of i.own) {
    const r = checkSigner(sig, c.message, wallet.address);
    if (!r.matches) continue;
    return states(c, wallet.id, now) ?? { ok: true, challenge: c, signer: r.signer! };
  }
  return null;
}

/** Why a signature that answers none of the wallet's challenges is refused: the likely cause rather than a bare "invalid". */
export function explainUnmatched(i: Omit<JudgeInput, "others" | "requested">, others: readonly ChallengeView[]): Judgement {
  const { wallet, sig } = i;
  for (const c of others) {
    const r = checkSigner(sig, c.message, wallet.address);
    const theirs = r.matches || checkSigner(sig, c.message, c.address).matches;
    if (theirs) return { ok: false, reason: `the signature answers challenge ${c.id}, issued for wallet ${c.walletId}, not for wallet ${wallet.id}` };
  }
  const latest = i.own[0];
  if (!latest) return { ok: false, reason: `wallet ${wallet.id} has no challenge to answer; ${reissue(wallet.id)}` };
  const r = checkSigner(sig, latest.message, wallet.address);
  return {
    ok: false,
    reason: `the signature was not made by ${wallet.address} over wallet ${wallet.id}'s challenge ${latest.id} (it recovers to ${r.signer ?? "no valid key"}): a wrong signer, or a text other than the challenge was signed`,
  };
}
