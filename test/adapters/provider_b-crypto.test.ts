// provider_b (CodeVASP) crypto and wire format: byte-exact against tweetnacl/ed2curve (the reference), RFC 8032 vectors, and tables.
import { describe, expect, test } from "bun:test";
import nacl from "tweetnacl";
// @ts-expect-error ed2curve ships no type declarations
import ed2curveUntyped from "ed2curve";
import {
  base64ToBytes,
  bytesToBase64,
  cryptoBoxBeforeNm,
  cryptoBoxEasy,
  cryptoBoxOpenEasy,
  hsalsa20,
  keypairFromSeed,
  openPayload,
  type OpenFailure,
  ProviderBKeyError,
  publicKeyBase64,
  sealPayload,
  signedBytes,
  signRequest,
  toX25519Public,
  toX25519Secret,
  verifyRequest,
} from "../../src/adapters/providers/provider_b/crypto.ts";
import {
  accountNumber,
  buildRequestHeaders,
  buildTransferAnswerMessage,
  buildTransferMessage,
  formatDatetime,
  fromWirePersons,
  parseDatetime,
  parseNonce,
  parseOrigin,
  readIvms101,
  readTransferAnswer,
  readVaspsAnswer,
  splitAccountNumber,
  toWirePersons,
  vaspLegalPerson,
} from "../../src/adapters/providers/provider_b/wire.ts";
import { checkClientOptions, discoveryRequestId, pickPubkey } from "../../src/adapters/providers/provider_b/client.ts";
import type { Person } from "../../src/domain/ivms101/types.ts";

const ed2curve = ed2curveUntyped as { convertPublicKey(pk: Uint8Array): Uint8Array | null; convertSecretKey(sk: Uint8Array): Uint8Array };

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const fromHex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const seedOf = (n: number) => new Uint8Array(32).map((_, i) => (i * 31 + n * 7 + 1) & 0xff);
const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const utf8 = (s: string) => new TextEncoder().encode(s);

/** The same party as tweetnacl + ed2curve see it: the reference conversion libsodium users apply. */
function reference(seed: Uint8Array) {
  const sign = nacl.sign.keyPair.fromSeed(seed);
  return { sign, boxPublic: ed2curve.convertPublicKey(sign.publicKey)!, boxSecret: ed2curve.convertSecretKey(sign.secretKey) };
}

const SEEDS = [seedOf(0), seedOf(1), seedOf(2), new Uint8Array(32), new Uint8Array(32).fill(0xff), randomBytes(32), randomBytes(32)];

describe("keys: Ed25519 seed → keys, Ed25519 → X25519 (PROVIDERS.md: keys converted Ed25519 → X25519)", () => {
  test.each(SEEDS.map((s) => [hex(s)]))("seed %s: verify key and both X25519 keys equal tweetnacl/ed2curve", (seedHex) => {
    const seed = fromHex(seedHex);
    const ref = reference(seed);
    const ours = keypairFromSeed(bytesToBase64(seed));
    expect(hex(ours.publicKey)).toBe(hex(ref.sign.publicKey));
    expect(publicKeyBase64(seed)).toBe(bytesToBase64(ref.sign.publicKey));
    expect(hex(toX25519Public(ours.publicKey))).toBe(hex(ref.boxPublic));
    expect(hex(toX25519Secret(seed))).toBe(hex(ref.boxSecret));
  });

  test.each([
    ["31 bytes", bytesToBase64(new Uint8Array(31))],
    ["33 bytes", bytesToBase64(new Uint8Array(33))],
    ["not base64", "not base64!"],
    ["unpadded base64", bytesToBase64(new Uint8Array(32)).replace(/=+$/, "")],
    ["empty", ""],
  ])("a private key of %s is refused with ProviderBKeyError", (_name, key) => {
    expect(() => keypairFromSeed(key)).toThrow(ProviderBKeyError);
  });

  test("a public key that is not an Ed25519 point is refused", () => {
    // y = 2 is not on the curve (no x satisfies the equation).
    const notAPoint = new Uint8Array(32);
    notAPoint[0] = 2;
    expect(() => toX25519Public(notAPoint)).toThrow(ProviderBKeyError);
  });

  test.each([[new Uint8Array(0)], [new Uint8Array([0])], [new Uint8Array([1, 2])], [randomBytes(33)], [randomBytes(1000)]])("base64 round trip (%#)", (bytes) => {
    expect([...base64ToBytes(bytesToBase64(bytes))!]).toEqual([...bytes]);
    expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
  });
});

