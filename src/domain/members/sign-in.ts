// Sign-in rules that need no I/O: the pause after failures, session lifetimes, token formats (docs/api.md, "Keys and
// sessions").
import { bytesToHex } from "@noble/hashes/utils.js";

/** A session token: a fixed prefix and 64 hex characters (32 random bytes); only its SHA-256 is stored. */
export const SESSION_PREFIX = "crv_sess_";
const SESSION_FORMAT = /^crv_sess_[0-9a-f]{64}$/;
export const isSessionToken = (t: string): boolean => SESSION_FORMAT.test(t);
export function formatSessionToken(random: Uint8Array): string {
  if (random.length !== 32) throw new Error("a session token needs 32 random bytes");
  return SESSION_PREFIX + bytesToHex(random);
}

/** A session ends after this long unused; every use moves the end forward. */
export const SESSION_IDLE_MS = 15 * 60_000;
/** …and never later than this after sign-in, however much it is used. */
export const SESSION_MAX_MS = 12 * 3_600_000;
/** A session's renewal is written at most this often (not on every request). */
export const SESSION_RENEW_EVERY_MS = 60_000;

/** The expiry a session gets when used at `now`. */
export function sessionExpiry(createdMs: number, nowMs: number): number {
  return Math.min(nowMs + SESSION_IDLE_MS, createdMs + SESSION_MAX_MS);
}

/** A setup code the CLI prints: 4 groups of 4 characters from an alphabet without look-alikes (80 bits). */
const SETUP_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
export const SETUP_CODE_TTL_MS = 24 * 3_600_000;
export function formatSetupCode(random: Uint8Array): string {
  if (random.length !== 16) throw new Error("a setup code needs 16 random bytes");
  const chars = Array.from(random, (b) => SETUP_ALPHABET[b & 31]);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join("")).join("-");
}
/** Setup codes are compared in their canonical form: upper case, without separators or spaces. */
export const canonicalSetupCode = (code: string): string => code.toUpperCase().replace(/[\s-]/g, "");

/** Passphrases: at least 12 characters (a sentence is fine), at most 1024. */
export const PASSPHRASE_MIN = 12;
export const PASSPHRASE_MAX = 1024;

/** Keys unused (or never used) this long are pointed out in the console. */
export const KEY_STALE_MS = 90 * 86_400_000;
export function keyIsStale(k: { createdAt: string; lastUsedAt: string | null }, nowMs: number): boolean {
  return nowMs - Date.parse(k.lastUsedAt ?? k.createdAt) >= KEY_STALE_MS;
}

/**
 * The pause before the next attempt after `failures` consecutive failures: none for the first `free` ones, then
 * `baseMs` doubling per further failure, at most 15 minutes.
 */
export const PAUSE_MAX_MS = 15 * 60_000;
export function signInPauseMs(failures: number, baseMs: number, free = 1): number {
  if (failures <= free) return 0;
  return Math.min(PAUSE_MAX_MS, baseMs * 2 ** (failures - free - 1));
}

/** Failures free of a pause: per member one (a typo), per source address nine (several officers behind one NAT). */
export const FREE_FAILURES = { member: 1, source: 9 } as const;

/** Failures counted per subject (a member's email, a source address); every subject given must be past its pause. */
export class SignInThrottle {
  private readonly entries = new Map<string, { failures: number; until: number }>();
  constructor(
    private readonly baseMs: number,
    private readonly max = 50_000,
  ) {}

  /** Milliseconds until all of the subjects may try again (0: now). */
  wait(subjects: readonly string[], nowMs: number): number {
    let w = 0;
    for (const s of subjects) {
      const e = this.entries.get(s);
      if (e && e.until > nowMs) w = Math.max(w, e.until - nowMs);
    }
    return w;
  }

  failed(subjects: readonly { key: string; free: number }[], nowMs: number): void {
    for (const { key, free } of subjects) {
      const e = this.entries.get(key) ?? { failures: 0, until: 0 };
      this.entries.delete(key);
      e.failures++;
      e.until = nowMs + signInPauseMs(e.failures, this.baseMs, free);
      this.entries.set(key, e);
    }
    // Bounded: the oldest subjects leave first (a forgotten subject starts again from no failures).
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  succeeded(subjects: readonly string[]): void {
    for (const s of subjects) this.entries.delete(s);
  }
}
