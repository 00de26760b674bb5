// A proof's status at a given time, and the wallet's `verified`/`verifiedAt` derived from its proofs.
export type ProofStatus = "valid" | "revoked" | "expired";

export interface ProofState {
  id: string;
  status: ProofStatus;
  recordedAt: string;
  expiresAt: string | null;
}

/** A valid proof past its expiry no longer counts, whether or not the sweep has marked it yet. */
export function effectiveStatus(p: ProofState, now: number): ProofStatus {
  return p.status === "valid" && p.expiresAt !== null && Date.parse(p.expiresAt) <= now ? "expired" : p.status;
}

export interface Verification {
  verified: boolean;
  /** When ownership was last proven: the latest counting proof's time; null while none counts. */
  verifiedAt: string | null;
  /** Proofs still marked valid that have expired by now. */
  expire: string[];
}

export function deriveVerification(proofs: readonly ProofState[], now: number): Verification {
  let verifiedAt: string | null = null;
  const expire: string[] = [];
  for (const p of proofs) {
    const s = effectiveStatus(p, now);
    if (s === "expired" && p.status === "valid") expire.push(p.id);
    if (s === "valid" && (verifiedAt === null || p.recordedAt > verifiedAt)) verifiedAt = p.recordedAt;
  }
  return { verified: verifiedAt !== null, verifiedAt, expire };
}

/** `--expires`: an ISO 8601 day (00:00 UTC) or instant with an offset, in the future. */
export function parseExpiry(text: string, now: number): { ok: true; at: number } | { ok: false; reason: string } {
  const day = /^\d{4}-\d\d-\d\d$/.test(text);
  const instant = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/.test(text);
  const at = day ? Date.parse(`${text}T00:00:00Z`) : instant ? Date.parse(text) : NaN;
  if (!Number.isFinite(at)) return { ok: false, reason: `--expires must be an ISO 8601 day or instant with an offset (2027-01-31 or 2027-01-31T12:00:00Z), not "${text}"` };
  if (at <= now) return { ok: false, reason: `--expires ${text} is not in the future` };
  return { ok: true, at };
}
