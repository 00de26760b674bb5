// The provider_a callback hashes and signs with the runtime's native SHA-256 and HMAC-SHA256 (src/adapters/crypto/
// hash.ts): the same bytes as the @noble references the domain keeps (provider_a/signature.ts), for every sample, so
// a Standard Webhooks signature verifies the same either way (and against the `standardwebhooks` package).
import { test, expect, setDefaultTimeout } from "bun:test";
import { Webhook } from "standardwebhooks";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { hmacSha256, sha256Hex } from "../../src/adapters/crypto/hash.ts";
import { referenceHmac, sign, signedHeaders, verify } from "../../src/domain/provider_a/signature.ts";
import { webhookKey } from "../../src/domain/provider_a/settings.ts";

setDefaultTimeout(60_000);

const enc = (s: string) => new TextEncoder().encode(s);
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const bodies = [new Uint8Array(0), enc("{}"), enc('{"type":"transfer.updated","data":{"id":"é 中文 🚀"}}'), crypto.getRandomValues(new Uint8Array(4096)), enc("x".repeat(70_000))];
const keys = [new Uint8Array(0), crypto.getRandomValues(new Uint8Array(16)), crypto.getRandomValues(new Uint8Array(32)), crypto.getRandomValues(new Uint8Array(65)), crypto.getRandomValues(new Uint8Array(200))];

test("hmacSha256 (native) equals @noble's hmac(sha256) and the domain's reference, for every key length and body", () => {
  for (const key of keys)
    for (const body of bodies) {
      const want = bytesToHex(hmac(sha256, key, body));
      expect(bytesToHex(hmacSha256(key, body))).toBe(want);
      expect(bytesToHex(referenceHmac(key, body))).toBe(want);
    }
});

test("sha256Hex of bytes equals @noble's sha256 of the same bytes (and of text, its UTF-8 bytes)", () => {
  for (const body of bodies) expect(sha256Hex(body)).toBe(bytesToHex(sha256(body)));
  expect(sha256Hex("é 中文 🚀")).toBe(sha256Hex(enc("é 中文 🚀")));
});

test("a signature made with the native HMAC equals the reference one and the package's; verify agrees either way", () => {
  const key = webhookKey(SECRET)!;
  const now = Date.parse("2030-06-01T00:00:00.000Z");
  const ts = Math.floor(now / 1000);
  for (const body of bodies.slice(0, 3)) {
    const native = sign(key, "msg_1", ts, body, hmacSha256);
    expect(native).toBe(sign(key, "msg_1", ts, body));
    expect(native).toBe(new Webhook(SECRET).sign("msg_1", new Date(ts * 1000), new TextDecoder().decode(body)));
    const h = signedHeaders(new Headers({ "svix-id": "msg_1", "svix-timestamp": String(ts), "svix-signature": `v1,bm9wZQ== ${native}` }));
    expect(verify(SECRET, h, body, now, hmacSha256)).toEqual({ ok: true });
    expect(verify(SECRET, h, body, now)).toEqual({ ok: true });
    const tampered = new Uint8Array([...body, 0x20]);
    expect(verify(SECRET, h, tampered, now, hmacSha256)).toEqual({ ok: false, reason: "signature" });
  }
});
