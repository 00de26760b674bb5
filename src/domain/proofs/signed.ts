// Which signed-message scheme proves a wallet, and whether a signature over a text was made by the wallet's key.
import { bech32 } from "@scure/base";
import { parseEvmSignature, recoverEvmSigner, type EvmSignature } from "./eip191.ts";
import { parseBip137Signature, recoverBitcoinAddresses, type Bip137Signature } from "./bip137.ts";

export type SignedScheme = "eip191" | "bip137";

const EVM_NETWORKS = new Set(["ethereum", "polygon", "bsc", "avalanche", "arbitrum", "optimism", "base", "fantom"]);

/**
 * EIP-191 personal_sign on the EVM networks; BIP-137 on bitcoin P2PKH (1…), P2SH-P2WPKH (3…) and P2WPKH (bc1q…, 20 bytes).
 * Taproot and P2WSH have no BIP-137 form (they need BIP-322), and the other networks have no scheme here yet: those
 * wallets are proven by an officer's attestation.
 */
export function signedSchemeFor(network: string, address: string): { ok: true; scheme: SignedScheme } | { ok: false; reason: string } {
  if (EVM_NETWORKS.has(network)) return { ok: true, scheme: "eip191" };
  const attest = "; record an officer attestation instead (wallets attest)";
  if (network !== "bitcoin") return { ok: false, reason: `signed-message proofs are not available for ${network} wallets${attest}` };
  const lower = address.toLowerCase();
  if (lower.startsWith("bc1")) {
    const d = bech32.decodeUnsafe(lower);
    const program = d && d.words[0] === 0 ? bech32.fromWordsUnsafe(d.words.slice(1)) : undefined;
    if (!program || program.length !== 20)
      return { ok: false, reason: `BIP-137 cannot prove a taproot or P2WSH address (that needs BIP-322)${attest}` };
  }
  return { ok: true, scheme: "bip137" };
}

export type ParsedSignature = { scheme: "eip191"; sig: EvmSignature } | { scheme: "bip137"; sig: Bip137Signature };

export function parseSignature(scheme: SignedScheme, text: string): ParsedSignature | { error: string } {
  if (scheme === "eip191") {
    const sig = parseEvmSignature(text);
    return "error" in sig ? sig : { scheme, sig };
  }
  const sig = parseBip137Signature(text);
  return "error" in sig ? sig : { scheme, sig };
}

/**
 * Whether `address` signed `message`, and who did (null when the signature recovers to no key). EVM addresses
 * compare case-insensitively; the signer is shown in the wallet's own spelling family (lower-case hex, or the
 * bitcoin address of the wallet's type when the header allows it).
 */
export function checkSigner(p: ParsedSignature, message: string, address: string): { matches: boolean; signer: string | null } {
  if (p.scheme === "eip191") {
    const signer = recoverEvmSigner(p.sig, message);
    return { matches: signer !== null && signer === address.toLowerCase(), signer };
  }
  const candidates = recoverBitcoinAddresses(p.sig, message);
  // bech32 is case-insensitive (stored lower case); base58 is case-sensitive.
  const wanted = address.toLowerCase().startsWith("bc1") ? address.toLowerCase() : address;
  const matches = candidates.includes(wanted);
  const sameKind = candidates.find((c) => c[0] === wanted[0]);
  return { matches, signer: matches ? wanted : (sameKind ?? candidates[0] ?? null) };
}
