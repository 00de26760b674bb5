// Tables for the pure parts of provider_b callbacks (Part 3): name matching, reasonTypes, idempotency, txid, cancellation, status, source addresses.
import { describe, expect, test } from "bun:test";
import type { Person } from "../../src/domain/ivms101/types.ts";
import { beneficiaryMatches, foldName, samePerson } from "../../src/domain/provider_b/names.ts";
import {
  IN_PROGRESS_RELEASE_MS,
  cancelDecision,
  canonicalJson,
  claimDecision,
  contentHash,
  holderReason,
  outgoingStatus,
  screeningReason,
  txidDecision,
  txidVariants,
  walletReason,
} from "../../src/domain/provider_b/decisions.ts";
import { parseAllowedSources, sourceAllowed } from "../../src/domain/provider_b/sources.ts";

const natural = (primary: string, secondary?: string, type: "LEGL" | "ALIA" = "LEGL"): Person => ({
  naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: primary, ...(secondary !== undefined ? { secondaryIdentifier: secondary } : {}), nameIdentifierType: type }] } },
});
const legal = (name: string): Person => ({ legalPerson: { name: { nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: "LEGL" }] } } });

describe("foldName: case, spacing, punctuation and symbols ignored; letters and accents kept", () => {
  test.each([
    ["O'Brien-Smith, Jr.", "obriensmithjr"],
    ["  JANE   doe ", "janedoe"],
    ["Jane\u00a0Doe", "janedoe"],
    ["Ｊａｎｅ", "jane"], // full-width letters (NFKC)
    ["Müller", "müller"],
    ["김 민수", "김민수"],
    ["...", ""],
  ])("%p → %p", (input, folded) => expect(foldName(input)).toBe(folded));
});

describe("samePerson and beneficiaryMatches", () => {
  const jane = natural("Doe", "Jane");
  test.each<[string, Person, Person, boolean]>([
    ["identical", natural("Doe", "Jane"), jane, true],
    ["case and spacing", natural("  doe ", "JANE"), jane, true],
    ["punctuation", natural("D.o.e", "Jane-"), jane, true],
    ["given and family swapped", natural("Jane", "Doe"), jane, true],
    ["whole name in the primary identifier", natural("Jane Doe"), jane, true],
    ["whole name, family first", natural("DOE, JANE"), jane, true],
    ["another given name", natural("Doe", "John"), jane, false],
    ["a name inside another", natural("Doe", "Janet"), jane, false],
    ["accent differs", natural("Döe", "Jane"), jane, false],
    ["the identity's alias counts", natural("Jd"), { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }, { primaryIdentifier: "JD", nameIdentifierType: "ALIA" }] } } }, true],
    ["a local name counts", { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Kim", secondaryIdentifier: "Minsu", nameIdentifierType: "LEGL" }], localNameIdentifier: [{ primaryIdentifier: "김", secondaryIdentifier: "민수", nameIdentifierType: "LEGL" }] } } }, { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Kim", secondaryIdentifier: "Min-su", nameIdentifierType: "LEGL" }], localNameIdentifier: [{ primaryIdentifier: "김", secondaryIdentifier: "민수", nameIdentifierType: "LEGL" }] } } }, true],
    ["natural against legal", natural("Acme Ltd"), legal("Acme Ltd"), false],
    ["legal: case and punctuation", legal("ACME, LTD."), legal("Acme Ltd"), true],
    ["legal: another company", legal("Acme Holdings"), legal("Acme Ltd"), false],
    ["an empty name never matches", natural("..."), natural("-"), false],
  ])("%s → %p", (_name, sent, known, expected) => expect(samePerson(sent, known)).toBe(expected));

  const company = [legal("Acme Ltd"), natural("Roe", "Richard"), natural("Poe", "Edgar")];
  test.each<[string, Person[], Person[], boolean]>([
    ["natural: the first person matches", [natural("jane doe")], [jane], true],
    ["natural: the first person differs", [natural("Roe", "Jane")], [jane], false],
    ["no person sent", [], [jane], false],
    ["company alone", [legal("ACME LTD")], company, true],
    ["company and its representatives, any order", [legal("Acme Ltd"), natural("Edgar", "Poe"), natural("Roe", "Richard")], company, true],
    ["company and someone who is not a representative", [legal("Acme Ltd"), natural("Doe", "Jane")], company, false],
    ["a representative first instead of the company", [natural("Roe", "Richard")], company, false],
  ])("%s → %p", (_name, sent, identity, expected) => expect(beneficiaryMatches(sent, identity)).toBe(expected));
});

describe("reasonTypes Caravan decides (Part 3 table)", () => {
  test.each([
    [0, "NOT_FOUND_ADDRESS"],
    [1, null],
    [2, "NOT_FOUND_ADDRESS"],
  ] as const)("%p wallets → %p", (n, reason) => expect(walletReason(n)).toBe(reason));

  test.each([
    [{ customerActive: true, walletVerified: true, identityStatus: "verified" }, null],
    [{ customerActive: true, walletVerified: false, identityStatus: "verified" }, "NOT_KYC_USER"],
    [{ customerActive: true, walletVerified: true, identityStatus: "unverified" }, "NOT_KYC_USER"],
    [{ customerActive: true, walletVerified: true, identityStatus: null }, "NOT_KYC_USER"],
    [{ customerActive: true, walletVerified: true, identityStatus: "blocked" }, "SANCTION_LIST"],
    [{ customerActive: true, walletVerified: false, identityStatus: "blocked" }, "SANCTION_LIST"],
    [{ customerActive: false, walletVerified: true, identityStatus: "verified" }, "NOT_KYC_USER"],
    [{ customerActive: false, walletVerified: true, identityStatus: "blocked" }, "NOT_KYC_USER"],
  ] as const)("%p → %p", (h, reason) => expect(holderReason(h)).toBe(reason));

  test.each([
    ["approved", null],
    ["pending", "LACK_OF_INFORMATION"],
    ["rejected", "UNKNOWN"],
  ] as const)("screening %p → %p (never held)", (v, reason) => expect(screeningReason(v)).toBe(reason));
});

