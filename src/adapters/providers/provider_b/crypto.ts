// provider_b (CodeVASP) cryptography: Ed25519 request signatures and libsodium-compatible crypto_box payloads, pure and @noble-only.
import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { hsalsa, xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { parseJsonChecked } from "../../net/read.ts";

// PROVIDERS.md, provider_b: the private key is a 32-byte Ed25519 seed (base64), the public key the Ed25519
// verify key (base64). The same key pair both signs requests and, converted to X25519, encrypts payloads.

export const SEED_BYTES = 32;
export const PUBLIC_KEY_BYTES = 32;
export const BOX_NONCE_BYTES = 24;
export const BOX_MAC_BYTES = 16;

/** A key given either as base64 text (as configured and as sent in headers) or as raw bytes. */
export type KeyInput = string | Uint8Array;

export class ProviderBKeyError extends Error {
  override readonly name = "ProviderBKeyError";
}

// ---------------------------------------------------------------------------------------------
// base64 (RFC 4648 with padding, as CodeVASP's samples write it) over the web-standard atob/btoa.

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function bytesToBase64(bytes: Uint8Array): string {
  let bin = "";
  // Chunked so that String.fromCharCode never receives more arguments than the engine allows.
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Strict decode: null for anything that is not canonical padded base64. */
export function base64ToBytes(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function keyBytes(key: KeyInput, what: string): Uint8Array {
  const bytes = typeof key === "string" ? base64ToBytes(key.trim()) : key;
  if (!bytes || bytes.length !== 32) throw new ProviderBKeyError(`${what} must be 32 bytes in base64`);
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Keys

export interface KeyPair {
  /** The 32-byte Ed25519 seed (CodeVASP's "private key"). */
  seed: Uint8Array;
  /** The Ed25519 verify key (CodeVASP's "public key"). */
  publicKey: Uint8Array;
}

/** The key pair of a base64 seed; throws ProviderBKeyError when it is not 32 bytes of base64. */
export function keypairFromSeed(seed: KeyInput): KeyPair {
  const s = keyBytes(seed, "private key");
  return { seed: s, publicKey: ed25519.getPublicKey(s) };
}

/** The base64 public key (`X-Code-Req-PubKey`) of a seed. */
export function publicKeyBase64(seed: KeyInput): string {
  return bytesToBase64(keypairFromSeed(seed).publicKey);
}

/** A fresh random seed, base64 (sandbox VASPs and tests). */
export function randomSeedBase64(): string {
  return bytesToBase64(crypto.getRandomValues(new Uint8Array(SEED_BYTES)));
}

/** Ed25519 public key → X25519 public key (libsodium crypto_sign_ed25519_pk_to_curve25519). Throws on a non-point. */
export function toX25519Public(edPublicKey: KeyInput): Uint8Array {
  const pk = keyBytes(edPublicKey, "public key");
  try {
    return ed25519.utils.toMontgomery(pk);
  } catch {
    throw new ProviderBKeyError("public key is not an Ed25519 point");
  }
}

/** Ed25519 seed → X25519 secret (SHA-512 of the seed, clamped: libsodium crypto_sign_ed25519_sk_to_curve25519). */
export function toX25519Secret(edSeed: KeyInput): Uint8Array {
  return ed25519.utils.toMontgomerySecret(keyBytes(edSeed, "private key"));
}

// ---------------------------------------------------------------------------------------------
// crypto_box (NaCl / libsodium): X25519 shared point → HSalsa20(zero 16-byte input) → XSalsa20-Poly1305.

// "expand 32-byte k" as four little-endian words: the Salsa20 constant HSalsa20 starts from.
const SIGMA = words(new TextEncoder().encode("expand 32-byte k"));

/** Bytes → host-order words over a copy; noble's hsalsa normalises word order on big-endian hosts itself. */
function words(bytes: Uint8Array): Uint32Array {
  return new Uint32Array(new Uint8Array(bytes).buffer);
}

/** HSalsa20(key, 16-byte input) → 32-byte subkey. */
export function hsalsa20(key: Uint8Array, input: Uint8Array): Uint8Array {
  if (key.length !== 32 || input.length !== 16) throw new RangeError("hsalsa20 needs a 32-byte key and a 16-byte input");
  const out = new Uint32Array(8);
  hsalsa(SIGMA, words(key), words(input), out);
  return new Uint8Array(out.buffer);
}

/** crypto_box_beforenm: the symmetric key two parties share (nacl.box.before). */
export function cryptoBoxBeforeNm(theirX25519Public: Uint8Array, myX25519Secret: Uint8Array): Uint8Array {
  // noble refuses low-order points (an all-zero shared secret), as libsodium's crypto_box_beforenm does.
  const shared = x25519.getSharedSecret(myX25519Secret, theirX25519Public);
  return hsalsa20(shared, new Uint8Array(16));
}

/** crypto_box_easy: MAC(16) ‖ ciphertext, byte-identical to libsodium and `nacl.box`. */
export function cryptoBoxEasy(message: Uint8Array, nonce: Uint8Array, theirX25519Public: Uint8Array, myX25519Secret: Uint8Array): Uint8Array {
  if (nonce.length !== BOX_NONCE_BYTES) throw new RangeError("crypto_box nonce must be 24 bytes");
  return xsalsa20poly1305(cryptoBoxBeforeNm(theirX25519Public, myX25519Secret), nonce).encrypt(message);
}

/** crypto_box_open_easy: the message, or null when the box does not authenticate. */
export function cryptoBoxOpenEasy(box: Uint8Array, nonce: Uint8Array, theirX25519Public: Uint8Array, myX25519Secret: Uint8Array): Uint8Array | null {
  if (nonce.length !== BOX_NONCE_BYTES || box.length < BOX_MAC_BYTES) return null;
  try {
    return xsalsa20poly1305(cryptoBoxBeforeNm(theirX25519Public, myX25519Secret), nonce).decrypt(box);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Payloads: PROVIDERS.md, provider_b — only `payload` is encrypted: base64(nonce(24) ‖ crypto_box_easy(JSON)).

/**
 * Encrypts `value` (JSON) for the holder of `theirEdPublic`, from `mySeed`. `nonce` is for tests only:
 * in use it is random, as CodeVASP's samples draw it.
 */
export function sealPayload(value: unknown, theirEdPublic: KeyInput, mySeed: KeyInput, nonce?: Uint8Array): string {
  const n = nonce ?? crypto.getRandomValues(new Uint8Array(BOX_NONCE_BYTES));
  const box = cryptoBoxEasy(new TextEncoder().encode(JSON.stringify(value)), n, toX25519Public(theirEdPublic), toX25519Secret(mySeed));
  const out = new Uint8Array(n.length + box.length);
  out.set(n);
  out.set(box, n.length);
  return bytesToBase64(out);
}

/** Why a payload did not open: not base64 / too short, does not authenticate, or not JSON. */
export type OpenFailure = "ENCODING" | "DECRYPT" | "JSON";
export type OpenResult = { ok: true; value: unknown } | { ok: false; reason: OpenFailure };

/** Opens a payload sealed by the holder of `theirEdPublic` for `mySeed`. Never throws on bad input. */
export function openPayload(sealed: string, theirEdPublic: KeyInput, mySeed: KeyInput): OpenResult {
  const raw = typeof sealed === "string" ? base64ToBytes(sealed) : null;
  if (!raw || raw.length < BOX_NONCE_BYTES + BOX_MAC_BYTES) return { ok: false, reason: "ENCODING" };
  let pk: Uint8Array;
  let sk: Uint8Array;
  try {
    pk = toX25519Public(theirEdPublic);
    sk = toX25519Secret(mySeed);
  } catch {
    return { ok: false, reason: "DECRYPT" };
  }
  const plain = cryptoBoxOpenEasy(raw.subarray(BOX_NONCE_BYTES), raw.subarray(0, BOX_NONCE_BYTES), pk, sk);
  if (!plain) return { ok: false, reason: "DECRYPT" };
  try {
    return { ok: true, value: parseJsonChecked(new TextDecoder("utf-8", { fatal: true }).decode(plain)) };
  } catch {
    return { ok: false, reason: "JSON" };
  }
}

// ---------------------------------------------------------------------------------------------
// Request signatures: PROVIDERS.md, provider_b — Ed25519 over datetime (UTF-8) ‖ body bytes ‖ nonce (4-byte big-endian).

export const MAX_NONCE = 0xffff_ffff;

/** The exact bytes signed; throws RangeError when the nonce is not a uint32. */
export function signedBytes(datetime: string, body: Uint8Array, nonce: number): Uint8Array {
  if (!Number.isInteger(nonce) || nonce < 0 || nonce > MAX_NONCE) throw new RangeError("nonce must be an unsigned 32-bit integer");
  const dt = new TextEncoder().encode(datetime);
  const out = new Uint8Array(dt.length + body.length + 4);
  out.set(dt);
  out.set(body, dt.length);
  new DataView(out.buffer).setUint32(dt.length + body.length, nonce, false);
  return out;
}

/** `X-Code-Req-Signature`: base64 Ed25519 detached signature. */
export function signRequest(seed: KeyInput, datetime: string, body: Uint8Array, nonce: number): string {
  return bytesToBase64(ed25519.sign(signedBytes(datetime, body, nonce), keyBytes(seed, "private key")));
}

/** Checks `X-Code-Req-Signature` against the sender's public key; false for any malformed input. */
export function verifyRequest(publicKey: KeyInput, datetime: string, body: Uint8Array, nonce: number, signature: string): boolean {
  try {
    const sig = base64ToBytes(signature);
    if (!sig || sig.length !== 64) return false;
    // RFC 8032 strict verification (zip215: false), as libsodium's crypto_sign_verify_detached.
    return ed25519.verify(sig, signedBytes(datetime, body, nonce), keyBytes(publicKey, "public key"), { zip215: false });
  } catch {
    return false;
  }
}
