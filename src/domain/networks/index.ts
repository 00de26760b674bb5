// Blockchain address format checks per supported network (checksums and encodings, no I/O), and destination tags.
//
// Decisions, per network (every refusal reason starts with the network name):
// - EVM (ethereum, polygon, bsc, avalanche C-chain, arbitrum, optimism, base, fantom): "0x" + 40 hex. Mixed case
//   must match EIP-55; all-lower and all-upper are accepted unchecked. Normalized to the EIP-55 spelling.
// - bitcoin: base58check versions 0x00 (P2PKH) and 0x05 (P2SH); segwit "bc1" v0 (20 or 32 bytes, bech32) and
//   v1 taproot (32 bytes, bech32m). Testnet/signet/regtest (m, n, 2, tb1, bcrt1) are refused, and so are the not
//   yet defined witness versions 2-16 and non-32-byte v1 programs (funds sent there are not safe today).
//   Bech32 addresses are normalized to lower case; base58 is case-sensitive and returned as given.
// - litecoin: base58check 0x30 (L), 0x32 (M) and the legacy 0x05 (3); segwit "ltc1" with the bitcoin rules.
//   MWEB "ltcmweb1" addresses are refused. dogecoin: base58check 0x1e (D) and 0x16 (9/A); no segwit.
// - bitcoin-cash: CashAddr with or without the "bitcoincash:" prefix (one case throughout), types P2PKH/P2SH
//   and their CashTokens-aware twins, P2SH32 included; normalized to lowercase "bitcoincash:…". Legacy base58
//   (0x00, 0x05) is also accepted and returned as given (it is not converted). bchtest/bchreg are refused.
// - solana: base58 of exactly 32 bytes (there is no checksum, so a typo can only be caught by the alphabet/length).
// - tron: base58check, version 0x41, 21-byte payload ("T…"); the hex form is refused with a hint.
// - ripple: classic "r…" addresses (XRP alphabet, version 0x00, 20-byte account ID, double-SHA-256 checksum).
//   X-addresses are refused: the destination tag travels separately as ?dt= / ?tag=.
// - stellar: "G…" account IDs and "M…" muxed accounts (SEP-23). Seeds, contracts and other StrKeys are refused.
//   A memo next to a muxed address is refused by validateDestination (the muxed ID replaces the memo).
// - algorand: 58 base32 characters = 32-byte key + last 4 bytes of SHA-512/256(key). Upper case only.
// - cardano: Shelley mainnet "addr1…" (base, pointer, enterprise; bech32 up to 1023 characters, network id 1) and
//   Byron base58 (CBOR + CRC32 verified; a network tag other than mainnet's is refused). Stake addresses and
//   "addr_test" are refused. Bech32 is normalized to lower case.
// - cosmos: bech32 "cosmos1…" with a 20- or 32-byte account; validator/pubkey prefixes and other chains refused.
// - near: named account IDs by nearcore's rule (2-64 chars, lower case), which also covers implicit accounts
//   (64 hex) and ETH-implicit accounts (0x + 40 lowercase hex).
// - polkadot: SS58 with prefix 0 only; generic Substrate (42), Kusama (2) and other prefixes are refused.
//
// Destination tags / memos (parseAddress splits "addr?dt=123", "addr?memo=…", "addr?tag=5"; the value is
// percent-decoded): only ripple (dt or tag: a UInt32 in canonical decimal), stellar (memo: at most 28 UTF-8
// bytes) and cosmos (memo: at most 256 UTF-8 bytes) take one. Algorand's note field is not a routing tag and
// exchanges do not use it as one, so algorand takes none. Memos must not contain control characters.
// Surrounding whitespace is trimmed; anything longer than 1024 characters is refused before decoding.
import { type Validation, fail } from "./common.ts";
import { BITCOIN, DOGECOIN, LITECOIN, validateUtxo } from "./bitcoin.ts";
import { validateBitcoinCash } from "./bitcoin-cash.ts";
import { validateEvm } from "./evm.ts";
import { validateSolana } from "./solana.ts";
import { validateTron } from "./tron.ts";
import { validateRipple } from "./ripple.ts";
import { validateStellar } from "./stellar.ts";
import { validateAlgorand } from "./algorand.ts";
import { validateCardano } from "./cardano.ts";
import { validateCosmos } from "./cosmos.ts";
import { validateNear } from "./near.ts";
import { validatePolkadot } from "./polkadot.ts";
import { type ParsedAddress, type TagKey, acceptsTag, parseAddress, tagProblem } from "./tags.ts";
import { isSupportedNetwork, type Network, SUPPORTED_NETWORKS } from "./supported.ts";

export { acceptsTag, isSupportedNetwork, parseAddress, SUPPORTED_NETWORKS };
export type { Network, ParsedAddress, TagKey, Validation };

const MAX_INPUT = 1024;

const VALIDATORS: Record<Network, (address: string) => Validation> = {
  bitcoin: (a) => validateUtxo(BITCOIN, a),
  ethereum: (a) => validateEvm("ethereum", a),
  polygon: (a) => validateEvm("polygon", a),
  bsc: (a) => validateEvm("bsc", a),
  solana: validateSolana,
  tron: validateTron,
  avalanche: (a) => validateEvm("avalanche", a),
  arbitrum: (a) => validateEvm("arbitrum", a),
  optimism: (a) => validateEvm("optimism", a),
  base: (a) => validateEvm("base", a),
  litecoin: (a) => validateUtxo(LITECOIN, a),
  ripple: validateRipple,
  stellar: validateStellar,
  algorand: validateAlgorand,
  dogecoin: (a) => validateUtxo(DOGECOIN, a),
  cardano: validateCardano,
  cosmos: validateCosmos,
  near: validateNear,
  polkadot: validatePolkadot,
  fantom: (a) => validateEvm("fantom", a),
  "bitcoin-cash": validateBitcoinCash,
};

export function validateAddress(network: Network, address: string): Validation {
  // Callers outside TypeScript can pass anything; refuse rather than throw.
  if (!isSupportedNetwork(network)) return fail(`unsupported network "${String(network)}"`);
  if (typeof address !== "string") return fail(`${network} address must be text`);
  const text = address.trim();
  if (!text) return fail(`${network} address is empty`);
  if (text.length > MAX_INPUT) return fail(`${network} address is too long`);
  if (text.includes("?")) return fail(`${network} address contains "?"; split any destination tag off with parseAddress first`);
  return VALIDATORS[network](text);
}

export type DestinationValidation =
  | { ok: true; address: string; tag: string | null; tagKey: TagKey | null }
  | { ok: false; reason: string };

/** parseAddress, validateAddress and the tag rules in one step, for a destination typed as "addr?memo=…". */
export function validateDestination(network: Network, input: string): DestinationValidation {
  const parsed = parseAddress(input);
  if ("error" in parsed) return { ok: false, reason: `${network} ${parsed.error}` };
  const result = validateAddress(network, parsed.address);
  if (!result.ok) return result;
  if (parsed.tag === null || parsed.tagKey === null) return { ok: true, address: result.address, tag: null, tagKey: null };
  const problem = tagProblem(network, parsed.tagKey, parsed.tag);
  if (problem) return { ok: false, reason: problem };
  if (network === "stellar" && result.address.startsWith("M")) {
    return { ok: false, reason: "stellar muxed (M…) address already carries its ID; do not also give a memo" };
  }
  return { ok: true, address: result.address, tag: parsed.tag, tagKey: parsed.tagKey };
}
