// BIP-137 Bitcoin signed messages: the magic hash, the header byte, and the addresses a signature recovers to.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64, bech32, createBase58check } from "@scure/base";

const b58check = createBase58check(sha256);

export type BitcoinAddressType = "p2pkh" | "p2sh-p2wpkh" | "p2wpkh";

/** Bitcoin's CompactSize integer. */
export function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  if (n <= 0xffffffff) return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
  throw new Error("message too long");
}

/** SHA-256d of "\x18Bitcoin Signed Message:\n" + varint(length) + message. */
export function bitcoinMessageHash(message: string | Uint8Array): Uint8Array {
  const bytes = typeof message === "string" ? utf8ToBytes(message) : message;
  const magic = utf8ToBytes("Bitcoin Signed Message:\n");
  return sha256(sha256(concatBytes(varint(magic.length), magic, varint(bytes.length), bytes)));
}

export interface Bip137Signature {
  header: number;
  recovery: number;
  compressed: boolean;
  /** The address type the header declares. */
  type: BitcoinAddressType;
  compact: Uint8Array;
}

/** Header 27-30: P2PKH uncompressed; 31-34: P2PKH compressed; 35-38: P2SH-P2WPKH; 39-42: P2WPKH (BIP-137). */
export function decodeHeader(header: number): { recovery: number; compressed: boolean; type: BitcoinAddressType } | null {
  if (header < 27 || header > 42) return null;
  const recovery = (header - 27) & 3;
  if (header < 31) return { recovery, compressed: false, type: "p2pkh" };
  if (header < 35) return { recovery, compressed: true, type: "p2pkh" };
  if (header < 39) return { recovery, compressed: true, type: "p2sh-p2wpkh" };
  return { recovery, compressed: true, type: "p2wpkh" };
}

/** Base64 of header || r || s, as Bitcoin Core, Electrum, Sparrow and hardware wallets print it. */
export function parseBip137Signature(text: string): Bip137Signature | { error: string } {
  let bytes: Uint8Array;
  const t = text.trim();
  try {
    // Some tools print the base64 without its "=" padding.
    bytes = base64.decode(t + "=".repeat((4 - (t.length % 4)) % 4));
  } catch {
    return { error: "a Bitcoin message signature is base64 (65 bytes: a header byte, r and s), as wallets print it" };
  }
  if (bytes.length !== 65) return { error: `a Bitcoin message signature is 65 bytes, not ${bytes.length}` };
  const h = decodeHeader(bytes[0]);
  if (!h) return { error: `the signature's header byte ${bytes[0]} is not a BIP-137 header (27 to 42)` };
  return { header: bytes[0], ...h, compact: bytes.subarray(1) };
}

const hash160 = (b: Uint8Array) => ripemd160(sha256(b));

export function p2pkhAddress(publicKey: Uint8Array): string {
  return b58check.encode(concatBytes(Uint8Array.of(0x00), hash160(publicKey)));
}

export function p2shP2wpkhAddress(compressedKey: Uint8Array): string {
  const redeem = concatBytes(Uint8Array.of(0x00, 0x14), hash160(compressedKey));
  return b58check.encode(concatBytes(Uint8Array.of(0x05), hash160(redeem)));
}

export function p2wpkhAddress(compressedKey: Uint8Array): string {
  return bech32.encode("bc", [0, ...bech32.toWords(hash160(compressedKey))]);
}

/** The address of `type` for the key. */
export function bitcoinAddressOf(type: BitcoinAddressType, publicKey: Uint8Array): string {
  if (type === "p2pkh") return p2pkhAddress(publicKey);
  return type === "p2sh-p2wpkh" ? p2shP2wpkhAddress(publicKey) : p2wpkhAddress(publicKey);
}

/**
 * Addresses the signature proves, the header's own type first. A compressed P2PKH header (31-34) also proves the
 * key's segwit addresses: Electrum and several hardware wallets sign segwit addresses with that header, since
 * BIP-137's segwit headers came later (bitcoinjs-message's `checkSegwitAlways`). Empty when nothing recovers.
 */
export function recoverBitcoinAddresses(sig: Bip137Signature, message: string | Uint8Array): string[] {
  let point;
  try {
    point = secp256k1.Signature.fromBytes(sig.compact, "compact").addRecoveryBit(sig.recovery).recoverPublicKey(bitcoinMessageHash(message));
  } catch {
    return [];
  }
  const key = point.toBytes(sig.compressed);
  if (!sig.compressed) return [p2pkhAddress(key)];
  const own = bitcoinAddressOf(sig.type, key);
  return sig.type === "p2pkh" ? [own, p2shP2wpkhAddress(key), p2wpkhAddress(key)] : [own];
}
