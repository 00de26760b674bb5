// provider_d (TRP v3): the published Travel Addresses and messages of the references (test/fixtures/provider_d/,
// copied by hand) read through Caravan's decoders; our encoder checked against the same published pairs.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { decodeTravelAddress, encodeLnurl, encodeTravelAddress, looksLikeTravelAddress } from "../../src/domain/provider_d/travel-address.ts";
import { acceptsApiVersion, readAmount, readConfirmation, readExtensions, readIdentity, readInquiry, readResolution, readUptime, readVersion, writeInquiry } from "../../src/domain/provider_d/wire.ts";

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/provider_d/${name}`, import.meta.url), "utf8"));
const addresses: { address: string; form: string; url: string }[] = fixture("travel-addresses.json");

describe("Travel Addresses of the references decode to their inquiry URLs", () => {
  for (const a of addresses) {
    test(`${a.form}: ${a.address.slice(0, 16)}… → ${a.url}`, () => {
      expect(looksLikeTravelAddress(a.address)).toBe(true);
      expect(decodeTravelAddress(a.address)).toEqual({ ok: true, form: a.form as "ta" | "lnurl", url: a.url });
    });
  }
  test("the lower-case LNURL is the same address (bech32 is case-insensitive); mixed case is refused", () => {
    const up = addresses.find((a) => a.form === "lnurl")!;
    expect(decodeTravelAddress(up.address.toLowerCase())).toEqual({ ok: true, form: "lnurl", url: up.url });
    const mixed = up.address.slice(0, 10) + up.address.slice(10).toLowerCase();
    expect(decodeTravelAddress(mixed).ok).toBe(false);
  });
  test("our encoder gives the published strings for the published URLs (ta and LNURL)", () => {
    expect(encodeTravelAddress("https://beneficiary.com/x/12345?t=i")).toBe("ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv");
    expect(encodeTravelAddress("https://beneficiary.com/implementation/defined/path?t=i")).toBe("ta6MNBj2u4art71gN99C6xniYrNfDUF26QgZHdXwd6zzYsvk1S6M5A15K2REHRULnZHnJs88");
    expect(encodeLnurl("https://openvasp.test-net.io/123?tag=inquiry")).toBe("LNURL1DP68GURN8GHJ7MMSV4H8VCTNWQH8GETNWSKKUET59E5K7TE3XGEN7ARPVU7KJMN3W45HY7GF5KZ53");
  });
  test("a plain https URL is its own Travel Address; http, a missing t=i tag, a broken checksum and no prefix are refused", () => {
    expect(decodeTravelAddress("https://vasp.example/trp/inquiry/abc")).toEqual({ ok: true, form: "url", url: "https://vasp.example/trp/inquiry/abc" });
    expect(decodeTravelAddress("http://vasp.example/x").ok).toBe(false);
    expect(decodeTravelAddress(encodeTravelAddress("https://beneficiary.com/x/1?t=i").replace(/.$/, (c) => (c === "1" ? "2" : "1"))).ok).toBe(false);
    // the published pair without its prefix (trisa's ErrUnhandledScheme case)
    expect(decodeTravelAddress("2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv").ok).toBe(false);
    expect(looksLikeTravelAddress("0x52908400098527886E0F7030069857D2E4169EE7")).toBe(false);
    expect(looksLikeTravelAddress("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")).toBe(false);
  });
});

describe("TRP v3 messages of the references", () => {
  test("inquiry.json: DTI asset, a JSON-number amount as its exact decimal, callback, both parties and the originating VASP", () => {
    const r = readInquiry(fixture("inquiry.json"));
    if (!r.ok) throw new Error(r.path);
    expect(r.value.asset).toEqual({ dti: "4H95J0R2X" });
    expect(r.value.amount).toBe("0.000021");
    expect(r.value.callback).toBe("https://originator.com/implementation/defined/path/for/inquiryResolution");
    expect(r.value.originator.persons).toHaveLength(1);
    expect(r.value.originator.persons[0].naturalPerson?.name.nameIdentifier[0].primaryIdentifier).toBe("Post");
    expect(r.value.beneficiary?.persons[0].naturalPerson?.name.nameIdentifier[0].primaryIdentifier).toBe("MachuPichu");
    expect(r.value.originatingVasp).toEqual({ name: "VASP A", lei: "506700T7Z685VUOZL877" });
    expect(r.value.beneficiaryVasp).toBeNull();
  });
  test("liberal in what is read: a text amount, a bare slip0044 coin type (before 3.2), unknown fields and extensions", () => {
    const base = fixture("inquiry.json");
    const r = readInquiry({ ...base, asset: 0, amount: "1.50", extensions: { "unknown-ext": { a: 1 } }, somethingNew: true });
    if (!r.ok) throw new Error(r.path);
    expect(r.value.asset).toEqual({ slip0044: 0 });
    expect(r.value.amount).toBe("1.5");
    expect(readAmount(1e-7)).toBe("0.0000001");
  });
  test("inquiries we do not understand name the first field that failed", () => {
    const base = fixture("inquiry.json");
    expect(readInquiry({ ...base, amount: 0 })).toEqual({ ok: false, path: "amount" });
    expect(readInquiry({ ...base, amount: "-1" })).toEqual({ ok: false, path: "amount" });
    expect(readInquiry({ ...base, callback: "http://originator.com/x" })).toEqual({ ok: false, path: "callback" });
    expect(readInquiry({ ...base, asset: {} })).toEqual({ ok: false, path: "asset" });
    expect(readInquiry({ ...base, IVMS101: undefined })).toEqual({ ok: false, path: "IVMS101" });
    expect(readInquiry({ ...base, IVMS101: { ...base.IVMS101, originator: { originatorPersons: "x" } } })).toEqual({ ok: false, path: "IVMS101.originator.originatorPersons" });
  });
  test("approved.json, rejected.json and the bare version acknowledgement are the three resolutions", () => {
    expect(readResolution(fixture("approved.json"))).toEqual({ ok: true, value: { kind: "approved", address: "some payment address", callback: "https://beneficiary.com/implementation/defined/path/for/transferConfirmation" } });
    expect(readResolution(fixture("rejected.json"))).toEqual({ ok: true, value: { kind: "rejected", comment: "human readable comment" } });
    expect(readResolution({ version: "3.1.0" })).toEqual({ ok: true, value: { kind: "acknowledged", version: "3.1.0" } });
    expect(readResolution({}).ok).toBe(false);
    expect(readResolution({ approved: fixture("approved.json").approved, rejected: "x" }).ok).toBe(false);
    expect(readResolution({ approved: { address: "a", callback: "http://x.example/c" } })).toEqual({ ok: false, path: "approved.callback" });
  });
  test("confirmation.json carries the txid, canceled.json the cancellation; both or neither is refused", () => {
    expect(readConfirmation(fixture("confirmation.json"))).toEqual({ ok: true, value: { kind: "txid", txid: "[some asset-specific tx identifier]" } });
    expect(readConfirmation(fixture("canceled.json"))).toEqual({ ok: true, value: { kind: "canceled", comment: "human readable comment" } });
    expect(readConfirmation({ txid: "a", canceled: "b" }).ok).toBe(false);
    expect(readConfirmation({}).ok).toBe(false);
  });
  test("discoverability: version.json, extensions.json, identity.json, a plain-text uptime", () => {
    expect(readVersion(fixture("version.json"))).toEqual({ ok: true, value: { version: "1.2.0", vendor: "21Analytics" } });
    expect(readExtensions(fixture("extensions.json"))).toEqual({ ok: true, value: { required: ["message-signing"], supported: ["extended-ivms101", "deterministic-transfer"] } });
    const id = readIdentity(fixture("identity.json"));
    expect(id.ok && id.value.name === "Acme VASP" && id.value.lei === "TVYD005I7Q5IJK0EMI53").toBe(true);
    expect(readUptime("86400\n")).toBe(86400);
    expect(readUptime("1d")).toBeNull();
  });
  test("api-version: any 3.x is accepted (3.1.0 by TRISA, 3.2.x by others); 2.x and garbage are not", () => {
    for (const v of ["3.0.0", "3.1.0", "3.2.1", "3.2"]) expect(acceptsApiVersion(v)).toBe(true);
    for (const v of ["2.1.0", "4.0.0", "", "v3", null]) expect(acceptsApiVersion(v)).toBe(false);
  });
  test("exact in what is sent: the amount is written as the decimal number itself, never a rounded float", () => {
    const text = writeInquiry({ asset: { slip0044: 60 }, amount: "0.123456789012345678", callback: "https://us.example/cb", IVMS101: {} });
    expect(text).toContain('"amount":0.123456789012345678,');
    expect(JSON.parse(text).callback).toBe("https://us.example/cb");
  });
});

describe("a chain address is never taken for a Travel Address", () => {
  test("a base58 address that starts with ta (as a Solana address may) looks like one but does not decode", async () => {
    const { SettingsRegistry } = await import("../../src/adapters/providers/index.ts");
    const solanaLike = "taKkbuTk9WHM5pqv6Wo8kvXQeNJUS5NiaYsS8CyRpsw"; // base58, no Travel Address checksum
    expect(looksLikeTravelAddress(solanaLike)).toBe(true);
    expect(decodeTravelAddress(solanaLike).ok).toBe(false);
    // The registry's gate decodes: such an address is not reserved for provider_d.
    const settings = { enabled: async () => true, credentials: async () => ({}) } as never;
    const adapter = { name: "provider_e", canCarry: () => ({ ok: true }) } as never;
    const registry = new SettingsRegistry(settings, { provider_e: adapter }, (() => {}) as never);
    const cand = { assetId: "x", asset: "SOL", network: "solana", amount: "1", beneficiaryPersonCount: 1, hasOriginatorAddress: true };
    expect((await registry.capabilities("c", "test", { ...cand, beneficiaryAddress: solanaLike })).find((c) => c.provider === "provider_e")).toEqual({ provider: "provider_e", ok: true });
    const ta = "ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv";
    expect((await registry.capabilities("c", "test", { ...cand, beneficiaryAddress: ta })).find((c) => c.provider === "provider_e")).toEqual({ provider: "provider_e", ok: false, reason: "a Travel Address is carried by provider_d only" });
  });
});