describe("crypto_box: byte-exact with nacl.box (libsodium crypto_box_easy)", () => {
  const alice = seedOf(10);
  const bob = seedOf(11);
  const A = reference(alice);
  const B = reference(bob);

  test("HSalsa20 of the X25519 shared point equals nacl.box.before, from both sides", () => {
    const ours = cryptoBoxBeforeNm(toX25519Public(keypairFromSeed(bob).publicKey), toX25519Secret(alice));
    expect(hex(ours)).toBe(hex(nacl.box.before(B.boxPublic, A.boxSecret)));
    expect(hex(cryptoBoxBeforeNm(A.boxPublic, toX25519Secret(bob)))).toBe(hex(ours));
  });

  test("HSalsa20 test vector (NaCl core1: firstkey from the shared secret of the crypto_box test)", () => {
    // NaCl tests/core1.c: shared = X25519(alicesk, bobpk); firstkey = HSalsa20(shared, 0^16).
    const shared = fromHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    expect(hex(hsalsa20(shared, new Uint8Array(16)))).toBe("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389");
  });

  test.each([0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 1000, 4096, 70_000])("a %d-byte message boxes to the same bytes as nacl.box", (len) => {
    const msg = randomBytes(len);
    const nonce = randomBytes(24);
    const ours = cryptoBoxEasy(msg, nonce, B.boxPublic, toX25519Secret(alice));
    const theirs = nacl.box(msg, nonce, B.boxPublic, A.boxSecret);
    expect(ours.length).toBe(len + 16);
    expect(hex(ours)).toBe(hex(theirs));
  });

  test("ours opens theirs, theirs opens ours", () => {
    const msg = utf8(JSON.stringify({ ivms101: { Beneficiary: { beneficiaryPersons: [], accountNumber: ["rAddr:12345"] } } }));
    const nonce = randomBytes(24);
    const theirs = nacl.box(msg, nonce, B.boxPublic, A.boxSecret);
    expect(hex(cryptoBoxOpenEasy(theirs, nonce, A.boxPublic, toX25519Secret(bob))!)).toBe(hex(msg));
    const ours = cryptoBoxEasy(msg, nonce, toX25519Public(keypairFromSeed(alice).publicKey), toX25519Secret(bob));
    expect(hex(nacl.box.open(ours, nonce, B.boxPublic, A.boxSecret)!)).toBe(hex(msg));
  });

  test("a tampered box, a wrong nonce or a wrong key does not open", () => {
    const msg = utf8("hello");
    const nonce = randomBytes(24);
    const box = cryptoBoxEasy(msg, nonce, B.boxPublic, toX25519Secret(alice));
    const flipped = box.slice();
    flipped[flipped.length - 1]! ^= 1;
    expect(cryptoBoxOpenEasy(flipped, nonce, A.boxPublic, toX25519Secret(bob))).toBeNull();
    expect(cryptoBoxOpenEasy(box, randomBytes(24), A.boxPublic, toX25519Secret(bob))).toBeNull();
    expect(cryptoBoxOpenEasy(box, nonce, reference(seedOf(12)).boxPublic, toX25519Secret(bob))).toBeNull();
    expect(cryptoBoxOpenEasy(box.subarray(0, 15), nonce, A.boxPublic, toX25519Secret(bob))).toBeNull();
  });
});

