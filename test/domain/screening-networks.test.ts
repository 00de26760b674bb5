// Part 3 "screening_d screening", network mapping: the table row by row, case, the service's aliases, the vendor's own
// identifiers, refusals (UNSUPPORTED_NETWORK), and the address comparison per blockchain.
import { test, expect, describe, setDefaultTimeout } from "bun:test";
import {
  CASE_INSENSITIVE_BLOCKCHAINS,
  SCREENING_D_ALIASES,
  SCREENING_D_BLOCKCHAINS,
  sameScreenedAddress,
  screeningDBlockchain,
} from "../../src/domain/screening/networks.ts";

setDefaultTimeout(60_000);

// Copied from the spec's sentence, not from the module, so that a changed row fails here.
const TABLE: [string, string][] = [
  ["bitcoin", "btc"],
  ["bitcoin-cash", "bch"],
  ["litecoin", "ltc"],
  ["ethereum", "eth"],
  ["ethereum-classic", "etc"],
  ["arbitrum", "arb"],
  ["arbitrum-one", "arb"],
  ["optimism", "op"],
  ["base", "base"],
  ["polygon", "matic"],
  ["bsc", "bsc"],
  ["tron", "trx"],
  ["solana", "sol"],
  ["ripple", "xrp"],
  ["stellar", "xlm"],
  ["cardano", "ada"],
  ["xinfin", "xdc"],
  ["adi", "adi"],
];

describe("network to vendor blockchain", () => {
  for (const [network, blockchain] of TABLE) {
    test(`${network} → ${blockchain}`, () => {
      expect(screeningDBlockchain(network)).toEqual({ ok: true, blockchain: blockchain as never });
    });
  }

  test("case is ignored (and surrounding spaces)", () => {
    expect(screeningDBlockchain("Ethereum")).toEqual({ ok: true, blockchain: "eth" });
    expect(screeningDBlockchain("BITCOIN-CASH")).toEqual({ ok: true, blockchain: "bch" });
    expect(screeningDBlockchain("Arbitrum-One")).toEqual({ ok: true, blockchain: "arb" });
    expect(screeningDBlockchain(" tron ")).toEqual({ ok: true, blockchain: "trx" });
    expect(screeningDBlockchain("XinFin")).toEqual({ ok: true, blockchain: "xdc" });
  });

  test("the vendor's own identifiers are accepted, in any case", () => {
    expect(SCREENING_D_BLOCKCHAINS.length).toBe(17);
    for (const id of SCREENING_D_BLOCKCHAINS) {
      expect(screeningDBlockchain(id)).toEqual({ ok: true, blockchain: id });
      expect(screeningDBlockchain(id.toUpperCase())).toEqual({ ok: true, blockchain: id });
    }
  });

  test("the service's aliases map to their network's blockchain", () => {
    const expected: Record<string, string> = {
      bitcoincash: "bch",
      ethereumclassic: "etc",
      "polygon-pos": "matic",
      pol: "matic",
      bnb: "bsc",
      "bnb-chain": "bsc",
      "BNB-Smart-Chain": "bsc",
      "binance-smart-chain": "bsc",
      "op-mainnet": "op",
      xrpl: "xrp",
      "xrp-ledger": "xrp",
      "xdc-network": "xdc",
    };
    for (const [alias, blockchain] of Object.entries(expected)) expect(screeningDBlockchain(alias)).toEqual({ ok: true, blockchain: blockchain as never });
    expect(Object.keys(SCREENING_D_ALIASES).length).toBe(Object.keys(expected).length);
  });

  test("the networks Part 3 names as unsupported → UNSUPPORTED_NETWORK", () => {
    for (const n of ["avalanche", "fantom", "dogecoin", "algorand", "cosmos", "near", "polkadot", "AVALANCHE"]) {
      expect(screeningDBlockchain(n)).toEqual({ ok: false, code: "UNSUPPORTED_NETWORK" });
    }
  });

  test("anything else → UNSUPPORTED_NETWORK (near misses, blanks, prototype names, non-text)", () => {
    for (const n of ["", "  ", "ethereum-mainnet", "eth2", "bitcoin cash", "bitcoin_cash", "toString", "__proto__", "constructor", "hasOwnProperty", "avax", "doge"]) {
      expect(screeningDBlockchain(n)).toEqual({ ok: false, code: "UNSUPPORTED_NETWORK" });
    }
    for (const n of [null, undefined, 1, {}, ["eth"]]) expect(screeningDBlockchain(n)).toEqual({ ok: false, code: "UNSUPPORTED_NETWORK" });
  });
});

describe("the answered address is compared with the screened one", () => {
  const hex = ["eth", "etc", "arb", "op", "base", "bsc", "matic", "xdc", "adi"] as const;

  test("ignoring case for eth, etc, arb, op, base, bsc, matic, xdc, adi", () => {
    expect([...CASE_INSENSITIVE_BLOCKCHAINS].sort()).toEqual([...hex].sort());
    for (const b of hex) {
      expect(sameScreenedAddress(b, "0x83Ff1aB69B2203EAC2bD0254D2c52b07A40dEBc1", "0x83ff1ab69b2203eac2bd0254d2c52b07a40debc1")).toBe(true);
      expect(sameScreenedAddress(b, "0x83Ff1aB69B2203EAC2bD0254D2c52b07A40dEBc1", "0x83FF1AB69B2203EAC2BD0254D2C52B07A40DEBC1")).toBe(true);
      expect(sameScreenedAddress(b, "0x83Ff1aB69B2203EAC2bD0254D2c52b07A40dEBc1", "0x83Ff1aB69B2203EAC2bD0254D2c52b07A40dEBc2")).toBe(false);
    }
  });

  test("exactly for every other blockchain", () => {
    const others = SCREENING_D_BLOCKCHAINS.filter((b) => !CASE_INSENSITIVE_BLOCKCHAINS.has(b));
    expect(others.sort()).toEqual(["ada", "bch", "btc", "ltc", "sol", "trx", "xlm", "xrp"]);
    for (const b of others) {
      expect(sameScreenedAddress(b, "TS1Cas5UKsGD7HGn16Kkwr5ThBMronKs12", "TS1Cas5UKsGD7HGn16Kkwr5ThBMronKs12")).toBe(true);
      expect(sameScreenedAddress(b, "TS1Cas5UKsGD7HGn16Kkwr5ThBMronKs12", "ts1cas5ukgsd7hgn16kkwr5thbmronks12")).toBe(false);
    }
    expect(sameScreenedAddress("btc", "bc1qgja8xpzcvvmk4kerfcjdzfnsyactrnwlcacat2", "BC1QGJA8XPZCVVMK4KERFCJDZFNSYACTRNWLCACAT2")).toBe(false);
  });
});
