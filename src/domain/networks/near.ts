// NEAR account IDs: named accounts ("alice.near") and implicit accounts (64 hex of an ed25519 key, or 0x + 40 hex).
import { type Validation, fail, ok } from "./common.ts";

const N = "near";
// nearcore's account ID rule: lowercase alphanumerics in parts split by "." and separated within a part by a single - or _.
const ACCOUNT_ID_RE = /^(([a-z\d]+[-_])*[a-z\d]+\.)*([a-z\d]+[-_])*[a-z\d]+$/;

export function validateNear(address: string): Validation {
  if (address.length < 2 || address.length > 64) return fail(`${N} account ID must be 2 to 64 characters, not ${address.length}`);
  if (address !== address.toLowerCase()) return fail(`${N} account ID must be lower case`);
  // Implicit accounts (64 hex) and ETH-implicit ones (0x + 40 hex, NEP-518) already match the rule for named
  // accounts; they are accepted as such, since all three kinds can receive funds.
  if (!ACCOUNT_ID_RE.test(address)) return fail(`${N} account ID may hold only a-z, 0-9 and single - _ . separators between them`);
  return ok(address);
}