describe("payload: base64(nonce(24) ‖ crypto_box_easy(JSON)) (PROVIDERS.md, provider_b)", () => {
  const sender = seedOf(20);
  const receiver = seedOf(21);
  const S = reference(sender);
  const R = reference(receiver);
  const value = { ivms101: { Originator: { originatorPersons: [], accountNumber: ["0xabc"] }, note: "ünïcødé 한국어" } };

  test("sealPayload is nonce ‖ nacl.box of the JSON, for the receiver's Ed25519 key", () => {
    const nonce = randomBytes(24);
    const sealed = sealPayload(value, bytesToBase64(R.sign.publicKey), bytesToBase64(sender), nonce);
    const raw = base64ToBytes(sealed)!;
    expect(hex(raw.subarray(0, 24))).toBe(hex(nonce));
    expect(hex(raw.subarray(24))).toBe(hex(nacl.box(utf8(JSON.stringify(value)), nonce, R.boxPublic, S.boxSecret)));
  });

  test("openPayload opens what a tweetnacl peer sealed", () => {
    const nonce = randomBytes(24);
    const box = nacl.box(utf8(JSON.stringify(value)), nonce, R.boxPublic, S.boxSecret);
    const sealed = Buffer.concat([nonce, box]).toString("base64");
    expect(openPayload(sealed, S.sign.publicKey, receiver)).toEqual({ ok: true, value });
  });

  test("a random nonce each time: two seals of one value differ and both open", () => {
    const a = sealPayload(value, R.sign.publicKey, sender);
    const b = sealPayload(value, R.sign.publicKey, sender);
    expect(a).not.toBe(b);
    expect(openPayload(a, S.sign.publicKey, receiver)).toEqual({ ok: true, value });
    expect(openPayload(b, S.sign.publicKey, receiver)).toEqual({ ok: true, value });
  });

  const unopenable: [string, () => string, OpenFailure][] = [
    ["not base64", () => "%%%", "ENCODING"],
    ["shorter than nonce and MAC", () => bytesToBase64(randomBytes(39)), "ENCODING"],
    ["sealed for someone else", () => sealPayload(value, reference(seedOf(22)).sign.publicKey, sender), "DECRYPT"],
    ["from another sender", () => sealPayload(value, R.sign.publicKey, seedOf(23)), "DECRYPT"],
    ["not JSON inside", () => {
      const nonce = randomBytes(24);
      return Buffer.concat([nonce, nacl.box(utf8("{not json"), nonce, R.boxPublic, S.boxSecret)]).toString("base64");
    }, "JSON"],
  ];
  test.each(unopenable)("a payload %s does not open", (_name, make, reason) => {
    expect(openPayload(make(), S.sign.publicKey, receiver)).toEqual({ ok: false, reason });
  });
});

describe("request signature: Ed25519 over datetime ‖ body ‖ nonce (4-byte big-endian)", () => {
  const seed = seedOf(30);
  const ref = reference(seed);

  test.each([
    [0, "00000000"],
    [1, "00000001"],
    [256, "00000100"],
    [989166249, "3af57aa9"],
    [0xffffffff, "ffffffff"],
  ])("nonce %d is appended as %s", (nonce, tail) => {
    const bytes = signedBytes("2026-01-02T03:04:05Z", utf8('{"a":1}'), nonce);
    expect(new TextDecoder().decode(bytes.subarray(0, -4))).toBe('2026-01-02T03:04:05Z{"a":1}');
    expect(hex(bytes.subarray(-4))).toBe(tail);
  });

  test.each([[-1], [2 ** 32], [1.5], [Number.NaN]])("nonce %p is not a uint32", (nonce) => {
    expect(() => signedBytes("x", new Uint8Array(0), nonce)).toThrow(RangeError);
  });

  test("the signature equals nacl.sign.detached and verifies with nacl.sign.detached.verify", () => {
    const datetime = "2026-01-02T03:04:05Z";
    const body = utf8(JSON.stringify({ transferId: "681f27dd-43e4-4ea3-9bcc-607426d6349f", txid: "abc" }));
    const nonce = 4242;
    const sig = signRequest(bytesToBase64(seed), datetime, body, nonce);
    const msg = Buffer.concat([utf8(datetime), body, Buffer.from([0, 0, 0x10, 0x92])]);
    expect(sig).toBe(bytesToBase64(nacl.sign.detached(msg, ref.sign.secretKey)));
    expect(nacl.sign.detached.verify(msg, base64ToBytes(sig)!, ref.sign.publicKey)).toBe(true);
    expect(verifyRequest(ref.sign.publicKey, datetime, body, nonce, sig)).toBe(true);
  });

  test("a GET signs the empty body: datetime ‖ nonce", () => {
    const sig = signRequest(seed, "2026-01-02T03:04:05Z", new Uint8Array(0), 7);
    expect(nacl.sign.detached.verify(Buffer.concat([utf8("2026-01-02T03:04:05Z"), Buffer.from([0, 0, 0, 7])]), base64ToBytes(sig)!, ref.sign.publicKey)).toBe(true);
  });

  test("RFC 8032 test vector 1 (empty message)", () => {
    const sk = fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    expect(hex(keypairFromSeed(sk).publicKey)).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    // signedBytes("", empty, n) always ends in the nonce, so the RFC message is checked through the same Ed25519 here.
    expect(hex(nacl.sign.detached(new Uint8Array(0), nacl.sign.keyPair.fromSeed(sk).secretKey))).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
  });

  test.each([
    ["the body changed", (s: string) => verifyRequest(ref.sign.publicKey, "2026-01-02T03:04:05Z", utf8("{}x"), 1, s)],
    ["the datetime changed", (s: string) => verifyRequest(ref.sign.publicKey, "2026-01-02T03:04:06Z", utf8("{}"), 1, s)],
    ["the nonce changed", (s: string) => verifyRequest(ref.sign.publicKey, "2026-01-02T03:04:05Z", utf8("{}"), 2, s)],
    ["another key", (s: string) => verifyRequest(reference(seedOf(31)).sign.publicKey, "2026-01-02T03:04:05Z", utf8("{}"), 1, s)],
    ["a truncated signature", (s: string) => verifyRequest(ref.sign.publicKey, "2026-01-02T03:04:05Z", utf8("{}"), 1, s.slice(0, 40))],
    ["garbage as the key", (s: string) => verifyRequest("nope", "2026-01-02T03:04:05Z", utf8("{}"), 1, s)],
  ])("verification fails when %s", (_name, check) => {
    const sig = signRequest(seed, "2026-01-02T03:04:05Z", utf8("{}"), 1);
    expect(check(sig)).toBe(false);
  });
});

