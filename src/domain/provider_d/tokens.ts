// provider_d's unguessable tokens, stateless (HMAC-SHA-256 under a key derived from the master key for this purpose):
// the Travel Address token of a verified wallet (bound to company, environment and wallet, with its expiry), and the
// callback tokens we give counterparties (bound to one transfer and one kind of callback). Pure.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64urlnopad, hex, utf8 } from "@scure/base";

const mac = (key: Uint8Array, text: string) => hex.encode(hmac(sha256, key, utf8.decode(text)).slice(0, 20));

function same(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

export type CallbackKind = "resolution" | "confirmation";

/** `<transferId>.<mac>`: what our callback URL carries for one transfer (a resolution to us, or a confirmation). */
export function callbackToken(key: Uint8Array, kind: CallbackKind, companyId: string, transferId: string): string {
  return `${transferId}.${mac(key, `cb|${kind}|${companyId}|${transferId}`)}`;
}

/** The transfer a callback token names, or null when it is not one of ours for that company and kind. */
export function readCallbackToken(key: Uint8Array, kind: CallbackKind, companyId: string, token: string): string | null {
  const m = /^(trf_[0-9a-z]{10,40})\.([0-9a-f]{40})$/.exec(token);
  if (!m) return null;
  return same(mac(key, `cb|${kind}|${companyId}|${m[1]}`), m[2]) ? m[1] : null;
}

/** The Travel Address token of a wallet: `<base64url(walletId.expirySeconds)>.<mac>`. */
export function walletToken(key: Uint8Array, companyId: string, environment: string, walletId: string, expiresAtMs: number): string {
  const body = base64urlnopad.encode(utf8.decode(`${walletId}.${Math.floor(expiresAtMs / 1000)}`));
  return `${body}.${mac(key, `ta|${companyId}|${environment}|${body}`)}`;
}

export type WalletTokenRead = { ok: true; walletId: string; expiresAt: number } | { ok: false; reason: "malformed" | "forged" | "expired" };

export function readWalletToken(key: Uint8Array, companyId: string, environment: string, token: string, now: number): WalletTokenRead {
  const m = /^([A-Za-z0-9_-]{8,120})\.([0-9a-f]{40})$/.exec(token);
  if (!m) return { ok: false, reason: "malformed" };
  if (!same(mac(key, `ta|${companyId}|${environment}|${m[1]}`), m[2])) return { ok: false, reason: "forged" };
  let text: string;
  try {
    text = utf8.encode(base64urlnopad.decode(m[1]));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const p = /^(wal_[0-9a-z]{10,40})\.(\d{1,12})$/.exec(text);
  if (!p) return { ok: false, reason: "malformed" };
  const expiresAt = Number(p[2]) * 1000;
  if (expiresAt <= now) return { ok: false, reason: "expired" };
  return { ok: true, walletId: p[1], expiresAt };
}
