// Shared result shape and base58/base58check helpers for the per-family address validators.
import { base58, createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";

export type Validation = { ok: true; address: string } | { ok: false; reason: string };

export const ok = (address: string): Validation => ({ ok: true, address });
export const fail = (reason: string): Validation => ({ ok: false, reason });

/** Bitcoin's base58 alphabet: no 0, O, I or l, so a typo in those is caught before decoding. */
export const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;

const b58check = createBase58check(sha256);

export type Base58CheckResult = { bytes: Uint8Array } | { error: "alphabet" | "short" | "checksum" };

/** Decodes base58check (4-byte double-SHA-256 checksum), telling a bad character from a bad checksum. */
export function decodeBase58Check(s: string): Base58CheckResult {
  if (!BASE58_RE.test(s)) return { error: "alphabet" };
  // A version byte and the 4-byte checksum need at least 5 bytes (7 characters).
  if (s.length < 7) return { error: "short" };
  try {
    return { bytes: b58check.decode(s) };
  } catch {
    return { error: "checksum" };
  }
}

/** Decodes plain base58 (no checksum), or null on a character outside the alphabet. */
export function decodeBase58(s: string): Uint8Array | null {
  if (!BASE58_RE.test(s)) return null;
  try {
    return base58.decode(s);
  } catch {
    return null;
  }
}

export function hex2(n: number): string {
  return `0x${n.toString(16).padStart(2, "0")}`;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** A hint appended to a refusal when the text is plainly another family's address. */
export function looksLike(address: string): string {
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return " (it looks like an EVM 0x address)";
  if (/^(bc|tb|ltc)1/i.test(address)) return " (it looks like a Bitcoin-family bech32 address)";
  const tron = decodeBase58Check(address);
  if ("bytes" in tron && tron.bytes.length === 21 && tron.bytes[0] === 0x41) return " (it looks like a Tron address)";
  if (/^[GM][A-Z2-7]{55}([A-Z2-7]{13})?$/.test(address)) return " (it looks like a Stellar address)";
  return "";
}