describe("wire format (pure)", () => {
  test.each([
    ["2026-01-02T03:04:05Z", Date.UTC(2026, 0, 2, 3, 4, 5)],
    ["2024-03-04T15:10Z", Date.UTC(2024, 2, 4, 15, 10)],
    ["2026-01-02T03:04:05.123Z", Date.UTC(2026, 0, 2, 3, 4, 5, 123)],
    ["2026-01-02T03:04:05+0000", Date.UTC(2026, 0, 2, 3, 4, 5)],
    ["2026-01-02T12:04:05+09:00", Date.UTC(2026, 0, 2, 3, 4, 5)],
    ["2026-01-02T03:04:05", null],
    ["yesterday", null],
    ["", null],
  ])("X-Code-Req-Datetime %p reads as %p", (text, ms) => {
    expect(parseDatetime(text)).toBe(ms);
  });

  test("formatDatetime writes ISO-8601 UTC to the second", () => {
    expect(formatDatetime(Date.UTC(2026, 0, 2, 3, 4, 5, 999))).toBe("2026-01-02T03:04:05Z");
  });

  test.each([
    ["0", 0],
    ["989166249", 989166249],
    ["4294967295", 4294967295],
    ["4294967296", null],
    ["-1", null],
    ["1e3", null],
    ["", null],
  ])("X-Code-Req-Nonce %p reads as %p", (text, n) => {
    expect(parseNonce(text)).toBe(n);
  });

  test.each([
    ["code:coinone", { alliance: "code", entityId: "coinone" }],
    ["code:my_vasp-2", { alliance: "code", entityId: "my_vasp-2" }],
    ["verifyvasp:15952089931162060684", { alliance: "verifyvasp", entityId: "15952089931162060684" }],
    ["coinone", null],
    ["code:", null],
    ["code:a b", null],
  ])("X-Request-Origin %p reads as %p", (text, parsed) => {
    expect(parseOrigin(text)).toEqual(parsed);
  });

  test("buildRequestHeaders names every CodeVASP header", () => {
    const h = buildRequestHeaders({ entityId: "caravan", publicKeyBase64: "PK", datetime: "D", nonce: 5, signature: "S", remotePubKey: "RPK", json: true });
    expect(h).toEqual({
      accept: "application/json",
      "X-Code-Req-Datetime": "D",
      "X-Code-Req-Nonce": "5",
      "X-Code-Req-PubKey": "PK",
      "X-Code-Req-Signature": "S",
      "X-Request-Origin": "code:caravan",
      "X-Code-Req-Remote-PubKey": "RPK",
      "content-type": "application/json",
    });
  });

  test.each([
    ["rHcFoo6a9qT5NHiVn1THQRhsEGcxtYCV4d", "12345", true, "rHcFoo6a9qT5NHiVn1THQRhsEGcxtYCV4d:12345"],
    ["0xAbC0000000000000000000000000000000000001", undefined, false, "0xAbC0000000000000000000000000000000000001"],
    ["bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a", undefined, false, "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"],
  ])("account number of %s with memo %p (network has memos: %p) is %s, and splits back", (address, tag, hasMemo, account) => {
    expect(accountNumber(address, tag)).toBe(account);
    expect(splitAccountNumber(account, hasMemo)).toEqual(tag ? { address, tag } : { address });
  });

  const alice: Person = {
    naturalPerson: {
      name: { nameIdentifier: [{ primaryIdentifier: "Kim", secondaryIdentifier: "Alice", nameIdentifierType: "LEGL" }], localNameIdentifier: [{ primaryIdentifier: "김앨리스", nameIdentifierType: "LEGL" }] },
      dateAndPlaceOfBirth: { dateOfBirth: "1990-01-01", placeOfBirth: "Seoul" },
      countryOfResidence: "KR",
    },
  };
  const mono: Person = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Suharto", nameIdentifierType: "LEGL" }] } } };
  const acme: Person = {
    legalPerson: {
      name: { nameIdentifier: [{ legalPersonName: "Acme Ltd", legalPersonNameIdentifierType: "LEGL" }] },
      geographicAddress: [{ addressType: "GEOG", townName: "Berlin", postCode: "10115", country: "DE" }],
      countryOfRegistration: "DE",
    },
  };

  test("secondaryIdentifier is always present in the dialect, \"\" when absent, and dropped on the way back", () => {
    const wire = toWirePersons([alice, mono, acme]);
    expect(wire[0]!.naturalPerson!.name.nameIdentifier[0]!.secondaryIdentifier).toBe("Alice");
    expect(wire[0]!.naturalPerson!.name.localNameIdentifier![0]!.secondaryIdentifier).toBe("");
    expect(wire[1]!.naturalPerson!.name.nameIdentifier[0]!.secondaryIdentifier).toBe("");
    expect(wire[2]).toEqual(acme as never);
    expect(fromWirePersons(wire)).toEqual([alice, mono, acme]);
  });

  test("the transfer payload: PascalCase entities, camelCase inside, memo in the account number, VASP as legal person", () => {
    const msg = buildTransferMessage({
      originatorPersons: [mono],
      originatorAccount: "rOrigin",
      beneficiaryPersons: [alice],
      beneficiaryAccount: accountNumber("rBenef", "77"),
      originatingVasp: { legalName: "Caravan Test Ltd", country: "DE" },
    });
    expect(msg).toEqual({
      ivms101: {
        Originator: { originatorPersons: toWirePersons([mono]), accountNumber: ["rOrigin"] },
        Beneficiary: { beneficiaryPersons: toWirePersons([alice]), accountNumber: ["rBenef:77"] },
        OriginatingVASP: {
          originatingVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Caravan Test Ltd", legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: "DE" } },
        },
      },
    });
    const answer = buildTransferAnswerMessage(msg.ivms101, { beneficiaryVasp: { legalName: "Kimchi Exchange Co.", country: "KR" } });
    expect(answer.ivms101.Originator).toEqual(msg.ivms101.Originator!);
    expect(answer.ivms101.Beneficiary).toEqual(msg.ivms101.Beneficiary!);
    expect(answer.ivms101.BeneficiaryVASP).toEqual({ beneficiaryVASP: vaspLegalPerson({ legalName: "Kimchi Exchange Co.", country: "KR" }) });
    expect(readIvms101(JSON.parse(JSON.stringify(answer)))).toEqual({ ok: true, value: answer.ivms101 });
  });

  test.each([
    ["no ivms101", {}, "ivms101"],
    ["persons not a list", { ivms101: { Originator: { originatorPersons: {}, accountNumber: [] } } }, "ivms101.Originator.originatorPersons"],
    ["a person with both kinds", { ivms101: { Originator: { originatorPersons: [{ naturalPerson: {}, legalPerson: {} }], accountNumber: [] } } }, "ivms101.Originator.originatorPersons"],
    ["account not strings", { ivms101: { Beneficiary: { beneficiaryPersons: [], accountNumber: [1] } } }, "ivms101.Beneficiary.accountNumber"],
    ["VASP without legal person", { ivms101: { OriginatingVASP: { originatingVASP: { naturalPerson: {} } } } }, "ivms101.OriginatingVASP.originatingVASP.legalPerson"],
  ])("readIvms101 refuses %s", (_name, value, path) => {
    expect(readIvms101(value)).toEqual({ ok: false, path });
  });

  test("answer readers keep only the documented fields, and refuse other shapes", () => {
    expect(readTransferAnswer({ result: "denied", reasonType: "NOT_FOUND_ADDRESS", reasonMsg: "Alice Kim unknown", transferId: "t", beneficiaryVasp: {}, extra: 1 })).toEqual({
      result: "denied",
      reasonType: "NOT_FOUND_ADDRESS",
      transferId: "t",
    });
    expect(readTransferAnswer({ result: "verified", reasonType: "", payload: "x" })).toEqual({ result: "verified", payload: "x" });
    expect(readTransferAnswer({ result: "maybe" })).toBeNull();
    expect(readTransferAnswer({ result: "verified", payload: 5 })).toBeNull();
    expect(readVaspsAnswer({ vasps: [{ vaspEntityId: "coinone", vaspName: "coinone", health: "up", pubkeys: [{ pubkey: "k", expiresAt: "2025-03-22T15:49:32" }] }] })).toEqual({
      vasps: [{ vaspEntityId: "coinone", vaspName: "coinone", health: "up", pubkeys: [{ pubkey: "k", expiresAt: "2025-03-22T15:49:32" }] }],
    });
    expect(readVaspsAnswer({ vasps: [{ vaspName: "no id", health: "up", pubkeys: [] }] })).toBeNull();
  });

  const NOW = Date.UTC(2026, 0, 1);
  test.each([
    ["one key without expiry", [{ pubkey: "A" }], "A"],
    ["the live key expiring last", [{ pubkey: "A", expiresAt: "2026-06-01T00:00:00Z" }, { pubkey: "B", expiresAt: "2027-01-01T00:00:00Z" }], "B"],
    ["an expired key is passed over", [{ pubkey: "A", expiresAt: "2025-01-01T00:00:00Z" }, { pubkey: "B", expiresAt: "2026-02-01T00:00:00" }], "B"],
    ["all expired: the first listed", [{ pubkey: "A", expiresAt: "2025-01-01T00:00:00Z" }, { pubkey: "B", expiresAt: "2025-02-01T00:00:00Z" }], "A"],
    ["none", [], null],
  ])("pickPubkey: %s", (_name, keys, expected) => {
    expect(pickPubkey(keys, NOW)).toBe(expected);
  });

  test("discoveryRequestId derives from transfer and destination: stable, and distinct per destination", () => {
    const a = discoveryRequestId("tr_1", { address: "rX", tag: "1", network: "ripple" });
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(discoveryRequestId("tr_1", { address: "rX", tag: "1", network: "ripple" })).toBe(a);
    expect(discoveryRequestId("tr_1", { address: "rX", tag: "2", network: "ripple" })).not.toBe(a);
    expect(discoveryRequestId("tr_2", { address: "rX", tag: "1", network: "ripple" })).not.toBe(a);
  });

  test.each([
    ["https://trapi.codevasp.com", "caravan", true, true],
    ["https://trapi.codevasp.com/", "caravan", true, true],
    ["http://trapi.codevasp.com", "caravan", true, false],
    ["https://trapi.codevasp.com/v1", "caravan", true, false],
    ["https://u:p@trapi.codevasp.com", "caravan", true, false],
    ["https://trapi.codevasp.com?x=1", "caravan", true, false],
    ["https://trapi.codevasp.com", "cara van", true, false],
    ["https://trapi.codevasp.com", "caravan", false, false],
  ])("settings %s / %s / valid key %p → usable %p", (apiUrl, entityId, goodKey, usable) => {
    const r = checkClientOptions({ apiUrl, entityId, seedBase64: goodKey ? bytesToBase64(seedOf(40)) : "short" });
    expect(r.ok).toBe(usable);
    if (!goodKey) expect(r).toEqual({ ok: false, kind: "key", message: expect.any(String) });
  });
});
