// The sandbox CodeVASP network's own cryptography, on tweetnacl and ed2curve (NaCl, as interoperable with the libsodium CodeVASP's samples use):
// Ed25519 request signatures over datetime ‖ body ‖ nonce, and crypto_box payloads written as base64(nonce ‖ box).
import nacl from "tweetnacl";
// @ts-expect-error ed2curve ships no type declarations
import ed2curveUntyped from "ed2curve";

const ed2curve = ed2curveUntyped as {
  convertPublicKey(pk: Uint8Array): Uint8Array | null;
  convertSecretKey(sk: Uint8Array): Uint8Array;
};

// CodeVASP's keys (Dev 02, "Key Pair"): the private key is the 32-byte Ed25519 signing seed, the public key the
// 32-byte verify key, both base64. The box keys are the same pair converted to Curve25519.

export function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Strict: only padded standard base64 reads (what every CodeVASP sample writes); null otherwise. */
export function fromBase64(text: string): Uint8Array | null {
  if (typeof text !== "string" || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return null;
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function seedBytes(seedBase64: string): Uint8Array {
  const seed = fromBase64(seedBase64);
  if (!seed || seed.length !== nacl.sign.seedLength) throw new Error("a CodeVASP private key is a 32-byte Ed25519 seed in base64");
  return seed;
}

/** A fresh member key: its base64 seed. */
export function newSeedBase64(): string {
  return toBase64(nacl.randomBytes(nacl.sign.seedLength));
}

/** The verify key (`X-Code-Req-PubKey`) of a base64 seed. */
export function publicKeyOf(seedBase64: string): string {
  return toBase64(nacl.sign.keyPair.fromSeed(seedBytes(seedBase64)).publicKey);
}

/** Datetime (UTF-8) ‖ body bytes ‖ nonce as four big-endian bytes: what `X-Code-Req-Signature` signs (Dev 02 §8, the Go sample's ToBytes). */
export function signedMessage(datetime: string, body: Uint8Array, nonce: number): Uint8Array {
  const dt = new TextEncoder().encode(datetime);
  const out = new Uint8Array(dt.length + body.length + 4);
  out.set(dt, 0);
  out.set(body, dt.length);
  const at = dt.length + body.length;
  out[at] = (nonce >>> 24) & 0xff;
  out[at + 1] = (nonce >>> 16) & 0xff;
  out[at + 2] = (nonce >>> 8) & 0xff;
  out[at + 3] = nonce & 0xff;
  return out;
}

export function sign(seedBase64: string, datetime: string, body: Uint8Array, nonce: number): string {
  const { secretKey } = nacl.sign.keyPair.fromSeed(seedBytes(seedBase64));
  return toBase64(nacl.sign.detached(signedMessage(datetime, body, nonce), secretKey));
}

export function verify(publicKeyBase64: string, datetime: string, body: Uint8Array, nonce: number, signatureBase64: string): boolean {
  const pk = fromBase64(publicKeyBase64);
  const sig = fromBase64(signatureBase64);
  if (!pk || pk.length !== nacl.sign.publicKeyLength || !sig || sig.length !== nacl.sign.signatureLength) return false;
  return nacl.sign.detached.verify(signedMessage(datetime, body, nonce), sig, pk);
}

function boxKeys(theirPublicBase64: string, mySeedBase64: string): { pk: Uint8Array; sk: Uint8Array } | null {
  const edPublic = fromBase64(theirPublicBase64);
  if (!edPublic || edPublic.length !== nacl.sign.publicKeyLength) return null;
  const pk = ed2curve.convertPublicKey(edPublic);
  if (!pk) return null;
  return { pk, sk: ed2curve.convertSecretKey(nacl.sign.keyPair.fromSeed(seedBytes(mySeedBase64)).secretKey) };
}

/** Seals `{"ivms101": …}` for the holder of `theirPublicBase64`: base64(nonce(24) ‖ crypto_box), as the Go sample's `box.Seal(nonce, …)`. */
export function seal(value: unknown, theirPublicBase64: string, mySeedBase64: string): string {
  const keys = boxKeys(theirPublicBase64, mySeedBase64);
  if (!keys) throw new Error("the receiver's public key is not an Ed25519 point");
  const nonce = nacl.randomBytes(nacl.box.nonceLength);
  const box = nacl.box(new TextEncoder().encode(JSON.stringify(value)), nonce, keys.pk, keys.sk);
  const out = new Uint8Array(nonce.length + box.length);
  out.set(nonce, 0);
  out.set(box, nonce.length);
  return toBase64(out);
}

export type Opened = { ok: true; value: unknown } | { ok: false; reason: "ENCODING" | "DECRYPT" | "JSON" };

/** Opens a payload sealed by the holder of `theirPublicBase64` for `mySeedBase64`; never throws on bad input. */
export function open(sealed: string, theirPublicBase64: string, mySeedBase64: string): Opened {
  const raw = fromBase64(sealed);
  if (!raw || raw.length < nacl.box.nonceLength + nacl.box.overheadLength) return { ok: false, reason: "ENCODING" };
  const keys = boxKeys(theirPublicBase64, mySeedBase64);
  if (!keys) return { ok: false, reason: "DECRYPT" };
  const plain = nacl.box.open(raw.subarray(nacl.box.nonceLength), raw.subarray(0, nacl.box.nonceLength), keys.pk, keys.sk);
  if (!plain) return { ok: false, reason: "DECRYPT" };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(plain)) };
  } catch {
    return { ok: false, reason: "JSON" };
  }
}
