// For receivers: verifies X-Webhook-Signature by Part 2's rules (alg, 5 minutes old, 1 minute ahead, timing-safe over the raw body).
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";

export interface VerifyOptions {
  /** The X-Webhook-Signature header as received. */
  header: string | null | undefined;
  /** The request body exactly as received (never re-serialized JSON). */
  body: string | Uint8Array;
  /** The subscription's 64-hex signing secret. */
  secret: string;
  /** Unix seconds; default now. */
  now?: number;
  /** Default 300 (Part 2: reject signatures older than 5 minutes). */
  maxAgeSeconds?: number;
  /** Default 60 (Part 2: reject timestamps more than 1 minute in the future). */
  maxFutureSeconds?: number;
}

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: "malformed" | "unsupported_alg" | "too_old" | "in_future" | "mismatch" };

export function verifyWebhookSignature(o: VerifyOptions): VerifyResult {
  const parts = new Map<string, string>();
  for (const item of (o.header ?? "").split(",")) {
    const i = item.indexOf("=");
    if (i > 0) parts.set(item.slice(0, i).trim(), item.slice(i + 1).trim());
  }
  // 1. t a Unix timestamp, alg hmac-sha256, sig the hex digest.
  const t = parts.get("t");
  const sig = parts.get("sig");
  if (!t || !/^\d{1,12}$/.test(t) || !sig || !/^[0-9a-f]{64}$/i.test(sig)) return { ok: false, reason: "malformed" };
  if (parts.get("alg") !== "hmac-sha256") return { ok: false, reason: "unsupported_alg" };
  // 2. Not older than 5 minutes, not more than 1 minute ahead.
  const ts = Number(t);
  const now = o.now ?? Math.floor(Date.now() / 1000);
  if (now - ts > (o.maxAgeSeconds ?? 300)) return { ok: false, reason: "too_old" };
  if (ts - now > (o.maxFutureSeconds ?? 60)) return { ok: false, reason: "in_future" };
  // 3. HMAC-SHA256 over `<t>.<raw body>`, compared in constant time.
  const body = typeof o.body === "string" ? utf8ToBytes(o.body) : o.body;
  const prefix = utf8ToBytes(`${t}.`);
  const payload = new Uint8Array(prefix.length + body.length);
  payload.set(prefix);
  payload.set(body, prefix.length);
  const expected = hmac(sha256, utf8ToBytes(o.secret), payload);
  const given = hexToBytes(sig.toLowerCase());
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected[i] ^ given[i];
  return diff === 0 ? { ok: true, timestamp: ts } : { ok: false, reason: "mismatch" };
}
