// XRP Ledger classic addresses ("r…"): XRP-alphabet base58 of version 0x00, a 20-byte account ID and a checksum.
import { base58xrp } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { type Validation, equalBytes, fail, hex2, ok } from "./common.ts";

const N = "ripple";
// Same letters as Bitcoin's base58 in a different order, so the alphabet check is the same set.
const XRP_ALPHABET_RE = /^[rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz]+$/;

export function validateRipple(address: string): Validation {
  if (!XRP_ALPHABET_RE.test(address)) return fail(`${N} address contains characters outside the XRP base58 alphabet`);
  // Classic addresses are 25-35 characters; anything longer is rejected before the quadratic base58 decode.
  if (address.length > 64) return fail(`${N} address is too long`);
  // Decision: X-addresses (XLS-5, account and tag in one string) are refused; the tag travels separately as ?dt=.
  if (address.length === 47 && (address[0] === "X" || address[0] === "T")) {
    return fail(`${N} X-addresses are not supported; give the classic "r" address and the destination tag separately`);
  }
  const bytes = base58xrp.decode(address);
  if (bytes.length < 5) return fail(`${N} address is too short`);
  const body = bytes.subarray(0, -4);
  const check = sha256(sha256(body)).subarray(0, 4);
  if (!equalBytes(check, bytes.subarray(-4))) return fail(`${N} address checksum does not match`);
  // Classic addresses always start with "r" (version 0); a checksummed "s…" string is a family or ed25519 seed.
  if (address[0] === "s") return fail(`${N} value is a secret seed, not an address; it must never be shared`);
  if (body[0] !== 0x00) return fail(`${N} address has version byte ${hex2(body[0])}; account addresses use 0x00 (they start with "r")`);
  if (body.length !== 21) return fail(`${N} address carries a ${body.length - 1}-byte account ID; expected 20 bytes`);
  return ok(address);
}
