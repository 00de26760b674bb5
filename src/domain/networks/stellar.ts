// Stellar StrKey account IDs ("G…") and muxed accounts ("M…"), per SEP-23: base32 with a CRC16-XModem checksum.
import { base32nopad } from "@scure/base";
import { type Validation, fail, ok } from "./common.ts";

const N = "stellar";

const ED25519_ACCOUNT = 6 << 3; // "G"
const MUXED_ACCOUNT = 12 << 3; // "M"
const G_LENGTH = 56; // base32 of 1 + 32 + 2 bytes
const M_LENGTH = 69; // base32 of 1 + 32 + 8 + 2 bytes

// Other StrKey kinds, so that pasting one of them gets a precise refusal.
const OTHER_KINDS: Readonly<Record<string, string>> = {
  S: "a secret seed, not an address; it must never be shared",
  C: "a contract ID, not an account",
  T: "a pre-authorized transaction hash, not an account",
  X: "a hash-x signer, not an account",
  P: "a signed-payload signer, not an account",
  L: "a liquidity pool ID, not an account",
  B: "a claimable balance ID, not an account",
};

/** CRC16-XModem (polynomial 0x1021, initial value 0, no reflection), the StrKey checksum. */
export function crc16xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** Encodes a StrKey (used by the tests to build vectors from key bytes). */
export function encodeStrKey(versionByte: number, payload: Uint8Array): string {
  const body = Uint8Array.of(versionByte, ...payload);
  const crc = crc16xmodem(body);
  return base32nopad.encode(Uint8Array.of(...body, crc & 0xff, crc >> 8));
}

export function validateStellar(address: string): Validation {
  if (address.includes("=")) return fail(`${N} address must not carry base32 padding`);
  if (!/^[A-Z2-7]+$/.test(address)) {
    return fail(/^[A-Za-z2-7]+$/.test(address) ? `${N} address must be upper case` : `${N} address contains characters outside the base32 alphabet`);
  }
  const kind = address[0];
  if (kind !== "G" && kind !== "M") {
    const other = OTHER_KINDS[kind];
    return fail(other ? `${N} value is ${other}` : `${N} address must start with "G" (account) or "M" (muxed account)`);
  }
  const expected = kind === "G" ? G_LENGTH : M_LENGTH;
  if (address.length !== expected) return fail(`${N} ${kind === "G" ? "account" : "muxed account"} must be ${expected} characters, not ${address.length}`);
  let bytes: Uint8Array;
  try {
    // The decoder rejects non-zero trailing bits, which SEP-23 requires so that each key has one spelling.
    bytes = base32nopad.decode(address);
  } catch {
    return fail(`${N} address is not canonical base32 (its unused trailing bits must be zero)`);
  }
  const body = bytes.subarray(0, -2);
  const crc = crc16xmodem(body);
  // The checksum is stored little-endian.
  if ((crc & 0xff) !== bytes[bytes.length - 2] || crc >> 8 !== bytes[bytes.length - 1]) return fail(`${N} address checksum does not match`);
  const version = body[0];
  // The low three bits name the key algorithm; only ed25519 (0) exists.
  if (version !== (kind === "G" ? ED25519_ACCOUNT : MUXED_ACCOUNT)) return fail(`${N} address has an unknown version byte`);
  // Decision: muxed accounts are accepted (they are real payment destinations); their embedded ID takes the
  // place of a memo, so validateDestination refuses a memo next to one.
  return ok(address);
}
