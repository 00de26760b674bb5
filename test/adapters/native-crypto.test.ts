// Issue 19: the native AES-256-GCM Sealer reads everything the @noble Sealer wrote and the other way round (same
// "v1:" byte layout), refuses the same tampering; the native key hash and delivery signature equal the references.
import { test, expect, setDefaultTimeout } from "bun:test";
import { gcm } from "@noble/ciphers/aes.js";
import { Sealer, UnreadableError, nativeGcm } from "../../src/adapters/crypto/envelope.ts";
import { sha256Hex } from "../../src/adapters/crypto/hash.ts";
import { hashKey } from "../../src/domain/keys.ts";
import { signatureHeader } from "../../src/domain/webhooks.ts";
import { signDelivery } from "../../src/adapters/webhooks/sign.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const key = crypto.getRandomValues(new Uint8Array(32));
const native = new Sealer(key);
const noble = new Sealer(key, "noble");
const samples = ["", "Jane Doe", "é 中文 🚀", "x".repeat(5000), JSON.stringify([{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe" }] } } }])];

test("this runtime has a native AES-256-GCM (the Sealer's default path is not the fallback)", () => {
  expect(nativeGcm(key)).toBeDefined();
});

test("native seals open with @noble and @noble seals open natively, for every sample and associated data", () => {
  for (const text of samples) {
    for (const aad of ["customer:cus_1:identity", "", "transfer:trf_x:originator"]) {
      expect(noble.open(native.seal(text, aad), aad)).toBe(text);
      expect(native.open(noble.seal(text, aad), aad)).toBe(text);
    }
  }
});

test("the byte layout is v1: base64(nonce 12 || ciphertext || tag 16), checked against @noble's GCM directly", () => {
  const sealed = native.seal("Jane Doe", "aad:1");
  expect(sealed).toStartWith("v1:");
  const raw = Buffer.from(sealed.slice(3), "base64");
  expect(raw.length).toBe(12 + 8 + 16);
  const plain = gcm(key, raw.subarray(0, 12), new TextEncoder().encode("aad:1")).decrypt(raw.subarray(12));
  expect(new TextDecoder().decode(plain)).toBe("Jane Doe");
});

test("both refuse another record's associated data, another key, a flipped bit and a truncated text", () => {
  const other = new Sealer(crypto.getRandomValues(new Uint8Array(32)));
  for (const [by, sealer] of [["native", native], ["noble", noble]] as const) {
    const sealed = sealer.seal("Jane Doe", "customer:cus_1:name");
    for (const opener of [native, noble]) {
      expect(() => opener.open(sealed, "customer:cus_2:name"), by).toThrow(UnreadableError);
      const raw = Buffer.from(sealed.slice(3), "base64");
      raw[raw.length - 1] ^= 1;
      expect(() => opener.open("v1:" + raw.toString("base64"), "customer:cus_1:name"), by).toThrow(UnreadableError);
      expect(() => opener.open("v1:" + raw.subarray(0, 20).toString("base64"), "customer:cus_1:name"), by).toThrow(UnreadableError);
      expect(() => opener.open("v2:" + sealed.slice(3), "customer:cus_1:name"), by).toThrow(UnreadableError);
    }
    expect(() => other.open(sealed, "customer:cus_1:name")).toThrow(UnreadableError);
  }
});

test("the native key hash equals hashKey, and the native delivery signature equals signatureHeader", () => {
  for (let i = 0; i < 50; i++) {
    const k = `crv_test_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`;
    expect(sha256Hex(k)).toBe(hashKey(k));
    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    const body = JSON.stringify({ type: "transfer.completed", data: { id: `trf_${i}`, note: "é 中文" } });
    const t = 1_700_000_000 + i;
    expect(signDelivery(secret, t, body)).toBe(signatureHeader(secret, t, body));
  }
});
