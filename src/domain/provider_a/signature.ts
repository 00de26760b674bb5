// Standard Webhooks signatures of provider_a callbacks (Part 3, Authentication 2): HMAC-SHA256 keyed with the
// base64-decoded `whsec_` secret over `<message ID>.<timestamp>.<raw body>`, header `v1,<base64>` (several,
// space-separated, for rotation), timestamp within five minutes. Byte-exact with the `standardwebhooks` package
// (test/domain/provider_a-signature.test.ts); computed over the raw bytes so nothing is re-encoded. Pure: clock passed in.
// The HMAC is passed in as well: @noble's here is the reference; the callback route passes the runtime's native one
// (`hmacSha256` in src/adapters/crypto/hash.ts, the same bytes: test/adapters/native-hmac.test.ts).
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { webhookKey } from "./settings.ts";
import { constantTimeEqual } from "../keys.ts";

/** HMAC-SHA256(key, data). */
export type HmacSha256 = (key: Uint8Array, data: Uint8Array) => Uint8Array;
/** The reference HMAC-SHA256 (pure JS). */
export const referenceHmac: HmacSha256 = (key, data) => hmac(sha256, key, data);

/** Part 3, Limits: "signature timestamp within 5 minutes". */
export const TOLERANCE_MS = 5 * 60_000;

export interface SignedHeaders {
  id: string | null;
  timestamp: string | null;
  signature: string | null;
}

/** Svix headers first (the provider's), the Standard Webhooks names as well. */
export function signedHeaders(h: Headers): SignedHeaders {
  return {
    id: h.get("svix-id") ?? h.get("webhook-id"),
    timestamp: h.get("svix-timestamp") ?? h.get("webhook-timestamp"),
    signature: h.get("svix-signature") ?? h.get("webhook-signature"),
  };
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** `v1,<base64>` for one message. */
export function sign(key: Uint8Array, id: string, timestampSeconds: number, body: Uint8Array, mac: HmacSha256 = referenceHmac): string {
  const prefix = new TextEncoder().encode(`${id}.${timestampSeconds}.`);
  const data = new Uint8Array(prefix.length + body.length);
  data.set(prefix);
  data.set(body, prefix.length);
  return `v1,${toBase64(mac(key, data))}`;
}

export type Verification = { ok: true } | { ok: false; reason: "missing" | "timestamp" | "signature" | "secret" };

export function verify(secret: string, h: SignedHeaders, body: Uint8Array, nowMs: number, mac: HmacSha256 = referenceHmac): Verification {
  if (!h.id || !h.timestamp || !h.signature) return { ok: false, reason: "missing" };
  const key = webhookKey(secret);
  if (!key) return { ok: false, reason: "secret" };
  if (!/^\d{1,12}$/.test(h.timestamp)) return { ok: false, reason: "timestamp" };
  const ts = Number(h.timestamp);
  if (Math.abs(nowMs - ts * 1000) > TOLERANCE_MS) return { ok: false, reason: "timestamp" };
  const expected = sign(key, h.id, ts, body, mac).slice(3);
  for (const part of h.signature.split(" ")) {
    const [version, value] = part.split(",");
    if (version === "v1" && value !== undefined && constantTimeEqual(value, expected)) return { ok: true };
  }
  return { ok: false, reason: "signature" };
}
