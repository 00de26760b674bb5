// provider_e (Sygna Bridge) crypto on @noble: secp256k1 signatures over the JSON with an empty `signature`, and
// Sygna's own ECIES (SHA-512 split, AES-256-CBC zero IV, HMAC-SHA1 checked before decrypting). Byte-exact with the
// provider's official utility `@sygna/bridge-util` (test/adapters/provider_e-crypto.test.ts proves it both ways).
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { hmac } from "@noble/hashes/hmac.js";
import { cbc } from "@noble/ciphers/aes.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { constantTimeEqual } from "../../../domain/keys.ts";
import { parseJsonChecked } from "../../net/read.ts";

const HEX64 = /^[0-9a-fA-F]{64}$/;
const PUB130 = /^04[0-9a-fA-F]{128}$/;
const SIG128 = /^[0-9a-fA-F]{128}$/;
const ZERO_IV = new Uint8Array(16);
const utf8 = new TextEncoder();

export const isPrivateKeyHex = (k: unknown): k is string => typeof k === "string" && HEX64.test(k) && secp256k1.utils.isValidSecretKey(hexToBytes(k));
export const isPublicKeyHex = (k: unknown): k is string => {
  if (typeof k !== "string" || !PUB130.test(k)) return false;
  try {
    secp256k1.Point.fromHex(k);
    return true;
  } catch {
    return false;
  }
};

/** The uncompressed public key (130 hex starting `04`) of a 64-hex private key. */
export function publicKeyOf(privateKeyHex: string): string {
  return bytesToHex(secp256k1.getPublicKey(hexToBytes(privateKeyHex), false));
}

export function randomPrivateKey(): string {
  return bytesToHex(secp256k1.utils.randomSecretKey());
}

/** What is signed: `JSON.stringify` of the object with `signature` set to "" (kept in place if present, else last). */
export function signedText(obj: Record<string, unknown>): string {
  return JSON.stringify({ ...obj, signature: "" });
}

/** secp256k1 ECDSA over SHA-256 of the UTF-8 text: 64-byte compact r‖s, hex (RFC 6979, low S, like the utility). */
export function signText(text: string, privateKeyHex: string): string {
  return bytesToHex(secp256k1.sign(sha256(utf8.encode(text)), hexToBytes(privateKeyHex), { prehash: false }));
}

export function verifyText(text: string, signatureHex: string, publicKeyHex: string): boolean {
  if (!SIG128.test(signatureHex) || !PUB130.test(publicKeyHex)) return false;
  try {
    // The utility normalises S before verifying: a high-S signature of the same r,s verifies too.
    return secp256k1.verify(hexToBytes(signatureHex), sha256(utf8.encode(text)), hexToBytes(publicKeyHex), { prehash: false, lowS: false });
  } catch {
    return false;
  }
}

/** The object with its `signature` (Sygna `signObject`): key order matters, the verifier re-serialises the same way. */
export function signObject<T extends Record<string, unknown>>(obj: T, privateKeyHex: string): T & { signature: string } {
  const signature = signText(signedText(obj), privateKeyHex);
  return { ...obj, signature };
}

/** Sygna `verifyObject`: the object re-serialised with an empty signature, verified with the key. */
export function verifyObject(obj: unknown, publicKeyHex: string): boolean {
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) return false;
  const sig = (obj as Record<string, unknown>).signature;
  if (typeof sig !== "string") return false;
  return verifyText(signedText(obj as Record<string, unknown>), sig, publicKeyHex);
}

function keys(shared: Uint8Array): { encKey: Uint8Array; macKey: Uint8Array } {
  const h = sha512(shared);
  return { encKey: h.slice(0, 32), macKey: h.slice(32, 64) };
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** The ECDH x-coordinate (32 bytes), as node's `ECDH.computeSecret` gives it. */
export function ecdhSecret(privateKeyHex: string | Uint8Array, publicKey: string | Uint8Array): Uint8Array {
  const priv = typeof privateKeyHex === "string" ? hexToBytes(privateKeyHex) : privateKeyHex;
  const pub = typeof publicKey === "string" ? hexToBytes(publicKey) : publicKey;
  return secp256k1.getSharedSecret(priv, pub, true).slice(1);
}

/**
 * Sygna ECIES encrypt: hex of `ephemeralPub(65) ‖ HMAC-SHA1(macKey, zeroIV ‖ ephemeralPub ‖ ct)(20) ‖ ct`.
 * `ephemeralPrivateKeyHex` only for known-answer tests.
 */
export function eciesEncrypt(plaintext: string, recipientPublicKeyHex: string, ephemeralPrivateKeyHex?: string): string {
  const eph = ephemeralPrivateKeyHex ? hexToBytes(ephemeralPrivateKeyHex) : secp256k1.utils.randomSecretKey();
  const ephPub = secp256k1.getPublicKey(eph, false);
  const { encKey, macKey } = keys(ecdhSecret(eph, recipientPublicKeyHex));
  const ct = cbc(encKey, ZERO_IV).encrypt(utf8.encode(plaintext));
  const mac = hmac(sha1, macKey, concat(ZERO_IV, ephPub, ct));
  return bytesToHex(concat(ephPub, mac, ct));
}

/** Sygna ECIES decrypt: the MAC is checked before decrypting; null when anything does not fit. */
export function eciesDecrypt(hex: string, privateKeyHex: string): string | null {
  if (typeof hex !== "string" || hex.length < 2 * (65 + 20 + 16) || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  try {
    const bytes = hexToBytes(hex);
    const ephPub = bytes.slice(0, 65);
    const mac = bytes.slice(65, 85);
    const ct = bytes.slice(85);
    if (ct.length % 16 !== 0) return null;
    const { encKey, macKey } = keys(ecdhSecret(privateKeyHex, ephPub));
    const expected = hmac(sha1, macKey, concat(ZERO_IV, ephPub, ct));
    if (!constantTimeEqual(bytesToHex(expected), bytesToHex(mac))) return null;
    return new TextDecoder("utf-8", { fatal: true }).decode(cbc(encKey, ZERO_IV).decrypt(ct));
  } catch {
    return null;
  }
}

/** Encrypts an object as its JSON text (Sygna `encryptPrivateObj`). */
export const encryptObject = (obj: unknown, publicKeyHex: string): string => eciesEncrypt(JSON.stringify(obj), publicKeyHex);

/** Decrypts and parses (Sygna `decryptPrivateObj`); null when it does not decrypt or is not JSON. */
export function decryptObject(hex: string, privateKeyHex: string): unknown | null {
  const text = eciesDecrypt(hex, privateKeyHex);
  if (text === null) return null;
  try {
    return parseJsonChecked(text);
  } catch {
    return null;
  }
}
