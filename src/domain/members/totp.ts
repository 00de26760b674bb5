// TOTP (RFC 6238 over RFC 4226 HOTP): the console's second factor. Pure: the time is passed in, the secret given.
import { hmac } from "@noble/hashes/hmac.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { constantTimeEqual } from "../keys.ts";

export type TotpHash = "SHA1" | "SHA256" | "SHA512";
const HASHES = { SHA1: sha1, SHA256: sha256, SHA512: sha512 } as const;

export interface TotpParams {
  /** Seconds per step (RFC 6238 X); 30. */
  period: number;
  digits: number;
  hash: TotpHash;
}

/** What authenticator apps expect by default (and what Caravan issues). */
export const TOTP_DEFAULTS: TotpParams = { period: 30, digits: 6, hash: "SHA1" };

/** Steps before and after the current one that are still accepted (clock drift between phone and host). */
export const TOTP_WINDOW = 1;

/** The time step of an instant (ms since the epoch): floor(T / X) with T0 = 0. */
export function totpStep(nowMs: number, period = TOTP_DEFAULTS.period): number {
  return Math.floor(nowMs / 1000 / period);
}

/** RFC 4226 section 5.3: the HOTP value of a counter, as a zero-padded decimal string of `digits`. */
export function hotp(secret: Uint8Array, counter: number, digits = TOTP_DEFAULTS.digits, hash: TotpHash = "SHA1"): string {
  const msg = new Uint8Array(8);
  let c = counter;
  for (let i = 7; i >= 0; i--) {
    msg[i] = c % 256;
    c = Math.floor(c / 256);
  }
  const mac = hmac(HASHES[hash], secret, msg);
  const offset = mac[mac.length - 1] & 0x0f;
  const bin = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(bin % 10 ** digits).padStart(digits, "0");
}

export function totp(secret: Uint8Array, nowMs: number, p: TotpParams = TOTP_DEFAULTS): string {
  return hotp(secret, totpStep(nowMs, p.period), p.digits, p.hash);
}

/**
 * The step a code was made for, within the window around `nowMs`, if it is later than `lastStep` (a code is accepted
 * once: a replayed or older code is refused); null otherwise. Every candidate is compared, in constant time.
 */
export function verifyTotp(secret: Uint8Array, code: string, nowMs: number, lastStep: number | null, p: TotpParams = TOTP_DEFAULTS): number | null {
  const now = totpStep(nowMs, p.period);
  let found: number | null = null;
  for (let d = -TOTP_WINDOW; d <= TOTP_WINDOW; d++) {
    const step = now + d;
    const match = constantTimeEqual(hotp(secret, step, p.digits, p.hash), code);
    if (match && found === null && (lastStep === null || step > lastStep)) found = step;
  }
  return found;
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding: how authenticator apps take a secret. */
export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Uint8Array {
  const clean = text.toUpperCase().replace(/=+$/, "").replace(/\s+/g, "");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const i = B32.indexOf(ch);
    if (i < 0) throw new Error("not base32");
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** The `otpauth://` URI an authenticator app reads (as a QR code or pasted). */
export function otpauthUri(issuer: string, account: string, secret: Uint8Array, p: TotpParams = TOTP_DEFAULTS): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${base32Encode(secret)}&issuer=${encodeURIComponent(issuer)}&algorithm=${p.hash}&digits=${p.digits}&period=${p.period}`;
}
