// Cardano payment addresses: Shelley bech32 "addr1…" (CIP-19) and legacy Byron base58 (CBOR with a CRC32).
import { bech32 } from "@scure/base";
import { type Validation, decodeBase58, fail, looksLike, ok } from "./common.ts";

const N = "cardano";
// Cardano addresses outgrow BIP-173's 90-character cap (pointer and script addresses); CIP-19 tools use 1023.
const BECH32_LIMIT = 1023;
const MAINNET_ID = 1;
const MAINNET_PROTOCOL_MAGIC = 764824073;

export function validateCardano(address: string): Validation {
  const lower = address.toLowerCase();
  const sepAt = lower.lastIndexOf("1");
  const hrp = sepAt > 0 ? lower.slice(0, sepAt) : "";
  if (hrp === "addr" || hrp === "addr_test" || hrp === "stake" || hrp === "stake_test") return validateShelley(address, hrp);
  if (/^[a-z_]+$/.test(hrp) && /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/.test(lower.slice(sepAt + 1))) {
    return fail(`${N} address has bech32 prefix "${hrp}"; Cardano payment addresses start with "addr1"${looksLike(address)}`);
  }
  return validateByron(address);
}

function validateShelley(address: string, hrp: string): Validation {
  if (hrp === "addr_test") return fail(`${N} address is a testnet address ("addr_test"), not a mainnet one`);
  if (hrp === "stake" || hrp === "stake_test") return fail(`${N} address is a stake (reward) address; payments go to an "addr1" address`);
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return fail(`${N} address mixes upper and lower case, which bech32 forbids`);
  const lower = address.toLowerCase();
  // Anything shorter than the 6-character checksum and one data character cannot be decoded at all.
  if (lower.length - hrp.length - 1 < 7) return fail(`${N} address is too short`);
  const decoded = bech32.decodeUnsafe(lower, BECH32_LIMIT);
  if (!decoded) {
    if (!/^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/.test(lower.slice(hrp.length + 1))) return fail(`${N} address contains characters outside the bech32 alphabet`);
    return fail(`${N} address checksum does not match`);
  }
  const bytes = bech32.fromWordsUnsafe(decoded.words);
  if (!bytes || bytes.length === 0) return fail(`${N} address has an invalid payload`);
  const type = bytes[0] >> 4;
  const networkId = bytes[0] & 0x0f;
  if (networkId !== MAINNET_ID) return fail(`${N} address carries network id ${networkId}; mainnet addresses carry ${MAINNET_ID}`);
  // Header types (CIP-19): 0-3 base (payment + stake credential, 28 bytes each), 4-5 pointer, 6-7 enterprise.
  if (type <= 3) return bytes.length === 57 ? ok(lower) : fail(`${N} base address must carry 57 bytes, not ${bytes.length}`);
  if (type === 4 || type === 5) return validPointer(bytes.subarray(29)) ? ok(lower) : fail(`${N} pointer address has a malformed pointer`);
  if (type === 6 || type === 7) return bytes.length === 29 ? ok(lower) : fail(`${N} enterprise address must carry 29 bytes, not ${bytes.length}`);
  if (type === 14 || type === 15) return fail(`${N} address has a stake (reward) header; payments go to a payment address`);
  return fail(`${N} address has unknown header type ${type}`);
}

/** A pointer is three variable-length naturals (slot, transaction index, certificate index), 7 bits per byte. */
function validPointer(bytes: Uint8Array): boolean {
  if (bytes.length < 3) return false;
  let pos = 0;
  for (let n = 0; n < 3; n++) {
    let len = 0;
    for (;;) {
      if (pos >= bytes.length || ++len > 9) return false;
      if ((bytes[pos++] & 0x80) === 0) break;
    }
  }
  return pos === bytes.length;
}

// --- Byron ---------------------------------------------------------------------------------------------

/** CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the Byron address checksum. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

type Head = { major: number; value: number; next: number };

/** Reads one CBOR item head (major type and argument); indefinite lengths and 64-bit arguments are not used by Byron. */
function head(bytes: Uint8Array, pos: number): Head | null {
  if (pos >= bytes.length) return null;
  const major = bytes[pos] >> 5;
  const info = bytes[pos] & 0x1f;
  if (info < 24) return { major, value: info, next: pos + 1 };
  const width = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : 0;
  if (width === 0 || pos + 1 + width > bytes.length) return null;
  let value = 0;
  for (let i = 1; i <= width; i++) value = value * 256 + bytes[pos + i];
  return { major, value, next: pos + 1 + width };
}

/** Reads an unsigned integer or byte string item; returns its end and, for byte strings, its content. */
function item(bytes: Uint8Array, pos: number, major: 0 | 2): { value: number; content: Uint8Array; next: number } | null {
  const h = head(bytes, pos);
  if (!h || h.major !== major) return null;
  if (major === 0) return { value: h.value, content: new Uint8Array(0), next: h.next };
  if (h.next + h.value > bytes.length) return null;
  return { value: h.value, content: bytes.subarray(h.next, h.next + h.value), next: h.next + h.value };
}

function validateByron(address: string): Validation {
  // Byron addresses run to about 130 characters; the bound keeps the quadratic base58 decode cheap.
  if (address.length < 50 || address.length > 200) return fail(`${N} address is neither a Shelley "addr1" address nor a Byron address${looksLike(address)}`);
  const raw = decodeBase58(address);
  if (!raw) return fail(`${N} address contains characters outside the base58 alphabet${looksLike(address)}`);
  // Outer structure: [ #6.24(bytes .cbor payload), crc32(payload) ]
  const outer = head(raw, 0);
  if (!outer || outer.major !== 4 || outer.value !== 2 || raw[outer.next] !== 0xd8 || raw[outer.next + 1] !== 0x18) {
    return fail(`${N} address is not a valid Byron address (malformed or altered)`);
  }
  const payload = item(raw, outer.next + 2, 2);
  const crc = payload && item(raw, payload.next, 0);
  if (!payload || !crc || crc.next !== raw.length) return fail(`${N} address is not a valid Byron address (malformed or altered)`);
  if (crc32(payload.content) !== crc.value) return fail(`${N} address checksum does not match`);
  // Payload: [ root: bytes(28), attributes: { 1: derivation path, 2: network magic }, type: 0 | 1 | 2 ]
  const inner = payload.content;
  const arr = head(inner, 0);
  const root = arr && arr.major === 4 && arr.value === 3 ? item(inner, arr.next, 2) : null;
  const attrs = root && root.content.length === 28 ? head(inner, root.next) : null;
  if (!attrs || attrs.major !== 5) return fail(`${N} address has a malformed Byron payload`);
  let pos = attrs.next;
  let magic: number | null = null;
  for (let i = 0; i < attrs.value; i++) {
    const key = item(inner, pos, 0);
    const value = key && item(inner, key.next, 2);
    if (!key || !value) return fail(`${N} address has malformed Byron attributes`);
    if (key.value === 2) {
      const m = item(value.content, 0, 0);
      if (!m) return fail(`${N} address has a malformed network tag`);
      magic = m.value;
    }
    pos = value.next;
  }
  const type = item(inner, pos, 0);
  if (!type || type.next !== inner.length || type.value > 2) return fail(`${N} address has a malformed Byron payload`);
  // Mainnet Byron addresses carry no network tag (or, rarely, mainnet's protocol magic); any other tag is a testnet.
  if (magic !== null && magic !== MAINNET_PROTOCOL_MAGIC) return fail(`${N} address is a Byron testnet address (protocol magic ${magic})`);
  return ok(address);
}
