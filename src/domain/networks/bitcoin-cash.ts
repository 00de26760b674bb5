// Bitcoin Cash addresses: CashAddr (with its own BCH-code checksum over the prefix) and legacy base58check.
import { bech32 } from "@scure/base";
import { type Validation, fail, ok } from "./common.ts";
import { BECH32_DATA_RE, type UtxoChain, validateUtxo } from "./bitcoin.ts";

const N = "bitcoin-cash";
const PREFIX = "bitcoincash";
// CashAddr reuses the bech32 character set but not its checksum.
const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

// Legacy addresses are byte-for-byte Bitcoin's; only the chain they are used on differs.
const LEGACY: UtxoChain = {
  network: N,
  versions: new Set([0x00 /* P2PKH */, 0x05 /* P2SH */]),
  hrp: null,
};

// Size field of the version byte -> hash length in bytes (CashAddr spec).
const HASH_SIZES = [20, 24, 28, 32, 40, 48, 56, 64];

const TEST_PREFIXES: ReadonlyMap<string, string> = new Map([
  ["bchtest", "a Bitcoin Cash testnet address"],
  ["bchreg", "a Bitcoin Cash regtest address"],
]);

/**
 * CashAddr checksum: a 40-bit BCH code over the low 5 bits of each prefix character, a zero separator and the
 * payload (checksum included); a valid string leaves the polymod at 0 (the spec's final XOR with 1 folded in).
 */
function polymod(values: readonly number[]): bigint {
  const GEN = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    for (let i = 0; i < 5; i++) if ((c0 >> BigInt(i)) & 1n) c ^= GEN[i];
  }
  return c ^ 1n;
}

/** Encodes a CashAddr (used by the tests to build vectors from a hash; exported for that reason only). */
export function encodeCashAddr(prefix: string, version: number, hash: Uint8Array): string {
  const payload = bech32.toWords(Uint8Array.of(version, ...hash));
  const values = [...[...prefix].map((ch) => ch.charCodeAt(0) & 0x1f), 0, ...payload, 0, 0, 0, 0, 0, 0, 0, 0];
  const mod = polymod(values);
  const checksum = Array.from({ length: 8 }, (_, i) => Number((mod >> BigInt(5 * (7 - i))) & 0x1fn));
  return `${prefix}:${[...payload, ...checksum].map((v) => CHARSET[v]).join("")}`;
}

export function validateBitcoinCash(address: string): Validation {
  const colon = address.indexOf(":");
  const lower = address.toLowerCase();
  // Without a prefix, only a string drawn entirely from the CashAddr character set is CashAddr;
  // legacy base58 addresses always contain characters outside it (they start with 1 or 3).
  if (colon < 0 && !BECH32_DATA_RE.test(lower)) return validateUtxo(LEGACY, address);
  if (address !== lower && address !== address.toUpperCase()) return fail(`${N} address mixes upper and lower case, which CashAddr forbids`);
  const prefix = colon < 0 ? PREFIX : lower.slice(0, colon);
  const body = colon < 0 ? lower : lower.slice(colon + 1);
  if (prefix !== PREFIX) {
    const known = TEST_PREFIXES.get(prefix);
    return fail(known ? `${N} address is ${known}, not a mainnet one` : `${N} address has prefix "${prefix}"; expected "${PREFIX}"`);
  }
  // Anything shorter than the 8-character checksum and one payload character cannot be decoded at all.
  if (body.length < 9) return fail(`${N} address is too short`);
  if (!BECH32_DATA_RE.test(body)) return fail(`${N} address contains characters outside the CashAddr alphabet`);
  const values = [...body].map((ch) => CHARSET.indexOf(ch));
  const prefixValues = [...prefix].map((ch) => ch.charCodeAt(0) & 0x1f);
  if (polymod([...prefixValues, 0, ...values]) !== 0n) return fail(`${N} address checksum does not match`);
  const bytes = bech32.fromWordsUnsafe(values.slice(0, -8));
  if (!bytes || bytes.length === 0) return fail(`${N} address has invalid padding`);
  const version = bytes[0];
  const hash = bytes.subarray(1);
  if (version & 0x80) return fail(`${N} address has the reserved bit of its version byte set`);
  const type = version >> 3;
  const size = HASH_SIZES[version & 0x07];
  if (hash.length !== size) return fail(`${N} address declares a ${size}-byte hash but carries ${hash.length} bytes`);
  // Types 0/1 are P2PKH/P2SH; 2/3 are their CashTokens-aware twins (same script, tells wallets tokens are welcome).
  // P2PKH hashes are always 20 bytes; P2SH may be 20 or 32 (P2SH32, May 2023 upgrade).
  if (type > 3) return fail(`${N} address has unknown type ${type}`);
  const isP2pkh = type === 0 || type === 2;
  if (isP2pkh ? size !== 20 : size !== 20 && size !== 32) return fail(`${N} address has a ${size}-byte hash, which its type does not allow`);
  // Decision: normalize to the canonical lowercase form with the prefix, the form exchanges compare.
  return ok(`${PREFIX}:${body}`);
}