describe("idempotency claims", () => {
  const h = contentHash({ a: 1 });
  const at = 1_700_000_000_000;
  test.each([
    ["nothing recorded", null, h, at, "new"],
    ["done, same content", { contentHash: h, state: "done", startedAt: at }, h, at + 10 * 60_000, "replay"],
    ["done, other content", { contentHash: "x", state: "done", startedAt: at }, h, at, "duplicate"],
    ["in progress, other content", { contentHash: "x", state: "in_progress", startedAt: at }, h, at, "duplicate"],
    ["in progress, same content, 1 s", { contentHash: h, state: "in_progress", startedAt: at }, h, at + 1000, "in_progress"],
    ["in progress, same content, 4:59.999", { contentHash: h, state: "in_progress", startedAt: at }, h, at + IN_PROGRESS_RELEASE_MS - 1, "in_progress"],
    ["in progress, same content, 5:00", { contentHash: h, state: "in_progress", startedAt: at }, h, at + IN_PROGRESS_RELEASE_MS, "reclaim"],
  ] as const)("%s → %p", (_n, row, hash, now, decision) => expect(claimDecision(row, hash, now)).toBe(decision));

  test("the content hash ignores key order, not values", () => {
    expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: "x" })).toBe('{"a":"x","b":[1,{"c":3,"d":2}]}');
    expect(contentHash({ a: 1, b: { c: 2 } })).toBe(contentHash({ b: { c: 2 }, a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: "1" }));
    expect(contentHash({ a: 1, u: undefined })).toBe(contentHash({ a: 1 }));
    expect(contentHash({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("after the authorization", () => {
  const tx = { txid: "0xabc", vout: "0" };
  test.each([
    ["verified, first report", "awaiting_counterparty", null, tx, { result: "normal", record: true }],
    ["the same again", "accepted", tx, tx, { result: "normal" }],
    ["same txid, no vout where one was given", "accepted", tx, { txid: "0xabc", vout: null }, { result: "error", reasonType: "TXID_ALREADY_EXISTS" }],
    ["another txid", "accepted", tx, { txid: "0xdef", vout: "0" }, { result: "error", reasonType: "TXID_ALREADY_EXISTS" }],
    ["denied transfer", "rejected", null, tx, { result: "error", reasonType: "UNKNOWN_TRANSFER_ID" }],
    ["canceled after its report, same txid", "failed", tx, tx, { result: "normal" }],
  ] as const)("txid: %s", (_n, state, reported, sent, expected) => expect(txidDecision(state, reported, sent)).toEqual(expected as never));

  test.each([
    ["verified", "awaiting_counterparty", null, "rejected"],
    ["transaction reported", "accepted", tx, "failed"],
    ["already canceled", "rejected", null, null],
    ["already failed", "failed", tx, null],
  ] as const)("cancel: %s → %p", (_n, state, reported, to) => expect(cancelDecision(state, reported).to).toBe(to));

  test.each([
    [{ state: "awaiting_counterparty", txHash: null }, "pending"],
    [{ state: "held", txHash: null }, "pending"],
    [{ state: "completed", txHash: "0xab" }, "processing"],
    [{ state: "rejected", txHash: null }, "canceled"],
    [{ state: "failed", txHash: null }, "canceled"],
  ] as const)("outgoing status %p → %p", (t, s) => expect(outgoingStatus(t)).toBe(s));

  test("txid spellings: with and without 0x, any case; other text as is", () => {
    expect(txidVariants("0xAB")).toEqual(expect.arrayContaining(["0xAB", "AB", "ab", "0xab"]));
    expect(txidVariants("5Kx9")).toEqual(["5Kx9"]);
  });
});

describe("PROVIDER_B_ALLOWED_IPS", () => {
  const list = parseAllowedSources("203.0.113.7, 198.51.100.0/24 2001:db8::/32,::1");
  test.each([
    ["203.0.113.7", true],
    ["203.0.113.8", false],
    ["198.51.100.200", true],
    ["198.51.101.1", false],
    ["2001:db8::1", true],
    ["2001:db9::1", false],
    ["::1", true],
    ["::ffff:203.0.113.7", true],
    ["127.0.0.1", false],
    ["", false],
    [null, false],
    ["203.0.113.7, 10.0.0.1", false],
    ["0xcb007107", false],
  ] as const)("%p → %p", (ip, allowed) => expect(sourceAllowed(list, ip)).toBe(allowed));

  test("an empty list refuses every address", () => {
    for (const text of [undefined, "", "  ,  "]) {
      const empty = parseAllowedSources(text);
      expect(empty.ranges).toHaveLength(0);
      expect(sourceAllowed(empty, "127.0.0.1")).toBe(false);
    }
  });

  test("entries that are not addresses or ranges are ignored and reported", () => {
    const l = parseAllowedSources("127.0.0.1, example.com, 10.0.0.0/33, 127.1, 10.0.0.0/x");
    expect(l.invalid).toEqual(["example.com", "10.0.0.0/33", "127.1", "10.0.0.0/x"]);
    expect(sourceAllowed(l, "127.0.0.1")).toBe(true);
  });
});
