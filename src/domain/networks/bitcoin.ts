// Bitcoin, Litecoin and Dogecoin addresses: base58check (P2PKH/P2SH) and segwit bech32/bech32m (BIP-173, BIP-350).
import { bech32, bech32m } from "@scure/base";
import { type Validation, decodeBase58Check, fail, hex2, looksLike, ok } from "./common.ts";

export interface UtxoChain {
  /** The network name used at the start of every refusal. */
  readonly network: string;
  /** Accepted base58check version bytes. */
  readonly versions: ReadonlySet<number>;
  /** Segwit human-readable part for mainnet, or null where the chain has no segwit. */
  readonly hrp: string | null;
}

export const BITCOIN: UtxoChain = {
  network: "bitcoin",
  versions: new Set([0x00 /* P2PKH */, 0x05 /* P2SH */]),
  hrp: "bc",
};

export const LITECOIN: UtxoChain = {
  network: "litecoin",
  // 0x05: Litecoin used Bitcoin's P2SH version until 2017, and those 3… addresses still pay to the same script.
  versions: new Set([0x30 /* P2PKH, L… */, 0x32 /* P2SH, M… */, 0x05 /* legacy P2SH, 3… */]),
  hrp: "ltc",
};

export const DOGECOIN: UtxoChain = {
  network: "dogecoin",
  versions: new Set([0x1e /* P2PKH, D… */, 0x16 /* P2SH, 9… or A… */]),
  hrp: null,
};

// Version bytes of other chains, so a wrong-network address gets a reason that names the network.
const FOREIGN_VERSIONS: ReadonlyMap<number, string> = new Map([
  [0x00, "a Bitcoin P2PKH address"],
  [0x05, "a Bitcoin P2SH address"],
  [0x6f, "a testnet P2PKH address (Bitcoin, Litecoin or Dogecoin testnet)"],
  [0xc4, "a testnet P2SH address (Bitcoin, Litecoin or Dogecoin testnet)"],
  [0x30, "a Litecoin P2PKH address"],
  [0x32, "a Litecoin P2SH address"],
  [0x3a, "a Litecoin testnet P2SH address"],
  [0x1e, "a Dogecoin P2PKH address"],
  [0x16, "a Dogecoin P2SH address"],
  [0x71, "a Dogecoin testnet P2PKH address"],
  [0x41, "a Tron address"],
]);

// Segwit prefixes of other chains and test networks, for the same purpose.
const FOREIGN_HRPS: ReadonlyMap<string, string> = new Map([
  ["bc", "a Bitcoin segwit address"],
  ["tb", "a Bitcoin testnet/signet address"],
  ["bcrt", "a Bitcoin regtest address"],
  ["ltc", "a Litecoin segwit address"],
  ["tltc", "a Litecoin testnet address"],
  ["rltc", "a Litecoin regtest address"],
  ["ltcmweb", "a Litecoin MWEB (stealth) address, which is not supported"],
  ["tmweb", "a Litecoin testnet MWEB address"],
]);

export const BECH32_DATA_RE = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;

export function validateUtxo(chain: UtxoChain, address: string): Validation {
  const lower = address.toLowerCase();
  // Bech32 splits at the last "1". Only a prefix we know routes to the segwit rules; a base58 address
  // (which never starts with one of these prefixes for a real version byte) gets base58 reasons.
  const sepAt = lower.lastIndexOf("1");
  const hrp = sepAt > 0 ? lower.slice(0, sepAt) : "";
  if (hrp === chain.hrp || FOREIGN_HRPS.has(hrp)) return validateSegwit(chain, address, hrp);
  return validateBase58(chain, address);
}

function validateBase58(chain: UtxoChain, address: string): Validation {
  const n = chain.network;
  const decoded = decodeBase58Check(address);
  if ("error" in decoded) {
    if (decoded.error === "alphabet") return fail(`${n} address contains characters outside the base58 alphabet${looksLike(address)}`);
    if (decoded.error === "short") return fail(`${n} address is too short`);
    return fail(`${n} address checksum does not match`);
  }
  const bytes = decoded.bytes;
  if (bytes.length !== 21) return fail(`${n} address decodes to ${bytes.length} bytes; expected 21 (a version byte and a 20-byte hash)`);
  const version = bytes[0];
  if (chain.versions.has(version)) return ok(address);
  const foreign = FOREIGN_VERSIONS.get(version);
  if (foreign) return fail(`${n} address is ${foreign}, not a ${n} mainnet address`);
  return fail(`${n} address has unknown version byte ${hex2(version)}`);
}

function validateSegwit(chain: UtxoChain, address: string, hrp: string): Validation {
  const n = chain.network;
  if (hrp !== chain.hrp) {
    const expected = chain.hrp ? `; ${n} segwit addresses start with "${chain.hrp}1"` : `; ${n} has no segwit addresses`;
    return fail(`${n} address is ${FOREIGN_HRPS.get(hrp)}${expected}`);
  }
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) {
    return fail(`${n} address mixes upper and lower case, which bech32 forbids`);
  }
  const lower = address.toLowerCase();
  // Data part: at least a witness version and the 6-character checksum.
  if (lower.length - hrp.length - 1 < 7) return fail(`${n} address is too short`);
  if (!BECH32_DATA_RE.test(lower.slice(hrp.length + 1))) return fail(`${n} address contains characters outside the bech32 alphabet`);
  // BIP-350: witness version 0 must use the bech32 constant, versions 1-16 the bech32m one.
  const asBech32 = bech32.decodeUnsafe(lower);
  const asBech32m = asBech32 ? undefined : bech32m.decodeUnsafe(lower);
  const decoded = asBech32 ?? asBech32m;
  if (!decoded) return fail(`${n} address checksum does not match`);
  const [version, ...programWords] = decoded.words;
  if (version === undefined || version > 16) return fail(`${n} address has an invalid witness version`);
  if (asBech32 && version !== 0) return fail(`${n} address has witness version ${version} but a bech32 checksum; version 1 and above must use bech32m (BIP-350)`);
  if (asBech32m && version === 0) return fail(`${n} address has witness version 0 but a bech32m checksum; version 0 must use bech32 (BIP-173)`);
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program) return fail(`${n} address has invalid padding in its witness program`);
  if (program.length < 2 || program.length > 40) return fail(`${n} address has a ${program.length}-byte witness program; segwit allows 2 to 40 bytes`);
  if (version === 0 && program.length !== 20 && program.length !== 32) {
    return fail(`${n} address has a ${program.length}-byte version 0 program; only 20 (P2WPKH) or 32 (P2WSH) bytes are valid`);
  }
  // Decision: only taproot (v1, 32 bytes) among the newer versions. Other v1 lengths and v2-v16 are not yet
  // defined, so coins sent there are anyone-can-spend today; no real recipient hands out such an address.
  if (version === 1 && program.length !== 32) return fail(`${n} address has a ${program.length}-byte version 1 program; taproot programs are 32 bytes`);
  if (version > 1) return fail(`${n} address uses witness version ${version}, which is not yet defined, so funds sent there would not be safe`);
  return ok(lower);
}
