// A signed proof's plan (src/domain/proofs/plan.ts), the one both engines' proofs repositories run over their reads: the
// proof it gives for a signature over the wallet's own challenge, and the refusals, with which reads each needed (other
// wallets' challenges are read only to explain a signature that answers none of the wallet's own).
import { test, expect } from "bun:test";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import { toChecksumAddress } from "../../src/domain/networks/evm.ts";
import { iso } from "../../src/domain/ids.ts";
import { decideChallenge, evmAddressOf, OTHERS_LIMIT, OTHERS_WINDOW_MS, OWN_CHALLENGES, personalMessageHash, planSignedProof, type ChallengeReads, type ProvenWallet, type WalletChallenge } from "../../src/domain/proofs/index.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

const sign = (sk: Uint8Array, message: string) => {
  const s = secp256k1.sign(personalMessageHash(message), sk, { prehash: false, format: "recovered" });
  return `0x${bytesToHex(concatBytes(s.subarray(1), Uint8Array.of(27 + s[0])))}`;
};
const keyed = (id: string): { sk: Uint8Array; w: ProvenWallet } => {
  const sk = secp256k1.utils.randomSecretKey();
  return { sk, w: { id, companyId: "cmp_1", environment: "test", network: "ethereum", address: toChecksumAddress(evmAddressOf(secp256k1.getPublicKey(sk, false)).slice(2)) } };
};
const challengeOf = (w: ProvenWallet, id: string): WalletChallenge => {
  const d = decideChallenge(w, { issuer: "Acme", issuedBy: null, id, nonce: `n-${id}` }, NOW - 1000);
  if (!d.ok) throw new Error(d.reason);
  return d.value.challenge;
};

/** Reads over fixed challenges, recording each call. */
function reads(own: WalletChallenge[], others: WalletChallenge[]) {
  const calls: string[] = [];
  const r: ChallengeReads = {
    challenge: async (companyId, id) => (calls.push(`challenge ${companyId} ${id}`), [...own, ...others].find((c) => c.id === id)),
    challengesOf: async (walletId, limit) => (calls.push(`own ${walletId} ${limit}`), own),
    recentChallenges: async (companyId, env, except, since, limit) => (calls.push(`others ${companyId} ${env} ${except} ${since} ${limit}`), others),
  };
  return { r, calls };
}

const mine = keyed("wal_mine");
const theirs = keyed("wal_theirs");

test("a signature over the wallet's own challenge gives the proof to record; other wallets' challenges are not read", async () => {
  const c = challengeOf(mine.w, "chl_mine");
  const { r, calls } = reads([c], [challengeOf(theirs.w, "chl_theirs")]);
  const signature = sign(mine.sk, c.message);
  const plan = await planSignedProof(mine.w, { signature: ` ${signature} `, challengeId: null, expiresAt: null, recordedBy: "mem_1" }, NOW, r);
  if (!plan.ok) throw new Error(plan.reason);
  expect(plan.value).toMatchObject({ walletId: mine.w.id, type: "eip191", status: "valid", challengeId: c.id, recordedBy: "mem_1", recordedAt: iso(NOW) });
  expect(plan.value.evidence).toEqual({ scheme: "eip191", challengeId: c.id, message: c.message, signature, signer: mine.w.address.toLowerCase() });
  expect(calls).toEqual([`own ${mine.w.id} ${OWN_CHALLENGES}`]);
});

test("a signature over another wallet's challenge is refused naming it, from the last day's challenges of the others", async () => {
  const other = challengeOf(theirs.w, "chl_theirs");
  const { r, calls } = reads([challengeOf(mine.w, "chl_mine")], [other]);
  const plan = await planSignedProof(mine.w, { signature: sign(theirs.sk, other.message), challengeId: null, expiresAt: null, recordedBy: null }, NOW, r);
  expect(plan).toEqual({ ok: false, reason: `the signature answers challenge ${other.id}, issued for wallet ${theirs.w.id}, not for wallet ${mine.w.id}` });
  expect(calls).toEqual([`own ${mine.w.id} ${OWN_CHALLENGES}`, `others cmp_1 test ${mine.w.id} ${iso(NOW - OTHERS_WINDOW_MS)} ${OTHERS_LIMIT}`]);
});

test("a requested challenge is read by its ID and judged alone; a wallet without a scheme or a signature that does not parse reads nothing", async () => {
  const c = challengeOf(mine.w, "chl_mine");
  const { r, calls } = reads([c], []);
  const plan = await planSignedProof(mine.w, { signature: sign(mine.sk, c.message), challengeId: "chl_missing", expiresAt: null, recordedBy: null }, NOW, r);
  expect(plan).toEqual({ ok: false, reason: "no challenge chl_missing" });
  expect(calls).toEqual(["challenge cmp_1 chl_missing", `own ${mine.w.id} ${OWN_CHALLENGES}`]);
  calls.length = 0;
  expect((await planSignedProof({ ...mine.w, network: "solana" }, { signature: "x", challengeId: null, expiresAt: null, recordedBy: null }, NOW, r)).ok).toBe(false);
  expect((await planSignedProof(mine.w, { signature: "not a signature", challengeId: null, expiresAt: null, recordedBy: null }, NOW, r)).ok).toBe(false);
  expect(calls).toEqual([]);
});
