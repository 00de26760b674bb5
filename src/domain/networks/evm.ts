// EVM account addresses (Ethereum and the EVM chains): 0x + 20 bytes hex, with the EIP-55 mixed-case checksum.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { type Validation, fail, ok } from "./common.ts";

/** EIP-55: a hex letter is upper case exactly when the matching nibble of keccak-256(lowercase hex) is >= 8. */
export function toChecksumAddress(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = keccak_256(utf8ToBytes(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return out;
}

export function validateEvm(network: string, address: string): Validation {
  if (!address.startsWith("0x")) {
    return fail(/^0X/.test(address) ? `${network} address must start with a lowercase "0x"` : `${network} address must start with "0x"`);
  }
  const body = address.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(body)) return fail(`${network} address contains characters that are not hexadecimal`);
  if (body.length !== 40) return fail(`${network} address must have 40 hex characters after "0x", not ${body.length}`);
  const checksummed = toChecksumAddress(body);
  // All-lower and all-upper hex carry no checksum (pre-EIP-55 form), so they are accepted as written.
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixed && checksummed !== address) return fail(`${network} address checksum does not match (EIP-55 mixed case)`);
  // Decision: normalize to the EIP-55 form, one spelling per account.
  return ok(checksummed);
}
