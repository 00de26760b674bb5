// Wallet ownership proofs without I/O: EIP-191 and BIP-137 against published vectors and noble-made signatures, challenges, verdicts.
import { test, expect, describe } from "bun:test";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import {
  bitcoinAddressOf,
  bitcoinMessageHash,
  challengeMessage,
  checkSigner,
  decodeHeader,
  deriveVerification,
  effectiveStatus,
  evmAddressOf,
  judgeSignedProof,
  newNonce,
  parseExpiry,
  parseSignature,
  personalMessageHash,
  recoverEvmSigner,
  parseEvmSignature,
  signedSchemeFor,
  varint,
  type BitcoinAddressType,
  type ChallengeView,
  type ParsedSignature,
  type SignedScheme,
} from "../../src/domain/proofs/index.ts";
import { toChecksumAddress } from "../../src/domain/networks/evm.ts";
import { validateAddress } from "../../src/domain/networks/index.ts";

/** personal_sign as wallets do it: r || s || v with v = 27 + recovery. */
function signEip191(sk: Uint8Array, message: string | Uint8Array, vBase = 27): string {
  const sig = secp256k1.sign(personalMessageHash(message), sk, { prehash: false, format: "recovered" });
  return `0x${bytesToHex(concatBytes(sig.subarray(1), Uint8Array.of(vBase + sig[0])))}`;
}

const HEADER_BASE: Record<BitcoinAddressType | "p2pkh-uncompressed", number> = { "p2pkh-uncompressed": 27, p2pkh: 31, "p2sh-p2wpkh": 35, p2wpkh: 39 };

/** A BIP-137 signature as Bitcoin wallets print it: base64 of header || r || s. */
function signBip137(sk: Uint8Array, message: string, kind: keyof typeof HEADER_BASE): string {
  const sig = secp256k1.sign(bitcoinMessageHash(message), sk, { prehash: false, format: "recovered" });
  return base64.encode(concatBytes(Uint8Array.of(HEADER_BASE[kind] + sig[0]), sig.subarray(1)));
}

function parsed(scheme: SignedScheme, text: string): ParsedSignature {
  const p = parseSignature(scheme, text);
  if ("error" in p) throw new Error(p.error);
  return p;
}

const evmAddress = (sk: Uint8Array) => toChecksumAddress(evmAddressOf(secp256k1.getPublicKey(sk, false)).slice(2));

describe("EIP-191 personal_sign", () => {
  // Published vector: web3.js documentation of web3.eth.accounts.sign
  // (https://docs.web3js.org/api/web3-eth-accounts/function/sign): message, key, messageHash and signature.
  // The key's address 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 is the one web3.js and eth-account document for it.
  const WEB3 = {
    message: "Some data",
    key: "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    messageHash: "1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655",
    signature: "0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c",
    address: "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23",
  };

  test("web3.js published vector: hash, recovery, and noble reproduces the signature byte for byte (RFC 6979)", () => {
    expect(bytesToHex(personalMessageHash(WEB3.message))).toBe(WEB3.messageHash);
    const sig = parseEvmSignature(WEB3.signature);
    if ("error" in sig) throw new Error(sig.error);
    expect(recoverEvmSigner(sig, WEB3.message)).toBe(WEB3.address.toLowerCase());
    expect(evmAddress(hexToBytes(WEB3.key))).toBe(WEB3.address);
    expect(signEip191(hexToBytes(WEB3.key), WEB3.message)).toBe(WEB3.signature);
  });

  test("execution-apis eth_sign example (bytes 0xdeadbeaf) recovers its published address", () => {
    // https://ethereum.github.io/execution-apis/docs/reference/eth_sign: an EIP-191 signature over the given bytes.
    const sig = parseEvmSignature("0xa3f20717a250c2b0b729b7e5becbff67fdaef7e0699da4de7ca5895b02a170a12d887fd3b17bfdce3481f10bea41f45ba9f709d39ce8325427b57afcfc994cee1b");
    if ("error" in sig) throw new Error(sig.error);
    expect(recoverEvmSigner(sig, hexToBytes("deadbeaf"))).toBe("0x9b2055d370f73ec7d8a03e965129118dc8f5bf83");
  });

  const messages = ["hello", "", "Ünïcödé ✓ 🚀", "line one\nline two", "x".repeat(1000)];
  test.each(messages.map((m, i) => [i, m] as const))("noble-made signature #%d recovers the signer, in every accepted spelling", (_i, message) => {
    const sk = secp256k1.utils.randomSecretKey();
    const address = evmAddress(sk);
    for (const text of [signEip191(sk, message), signEip191(sk, message, 0), signEip191(sk, message).slice(2), signEip191(sk, message).toUpperCase().replace("0X", "0x")]) {
      const r = checkSigner(parsed("eip191", text), message, address);
      expect(r).toEqual({ matches: true, signer: address.toLowerCase() });
      // Case-insensitive against the wallet's stored spelling (EIP-55 or lower case).
      expect(checkSigner(parsed("eip191", text), message, address.toLowerCase()).matches).toBe(true);
    }
  });

  test("another key, another text, or a changed byte does not match", () => {
    const sk = secp256k1.utils.randomSecretKey();
    const other = evmAddress(secp256k1.utils.randomSecretKey());
    const sig = signEip191(sk, "challenge");
    expect(checkSigner(parsed("eip191", sig), "challenge", other)).toEqual({ matches: false, signer: evmAddress(sk).toLowerCase() });
    expect(checkSigner(parsed("eip191", sig), "challenge!", evmAddress(sk)).matches).toBe(false);
    const flipped = sig.slice(0, 10) + (sig[10] === "0" ? "1" : "0") + sig.slice(11);
    expect(checkSigner(parsed("eip191", flipped), "challenge", evmAddress(sk)).matches).toBe(false);
  });

  test.each([
    ["too short", "0x1234"],
    ["not hex", `0x${"zz".repeat(65)}`],
    ["v out of range", `0x${"11".repeat(64)}1d`],
  ])("malformed signature refused: %s", (_n, text) => {
    expect("error" in parseSignature("eip191", text)).toBe(true);
  });

  test("r = 0 recovers no key (no exception escapes)", () => {
    const sig = parseEvmSignature(`0x${"00".repeat(32)}${"11".repeat(32)}1b`);
    if ("error" in sig) throw new Error(sig.error);
    expect(recoverEvmSigner(sig, "x")).toBeNull();
  });
});

