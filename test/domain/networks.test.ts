// Address format checks per network: published vectors pass, altered, foreign and malformed ones fail with a reason.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { base32nopad, base58, base58xrp, bech32, bech32m, createBase58check, hex } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import {
  SUPPORTED_NETWORKS,
  type Network,
  acceptsTag,
  isSupportedNetwork,
  parseAddress,
  validateAddress,
  validateDestination,
} from "../../src/domain/networks/index.ts";
import { toChecksumAddress } from "../../src/domain/networks/evm.ts";
import { encodeCashAddr } from "../../src/domain/networks/bitcoin-cash.ts";
import { crc16xmodem, encodeStrKey } from "../../src/domain/networks/stellar.ts";
import { encodeAlgorand } from "../../src/domain/networks/algorand.ts";
import { crc32 } from "../../src/domain/networks/cardano.ts";
import { ss58Checksum } from "../../src/domain/networks/polkadot.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const b58check = createBase58check(sha256);
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const hash160 = (b: Uint8Array): Uint8Array => ripemd160(sha256(b));

function accepted(network: Network, address: string): string {
  const r = validateAddress(network, address);
  if (!r.ok) throw new Error(`${network} refused ${address}: ${r.reason}`);
  return r.address;
}

function refused(network: Network, address: string): string {
  const r = validateAddress(network, address);
  if (r.ok) throw new Error(`${network} accepted ${address}`);
  return r.reason;
}

const EVM: readonly Network[] = ["ethereum", "polygon", "bsc", "avalanche", "arbitrum", "optimism", "base", "fantom"];

