// Cosmos Hub account addresses: bech32 with prefix "cosmos" over a 20-byte (key) or 32-byte (module/ICA) account.
import { bech32 } from "@scure/base";
import { type Validation, fail, looksLike, ok } from "./common.ts";

const N = "cosmos";
const HRP = "cosmos";

const OTHER_COSMOS_KINDS: ReadonlyMap<string, string> = new Map([
  ["cosmosvaloper", "a validator operator address, not an account"],
  ["cosmosvalcons", "a validator consensus address, not an account"],
  ["cosmospub", "a public key, not an account address"],
  ["cosmosvaloperpub", "a validator public key, not an account address"],
  ["cosmosvalconspub", "a validator consensus public key, not an account address"],
]);

export function validateCosmos(address: string): Validation {
  const lower = address.toLowerCase();
  const sepAt = lower.lastIndexOf("1");
  const hrp = sepAt > 0 ? lower.slice(0, sepAt) : "";
  if (hrp !== HRP) {
    const kind = OTHER_COSMOS_KINDS.get(hrp);
    if (kind) return fail(`${N} value is ${kind}`);
    return fail(hrp && /^[a-z]+$/.test(hrp) ? `${N} address has prefix "${hrp}" (another chain); Cosmos Hub addresses start with "cosmos1"` : `${N} address must start with "cosmos1"${looksLike(address)}`);
  }
  // Anything shorter than the 6-character checksum and one data character cannot be decoded at all.
  if (lower.length - sepAt - 1 < 7) return fail(`${N} address is too short`);
  if (address !== lower && address !== address.toUpperCase()) return fail(`${N} address mixes upper and lower case, which bech32 forbids`);
  if (!/^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/.test(lower.slice(sepAt + 1))) return fail(`${N} address contains characters outside the bech32 alphabet`);
  const decoded = bech32.decodeUnsafe(lower);
  if (!decoded) return fail(`${N} address checksum does not match`);
  const bytes = bech32.fromWordsUnsafe(decoded.words);
  if (!bytes) return fail(`${N} address has invalid padding`);
  if (bytes.length !== 20 && bytes.length !== 32) return fail(`${N} address carries ${bytes.length} bytes; accounts are 20 or 32 bytes`);
  return ok(lower);
}
