// Encryption at rest: AES-256-GCM with a random 96-bit nonce; the associated data binds a value to its record.
// The cipher is the runtime's native one (`node:crypto`, present in Bun and Deno) with the key imported once per
// Sealer (its key schedule is cached in the KeyObject); @noble's pure-JS GCM is the fallback where there is no
// native primitive. Both write and read the same bytes: "v1:" + base64(nonce(12) || ciphertext || tag(16)).
// A Sealer made with `compress` (personal data) seals a JSON document (text opening with "{" or "[") compressed:
// "v2:" + the same layout, the plaintext being deflate-raw with the preset dictionary below. Both versions open.
import * as nodeCrypto from "node:crypto";
import { constants as zlibConstants, createDeflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";
import { gcm } from "@noble/ciphers/aes.js";
import { base64 } from "@scure/base";

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
const ZLIB = { dictionary: DICTIONARY, windowBits: 10, memLevel: 4, level: 6 } as const;
/**
 * How a v2 value is inflated on every runtime: the dictionary as one stored (uncompressed, non-final) deflate block,
 * then the value's own stream, then the dictionary's bytes dropped from the output. A stream written with the preset
 * dictionary refers back into those bytes exactly as into a preset dictionary; a stream written without it (Deno's
 * node:zlib ignores `dictionary` for raw deflate, so a value sealed under Deno is just less compressed) never does.
 * So values are read the same whichever runtime wrote them, without relying on `dictionary` when inflating.
 */
const STORED_DICTIONARY = (() => {
  const n = DICTIONARY.length;
  const block = new Uint8Array(5 + n);
  block.set([0x00, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff]); // BFINAL 0, BTYPE 00; LEN, NLEN little-endian
  block.set(DICTIONARY, 5);
  return block;
})();

function inflateV2(packed: Uint8Array): Uint8Array {
  const stream = new Uint8Array(STORED_DICTIONARY.length + packed.length);
  stream.set(STORED_DICTIONARY);
  stream.set(packed, STORED_DICTIONARY.length);
  const out = inflateRawSync(stream);
  if (out.length < DICTIONARY.length) throw new Error("short stream");
  return out.subarray(DICTIONARY.length);
}
/**
 * deflate-raw with ZLIB, the same bytes as `deflateRawSync(text, ZLIB)`. `deflateRawSync` builds and frees a whole
 * zlib stream (its window and hash tables) per call, which was most of a person list's sealing cost (~10 µs of ~12).
 * Where the runtime's node:zlib exposes its native stream handle synchronously (Bun), one stream is kept and reset
 * before each value (reset keeps the preset dictionary): ~4 µs. The reused path is checked once against
 * `deflateRawSync` and used only if it writes the same bytes; a value too long for its output buffer, and every value
 * on a runtime without that handle (Deno), take `deflateRawSync`. Synchronous, so no two values ever share the stream.
 */
const deflateV2 = (() => {
  const plain = (text: Uint8Array): Uint8Array => deflateRawSync(text, ZLIB);
  try {
    const stream = createDeflateRaw(ZLIB) as unknown as {
      _handle?: { reset(): void; writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void };
      _writeState?: Uint32Array | number[];
    };
    const handle = stream._handle;
    const state = stream._writeState;
    if (!handle || typeof handle.reset !== "function" || typeof handle.writeSync !== "function" || !state) return plain;
    const out = new Uint8Array(16 * 1024);
    const reused = (text: Uint8Array): Uint8Array => {
      try {
        handle.reset();
        handle.writeSync(zlibConstants.Z_FINISH, text, 0, text.length, out, 0, out.length);
      } catch {
        return plain(text);
      }
      const [availOut, availIn] = [state[0], state[1]];
      // Output full or input left over: the stream did not finish in the buffer; this value takes the plain path.
      if (availIn !== 0 || availOut === 0) return plain(text);
      return out.slice(0, out.length - availOut);
    };
    const probe = new TextEncoder().encode('[{"naturalPerson":{"name":{"nameIdentifier":[{"primaryIdentifier":"Probe","nameIdentifierType":"LEGL"}]}}}]');
    for (let i = 0; i < 2; i++) {
      const a = reused(probe);
      const b = plain(probe);
      if (a.length !== b.length || a.some((x, j) => x !== b[j])) return plain;
    }
    return reused;
  } catch {
    return plain;
  }
})();

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
      const packed = deflateV2(encoder.encode(plaintext));
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
      return decoder.decode(inflateV2(plain));
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
