// Personal data is compressed before it is sealed ("v2:" values); "v1:" values written before still open.
import { describe, expect, test } from "bun:test";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { gcm } from "@noble/ciphers/aes.js";
import { base64 } from "@scure/base";
import { Sealer, UnreadableError } from "../../src/adapters/crypto/envelope.ts";

const key = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const persons = JSON.stringify([
  { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } },
]);

describe("compressed sealing (personal data)", () => {
  test("a JSON document seals as a shorter v2 value and opens to the same text, with either cipher", () => {
    const compress = new Sealer(key, "auto", { compress: true });
    const plain = new Sealer(key);
    const v2 = compress.seal(persons, "transfer:t1:originator");
    const v1 = plain.seal(persons, "transfer:t1:originator");
    expect(v2.startsWith("v2:")).toBe(true);
    expect(v1.startsWith("v1:")).toBe(true);
    expect(v2.length).toBeLessThan(v1.length / 2);
    expect(compress.open(v2, "transfer:t1:originator")).toBe(persons);
    // Any Sealer of the same key opens both versions (old rows stay readable; the reader needs no option).
    expect(plain.open(v2, "transfer:t1:originator")).toBe(persons);
    expect(compress.open(v1, "transfer:t1:originator")).toBe(persons);
    expect(new Sealer(key, "noble").open(v2, "transfer:t1:originator")).toBe(persons);
  });

  test("the v2 layout: nonce, AES-256-GCM (associated data prefixed v2 and NUL) over deflate-raw with the fixed dictionary, tag", () => {
    const sealed = new Sealer(key, "auto", { compress: true }).seal(persons, "aad");
    const raw = base64.decode(sealed.slice(3));
    const packed = gcm(key, raw.subarray(0, 12), new TextEncoder().encode("v2\u0000aad")).decrypt(raw.subarray(12));
    expect(packed.length).toBeLessThan(persons.length / 3);
    // Without the dictionary the stream does not inflate to the text: the dictionary is part of the format.
    let withoutDictionary: string | undefined;
    try {
      withoutDictionary = inflateRawSync(packed, { windowBits: 10 }).toString();
    } catch {
      withoutDictionary = undefined;
    }
    expect(withoutDictionary).not.toBe(persons);
  });

  test("a v2 value whose stream does not use the dictionary (as Deno's node:zlib writes it) opens too", () => {
    // Deno ignores `dictionary` for raw deflate: its v2 values are plain deflate streams. Sealed here by hand.
    const plainStream = deflateRawSync(new TextEncoder().encode(persons));
    const nonce = new Uint8Array(12).fill(5);
    const ct = gcm(key, nonce, new TextEncoder().encode("v2\u0000aad")).encrypt(plainStream);
    const raw = new Uint8Array(12 + ct.length);
    raw.set(nonce);
    raw.set(ct, 12);
    expect(new Sealer(key).open(`v2:${base64.encode(raw)}`, "aad")).toBe(persons);
  });

  test("only JSON documents of 40 bytes and more are compressed: names and keys stay v1", () => {
    const s = new Sealer(key, "auto", { compress: true });
    expect(s.seal("Jane Doe", "customer:c1:name").startsWith("v1:")).toBe(true);
    expect(s.seal("ab".repeat(32), "customer:c1:private_key").startsWith("v1:")).toBe(true);
    expect(s.seal('{"a":1}', "x").startsWith("v1:")).toBe(true);
    const long = JSON.stringify({ note: "x".repeat(2000) });
    const sealed = s.seal(long, "x");
    expect(sealed.startsWith("v2:")).toBe(true);
    expect(s.open(sealed, "x")).toBe(long);
  });

  test("a v2 value bound to another record, or tampered, is refused as unreadable", () => {
    const s = new Sealer(key, "auto", { compress: true });
    const sealed = s.seal(persons, "transfer:t1:originator");
    expect(() => s.open(sealed, "transfer:t2:originator")).toThrow(UnreadableError);
    // The version is authenticated: the same bytes under the other prefix do not open either way.
    expect(() => s.open(`v1:${sealed.slice(3)}`, "transfer:t1:originator")).toThrow(UnreadableError);
    const v1 = new Sealer(key).seal(persons, "transfer:t1:originator");
    expect(() => s.open(`v2:${v1.slice(3)}`, "transfer:t1:originator")).toThrow(UnreadableError);
    const other = new Sealer(Uint8Array.from({ length: 32 }, () => 9), "auto", { compress: true });
    expect(() => other.open(sealed, "transfer:t1:originator")).toThrow(UnreadableError);
  });

  test("unicode and long documents round-trip", () => {
    const s = new Sealer(key, "auto", { compress: true });
    const doc = JSON.stringify([{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "山田", secondaryIdentifier: "Zoë", nameIdentifierType: "LEGL" }] } } }, { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Ünïcode GmbH ".repeat(200), legalPersonNameIdentifierType: "LEGL" }] } } }]);
    expect(s.open(s.seal(doc, "a"), "a")).toBe(doc);
  });
  test("values sealed one after another each carry their own whole stream (the kept zlib stream is reset between values)", () => {
    const s = new Sealer(key, "auto", { compress: true });
    const packedOf = (sealed: string, aad: string) => {
      const raw = base64.decode(sealed.slice(3));
      return gcm(key, raw.subarray(0, 12), new TextEncoder().encode(`v2\u0000${aad}`)).decrypt(raw.subarray(12));
    };
    // Small, incompressible and larger than the kept stream's 16 KiB output buffer, interleaved and repeated.
    const noise = JSON.stringify({ n: Array.from({ length: 6000 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join("") });
    const docs = [persons, noise, JSON.stringify({ note: "y".repeat(50) }), persons, JSON.stringify([{ a: "b".repeat(40_000) }]), persons];
    for (const [i, doc] of docs.entries()) {
      const sealed = s.seal(doc, `doc:${i}`);
      expect(sealed.startsWith("v2:")).toBe(true);
      expect(s.open(sealed, `doc:${i}`)).toBe(doc);
      expect(new Sealer(key).open(sealed, `doc:${i}`)).toBe(doc);
    }
    // The same document sealed before and after others compresses to the same bytes: nothing carries over.
    const first = packedOf(s.seal(persons, "a"), "a");
    s.seal(noise, "b");
    const again = packedOf(s.seal(persons, "a"), "a");
    expect(Array.from(again)).toEqual(Array.from(first));
  });
});
