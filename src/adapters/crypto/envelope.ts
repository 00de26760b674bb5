// Encryption at rest: AES-256-GCM with a random 96-bit nonce; the associated data binds a value to its record.
// The cipher is the runtime's native one (`node:crypto`, present in Bun and Deno) with the key imported once per
// Sealer (its key schedule is cached in the KeyObject); @noble's pure-JS GCM is the fallback where there is no
// native primitive. Both write and read the same bytes: "v1:" + base64(nonce(12) || ciphertext || tag(16)).
// A Sealer made with `compress` (personal data) seals a JSON document (text opening with "{" or "[") compressed:
// "v2:" + the same layout, the plaintext being deflate-raw with the preset dictionary below. Both versions open.
import * as nodeCrypto from "node:crypto";
import { gcm } from "@noble/ciphers/aes.js";
import { base64 } from "@scure/base";
import { presetDeflate } from "../deflate.ts";

const VERSION = "v1";
const PREFIX = `${VERSION}:`;
/** Compressed plaintext: deflate-raw (RFC 1951) with DICTIONARY and a 1 KiB window. */
const PREFIX_V2 = "v2:";
/**
 * The preset dictionary of "v2:" values: the keys and fixed words of IVMS101 persons and of the other JSON documents
 * sealed as personal data. It is public and fixed: a value sealed with it can only be opened with these exact bytes,
 * so it must never change (a new dictionary takes a new version prefix).
 */
const DICTIONARY = new TextEncoder().encode(
  '{"legalPerson":{"name":{"nameIdentifier":[{"legalPersonName":"","legalPersonNameIdentifierType":"LEGL"}]},"nationalIdentification":{"nationalIdentifier":"","nationalIdentifierType":"LEIX","registrationAuthority":""}},' +
    '"geographicAddress":[{"addressType":"HOME","streetName":"","buildingNumber":"","postCode":"","townName":"","countrySubDivision":"","addressLine":[""],"country":""}],' +
    '"customerIdentification":"","dateAndPlaceOfBirth":{"dateOfBirth":"","placeOfBirth":""},"accountNumber":[""],' +
    '{"naturalPerson":{"name":{"nameIdentifier":[{"primaryIdentifier":"","secondaryIdentifier":"","nameIdentifierType":"LEGL"}],"localNameIdentifier":[],"phoneticNameIdentifier":[]},' +
    '"nationalIdentification":{"nationalIdentifier":"","nationalIdentifierType":"CCPT","countryOfIssue":""},"countryOfResidence":""}}]',
);
/** Prefixed to a v2 value's associated data: the version is authenticated, so a changed prefix does not open. */
const V2_AAD = "v2\u0000";
/** deflate-raw with DICTIONARY and a 1 KiB window; inflated the same way on every runtime (src/adapters/deflate.ts). */
const V2 = presetDeflate(DICTIONARY, {
  windowBits: 10,
  memLevel: 4,
  level: 6,
  probe: '[{"naturalPerson":{"name":{"nameIdentifier":[{"primaryIdentifier":"Probe","nameIdentifierType":"LEGL"}]}}}]',
});

/** Shorter JSON gains nothing from compression (the dictionary already covers IVMS101's keys at 40 bytes and up). */
const MIN_COMPRESS = 40;
const NONCE = 12;
const TAG = 16;

