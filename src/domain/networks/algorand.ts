// Algorand addresses: 58 base32 characters of a 32-byte public key followed by the last 4 bytes of its SHA-512/256.
import { base32nopad } from "@scure/base";
import { sha512_256 } from "@noble/hashes/sha2.js";
import { type Validation, equalBytes, fail, ok } from "./common.ts";

const N = "algorand";

/** Encodes an Algorand address from a public key (used by the tests to build vectors). */
export function encodeAlgorand(publicKey: Uint8Array): string {
  return base32nopad.encode(Uint8Array.of(...publicKey, ...sha512_256(publicKey).subarray(-4)));
}

export function validateAlgorand(address: string): Validation {
  if (!/^[A-Z2-7]+$/.test(address)) {
    return fail(/^[A-Za-z2-7]+$/.test(address) ? `${N} address must be upper case` : `${N} address contains characters outside the base32 alphabet`);
  }
  if (address.length !== 58) return fail(`${N} address must be 58 characters, not ${address.length}`);
  let bytes: Uint8Array;
  try {
    bytes = base32nopad.decode(address);
  } catch {
    return fail(`${N} address is not canonical base32 (its unused trailing bits must be zero)`);
  }
  const publicKey = bytes.subarray(0, 32);
  if (!equalBytes(sha512_256(publicKey).subarray(-4), bytes.subarray(32))) return fail(`${N} address checksum does not match`);
  return ok(address);
}
