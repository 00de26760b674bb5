// Solana account addresses: base58 of a 32-byte ed25519 public key (or program-derived address); no checksum.
import { type Validation, decodeBase58, fail, looksLike, ok } from "./common.ts";

const N = "solana";

export function validateSolana(address: string): Validation {
  // 32 bytes need 32 (all-zero key) to 44 base58 characters; bounding first keeps decoding cheap.
  if (address.length < 32 || address.length > 44) return fail(`${N} address must be 32 to 44 base58 characters, not ${address.length}${looksLike(address)}`);
  const bytes = decodeBase58(address);
  if (!bytes) return fail(`${N} address contains characters outside the base58 alphabet${looksLike(address)}`);
  if (bytes.length !== 32) return fail(`${N} address decodes to ${bytes.length} bytes; expected a 32-byte public key${looksLike(address)}`);
  return ok(address);
}
