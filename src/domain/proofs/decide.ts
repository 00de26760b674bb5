// The customer actor's decisions on a wallet's ownership (src/actors/customer.ts): a challenge issued, an officer's
// attestation, a proof revoked. Pure functions of the wallet or proof as loaded, the command, the new record's ID and
// nonce and the clock's time: each answers the record to write, or why not. An attestation's note is sealed by the
// caller under the new proof's ID (noteAad); the domain never sees a key.
import { iso } from "../ids.ts";
import { CHALLENGE_TTL_MS, challengeMessage } from "./challenge.ts";
import type { Plan, SignedEvidence, WalletChallenge, WalletProof } from "./records.ts";
import { signedSchemeFor, type SignedScheme } from "./signed.ts";
import { effectiveStatus } from "./status.ts";
import type { Environment } from "../types.ts";

/** The wallet a decision is about (a stored wallet has these and more). */
export interface ProvenWallet {
  id: string;
  companyId: string;
  environment: Environment;
  address: string;
  network: string;
}

/** A new challenge for a wallet whose network has a signed-message scheme, expiring CHALLENGE_TTL_MS after `now`. */
export function decideChallenge(
  w: ProvenWallet,
  o: { issuer: string; issuedBy: string | null; id: string; nonce: string },
  now: number,
): Plan<{ challenge: WalletChallenge; scheme: SignedScheme }> {
  const scheme = signedSchemeFor(w.network, w.address);
  if (!scheme.ok) return scheme;
  const expiresAt = iso(now + CHALLENGE_TTL_MS);
  const message = challengeMessage({ issuer: o.issuer, walletId: w.id, address: w.address, network: w.network, nonce: o.nonce, expiresAt });
  const challenge: WalletChallenge = {
    id: o.id,
    walletId: w.id,
    companyId: w.companyId,
    environment: w.environment,
    address: w.address,
    message,
    nonce: o.nonce,
    issuedBy: o.issuedBy,
    createdAt: iso(now),
    expiresAt,
    usedAt: null,
    proofId: null,
  };
  return { ok: true, value: { challenge, scheme: scheme.scheme } };
}

/** A new, valid proof of the wallet recorded at `now` (its note, for an attestation, is the caller's to seal). */
export function proofRecord(
  w: ProvenWallet,
  type: WalletProof["type"],
  p: { evidence: SignedEvidence | null; challengeId: string | null; expiresAt: string | null; recordedBy: string | null },
  id: string,
  now: number,
): WalletProof {
  return {
    id,
    walletId: w.id,
    companyId: w.companyId,
    environment: w.environment,
    type,
    status: "valid",
    recordedBy: p.recordedBy,
    recordedAt: iso(now),
    evidence: p.evidence,
    noteSealed: null,
    expiresAt: p.expiresAt,
    revokedAt: null,
    revokedBy: null,
    challengeId: p.challengeId,
  };
}

/** An officer's attestation: recorded by a member, with a note saying how ownership was established. */
export function decideAttestation(w: ProvenWallet, o: { note: string; expiresAt: string | null; recordedBy: string | null | undefined }, id: string, now: number): Plan<WalletProof> {
  if (!o.recordedBy) return { ok: false, reason: "An attestation is recorded by a member" };
  if (o.note.trim() === "") return { ok: false, reason: "An attestation needs a note saying how ownership was established" };
  return { ok: true, value: proofRecord(w, "attestation", { evidence: null, challengeId: null, expiresAt: o.expiresAt, recordedBy: o.recordedBy }, id, now) };
}

/** Only a proof that counts now can be revoked; `p` is the proof as loaded (undefined: none with that ID). */
export function decideRevocation(p: WalletProof | undefined, proofId: string, now: number): Plan<WalletProof> {
  if (!p) return { ok: false, reason: `no proof with id ${proofId}` };
  const status = effectiveStatus(p, now);
  if (status !== "valid") return { ok: false, reason: `proof ${p.id} is already ${status}${status === "expired" ? ` (at ${p.expiresAt})` : ""}; only a valid proof can be revoked` };
  return { ok: true, value: p };
}