// Published addresses, each with the normalized form expected back (same text unless given) and its source.
// prettier-ignore
const VALID: Record<Network, ReadonlyArray<readonly [address: string, normalized?: string]>> = {
  bitcoin: [
    ["1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"], // genesis block coinbase
    ["3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"], // Bitcoin wiki P2SH example
    ["1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH"], // bitcoinjs base58 fixtures (hash160 of generator point)
    // BIP-350 valid segwit vectors (mainnet ones)
    ["BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"],
    // BIP-173 P2WSH example
    ["bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3"],
  ],
  ethereum: [
    // EIP-55 test cases: all caps, all lower, normal
    ["0x52908400098527886E0F7030069857D2E4169EE7"],
    ["0x8617E340B3D01FA5F11F306F4090FD50E238070D"],
    ["0xde709f2102306220921060314715629080e2fb77", "0xde709f2102306220921060314715629080e2fb77"],
    ["0x27b1fdb04752bbc536007a920d24acb045561c26"],
    ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"],
    ["0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"],
    ["0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"],
  ],
  polygon: [["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"], ["0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"]],
  bsc: [["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"], ["0xFB6916095CA1DF60BB79CE92CE3EA74C37C5D359", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"]],
  avalanche: [["0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"], ["0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"]],
  arbitrum: [["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"], ["0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"]],
  optimism: [["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"], ["0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"]],
  base: [["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"], ["0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886E0F7030069857D2E4169EE7"]],
  fantom: [["0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"], ["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"]],
  solana: [
    ["11111111111111111111111111111111"], // System Program
    ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"], // SPL Token program
    ["So11111111111111111111111111111111111111112"], // wrapped SOL mint
  ],
  tron: [
    ["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"], // USDT (TRC-20) contract
    ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL"], // TRON docs example (hex 418840e6…d808, checked below)
    ["T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb"], // the all-zero account
  ],
  litecoin: [
    ["Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW"], // bisq asset tests
    ["LTuoeY6RBHV3n3cfhXVVTbJbxzxnXs9ofm"],
    ["MGEW4aba3tnrVtVhGcmoqqHaLt5ymPSLPi"], // M… P2SH
    ["3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"], // legacy 0x05 P2SH
    ["ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz"],
    ["LTC1QX88Q7ZJD74LXWGKJMMWLQV5PD3VUJUEHEXFTTT", "ltc1qx88q7zjd74lxwgkjmmwlqv5pd3vujuehexfttt"],
  ],
  ripple: [
    ["rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"], // genesis account
    ["rrrrrrrrrrrrrrrrrrrrrhoLvTp"], // ACCOUNT_ZERO (XRPL docs, special addresses)
    ["rrrrrrrrrrrrrrrrrrrrBZbvji"], // ACCOUNT_ONE
  ],
  stellar: [
    ["GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ"], // SEP-23 valid account
    ["GBPXXOA5N4JYPESHAADMQKBPWZWQDQ64ZV6ZL2S3LAGW4SY7NTCMWIVL"], // stellar SDK StrKey tests
    ["MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ"], // SEP-23 muxed, id 0
    ["MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK"], // SEP-23 muxed, id 2^63
  ],
  algorand: [
    ["VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5FQ"], // blockchain_utils vector (key checked below)
    ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKQ"], // the zero address
    ["Y76M3MSY6DKBRHBL7C3NNDXGS5IIMQVQVUAB6MP4XEMMGVF2QWNPL226CA"], // mainnet fee sink
  ],
  dogecoin: [
    ["DEgDVFa2DoW1533dxeDVdTxQFhMzs1pMke"],
    ["DJXvHTVFXxgKPxwCC1MfmHxNySoApA87Pc"],
    ["ADNbM5fBujCRBW1vqezNeAWmnsLp19ki3n"], // P2SH
    ["9xqCpm3DpUYSzcoQSPb5SEGDwn9NRqwZnH"], // P2SH
  ],
  cardano: [
    // CIP-19 mainnet vectors: base (type 0), pointer (4, 5), enterprise (6, 7), script base (1)
    ["addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x"],
    ["addr1z8phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gten0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgs9yc0hh"],
    ["addr1gx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer5pnz75xxcrzqf96k"],
    ["addr128phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gtupnz75xxcrtw79hu"],
    ["addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8"],
    ["ADDR1W8PHKX6ACPNF78FUVXN0MKEW3L0FD058HZQUVZ7W36X4GTCYJY7WX", "addr1w8phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gtcyjy7wx"],
    // Byron: Icarus style (cardano-wallet docs) and Daedalus style (pallas)
    ["Ae2tdPwUPEZLs4HtbuNey7tK4hTKrwNwYtGqp7bDfCy2WdR3P6735W5Yfpe"],
    ["DdzFFzCqrht7PQiAhzrn6rNNoADJieTWBt8KeK9BZdUsGyX9ooYD9NpMCTGjQoUKcHN47g8JMXhvKogsGpQHtiQ65fZwiypjrC6d3a4Q"],
  ],
  cosmos: [
    ["cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02"], // Trust Wallet core tests
    ["cosmos1vv6hruquzpty4xpks9znkw8gys5x4nsnqw9f4k"], // Keplr bech32 tests (bytes checked below)
    ["COSMOS1VV6HRUQUZPTY4XPKS9ZNKW8GYS5X4NSNQW9F4K", "cosmos1vv6hruquzpty4xpks9znkw8gys5x4nsnqw9f4k"],
  ],
  near: [
    ["near"], // top-level account
    ["alice.near"],
    ["app_1-beta.alice.near"],
    ["98793cd91a3f870fb126f66285808c7e094afcfc4eda8a970f6648cdf0dbd6de"], // implicit account (NEAR docs)
    ["0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"], // ETH-implicit account
  ],
  polkadot: [
    ["15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5"], // //Alice on Polkadot (key checked below)
    ["13UVJyLnbVp9RBZYFwFGyDvVd1y27Tt8tkntv6Q7JVPhFsTB"], // treasury (Polkadot wiki, system accounts)
    ["14E5nqKAp3oAJcmzgZhUD2RcptBeUBScxKHgJKU4HPNcKVf3"], // //Bob on Polkadot
  ],
  "bitcoin-cash": [
    // CashAddr spec translation vectors (legacy ↔ CashAddr), with and without prefix and in upper case
    ["bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"],
    ["qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy", "bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy"],
    ["BITCOINCASH:QPM2QSZNHKS23Z7629MMS6S4CWEF74VCWVY22GDX6A", "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"],
    ["bitcoincash:ppn87szlp75e3f5akyjlkkwp7qn93w5yx5mvzwlu3y"], // P2SH (blockchain_utils vectors)
    ["1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu"], // legacy form of the first one, kept as given
    ["1KXrWXciRDZUpQwQmuM1DbwsKDLYAYsVLR"],
  ],
};

describe("SUPPORTED_NETWORKS and isSupportedNetwork", () => {
  test("lists exactly the 21 networks in the documented order", () => {
    expect([...SUPPORTED_NETWORKS]).toEqual([
      "bitcoin", "ethereum", "polygon", "bsc", "solana", "tron", "avalanche", "arbitrum", "optimism", "base", "litecoin",
      "ripple", "stellar", "algorand", "dogecoin", "cardano", "cosmos", "near", "polkadot", "fantom", "bitcoin-cash",
    ]);
  });

  test.each(SUPPORTED_NETWORKS.map((n) => [n]))("%s is supported", (n) => {
    expect(isSupportedNetwork(n)).toBe(true);
  });

  test.each([["eth"], ["btc"], ["matic"], ["bnb"], ["xrp"], ["xlm"], ["dot"], ["ada"], ["avax"], ["sol"], ["bch"], ["Ethereum"], ["BITCOIN"], ["bitcoin "], ["bitcoincash"], ["bitcoin_cash"], [""], ["toString"]])(
    "alias or variant %p is not supported",
    (name) => {
      expect(isSupportedNetwork(name)).toBe(false);
    },
  );

  test("every supported network has published vectors in this file", () => {
    for (const n of SUPPORTED_NETWORKS) expect(VALID[n].length).toBeGreaterThanOrEqual(2);
  });
});

describe("published addresses are accepted and normalized", () => {
  const rows = SUPPORTED_NETWORKS.flatMap((n) => VALID[n].map(([a, norm]) => [n, a, norm ?? a] as const));
  test.each(rows)("%s accepts %s", (network, address, normalized) => {
    expect(validateAddress(network, address)).toEqual({ ok: true, address: normalized });
  });

  test("EVM networks normalize to the EIP-55 spelling", () => {
    for (const n of EVM) expect(accepted(n, "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")).toBe("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
  });

  test("surrounding whitespace is trimmed", () => {
    expect(validateAddress("bitcoin", "  1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa\n")).toEqual({ ok: true, address: "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa" });
  });
});

/** Replaces the character at `index` with the next one in `alphabet`, so only a checksum can notice. */
function mutate(address: string, index: number, alphabet: string): string {
  const ch = address[index];
  const at = alphabet.indexOf(ch);
  if (at < 0) throw new Error(`${ch} not in alphabet`);
  return address.slice(0, index) + alphabet[(at + 1) % alphabet.length] + address.slice(index + 1);
}

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const XRP = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz";
const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const HEX = "0123456789abcdefABCDEF";

describe("one changed character is caught by the checksum", () => {
  // prettier-ignore
  const rows: ReadonlyArray<readonly [Network, string, number, string]> = [
    ["bitcoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", 10, B58],
    ["bitcoin", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", 20, B58],
    ["bitcoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", 12, BECH],
    ["bitcoin", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", 30, BECH],
    ["litecoin", "Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW", 15, B58],
    ["litecoin", "ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz", 20, BECH],
    ["dogecoin", "DEgDVFa2DoW1533dxeDVdTxQFhMzs1pMke", 17, B58],
    ["bitcoin-cash", "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", 25, BECH],
    ["bitcoin-cash", "1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu", 12, B58],
    ["tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", 16, B58],
    ["ripple", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", 14, XRP],
    ["stellar", "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ", 20, B32],
    ["stellar", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ", 60, B32],
    ["algorand", "VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5FQ", 25, B32],
    ["cardano", "addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8", 20, BECH],
    // The last base58 digit only moves the low bytes, i.e. the stored CRC32, so the CBOR frame stays intact.
    ["cardano", "Ae2tdPwUPEZLs4HtbuNey7tK4hTKrwNwYtGqp7bDfCy2WdR3P6735W5Yfpe", 58, B58],
    ["cosmos", "cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02", 20, BECH],
    ["polkadot", "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", 24, B58],
    ...EVM.map((n) => [n, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", 12, HEX] as const),
  ];
  test.each(rows)("%s refuses %s changed at %i", (network, address, index, alphabet) => {
    const changed = mutate(address, index, alphabet);
    expect(changed).not.toBe(address);
    expect(validateAddress(network, address).ok).toBe(true);
    expect(refused(network, changed)).toBe(`${network} address checksum does not match${EVM.includes(network) ? " (EIP-55 mixed case)" : ""}`);
  });

  test("a Byron address changed in the middle is refused (the change breaks its CBOR frame or its CRC32)", () => {
    const why = refused("cardano", mutate("Ae2tdPwUPEZLs4HtbuNey7tK4hTKrwNwYtGqp7bDfCy2WdR3P6735W5Yfpe", 30, B58));
    expect(why).toMatch(/^cardano address (checksum does not match|is not a valid Byron address)/);
  });

  test("EIP-55: flipping the case of one letter breaks the checksum", () => {
    expect(refused("ethereum", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")).toBe("ethereum address checksum does not match (EIP-55 mixed case)");
    expect(refused("ethereum", "0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359")).toContain("checksum");
  });

  test("solana has no checksum: an in-alphabet change still decodes to 32 bytes, only the alphabet and length are checked", () => {
    const changed = mutate("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", 10, B58);
    expect(accepted("solana", changed)).toBe(changed);
    expect(refused("solana", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5D0")).toBe("solana address contains characters outside the base58 alphabet");
    expect(refused("solana", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5Dl")).toContain("outside the base58 alphabet");
  });

  test("near has no checksum: a changed character must still break the account ID rule to be caught", () => {
    expect(refused("near", "alice.Near")).toBe("near account ID must be lower case");
    expect(refused("near", "alice!near")).toContain("may hold only a-z, 0-9");
  });
});

describe("wrong length, prefix, version or network is refused with a clear reason", () => {
  // prettier-ignore
  const rows: ReadonlyArray<readonly [Network, string, string]> = [
    // bitcoin: other networks and test networks (BIP-350 invalid vectors among them)
    ["bitcoin", "Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW", "bitcoin address is a Litecoin P2PKH address, not a bitcoin mainnet address"],
    ["bitcoin", "ltc1qxtm55gultqzhqzl2p3ks50hg2478y3hehuj6dz", "bitcoin address is a Litecoin segwit address"],
    ["bitcoin", "DEgDVFa2DoW1533dxeDVdTxQFhMzs1pMke", "is a Dogecoin P2PKH address"],
    ["bitcoin", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "is a Tron address"],
    ["bitcoin", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", "Bitcoin testnet/signet address"],
    ["bitcoin", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "outside the base58 alphabet (it looks like an EVM 0x address)"],
    ["bitcoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf", "checksum does not match"],
    ["bitcoin", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", "version 1 and above must use bech32m"],
    ["bitcoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", "version 0 must use bech32"],
    ["bitcoin", "bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", "outside the bech32 alphabet"],
    ["bitcoin", "BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", "invalid witness version"],
    ["bitcoin", "bc1pw5dgrnzv", "1-byte witness program"],
    ["bitcoin", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav", "41-byte witness program"],
    ["bitcoin", "BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", "16-byte version 0 program"],
    ["bitcoin", "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", "testnet"],
    ["bitcoin", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", "invalid padding"],
    ["bitcoin", "bc1gmk9yu", "too short"], // BIP-350: empty data section
    ["bitcoin", "bC1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "mixes upper and lower case"],
    // BIP-350 valid but not yet defined witness versions (a decision, see index.ts)
    ["bitcoin", "BC1SW50QGDZ25J", "witness version 16, which is not yet defined"],
    ["bitcoin", "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "witness version 2, which is not yet defined"],
    ["bitcoin", "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", "taproot programs are 32 bytes"],
    // litecoin
    ["litecoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "litecoin address is a Bitcoin P2PKH address, not a litecoin mainnet address"],
    ["litecoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "is a Bitcoin segwit address; litecoin segwit addresses start with \"ltc1\""],
    ["litecoin", "DEgDVFa2DoW1533dxeDVdTxQFhMzs1pMke", "is a Dogecoin P2PKH address"],
    ["litecoin", "Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEW", "checksum does not match"],
    // dogecoin
    ["dogecoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "dogecoin address is a Bitcoin P2PKH address"],
    ["dogecoin", "Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW", "is a Litecoin P2PKH address"],
    ["dogecoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "dogecoin has no segwit addresses"],
    // bitcoin-cash
    ["bitcoin-cash", "bchtest:qpf29h80q4kzprl84jmwhf9du3jsu2tvw509nqz5cy", "is a Bitcoin Cash testnet address"],
    ["bitcoin-cash", "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6A", "mixes upper and lower case"],
    ["bitcoin-cash", "bitcoin:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", "has prefix \"bitcoin\"; expected \"bitcoincash\""],
    ["bitcoin-cash", "bitcoincash:qpzry9x8gf2tvdw0s3jn54khce6mua7lcw20ayyn", "declares a 20-byte hash but carries 19 bytes"], // spec checksum vector, not an address
    ["bitcoin-cash", "Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW", "is a Litecoin P2PKH address"],
    ["bitcoin-cash", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "bitcoin-cash has no segwit addresses"],
    ["bitcoin-cash", "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6", "checksum does not match"],
    // EVM
    ...EVM.flatMap((n) => [
      [n, "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", `${n} address must start with "0x"`],
      [n, "0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "lowercase \"0x\""],
      [n, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", `${n} address must have 40 hex characters after "0x", not 39`],
      [n, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed0", "not 41"],
      [n, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg", "not hexadecimal"],
      [n, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "must start with \"0x\""],
    ] as const),
    // solana
    ["solana", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "(it looks like an EVM 0x address)"],
    ["solana", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "decodes to 25 bytes; expected a 32-byte public key (it looks like a Tron address)"],
    ["solana", "1111111111111111111111111111111", "must be 32 to 44 base58 characters, not 31"],
    ["solana", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DAA", "decodes to 33 bytes"],
    // tron
    ["tron", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "version byte 0x00; Tron addresses use 0x41"],
    ["tron", "418840E6C55B9ADA326D211D818C34A994AECED808", "hex form"],
    ["tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6", "checksum does not match"],
    ["tron", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "outside the base58 alphabet"],
    // ripple
    ["ripple", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "ripple address checksum does not match"],
    ["ripple", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyT", "checksum does not match"],
    ["ripple", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTl", "outside the XRP base58 alphabet"],
    ["ripple", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "outside the XRP base58 alphabet"],
    // stellar: SEP-23 invalid vectors and other StrKey kinds
    ["stellar", "GAAAAAAAACGC6", "stellar account must be 56 characters, not 13"],
    ["stellar", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUR", "unused trailing bits must be zero"],
    ["stellar", "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZA", "not 57"],
    ["stellar", "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUACUSI", "not 58"],
    ["stellar", "G47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVP2I", "unknown version byte"],
    ["stellar", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLKA", "not 70"],
    ["stellar", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAAV75I", "not 71"],
    ["stellar", "M47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ", "stellar address checksum does not match"],
    ["stellar", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUK===", "must not carry base32 padding"],
    ["stellar", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUO", "checksum does not match"],
    ["stellar", "CA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUWDA", "is a contract ID, not an account"],
    ["stellar", "SBGWKM3CD4IL47QN6X54N6Y33T3JDNVI6AIJ6CD5IM47HG3IG4O36XCU", "is a secret seed"],
    ["stellar", "ga7qynf7sowq3glr2bgmzehxavirza4kvwltjjfc7mgxua74p7ujvsgz", "must be upper case"],
    ["stellar", "VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5FQ", "must start with \"G\" (account) or \"M\" (muxed account)"],
    // algorand
    ["algorand", "vqd6tbrl6bh6nagipeug6jzucpjvxb3gptheu5wtkx5ddgsr3axnkbn5fq", "algorand address must be upper case"],
    ["algorand", "VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5F", "must be 58 characters, not 57"],
    ["algorand", "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ", "not 56"],
    ["algorand", "VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5F1", "outside the base32 alphabet"],
    ["algorand", "VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5FR", "unused trailing bits must be zero"],
    // cardano: CIP-19 testnet/stake vectors, a mainnet payload under the testnet prefix and vice versa
    ["cardano", "addr_test1vz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzerspjrlsz", "testnet address (\"addr_test\")"],
    ["cardano", "stake1uyehkck0lajq8gr28t9uxnuvgcqrc6070x3k9r8048z8y5gh6ffgw", "stake (reward) address"],
    ["cardano", "addr1uyehkck0lajq8gr28t9uxnuvgcqrc6070x3k9r8048z8y5g3zl0gu", "stake (reward) header"],
    ["cardano", "37btjrVyb4KDXBNC4haBVPCrro8AQPHwvCMp3RFhhSVWwfFmZ6wwzSK6JK1hY6wHNmtrpTf1kdbva8TCneM2YsiXT7mrzT21EacHnPpz5YyUdj64na", "Byron testnet address (protocol magic 1097911063)"],
    ["cardano", "cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02", "has bech32 prefix \"cosmos\""],
    ["cardano", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "neither a Shelley \"addr1\" address nor a Byron address"],
    ["cardano", "addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl", "checksum does not match"],
    // cosmos
    ["cosmos", "cosmosvaloper1sxx9mszve0gaedz5ld7qdkjkfv8z992ax69k08", "is a validator operator address, not an account"],
    ["cosmos", "terra1w34k53py5v5xyluazqpq65agyajavep29d9qch", "prefix \"terra\" (another chain)"],
    ["cosmos", "bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2", "prefix \"bnb\""],
    ["cosmos", "cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd0", "checksum does not match"],
    ["cosmos", "Cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02", "mixes upper and lower case"],
    ["cosmos", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "must start with \"cosmos1\" (it looks like an EVM 0x address)"],
    // near
    ["near", "Alice.near", "must be lower case"],
    ["near", "a", "must be 2 to 64 characters, not 1"],
    ["near", "a".repeat(65), "not 65"],
    ["near", "alice..near", "may hold only"],
    ["near", "-alice.near", "may hold only"],
    ["near", "alice_.near", "may hold only"],
    ["near", "alice near", "may hold only"],
    ["near", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "must be lower case"],
    // polkadot
    ["polkadot", "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", "generic Substrate address (SS58 prefix 42), not a Polkadot address"],
    ["polkadot", "F3opxRbN5ZbjJNU511Kj2TLuzFcDq9BGduA9TgiECafpg29", "Kusama address (SS58 prefix 2)"],
    ["polkadot", "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp", "checksum does not match"],
    ["polkadot", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "must be 46 to 50 base58 characters"],
    ["polkadot", "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp0", "outside the base58 alphabet"],
  ];
  test.each(rows)("%s refuses %s", (network, address, reason) => {
    const why = refused(network, address);
    expect(why).toStartWith(`${network} `);
    expect(why).toContain(reason);
  });

  test("every network has refusal cases above", () => {
    for (const n of SUPPORTED_NETWORKS) expect(rows.some(([network]) => network === n)).toBe(true);
  });

  test("generic refusals: empty, too long, a tag left in, an unsupported network at run time", () => {
    expect(refused("bitcoin", "   ")).toBe("bitcoin address is empty");
    for (const [n, a] of [["bitcoin", "1"], ["bitcoin", "bc1qqqq"], ["tron", "T"], ["ripple", "r"], ["bitcoin-cash", "bitcoincash:"], ["cardano", "addr1qqqqqq"], ["cosmos", "cosmos1"]] as const) {
      expect(refused(n, a)).toBe(`${n} address is too short`);
    }
    expect(refused("near", "a".repeat(2000))).toBe("near address is too long");
    expect(refused("ripple", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh?dt=5")).toContain("split any destination tag off with parseAddress");
    expect(validateAddress("eth" as Network, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")).toEqual({ ok: false, reason: 'unsupported network "eth"' });
  });
});

describe("vectors built from the encoding definitions and published key material", () => {
  test("BIP-350: the listed scriptPubKeys encode to the listed addresses", () => {
    const v0 = bech32.encode("bc", [0, ...bech32.toWords(hex.decode("751e76e8199196d454941c45d1b3a323f1433bd6"))]);
    expect(v0).toBe("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
    const v1 = bech32m.encode("bc", [1, ...bech32m.toWords(hex.decode("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"))]);
    expect(v1).toBe("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0");
    expect(accepted("bitcoin", v0)).toBe(v0);
    expect(accepted("bitcoin", v1)).toBe(v1);
  });

  test("bitcoin: random hashes as P2PKH, P2SH, P2WPKH, P2WSH and P2TR are accepted; testnet versions are not", () => {
    const h = random(20);
    expect(accepted("bitcoin", b58check.encode(Uint8Array.of(0x00, ...h)))).toStartWith("1");
    expect(accepted("bitcoin", b58check.encode(Uint8Array.of(0x05, ...h)))).toStartWith("3");
    expect(accepted("bitcoin", bech32.encode("bc", [0, ...bech32.toWords(h)]))).toStartWith("bc1q");
    expect(accepted("bitcoin", bech32.encode("bc", [0, ...bech32.toWords(random(32))]))).toStartWith("bc1q");
    expect(accepted("bitcoin", bech32m.encode("bc", [1, ...bech32m.toWords(random(32))]))).toStartWith("bc1p");
    expect(refused("bitcoin", b58check.encode(Uint8Array.of(0x6f, ...h)))).toContain("testnet P2PKH");
    expect(refused("bitcoin", b58check.encode(Uint8Array.of(0xc4, ...h)))).toContain("testnet P2SH");
    expect(refused("bitcoin", b58check.encode(Uint8Array.of(0x00, ...random(21))))).toContain("decodes to 22 bytes");
    expect(refused("bitcoin", b58check.encode(Uint8Array.of(0x99, ...h)))).toBe("bitcoin address has unknown version byte 0x99");
    expect(refused("bitcoin", bech32.encode("bcrt", [0, ...bech32.toWords(h)]))).toContain("regtest");
  });

  test("litecoin: the published ltc1 address is hash160 of its published public key", () => {
    const pubkey = hex.decode("026759a817d8674f69b8c50c74bf225a7c4ae7f3e14afa40a9f241c2b8c2a04b52");
    expect(hex.encode(hash160(pubkey))).toBe("31ce0f0a4df57e6722d2deddf032816c59c97337");
    expect(bech32.encode("ltc", [0, ...bech32.toWords(hash160(pubkey))])).toBe("ltc1qx88q7zjd74lxwgkjmmwlqv5pd3vujuehexfttt");
    const h = random(20);
    for (const version of [0x30, 0x32, 0x05]) expect(validateAddress("litecoin", b58check.encode(Uint8Array.of(version, ...h))).ok).toBe(true);
    expect(refused("litecoin", b58check.encode(Uint8Array.of(0x3a, ...h)))).toContain("Litecoin testnet P2SH");
    expect(refused("litecoin", bech32.encode("tltc", [0, ...bech32.toWords(h)]))).toContain("Litecoin testnet");
    expect(refused("litecoin", bech32.encode("ltcmweb", [0, ...bech32.toWords(random(32))]))).toContain("MWEB");
  });

  test("dogecoin: random hashes under 0x1e and 0x16 are accepted, the testnet 0x71 is not", () => {
    const h = random(20);
    expect(accepted("dogecoin", b58check.encode(Uint8Array.of(0x1e, ...h)))).toStartWith("D");
    expect(validateAddress("dogecoin", b58check.encode(Uint8Array.of(0x16, ...h))).ok).toBe(true);
    expect(refused("dogecoin", b58check.encode(Uint8Array.of(0x71, ...h)))).toContain("Dogecoin testnet");
  });

  test("CashAddr spec: legacy and CashAddr forms carry the same hash", () => {
    const pairs = [
      ["1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu", "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"],
      ["1KXrWXciRDZUpQwQmuM1DbwsKDLYAYsVLR", "bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy"],
    ] as const;
    for (const [legacy, cash] of pairs) {
      const payload = b58check.decode(legacy);
      expect(payload[0]).toBe(0x00);
      expect(encodeCashAddr("bitcoincash", 0x00, payload.subarray(1))).toBe(cash);
    }
  });

  test("CashAddr: P2SH32 and CashTokens-aware types are accepted; reserved bits, bad sizes and test prefixes are not", () => {
    expect(accepted("bitcoin-cash", encodeCashAddr("bitcoincash", 0x0b, random(32)))).toStartWith("bitcoincash:p");
    expect(accepted("bitcoin-cash", encodeCashAddr("bitcoincash", 0x10, random(20)))).toStartWith("bitcoincash:z");
    expect(accepted("bitcoin-cash", encodeCashAddr("bitcoincash", 0x18, random(20)))).toStartWith("bitcoincash:r");
    expect(refused("bitcoin-cash", encodeCashAddr("bitcoincash", 0x03, random(32)))).toContain("which its type does not allow");
    expect(refused("bitcoin-cash", encodeCashAddr("bitcoincash", 0x80, random(20)))).toContain("reserved bit");
    expect(refused("bitcoin-cash", encodeCashAddr("bitcoincash", 0x20, random(20)))).toContain("unknown type 4");
    expect(refused("bitcoin-cash", encodeCashAddr("bchreg", 0x00, random(20)))).toContain("regtest");
    // A valid CashAddr checksum over another prefix does not verify under "bitcoincash".
    const foreign = encodeCashAddr("bchtest", 0x00, random(20)).slice("bchtest:".length);
    expect(refused("bitcoin-cash", foreign)).toBe("bitcoin-cash address checksum does not match");
  });

  test("EIP-55: random addresses round-trip through the checksum; lower-case input is normalized", () => {
    for (let i = 0; i < 20; i++) {
      const lower = hex.encode(random(20));
      const checksummed = toChecksumAddress(lower);
      expect(accepted("ethereum", checksummed)).toBe(checksummed);
      expect(accepted("base", `0x${lower}`)).toBe(checksummed);
    }
  });

  test("solana: any 32 random bytes are an address, 31 or 33 are not", () => {
    expect(validateAddress("solana", base58.encode(random(32))).ok).toBe(true);
    expect(refused("solana", base58.encode(Uint8Array.of(1, ...random(30))))).toContain("decodes to 31 bytes");
    expect(refused("solana", base58.encode(Uint8Array.of(1, ...random(32))))).toContain("decodes to 33 bytes");
  });

  test("tron: the docs' hex address encodes to its base58 form; other version bytes are refused", () => {
    expect(b58check.encode(hex.decode("418840e6c55b9ada326d211d818c34a994aeced808"))).toBe("TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL");
    expect(accepted("tron", b58check.encode(Uint8Array.of(0x41, ...random(20))))).toStartWith("T");
    expect(refused("tron", b58check.encode(Uint8Array.of(0x42, ...random(20))))).toContain("version byte 0x42");
  });

  const xrpEncode = (body: Uint8Array): string => base58xrp.encode(Uint8Array.of(...body, ...sha256(sha256(body)).subarray(0, 4)));

  test("ripple: account IDs 0 and 1 encode to ACCOUNT_ZERO and ACCOUNT_ONE (ripple-address-codec vectors)", () => {
    expect(xrpEncode(new Uint8Array(21))).toBe("rrrrrrrrrrrrrrrrrrrrrhoLvTp");
    const one = new Uint8Array(21);
    one[20] = 1;
    expect(xrpEncode(one)).toBe("rrrrrrrrrrrrrrrrrrrrBZbvji");
    expect(validateAddress("ripple", xrpEncode(Uint8Array.of(0, ...random(20)))).ok).toBe(true);
  });

  test("ripple: seeds, X-addresses and wrong account sizes are refused", () => {
    expect(refused("ripple", xrpEncode(Uint8Array.of(0x21, ...random(16))))).toContain("secret seed");
    const xAddress = xrpEncode(Uint8Array.of(0x05, 0x44, ...random(20), 0, ...new Uint8Array(8)));
    expect(xAddress).toStartWith("X");
    expect(refused("ripple", xAddress)).toContain("X-addresses are not supported");
    expect(refused("ripple", xrpEncode(Uint8Array.of(0, ...random(21))))).toContain("21-byte account ID");
    expect(refused("ripple", xrpEncode(Uint8Array.of(0x1c, ...random(33))))).toContain("version byte 0x1c");
  });

  const SEP23_KEY = hex.decode("3f0c34bf93ad0d9971d04ccc90f705511c838aad9734a4a2fb0d7a03fc7fe89a");

  test("stellar: SEP-23 key bytes encode to the SEP-23 account and muxed strkeys", () => {
    expect(crc16xmodem(new TextEncoder().encode("123456789"))).toBe(0x31c3); // CRC16-XModem check value
    expect(encodeStrKey(6 << 3, SEP23_KEY)).toBe("GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ");
    expect(encodeStrKey(12 << 3, Uint8Array.of(...SEP23_KEY, ...new Uint8Array(8)))).toBe("MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ");
    expect(encodeStrKey(12 << 3, Uint8Array.of(...SEP23_KEY, 0x80, 0, 0, 0, 0, 0, 0, 0))).toBe("MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK");
    expect(validateAddress("stellar", encodeStrKey(6 << 3, random(32))).ok).toBe(true);
    expect(refused("stellar", encodeStrKey((6 << 3) | 1, random(32)))).toContain("unknown version byte");
    expect(refused("stellar", encodeStrKey(18 << 3, random(32)))).toContain("secret seed");
    // A G-prefixed strkey carrying a muxed-length payload fails on length before anything else.
    expect(refused("stellar", encodeStrKey(6 << 3, random(40)))).toContain("must be 56 characters");
  });

  test("algorand: the published public key encodes to the published address; random keys round-trip", () => {
    const key = hex.decode("ac07e9862bf04fe680c879286f273413d35b87667cce4a76d355fa319a51d82e");
    expect(encodeAlgorand(key)).toBe("VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5FQ");
    expect(encodeAlgorand(new Uint8Array(32))).toBe("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKQ");
    expect(validateAddress("algorand", encodeAlgorand(random(32))).ok).toBe(true);
    const wrongSum = base32nopad.encode(Uint8Array.of(...key, 0, 0, 0, 0));
    expect(refused("algorand", wrongSum)).toBe("algorand address checksum does not match");
  });

  test("cardano: Byron bytes are the cardano-wallet docs' hex; CRC32 and the CBOR structure are checked", () => {
    const icarus = hex.decode("82d818582183581cf11939f42338d59e21baa08645ac1f0038d5ee969f99fe98f402fe79a0001ac9d64e5b");
    expect(base58.encode(icarus)).toBe("Ae2tdPwUPEZLs4HtbuNey7tK4hTKrwNwYtGqp7bDfCy2WdR3P6735W5Yfpe");
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926); // CRC-32 check value
    const altered = icarus.slice();
    altered[altered.length - 1] ^= 1;
    expect(refused("cardano", base58.encode(altered))).toBe("cardano address checksum does not match");
    const payload = icarus.subarray(4, 4 + 33).slice();
    payload[payload.length - 1] = 3; // address type 3 does not exist
    const retyped = Uint8Array.of(0x82, 0xd8, 0x18, 0x58, 0x21, ...payload, 0x1a, ...u32(crc32(payload)));
    expect(refused("cardano", base58.encode(retyped))).toContain("malformed Byron payload");
  });

  test("cardano: generated Shelley enterprise and base addresses are accepted; wrong network id and length are not", () => {
    const enc = (bytes: Uint8Array, hrp = "addr"): string => bech32.encode(hrp, bech32.toWords(bytes), 1023);
    expect(validateAddress("cardano", enc(Uint8Array.of(0x61, ...random(28)))).ok).toBe(true);
    expect(validateAddress("cardano", enc(Uint8Array.of(0x01, ...random(56)))).ok).toBe(true);
    expect(refused("cardano", enc(Uint8Array.of(0x60, ...random(28))))).toContain("network id 0");
    expect(refused("cardano", enc(Uint8Array.of(0x61, ...random(27))))).toContain("29 bytes, not 28");
    expect(refused("cardano", enc(Uint8Array.of(0x41, ...random(28), 0x81)))).toContain("malformed pointer");
    expect(refused("cardano", enc(Uint8Array.of(0x91, ...random(28))))).toContain("unknown header type 9");
  });

  test("cosmos: the Keplr vector's bytes encode to its address; 32-byte accounts pass, other sizes do not", () => {
    const bytes = Uint8Array.from([99, 53, 113, 240, 28, 16, 86, 74, 152, 54, 129, 69, 59, 56, 232, 36, 40, 106, 206, 19]);
    expect(bech32.encode("cosmos", bech32.toWords(bytes))).toBe("cosmos1vv6hruquzpty4xpks9znkw8gys5x4nsnqw9f4k");
    expect(validateAddress("cosmos", bech32.encode("cosmos", bech32.toWords(random(32)))).ok).toBe(true);
    expect(refused("cosmos", bech32.encode("cosmos", bech32.toWords(random(21))))).toContain("carries 21 bytes");
  });

  test("near: a random ed25519 key in hex is an implicit account", () => {
    expect(validateAddress("near", hex.encode(random(32))).ok).toBe(true);
    expect(refused("near", hex.encode(random(32)).toUpperCase().replace(/^./, "A"))).toContain("lower case");
  });

  const ALICE = hex.decode("d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d");
  const ss58 = (prefix: readonly number[], key: Uint8Array): string => {
    const body = Uint8Array.of(...prefix, ...key);
    return base58.encode(Uint8Array.of(...body, ...ss58Checksum(body)));
  };

  test("polkadot: //Alice's public key encodes to the published Polkadot and Substrate addresses", () => {
    expect(ss58([0], ALICE)).toBe("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5");
    expect(ss58([42], ALICE)).toBe("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY");
    expect(validateAddress("polkadot", ss58([0], random(32))).ok).toBe(true);
    expect(refused("polkadot", ss58([0], random(33)))).toContain("does not encode a 32-byte account");
    // Two-byte prefix 64 (0x50 0x00 in SS58's bit layout).
    expect(refused("polkadot", ss58([0x50, 0x00], random(32)))).toContain("SS58 prefix 64");
  });
});

function u32(n: number): number[] {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

describe("parseAddress", () => {
  test.each([
    ["rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", { address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", tag: null, tagKey: null }],
    ["rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh?dt=123", { address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", tag: "123", tagKey: "dt" }],
    ["rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh?tag=5", { address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", tag: "5", tagKey: "tag" }],
    ["  GA7Q?memo=hello%20world%26more ", { address: "GA7Q", tag: "hello world&more", tagKey: "memo" }],
    ["cosmos1x?memo=a+b", { address: "cosmos1x", tag: "a+b", tagKey: "memo" }],
  ] as const)("%p", (input, expected) => {
    expect(parseAddress(input)).toEqual(expected);
  });

  test.each([
    ["", "address is empty"],
    ["?dt=1", "address is empty"],
    ["addr?dt=", "dt has no value"],
    ["addr?dt", "dt has no value"],
    ["addr?foo=1", 'unknown address parameter "foo"; expected dt, memo or tag'],
    ["addr?DT=1", 'unknown address parameter "DT"'],
    ["addr?dt=1&memo=x", "only one destination tag or memo"],
    ["addr?dt=1?dt=2", "only one destination tag or memo"],
    ["addr?memo=%E0%A4%A", "memo is not valid percent-encoding"],
  ])("%p is refused", (input, error) => {
    const r = parseAddress(input);
    expect("error" in r && r.error).toStartWith(error);
  });
});

describe("destination tags and memos", () => {
  test.each(SUPPORTED_NETWORKS.map((n) => [n, n === "ripple" || n === "stellar" || n === "cosmos"] as const))("acceptsTag(%s) is %p", (n, expected) => {
    expect(acceptsTag(n)).toBe(expected);
  });

  const XRP_ADDR = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";
  const G = "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ";
  const COSMOS = "cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02";

  test.each([
    ["ripple", `${XRP_ADDR}?dt=0`, "0", "dt"],
    ["ripple", `${XRP_ADDR}?dt=4294967295`, "4294967295", "dt"],
    ["ripple", `${XRP_ADDR}?tag=123`, "123", "tag"],
    ["stellar", `${G}?memo=${"x".repeat(28)}`, "x".repeat(28), "memo"],
    ["stellar", `${G}?memo=${encodeURIComponent("é".repeat(14))}`, "é".repeat(14), "memo"],
    ["stellar", `${G}?memo=18446744073709551615`, "18446744073709551615", "memo"],
    ["cosmos", `${COSMOS}?memo=${"m".repeat(256)}`, "m".repeat(256), "memo"],
    ["cosmos", `${COSMOS}?memo=104523`, "104523", "memo"],
  ] as const)("%s accepts %s", (network, input, tag, tagKey) => {
    const address = input.slice(0, input.indexOf("?"));
    expect(validateDestination(network, input)).toEqual({ ok: true, address, tag, tagKey });
  });

  test.each([
    ["ripple", `${XRP_ADDR}?dt=4294967296`, "ripple destination tag must be a whole number from 0 to 4294967295"],
    ["ripple", `${XRP_ADDR}?dt=007`, "whole number"],
    ["ripple", `${XRP_ADDR}?dt=-1`, "whole number"],
    ["ripple", `${XRP_ADDR}?dt=12.5`, "whole number"],
    ["ripple", `${XRP_ADDR}?dt=abc`, "whole number"],
    ["ripple", `${XRP_ADDR}?memo=123`, "ripple takes dt or tag, not memo"],
    ["stellar", `${G}?memo=${"x".repeat(29)}`, "stellar memo must be at most 28 bytes of UTF-8, not 29"],
    ["stellar", `${G}?memo=${encodeURIComponent("é".repeat(15))}`, "not 30"],
    ["stellar", `${G}?dt=5`, "stellar takes memo, not dt"],
    ["stellar", `${G}?memo=a%0Ab`, "must not contain control characters"],
    ["stellar", "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ?memo=1", "muxed (M…) address already carries its ID"],
    ["cosmos", `${COSMOS}?memo=${"m".repeat(257)}`, "cosmos memo must be at most 256 bytes of UTF-8, not 257"],
    ["bitcoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa?memo=hi", "bitcoin does not use destination tags or memos"],
    ["algorand", "VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5FQ?memo=hi", "algorand does not use destination tags or memos"],
    ["ethereum", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed?tag=1", "ethereum does not use destination tags or memos"],
    ["ripple", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyT?dt=1", "ripple address checksum does not match"],
    ["ripple", "?dt=1", "ripple address is empty"],
  ] as const)("%s refuses %s", (network, input, reason) => {
    const r = validateDestination(network, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });

  test("a destination without a tag passes through validateAddress's normalization", () => {
    expect(validateDestination("bitcoin", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4")).toEqual({
      ok: true,
      address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
      tag: null,
      tagKey: null,
    });
  });
});