describe("BIP-137 Bitcoin signed messages", () => {
  // Published vectors: bitcoinjs-message, test/fixtures.json (https://github.com/bitcoinjs/bitcoinjs-message).
  test.each([
    ["", "80e795d4a4caadd7047af389d9f7f220562feb6196032e2131e10563352c4bcc"],
    ["Vires is Numeris", "f8a5affbef4a3241b19067aa694562f64f513310817297089a8929a930f4f933"],
  ])("magic hash of %p (\\x18Bitcoin Signed Message:\\n, varint length, SHA-256d)", (message, hash) => {
    expect(bytesToHex(bitcoinMessageHash(message))).toBe(hash);
  });

  const VERIFY = [
    ["P2PKH uncompressed", "16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM", "G8JawPtQOrybrSP1WHQnQPr67B9S3qrxBrl1mlzoTJOSHEpmnF7D3+t+LX0Xei9J20B5AIdPbeL3AaTBZ4N3bY0="],
    ["P2PKH compressed", "1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs", "H8JawPtQOrybrSP1WHQnQPr67B9S3qrxBrl1mlzoTJOSHEpmnF7D3+t+LX0Xei9J20B5AIdPbeL3AaTBZ4N3bY0="],
    ["P2SH-P2WPKH", "3JvL6Ymt8MVWiCNHC7oWU6nLeHNJKLZGLN", "JF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8="],
    ["P2WPKH", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "KF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8="],
  ] as const;
  test.each(VERIFY)("bitcoinjs-message vector verifies: %s", (_n, address, signature) => {
    expect(checkSigner(parsed("bip137", signature), "vires is numeris", address)).toEqual({ matches: true, signer: address });
  });

  test.each([
    ["the wrong message", "foobar", "16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM", VERIFY[0][2]],
    ["the wrong address", "vires is numeris", "1111111111111111111114oLvT2", VERIFY[1][2]],
    ["uncompressed address, compressed signature", "vires is numeris", "16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM", VERIFY[1][2]],
    ["compressed address, uncompressed signature", "vires is numeris", "1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs", VERIFY[0][2]],
  ])("bitcoinjs-message invalid vector refused: %s", (_n, message, address, signature) => {
    expect(checkSigner(parsed("bip137", signature), message, address).matches).toBe(false);
  });

  test("noble signing with d = 1 reproduces the bitcoinjs-message sign vectors (RFC 6979)", () => {
    const d1 = hexToBytes("00".repeat(31) + "01");
    expect(signBip137(d1, "vires is numeris", "p2pkh-uncompressed")).toBe("HF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8=");
    expect(signBip137(d1, "vires is numeris", "p2pkh")).toBe("IF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8=");
    expect(signBip137(d1, "vires is numeris", "p2sh-p2wpkh")).toBe(VERIFY[2][2]);
    expect(signBip137(d1, "vires is numeris", "p2wpkh")).toBe(VERIFY[3][2]);
  });

  const KINDS = [
    ["p2pkh-uncompressed", false, "p2pkh"],
    ["p2pkh", true, "p2pkh"],
    ["p2sh-p2wpkh", true, "p2sh-p2wpkh"],
    ["p2wpkh", true, "p2wpkh"],
  ] as const;
  test.each(KINDS)("noble-made %s signature over a challenge proves the address (and it is a valid bitcoin address)", (kind, compressed, type) => {
    const sk = secp256k1.utils.randomSecretKey();
    const address = bitcoinAddressOf(type, secp256k1.getPublicKey(sk, compressed));
    expect(validateAddress("bitcoin", address)).toEqual({ ok: true, address });
    const message = challengeMessage({ issuer: "Acme", walletId: "wal_x", address, network: "bitcoin", nonce: newNonce(), expiresAt: "2030-01-01T00:00:00.000Z" });
    const sig = signBip137(sk, message, kind);
    expect(checkSigner(parsed("bip137", sig), message, address)).toEqual({ matches: true, signer: address });
    expect(checkSigner(parsed("bip137", sig), `${message} `, address).matches).toBe(false);
    const stranger = bitcoinAddressOf(type, secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), compressed));
    expect(checkSigner(parsed("bip137", sig), message, stranger)).toEqual({ matches: false, signer: address });
  });

  test("a compressed P2PKH header also proves the key's segwit addresses (Electrum's convention), never the reverse", () => {
    const sk = secp256k1.utils.randomSecretKey();
    const pub = secp256k1.getPublicKey(sk, true);
    const legacyHeader = signBip137(sk, "m", "p2pkh");
    for (const type of ["p2sh-p2wpkh", "p2wpkh"] as const) expect(checkSigner(parsed("bip137", legacyHeader), "m", bitcoinAddressOf(type, pub)).matches).toBe(true);
    expect(checkSigner(parsed("bip137", signBip137(sk, "m", "p2wpkh")), "m", bitcoinAddressOf("p2pkh", pub)).matches).toBe(false);
    // A bech32 address compares case-insensitively.
    expect(checkSigner(parsed("bip137", legacyHeader), "m", bitcoinAddressOf("p2wpkh", pub).toUpperCase()).matches).toBe(true);
  });

  test.each([
    [27, { recovery: 0, compressed: false, type: "p2pkh" }],
    [30, { recovery: 3, compressed: false, type: "p2pkh" }],
    [31, { recovery: 0, compressed: true, type: "p2pkh" }],
    [36, { recovery: 1, compressed: true, type: "p2sh-p2wpkh" }],
    [42, { recovery: 3, compressed: true, type: "p2wpkh" }],
    [26, null],
    [43, null],
  ])("header %d", (header, want) => {
    expect(decodeHeader(header)).toEqual(want as never);
  });

  test.each([
    [0, "00"],
    [252, "fc"],
    [253, "fdfd00"],
    [0xffff, "fdffff"],
    [0x10000, "fe00000100"],
  ])("varint(%d) = %s", (n, hex) => {
    expect(bytesToHex(varint(n))).toBe(hex);
  });

  test.each([
    ["not base64", "%%%"],
    ["64 bytes", base64.encode(new Uint8Array(64))],
    ["header 43", base64.encode(concatBytes(Uint8Array.of(43), new Uint8Array(64).fill(1)))],
  ])("malformed signature refused: %s", (_n, text) => {
    expect("error" in parseSignature("bip137", text)).toBe(true);
  });

  test("base64 without its padding is read", () => {
    const sig = signBip137(secp256k1.utils.randomSecretKey(), "m", "p2pkh");
    expect("error" in parseSignature("bip137", sig.replace(/=+$/, ""))).toBe(false);
  });
});

