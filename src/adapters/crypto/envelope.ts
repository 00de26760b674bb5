// Encryption at rest: AES-256-GCM with a random 96-bit nonce; the associated data binds a value to its record.
import { gcm } from "@noble/ciphers/aes.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";

const VERSION = "v1";

export class Sealer {
  constructor(private readonly key: Uint8Array) {
    if (key.length !== 32) throw new Error("AES-256 needs a 32-byte key");
  }

  /** "v1:<base64(nonce || ciphertext+tag)>". `aad` names the record and field, so values cannot be swapped. */
  seal(plaintext: string, aad: string): string {
    const nonce = crypto.getRandomValues(new Uint8Array(12));
    const ct = gcm(this.key, nonce, utf8ToBytes(aad)).encrypt(utf8ToBytes(plaintext));
    const out = new Uint8Array(12 + ct.length);
    out.set(nonce);
    out.set(ct, 12);
    return `${VERSION}:${base64.encode(out)}`;
  }

  open(sealed: string, aad: string): string {
    if (!sealed.startsWith(`${VERSION}:`)) throw new UnreadableError("unknown ciphertext version");
    let raw: Uint8Array;
    try {
      raw = base64.decode(sealed.slice(VERSION.length + 1));
    } catch {
      throw new UnreadableError("ciphertext is not base64");
    }
    try {
      const pt = gcm(this.key, raw.subarray(0, 12), utf8ToBytes(aad)).decrypt(raw.subarray(12));
      return new TextDecoder().decode(pt);
    } catch {
      throw new UnreadableError("ciphertext does not authenticate (wrong key or tampered)");
    }
  }

  sealJson(value: unknown, aad: string): string {
    return this.seal(JSON.stringify(value), aad);
  }

  openJson<T>(sealed: string, aad: string): T {
    return JSON.parse(this.open(sealed, aad)) as T;
  }
}

/** Encrypted data that cannot be read: answered as 503 by the API (Part 1, status 503). */
export class UnreadableError extends Error {
  override name = "UnreadableError";
}