/** One AES-256-GCM implementation: seal returns nonce || ciphertext || tag, open takes the same. */
interface Gcm {
  seal(nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array;
  /** Throws when the tag does not authenticate. */
  open(nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Uint8Array;
}

/** @noble/ciphers: the reference the native path must match byte for byte (tests use it both ways). */
export function nobleGcm(key: Uint8Array): Gcm {
  return {
    seal(nonce, plaintext, aad) {
      const ct = gcm(key, nonce, aad).encrypt(plaintext);
      const out = new Uint8Array(NONCE + ct.length);
      out.set(nonce);
      out.set(ct, NONCE);
      return out;
    },
    open(nonce, sealed, aad) {
      return gcm(key, nonce, aad).decrypt(sealed);
    },
  };
}

/** node:crypto AES-256-GCM, or undefined when the runtime has no such native cipher. */
export function nativeGcm(key: Uint8Array): Gcm | undefined {
  const c = nodeCrypto as Partial<typeof nodeCrypto>;
  if (typeof c.createCipheriv !== "function" || typeof c.createDecipheriv !== "function" || typeof c.createSecretKey !== "function") return undefined;
  let keyObject: nodeCrypto.KeyObject;
  try {
    keyObject = c.createSecretKey(key);
    // A probe: some runtimes expose the functions but not the algorithm.
    const probe = c.createCipheriv("aes-256-gcm", keyObject, new Uint8Array(NONCE));
    probe.update(new Uint8Array(1));
    probe.final();
    probe.getAuthTag();
  } catch {
    return undefined;
  }
  return {
    seal(nonce, plaintext, aad) {
      const cipher = c.createCipheriv!("aes-256-gcm", keyObject, nonce);
      cipher.setAAD(aad);
      const body = cipher.update(plaintext);
      const tail = cipher.final();
      const tag = cipher.getAuthTag();
      const out = new Uint8Array(NONCE + body.length + tail.length + TAG);
      out.set(nonce);
      out.set(body, NONCE);
      if (tail.length) out.set(tail, NONCE + body.length);
      out.set(tag, NONCE + body.length + tail.length);
      return out;
    },
    open(nonce, sealed, aad) {
      if (sealed.length < TAG) throw new Error("too short");
      const decipher = c.createDecipheriv!("aes-256-gcm", keyObject, nonce, { authTagLength: TAG });
      decipher.setAAD(aad);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
      const body = decipher.update(sealed.subarray(0, sealed.length - TAG));
      const tail = decipher.final(); // throws when the tag does not authenticate
      if (!tail.length) return body;
      const out = new Uint8Array(body.length + tail.length);
      out.set(body);
      out.set(tail, body.length);
      return out;
    },
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface SealerOptions {
  /**
   * Seal JSON documents (text opening with "{" or "[", 40 bytes and longer) compressed, as "v2:" values; other text,
   * such as a name or a key in hex, stays "v1:". Only for values each written whole by one party (personal data):
   * see docs/performance.md ("Compression before sealing").
   */
  compress?: boolean;
}

export class Sealer {
  private readonly gcm: Gcm;
  private readonly compress: boolean;

  /** `impl` "noble" forces the pure-JS cipher (tests compare the two); the default is native when available. */
  constructor(key: Uint8Array, impl: "auto" | "noble" = "auto", opts: SealerOptions = {}) {
    if (key.length !== 32) throw new Error("AES-256 needs a 32-byte key");
    const copy = Uint8Array.from(key);
    this.gcm = (impl === "auto" ? nativeGcm(copy) : undefined) ?? nobleGcm(copy);
    this.compress = opts.compress === true;
  }

  /**
   * "v1:<base64(nonce || ciphertext+tag)>", or "v2:" with the same layout over the compressed plaintext (a Sealer
   * made with `compress`, a JSON document). `aad` names the record and field, so values cannot be swapped.
   */
  seal(plaintext: string, aad: string): string {
    const nonce = crypto.getRandomValues(new Uint8Array(NONCE));
    const first = plaintext.charCodeAt(0);
    if (this.compress && plaintext.length >= MIN_COMPRESS && (first === 0x7b || first === 0x5b)) {
      const packed = V2.deflate(encoder.encode(plaintext));
      return PREFIX_V2 + base64.encode(this.gcm.seal(nonce, packed, encoder.encode(V2_AAD + aad)));
    }
    return PREFIX + base64.encode(this.gcm.seal(nonce, encoder.encode(plaintext), encoder.encode(aad)));
  }

  open(sealed: string, aad: string): string {
    const v2 = sealed.startsWith(PREFIX_V2);
    if (!v2 && !sealed.startsWith(PREFIX)) throw new UnreadableError("unknown ciphertext version");
    let raw: Uint8Array;
    try {
      raw = base64.decode(sealed.slice(PREFIX.length));
    } catch {
      throw new UnreadableError("ciphertext is not base64");
    }
    let plain: Uint8Array;
    try {
      if (raw.length < NONCE + TAG) throw new Error("too short");
      plain = this.gcm.open(raw.subarray(0, NONCE), raw.subarray(NONCE), encoder.encode(v2 ? V2_AAD + aad : aad));
    } catch {
      throw new UnreadableError("ciphertext does not authenticate (wrong key or tampered)");
    }
    if (!v2) return decoder.decode(plain);
    try {
      return decoder.decode(V2.inflate(plain));
    } catch {
      throw new UnreadableError("compressed plaintext does not inflate");
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
