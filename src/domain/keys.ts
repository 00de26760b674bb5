// API key format and hashing: a fixed issued prefix, then 64 hex characters; only the hash is stored.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { Environment } from "./types.ts";

/** The issued prefixes name the environment so a person can tell keys apart at a glance. */
export const KEY_PREFIX: Record<Environment, string> = { test: "crv_test_", live: "crv_live_" };
const FORMAT = /^crv_(test|live)_[0-9a-f]{64}$/;

export function isKeyFormat(key: string): boolean {
  return FORMAT.test(key);
}

/** A new key from 32 random bytes (the caller supplies them). */
export function formatKey(env: Environment, random: Uint8Array): string {
  if (random.length !== 32) throw new Error("an API key needs 32 random bytes");
  return KEY_PREFIX[env] + bytesToHex(random);
}

/** SHA-256 is enough for 256-bit random secrets: there is nothing to brute-force. */
export function hashKey(key: string): string {
  return bytesToHex(sha256(utf8ToBytes(key)));
}

/** What may be shown of a key after creation: its prefix and last four characters. */
export function keyHint(key: string): string {
  return `${key.slice(0, 9)}…${key.slice(-4)}`;
}

/** Compares two equal-length strings without an early exit. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}
