// Polkadot relay-chain addresses: SS58 with network prefix 0, a 32-byte account and a blake2b "SS58PRE" checksum.
import { blake2b } from "@noble/hashes/blake2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { type Validation, decodeBase58, equalBytes, fail, looksLike, ok } from "./common.ts";

const N = "polkadot";
const POLKADOT_PREFIX = 0;
const SS58PRE = utf8ToBytes("SS58PRE");

const KNOWN_PREFIXES: ReadonlyMap<number, string> = new Map([
  [2, "is a Kusama address (SS58 prefix 2), not a Polkadot address"],
  [42, "is a generic Substrate address (SS58 prefix 42), not a Polkadot address; re-encode it with prefix 0"],
]);

/** The SS58 checksum: the first 2 bytes of blake2b-512("SS58PRE" || prefix bytes || account). */
export function ss58Checksum(body: Uint8Array): Uint8Array {
  return blake2b(concatBytes(SS58PRE, body), { dkLen: 64 }).subarray(0, 2);
}

export function validatePolkadot(address: string): Validation {
  // A 32-byte account with a 1- or 2-byte prefix is 47-49 characters.
  if (address.length < 46 || address.length > 50) return fail(`${N} address must be 46 to 50 base58 characters, not ${address.length}${looksLike(address)}`);
  const bytes = decodeBase58(address);
  if (!bytes) return fail(`${N} address contains characters outside the base58 alphabet${looksLike(address)}`);
  // Prefixes 0-63 take one byte; 64-16383 take two with the top bits 01; a first byte of 128+ is reserved.
  if (bytes.length === 0 || bytes[0] >= 128) return fail(`${N} address has a reserved SS58 prefix byte`);
  const prefixLength = bytes[0] < 64 ? 1 : 2;
  if (bytes.length !== prefixLength + 32 + 2) return fail(`${N} address does not encode a 32-byte account`);
  const body = bytes.subarray(0, -2);
  if (!equalBytes(ss58Checksum(body), bytes.subarray(-2))) return fail(`${N} address checksum does not match`);
  const prefix = prefixLength === 1 ? bytes[0] : ((bytes[0] & 0x3f) << 2) | (bytes[1] >> 6) | ((bytes[1] & 0x3f) << 8);
  if (prefix !== POLKADOT_PREFIX) {
    // Decision: only prefix 0. The same key under another prefix is the same account on Polkadot, but accepting
    // other prefixes would also accept addresses meant for other chains, which is the error worth catching.
    const known = KNOWN_PREFIXES.get(prefix);
    return fail(known ? `${N} address ${known}` : `${N} address has SS58 prefix ${prefix}; Polkadot addresses use prefix 0`);
  }
  return ok(address);
}
