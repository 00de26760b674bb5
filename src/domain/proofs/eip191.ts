// EIP-191 personal_sign (version 0x45): the message hash wallets sign, and the address a signature recovers to.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";

/** keccak256("\x19Ethereum Signed Message:\n" + byte length in decimal + message). */
export function personalMessageHash(message: string | Uint8Array): Uint8Array {
  const bytes = typeof message === "string" ? utf8ToBytes(message) : message;
  return keccak_256(concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${bytes.length}`), bytes));
}

/** The lower-case 0x address of an uncompressed (65-byte) or compressed public key. */
export function evmAddressOf(publicKey: Uint8Array): string {
  const full = publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return `0x${bytesToHex(keccak_256(full.subarray(1)).subarray(12))}`;
}

export interface EvmSignature {
  /** r || s, 64 bytes. */
  compact: Uint8Array;
  recovery: number;
}

/** r || s || v as 65 bytes of hex (0x optional). v is 27/28, or 0/1 as some hardware wallets return it. */
export function parseEvmSignature(text: string): EvmSignature | { error: string } {
  const hex = text.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length !== 130)
    return { error: "an EVM signature is 65 bytes as hex (r, s, v: 130 hex digits, 0x optional), as personal_sign returns it" };
  const bytes = hexToBytes(hex.toLowerCase());
  const v = bytes[64];
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return { error: `the signature's v byte is ${v}; personal_sign gives 27 or 28 (or 0 or 1)` };
  return { compact: bytes.subarray(0, 64), recovery };
}

/** The signer's lower-case address, or null when no key can have made the signature (r or s out of range). */
export function recoverEvmSigner(sig: EvmSignature, message: string | Uint8Array): string | null {
  try {
    const s = secp256k1.Signature.fromBytes(sig.compact, "compact").addRecoveryBit(sig.recovery);
    return evmAddressOf(s.recoverPublicKey(personalMessageHash(message)).toBytes(false));
  } catch {
    return null;
  }
}
