// Tron account addresses: base58check of version byte 0x41 and a 20-byte account hash ("T…").
import { type Validation, decodeBase58Check, fail, hex2, looksLike, ok } from "./common.ts";

const N = "tron";

export function validateTron(address: string): Validation {
  if (/^(0x)?41[0-9a-fA-F]{40}$/.test(address)) return fail(`${N} address is in hex form; give the base58 form starting with "T"`);
  const decoded = decodeBase58Check(address);
  if ("error" in decoded) {
    if (decoded.error === "alphabet") return fail(`${N} address contains characters outside the base58 alphabet${looksLike(address)}`);
    if (decoded.error === "short") return fail(`${N} address is too short`);
    return fail(`${N} address checksum does not match`);
  }
  const bytes = decoded.bytes;
  if (bytes.length !== 21) return fail(`${N} address decodes to ${bytes.length} bytes; expected 21 (0x41 and a 20-byte hash)${looksLike(address)}`);
  if (bytes[0] !== 0x41) return fail(`${N} address has version byte ${hex2(bytes[0])}; Tron addresses use 0x41 (they start with "T")`);
  return ok(address);
}
