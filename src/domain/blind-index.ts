// Blind index for substring search over sealed text: HMAC tags of the folded text's trigrams, never the trigrams.
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { normalizeForSearch, trigrams } from "./customers.ts";

/**
 * The tags of a text's trigrams (accents, case and spacing folded): customer names (`nameGrams` in the customer
 * actor is this function) and case texts; empty under three characters.
 */
export function blindGrams(key: Uint8Array, text: string): string[] {
  return trigrams(normalizeForSearch(text)).map((g) => bytesToHex(hmac(sha256, key, utf8ToBytes(g)).slice(0, 12)));
}

export { normalizeForSearch };