describe("which wallets a signed message can prove", () => {
  test.each([
    ["ethereum", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "eip191"],
    ["polygon", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "eip191"],
    ["base", "0xde709f2102306220921060314715629080e2fb77", "eip191"],
    ["bitcoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "bip137"],
    ["bitcoin", "3JvL6Ymt8MVWiCNHC7oWU6nLeHNJKLZGLN", "bip137"],
    ["bitcoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "bip137"],
    ["bitcoin", "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", null],
    ["bitcoin", "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297", null],
    ["solana", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", null],
    ["tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", null],
    ["litecoin", "Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW", null],
  ])("%s %s", (network, address, scheme) => {
    const r = signedSchemeFor(network, address);
    if (scheme) expect(r).toEqual({ ok: true, scheme: scheme as SignedScheme });
    else expect(r.ok ? "accepted" : r.reason).toMatch(/attest/);
  });
});

describe("challenge text", () => {
  test("names the issuer, wallet, address, network, a 128-bit nonce and the expiry, one field a line", () => {
    const nonce = newNonce();
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(newNonce()).not.toBe(nonce);
    const m = challengeMessage({ issuer: "Acme\nInjected: line", walletId: "wal_1", address: "0xabc", network: "ethereum", nonce, expiresAt: "2030-01-01T00:15:00.000Z" });
    expect(m.split("\n")).toEqual([
      "Wallet ownership proof for Acme Injected: line",
      "",
      "I control this address. Signing this message moves no funds.",
      "",
      "Wallet: wal_1",
      "Address: 0xabc",
      "Network: ethereum",
      `Nonce: ${nonce}`,
      "Expires: 2030-01-01T00:15:00.000Z",
    ]);
  });
});

describe("judging a signed proof", () => {
  const NOW = Date.parse("2030-01-01T00:00:00.000Z");
  const skA = secp256k1.utils.randomSecretKey();
  const skB = secp256k1.utils.randomSecretKey();
  const A = { id: "wal_a", address: evmAddress(skA) };
  const B = { id: "wal_b", address: evmAddress(skB) };
  const challenge = (id: string, w: { id: string; address: string }, over: Partial<ChallengeView> = {}): ChallengeView => ({
    id,
    walletId: w.id,
    address: w.address,
    message: challengeMessage({ issuer: "Acme", walletId: w.id, address: w.address, network: "ethereum", nonce: newNonce(), expiresAt: "2030-01-01T00:15:00.000Z" }),
    expiresAt: "2030-01-01T00:15:00.000Z",
    usedAt: null,
    proofId: null,
    ...over,
  });
  const cA = challenge("chl_a", A);
  const cA2 = challenge("chl_a2", A);
  const cB = challenge("chl_b", B);
  const expired = challenge("chl_old", A, { expiresAt: "2029-12-31T23:59:59.000Z" });
  const used = challenge("chl_used", A, { usedAt: "2029-12-31T23:50:00.000Z", proofId: "prf_1" });
  const sig = (sk: Uint8Array, c: ChallengeView) => parsed("eip191", signEip191(sk, c.message));

  const CASES: { name: string; wallet: typeof A; sig: ParsedSignature; own: ChallengeView[]; others?: ChallengeView[]; requested?: string; want: RegExp | "ok" }[] = [
    { name: "the wallet's key over its open challenge", wallet: A, sig: sig(skA, cA), own: [cA2, cA], want: "ok" },
    { name: "named with --challenge", wallet: A, sig: sig(skA, cA), own: [cA], requested: "chl_a", want: "ok" },
    { name: "a wrong signer", wallet: A, sig: sig(skB, cA), own: [cA], want: /was not made by .* over wallet wal_a's challenge chl_a \(it recovers to 0x[0-9a-f]{40}\)/ },
    { name: "a wrong signer, named challenge", wallet: A, sig: sig(skB, cA), own: [cA], requested: "chl_a", want: new RegExp(`made by ${B.address.toLowerCase()}, not by the wallet's address ${A.address}`) },
    { name: "another wallet's challenge signed by this wallet's key", wallet: A, sig: sig(skA, cB), own: [cA], others: [cB], want: /answers challenge chl_b, issued for wallet wal_b, not for wallet wal_a/ },
    { name: "another wallet's own proof replayed here", wallet: A, sig: sig(skB, cB), own: [cA], others: [cB], want: /answers challenge chl_b, issued for wallet wal_b/ },
    { name: "another wallet's challenge, named", wallet: A, sig: sig(skA, cB), own: [cA], others: [cB], requested: "chl_b", want: /chl_b was issued for wallet wal_b, not wal_a/ },
    { name: "an expired challenge", wallet: A, sig: sig(skA, expired), own: [cA, expired], want: /chl_old expired at 2029-12-31T23:59:59.000Z; issue a new one/ },
    { name: "a replayed (used) challenge", wallet: A, sig: sig(skA, used), own: [cA, used], want: /chl_used was already used \(proof prf_1 at .*\): a replayed challenge is refused/ },
    { name: "a replayed challenge, named", wallet: A, sig: sig(skA, used), own: [used], requested: "chl_used", want: /already used/ },
    { name: "an unknown challenge", wallet: A, sig: sig(skA, cA), own: [cA], requested: "chl_nope", want: /no challenge chl_nope/ },
    { name: "no challenge issued yet", wallet: A, sig: sig(skA, cA), own: [], want: /has no challenge to answer/ },
  ];
  test.each(CASES.map((c) => [c.name, c] as const))("%s", (_n, c) => {
    const all = [...c.own, ...(c.others ?? [])];
    const requested = c.requested === undefined ? undefined : { id: c.requested, row: all.find((x) => x.id === c.requested) ?? null };
    const v = judgeSignedProof({ wallet: c.wallet, sig: c.sig, own: c.own, others: () => c.others ?? [], requested, now: NOW });
    if (c.want === "ok") expect(v).toMatchObject({ ok: true, challenge: { walletId: c.wallet.id }, signer: c.wallet.address.toLowerCase() });
    else expect(v.ok ? "accepted" : v.reason).toMatch(c.want);
  });
});

describe("verification from proofs", () => {
  const NOW = Date.parse("2030-06-01T00:00:00.000Z");
  const p = (id: string, status: "valid" | "revoked" | "expired", recordedAt: string, expiresAt: string | null = null) => ({ id, status, recordedAt, expiresAt });

  test.each([
    ["no proofs", [], { verified: false, verifiedAt: null, expire: [] }],
    ["one valid", [p("a", "valid", "2030-01-01T00:00:00.000Z")], { verified: true, verifiedAt: "2030-01-01T00:00:00.000Z", expire: [] }],
    [
      "the latest valid proof's time",
      [p("a", "valid", "2030-01-01T00:00:00.000Z"), p("b", "valid", "2030-03-01T00:00:00.000Z"), p("c", "revoked", "2030-05-01T00:00:00.000Z")],
      { verified: true, verifiedAt: "2030-03-01T00:00:00.000Z", expire: [] },
    ],
    ["revoked only", [p("a", "revoked", "2030-01-01T00:00:00.000Z")], { verified: false, verifiedAt: null, expire: [] }],
    [
      "valid but past its expiry: expired at read time",
      [p("a", "valid", "2030-01-01T00:00:00.000Z", "2030-05-31T23:59:59.999Z"), p("b", "valid", "2029-01-01T00:00:00.000Z", "2031-01-01T00:00:00.000Z")],
      { verified: true, verifiedAt: "2029-01-01T00:00:00.000Z", expire: ["a"] },
    ],
    ["expiring exactly now", [p("a", "valid", "2030-01-01T00:00:00.000Z", "2030-06-01T00:00:00.000Z")], { verified: false, verifiedAt: null, expire: ["a"] }],
  ] as const)("%s", (_n, proofs, want) => {
    expect(deriveVerification(proofs as never, NOW)).toEqual(want as never);
  });

  test("effective status", () => {
    expect(effectiveStatus(p("a", "valid", "x", "2030-06-01T00:00:00.001Z"), NOW)).toBe("valid");
    expect(effectiveStatus(p("a", "valid", "x", "2030-06-01T00:00:00.000Z"), NOW)).toBe("expired");
    expect(effectiveStatus(p("a", "revoked", "x", "2020-01-01T00:00:00.000Z"), NOW)).toBe("revoked");
  });

  test.each([
    ["2030-07-01", Date.parse("2030-07-01T00:00:00Z")],
    ["2030-07-01T12:00:00Z", Date.parse("2030-07-01T12:00:00Z")],
    ["2030-07-01T12:00:00.5+02:00", Date.parse("2030-07-01T10:00:00.500Z")],
    ["2030-07-01T12:00", null],
    ["tomorrow", null],
    ["2030-05-31", null],
  ])("--expires %s", (text, at) => {
    const r = parseExpiry(text, NOW);
    expect(r.ok ? r.at : null).toBe(at);
  });
});

test("an EIP-55 address and a recovered signer compare case-insensitively (stored spelling does not matter)", () => {
  const sk = secp256k1.utils.randomSecretKey();
  const message = utf8ToBytes("bytes");
  const sig = parsed("eip191", signEip191(sk, message));
  expect(sig.scheme === "eip191" && recoverEvmSigner(sig.sig, message)).toBe(evmAddress(sk).toLowerCase());
});
