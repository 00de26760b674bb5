// TRP Travel Addresses (docs/providers/provider_d.md "Travel Address"): the current `ta…` form (base58check of the
// inquiry URL without its scheme, with the `t=i` query tag), the older LNURL form (bech32 of the whole URL, hrp `lnurl`)
// and a plain https URL. Pure: no I/O, no clock.
import { bech32, createBase58check, utf8 } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";

const b58check = createBase58check(sha256);

/** The longest Travel Address read (an inquiry URL is short; this bounds the work of a decode). */
export const TRAVEL_ADDRESS_MAX = 2048;

export type TravelAddressForm = "ta" | "lnurl" | "url";

export type DecodedTravelAddress = { ok: true; form: TravelAddressForm; url: string } | { ok: false; reason: string };

/**
 * Whether a text looks like a Travel Address at all (so a transfer's `beneficiaryAddress` is read as one): the `ta`
 * prefix followed only by base58 characters, `lnurl1`/`LNURL1`, or `https://`. A chain address never starts `https://`
 * nor `lnurl1`; a `ta…` text is confirmed only by its checksum (decode).
 */
export function looksLikeTravelAddress(text: string): boolean {
  const t = text.trim();
  return /^ta[1-9A-HJ-NP-Za-km-z]{20,}$/.test(t) || /^lnurl1/i.test(t) || /^https:\/\//i.test(t);
}

/** Decodes a counterparty's Travel Address into the https URL of its inquiry endpoint. */
export function decodeTravelAddress(text: string): DecodedTravelAddress {
  const t = text.trim();
  if (t.length === 0) return { ok: false, reason: "empty" };
  if (t.length > TRAVEL_ADDRESS_MAX) return { ok: false, reason: "too long" };
  if (/^lnurl1/i.test(t)) return decodeLnurl(t);
  if (t.startsWith("ta")) return decodeTa(t);
  if (/^https:\/\//i.test(t)) {
    const u = httpsUrl(t);
    return u ? { ok: true, form: "url", url: u } : { ok: false, reason: "not an https URL" };
  }
  return { ok: false, reason: "not a Travel Address (ta…, lnurl1… or https://)" };
}

function decodeTa(t: string): DecodedTravelAddress {
  let raw: string;
  try {
    raw = utf8.encode(b58check.decode(t.slice(2)));
  } catch {
    return { ok: false, reason: "bad base58check" };
  }
  // The encoded URL has no scheme (https is implied); an older encoder may have kept it.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) && !/^https:\/\//i.test(raw)) return { ok: false, reason: "a scheme other than https" };
  const withScheme = /^https:\/\//i.test(raw) ? raw : `https://${raw.replace(/^\/\//, "")}`;
  const u = httpsUrl(withScheme);
  if (!u) return { ok: false, reason: "not a URL" };
  if (new URL(u).searchParams.get("t") !== "i") return { ok: false, reason: "no t=i tag" };
  return { ok: true, form: "ta", url: u };
}

function decodeLnurl(t: string): DecodedTravelAddress {
  // bech32 is case-insensitive but not mixed-case; LNURLs exceed bech32's 90-character limit.
  if (t !== t.toLowerCase() && t !== t.toUpperCase()) return { ok: false, reason: "mixed case" };
  let raw: string;
  try {
    const { prefix, words } = bech32.decode(t.toLowerCase() as `${string}1${string}`, TRAVEL_ADDRESS_MAX);
    if (prefix !== "lnurl") return { ok: false, reason: "not an lnurl prefix" };
    raw = utf8.encode(bech32.fromWords(words));
  } catch {
    return { ok: false, reason: "bad bech32" };
  }
  const u = httpsUrl(raw);
  return u ? { ok: true, form: "lnurl", url: u } : { ok: false, reason: "not an https URL" };
}

/** An https URL without credentials or fragment, as text (the form written, not re-serialized); null otherwise. */
function httpsUrl(text: string): string | null {
  if (/[\s\\]/.test(text)) return null;
  try {
    const u = new URL(text);
    if (u.protocol !== "https:" || u.hostname === "" || u.username !== "" || u.password !== "" || u.hash !== "") return null;
    return text.replace(/^https:\/\//i, "https://");
  } catch {
    return null;
  }
}

/**
 * Our Travel Address for an inquiry URL (`https://host/path?…`): the `ta` form, the scheme dropped and `t=i` added
 * when it is missing. Throws on a URL that is not https (a programming error: Caravan builds the URL itself).
 */
export function encodeTravelAddress(url: string): string {
  const u = new URL(url);
  if (u.protocol !== "https:") throw new RangeError("a Travel Address encodes an https URL");
  if (u.searchParams.get("t") !== "i") u.searchParams.set("t", "i");
  const raw = u.href.replace(/^https:\/\//, "");
  return `ta${b58check.encode(utf8.decode(raw))}`;
}

/** The LNURL form of an https URL (older peers read it): bech32 with hrp `lnurl`, upper case as published. */
export function encodeLnurl(url: string): string {
  if (!/^https:\/\//i.test(url)) throw new RangeError("an LNURL encodes an https URL");
  return bech32.encode("lnurl", bech32.toWords(utf8.decode(url)), TRAVEL_ADDRESS_MAX).toUpperCase();
}
