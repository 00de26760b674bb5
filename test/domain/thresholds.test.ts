// Part 2 "Threshold" and "Rules and thresholds" without I/O: body rules, PATCH rules, FATF fallbacks, which threshold applies, company profile.
import { test, expect, describe, setDefaultTimeout } from "bun:test";
import {
  applyProfileChange,
  changedFields,
  CURRENCY_CODES,
  effectiveFrom,
  EU_MEMBERS,
  FATF_FALLBACKS,
  isLei,
  jurisdictionOrder,
  parseAmount,
  parseEffectiveDate,
  parseProfile,
  selectThreshold,
  switchesOff,
  validateCreateThreshold,
  validateUpdateThreshold,
  type SelectableThreshold,
  type Threshold,
} from "../../src/domain/thresholds.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const minimal = { countryCode: "DE", type: "tr" as const, name: "Germany TR", thresholdAmount: "1000", regulation: "KryptoWTransferV" };
const issuesOf = (body: unknown) => {
  const r = validateCreateThreshold(body);
  if (r.ok) throw new Error("expected issues");
  return r.issues;
};
const paths = (body: unknown) => issuesOf(body).map((i) => i.path);

describe("POST body (Part 2 table)", () => {
  test("the minimal body gets every default: USD, no regulatory body, in effect already, no deadline, not EU, originator account required, active, no notes", () => {
    const r = validateCreateThreshold(minimal);
    expect(r).toEqual({
      ok: true,
      value: {
        ...minimal,
        thresholdCurrency: "USD",
        regulatoryBody: null,
        effectiveDate: null,
        filingDeadlineDays: null,
        isEUMember: false,
        requiresOriginatorAccount: true,
        isActive: true,
        notes: null,
      },
    });
  });

  test("every field given is kept (amount normalized, instant in UTC)", () => {
    const r = validateCreateThreshold({
      countryCode: "EU",
      type: "str",
      name: "EU STR",
      thresholdAmount: 0.5,
      thresholdCurrency: "EUR",
      regulation: "AMLR",
      regulatoryBody: "AMLA",
      effectiveDate: "2027-07-10T12:00:00+02:00",
      filingDeadlineDays: 30,
      isEUMember: true,
      requiresOriginatorAccount: false,
      isActive: false,
      notes: "n",
    });
    expect(r.ok && r.value).toMatchObject({ thresholdAmount: "0.5", effectiveDate: "2027-07-10T10:00:00.000Z", filingDeadlineDays: 30, isActive: false, requiresOriginatorAccount: false });
  });

  const table: [string, Record<string, unknown>, string, RegExp][] = [
    ["countryCode missing", { ...minimal, countryCode: undefined }, "countryCode", /required/],
    ["countryCode not ISO 3166-1", { ...minimal, countryCode: "XX" }, "countryCode", /ISO 3166-1/],
    ["countryCode lower case", { ...minimal, countryCode: "de" }, "countryCode", /capitals/],
    ["countryCode alpha-3", { ...minimal, countryCode: "DEU" }, "countryCode", /alpha-2/],
    ["type missing", { ...minimal, type: undefined }, "type", /required/],
    ["type unknown", { ...minimal, type: "sar" }, "type", /tr .* or str/],
    ["name missing", { ...minimal, name: undefined }, "name", /required/],
    ["name empty", { ...minimal, name: "" }, "name", /empty/],
    ["name blank", { ...minimal, name: "   " }, "name", /empty/],
    ["name 201 characters", { ...minimal, name: "n".repeat(201) }, "name", /at most 200/],
    ["name not text", { ...minimal, name: 5 }, "name", /text/],
    ["amount missing", { ...minimal, thresholdAmount: undefined }, "thresholdAmount", /required/],
    ["amount negative number", { ...minimal, thresholdAmount: -1 }, "thresholdAmount", /at least 0/],
    ["amount negative string", { ...minimal, thresholdAmount: "-0.01" }, "thresholdAmount", /at least 0/],
    ["amount 9 decimals (string)", { ...minimal, thresholdAmount: "0.000000001" }, "thresholdAmount", /8 decimals/],
    ["amount 9 decimals (number)", { ...minimal, thresholdAmount: 0.000000001 }, "thresholdAmount", /8 decimals/],
    ["amount exponent string", { ...minimal, thresholdAmount: "1e3" }, "thresholdAmount", /exponent/],
    ["amount with spaces", { ...minimal, thresholdAmount: " 1000" }, "thresholdAmount", /spaces/],
    ["amount boolean", { ...minimal, thresholdAmount: true }, "thresholdAmount", /number or a string/],
    ["amount null", { ...minimal, thresholdAmount: null }, "thresholdAmount", /number or a string/],
    ["amount over 2^53 as a number", { ...minimal, thresholdAmount: 2 ** 60 }, "thresholdAmount", /string/],
    ["amount 19 integer digits", { ...minimal, thresholdAmount: "1" + "0".repeat(18) }, "thresholdAmount", /18 digits/],
    ["currency not ISO 4217", { ...minimal, thresholdCurrency: "ABC" }, "thresholdCurrency", /ISO 4217/],
    ["currency lower case", { ...minimal, thresholdCurrency: "usd" }, "thresholdCurrency", /ISO 4217/],
    ["currency withdrawn (HRK)", { ...minimal, thresholdCurrency: "HRK" }, "thresholdCurrency", /ISO 4217/],
    ["currency no-currency code XXX", { ...minimal, thresholdCurrency: "XXX" }, "thresholdCurrency", /ISO 4217/],
    ["regulation missing", { ...minimal, regulation: undefined }, "regulation", /required/],
    ["regulation 201 characters", { ...minimal, regulation: "r".repeat(201) }, "regulation", /at most 200/],
    ["regulatoryBody 201 characters", { ...minimal, regulatoryBody: "b".repeat(201) }, "regulatoryBody", /at most 200/],
    ["regulatoryBody a number", { ...minimal, regulatoryBody: 1 }, "regulatoryBody", /text or null/],
    ["effectiveDate impossible day", { ...minimal, effectiveDate: "2025-02-30" }, "effectiveDate", /YYYY-MM-DD/],
    ["effectiveDate without time zone", { ...minimal, effectiveDate: "2025-01-01T10:00:00" }, "effectiveDate", /time zone/],
    ["effectiveDate as a number", { ...minimal, effectiveDate: 1735689600000 }, "effectiveDate", /YYYY-MM-DD/],
    ["filingDeadlineDays on tr", { ...minimal, filingDeadlineDays: 30 }, "filingDeadlineDays", /only for type str/],
    ["filingDeadlineDays 0", { ...minimal, type: "str", filingDeadlineDays: 0 }, "filingDeadlineDays", /1 to 365/],
    ["filingDeadlineDays 366", { ...minimal, type: "str", filingDeadlineDays: 366 }, "filingDeadlineDays", /1 to 365/],
    ["filingDeadlineDays 1.5", { ...minimal, type: "str", filingDeadlineDays: 1.5 }, "filingDeadlineDays", /whole number/],
    ["isEUMember not boolean", { ...minimal, isEUMember: "true" }, "isEUMember", /true or false/],
    ["requiresOriginatorAccount null", { ...minimal, requiresOriginatorAccount: null }, "requiresOriginatorAccount", /true or false/],
    ["isActive a number", { ...minimal, isActive: 1 }, "isActive", /true or false/],
    ["notes 2,001 characters", { ...minimal, notes: "x".repeat(2001) }, "notes", /at most 2,000/],
    ["an unknown field", { ...minimal, id: "thr_x" }, "id", /not an accepted field/],
  ];
  for (const [what, body, path, message] of table)
    test(`${what} → issue at ${path}`, () => {
      const issues = issuesOf(body);
      expect(issues.length).toBe(1);
      expect(issues[0].path).toBe(path);
      expect(issues[0].message).toMatch(message);
    });

  test("limits are inclusive and count characters, not UTF-16 units: 200-emoji name, 2,000-character notes, deadline 1 and 365, 8 decimals", () => {
    expect(validateCreateThreshold({ ...minimal, name: "🏦".repeat(200), notes: "é".repeat(2000), regulatoryBody: "b".repeat(200) }).ok).toBe(true);
    expect(validateCreateThreshold({ ...minimal, type: "str", filingDeadlineDays: 1 }).ok).toBe(true);
    expect(validateCreateThreshold({ ...minimal, type: "str", filingDeadlineDays: 365 }).ok).toBe(true);
    expect(validateCreateThreshold({ ...minimal, thresholdAmount: "0.00000001" }).ok).toBe(true);
    expect(validateCreateThreshold({ ...minimal, type: "tr", filingDeadlineDays: null }).ok).toBe(true);
  });

  test("several problems at once are all named", () => {
    expect(paths({ countryCode: "ZZ", type: "x", thresholdAmount: "abc", extra: 1 }).sort()).toEqual(["countryCode", "extra", "name", "regulation", "thresholdAmount", "type"]);
  });

  test("a body that is not an object is one issue at the root", () => {
    for (const b of [undefined, null, [], "x", 5]) expect(issuesOf(b)).toEqual([{ path: "", message: "the body must be a JSON object" }]);
  });

  test("an empty optional text is no text (null)", () => {
    const r = validateCreateThreshold({ ...minimal, regulatoryBody: "", notes: "" });
    expect(r.ok && [r.value.regulatoryBody, r.value.notes]).toEqual([null, null]);
  });
});

describe("amounts (decimal strings, never floats)", () => {
  const table: [unknown, string][] = [
    [1000, "1000"],
    ["1000", "1000"],
    ["1000.50", "1000.5"],
    ["007", "7"],
    ["1.000000000", "1"],
    [0.1, "0.1"],
    [1e-7, "0.0000001"],
    [-0, "0"],
    ["0", "0"],
    [123.45678912, "123.45678912"],
    ["999999999999999999.99999999", "999999999999999999.99999999"],
  ];
  for (const [given, answered] of table) test(`${JSON.stringify(given)} → "${answered}"`, () => expect(parseAmount(given)).toEqual({ value: answered }));
});

describe("effectiveDate", () => {
  const table: [unknown, string | null][] = [
    [null, null],
    ["2024-02-29", "2024-02-29"],
    ["2025-01-01T00:00:00Z", "2025-01-01T00:00:00.000Z"],
    ["2025-01-01T01:30+01:30", "2025-01-01T00:00:00.000Z"],
    ["2025-01-01T00:00:00.123456-05:00", "2025-01-01T05:00:00.123Z"],
  ];
  for (const [given, stored] of table) test(`${JSON.stringify(given)} → ${JSON.stringify(stored)}`, () => expect(parseEffectiveDate(given)).toEqual({ value: stored }));
  for (const bad of ["2025-02-29", "2025-13-01", "2025-01-01T24:00Z", "2025-01-01T10:00", "2025-01-01 10:00Z", "1899-12-31", "20250101", ""])
    test(`${JSON.stringify(bad)} is refused`, () => expect("error" in parseEffectiveDate(bad)).toBe(true));
  test("a day takes effect at 00:00 UTC; an instant at itself; null always", () => {
    expect(effectiveFrom("2025-01-01")).toBe(Date.UTC(2025, 0, 1));
    expect(effectiveFrom("2025-01-01T05:00:00.123Z")).toBe(Date.UTC(2025, 0, 1, 5, 0, 0, 123));
    expect(effectiveFrom(null)).toBe(-Infinity);
  });
});

describe("PATCH body", () => {
  const current = { countryCode: "DE", type: "tr" as const };
  test("any field but countryCode and type; the same countryCode and type may be echoed", () => {
    expect(validateUpdateThreshold({ thresholdAmount: 5, countryCode: "DE", type: "tr" }, current)).toEqual({ ok: true, changes: { thresholdAmount: "5" } });
  });
  test("a different countryCode or type → immutable, naming each", () => {
    expect(validateUpdateThreshold({ countryCode: "FR" }, current)).toEqual({ ok: false, kind: "immutable", fields: ["countryCode"] });
    expect(validateUpdateThreshold({ countryCode: "FR", type: "str", name: "" }, current)).toEqual({ ok: false, kind: "immutable", fields: ["countryCode", "type"] });
  });
  test("an empty body, or only the immutable fields unchanged → at least one field is required", () => {
    for (const b of [{}, { countryCode: "DE" }]) {
      const r = validateUpdateThreshold(b, current);
      expect(r.ok === false && r.kind === "invalid" && r.issues[0].message).toMatch(/at least one field/);
    }
  });
  test("field rules are the create rules; filingDeadlineDays follows the stored type", () => {
    const r = validateUpdateThreshold({ name: "", thresholdAmount: "1e3", filingDeadlineDays: 10, bogus: true }, current);
    expect(r.ok === false && r.kind === "invalid" && r.issues.map((i) => i.path).sort()).toEqual(["bogus", "filingDeadlineDays", "name", "thresholdAmount"]);
    expect(validateUpdateThreshold({ filingDeadlineDays: 10 }, { countryCode: "DE", type: "str" })).toEqual({ ok: true, changes: { filingDeadlineDays: 10 } });
  });
  test("switching off is only true → false", () => {
    expect(switchesOff({ isActive: true }, { isActive: false })).toBe(true);
    expect(switchesOff({ isActive: false }, { isActive: false })).toBe(false);
    expect(switchesOff({ isActive: true }, { isActive: true })).toBe(false);
    expect(switchesOff({ isActive: true }, {})).toBe(false);
  });
  test("changed fields leave out values that stay the same", () => {
    const t = { thresholdAmount: "1000", name: "A", isActive: true } as Threshold;
    expect(changedFields(t, { thresholdAmount: "1000", name: "B", isActive: false })).toEqual(["name", "isActive"]);
  });
});

describe("which threshold applies", () => {
  const NOW = Date.UTC(2026, 0, 15);
  let n = 0;
  const th = (countryCode: string, o: Partial<SelectableThreshold> = {}): SelectableThreshold => ({
    id: `thr_${++n}`,
    countryCode,
    type: "tr",
    name: `${countryCode} tr`,
    thresholdAmount: "100",
    thresholdCurrency: "EUR",
    regulation: `${countryCode} law`,
    effectiveDate: null,
    isActive: true,
    requiresOriginatorAccount: true,
    ...o,
  });
  const pick = (ts: SelectableThreshold[], country: string | null, type: "tr" | "str" = "tr", now = NOW) => {
    const s = selectThreshold(ts, country === null ? null : { country: country as never }, { type, now });
    return `${s.source}:${s.threshold.jurisdiction}`;
  };

  test("the order: country, EU for a member state, DEFAULT, then the fallback", () => {
    expect(jurisdictionOrder("FR")).toEqual(["FR", "EU", "DEFAULT"]);
    expect(jurisdictionOrder("CH")).toEqual(["CH", "DEFAULT"]);
    expect(jurisdictionOrder(null)).toEqual(["DEFAULT"]);
  });

  const all = [th("FR"), th("EU"), th("DEFAULT"), th("CH")];
  const table: [string, SelectableThreshold[], string | null, string][] = [
    ["no thresholds at all → fallback", [], "FR", "fatf_fallback:DEFAULT"],
    ["only inactive thresholds → fallback", [th("FR", { isActive: false }), th("DEFAULT", { isActive: false })], "FR", "fatf_fallback:DEFAULT"],
    ["the company's country first", all, "FR", "company:FR"],
    ["an EU member without its own → EU", all, "DE", "company:EU"],
    ["a non-member without its own → DEFAULT (EU skipped)", [th("EU"), th("DEFAULT")], "CH", "company:DEFAULT"],
    ["a non-member never gets EU, even with no DEFAULT → fallback", [th("EU")], "CH", "fatf_fallback:DEFAULT"],
    ["a member with neither country nor EU → DEFAULT", [th("DEFAULT")], "IT", "company:DEFAULT"],
    ["no profile country → DEFAULT", all, null, "company:DEFAULT"],
    ["no profile country, no DEFAULT → fallback", [th("FR"), th("EU")], null, "fatf_fallback:DEFAULT"],
    ["an inactive country threshold is skipped", [th("FR", { isActive: false }), th("EU")], "FR", "company:EU"],
    ["a country threshold effective in the future is skipped", [th("FR", { effectiveDate: "2026-01-16" }), th("DEFAULT")], "FR", "company:DEFAULT"],
    ["effective today (a day, from 00:00 UTC) applies", [th("FR", { effectiveDate: "2026-01-15" }), th("DEFAULT")], "FR", "company:FR"],
    ["an instant one millisecond ahead is not yet in force", [th("FR", { effectiveDate: new Date(NOW + 1).toISOString() }), th("DEFAULT")], "FR", "company:DEFAULT"],
    ["an instant exactly now is in force", [th("FR", { effectiveDate: new Date(NOW).toISOString() })], "FR", "company:FR"],
    ["every company threshold in the future → fallback", [th("FR", { effectiveDate: "2030-01-01" })], "FR", "fatf_fallback:DEFAULT"],
    ["a threshold of the other type does not apply", [th("FR", { type: "str" })], "FR", "fatf_fallback:DEFAULT"],
  ];
  for (const [what, ts, country, expected] of table) test(`${what}`, () => expect(pick(ts, country)).toBe(expected));

  test("the answer carries the amount, currency, jurisdiction, regulation and name, and the ID of a company threshold", () => {
    const t = th("FR", { thresholdAmount: "0", thresholdCurrency: "EUR", regulation: "TFR", name: "France" });
    expect(selectThreshold([t], { country: "FR" }, { type: "tr", now: NOW })).toEqual({
      threshold: { id: t.id, amount: "0", currency: "EUR", jurisdiction: "FR", regulation: "TFR", name: "France", requiresOriginatorAccount: true },
      source: "company",
    });
  });

  test("the FATF fallbacks: tr 1000 USD (Recommendation 16 de minimis), str 0 USD (Recommendation 20: any amount)", () => {
    const tr = selectThreshold([], null, { type: "tr", now: NOW });
    expect(tr).toEqual({ threshold: expect.objectContaining({ id: null, amount: "1000", currency: "USD", jurisdiction: "DEFAULT" }), source: "fatf_fallback" });
    expect(tr.threshold.regulation).toMatch(/Recommendation 16/);
    const str = selectThreshold([], { country: "FR" }, { type: "str", now: NOW });
    expect(str.threshold).toMatchObject({ amount: "0", currency: "USD", jurisdiction: "DEFAULT" });
    expect(str.threshold.regulation).toMatch(/Recommendation 20/);
    for (const f of FATF_FALLBACKS) expect(CURRENCY_CODES.has(f.thresholdCurrency)).toBe(true);
  });

  test("the str selection uses str thresholds only", () => {
    const ts = [th("FR"), th("EU", { type: "str", thresholdAmount: "0" })];
    expect(pick(ts, "FR", "str")).toBe("company:EU");
    expect(pick(ts, "FR", "tr")).toBe("company:FR");
  });

  test("the EU list holds the 27 member states", () => {
    expect(EU_MEMBERS.size).toBe(27);
    for (const c of ["DE", "FR", "GR", "HR", "IE", "CY"]) expect(EU_MEMBERS.has(c as never)).toBe(true);
    for (const c of ["GB", "CH", "NO", "IS", "LI", "EL"]) expect(EU_MEMBERS.has(c as never)).toBe(false);
  });
});

describe("company profile", () => {
  test("LEI check digits (ISO 17442, MOD 97-10) with published LEIs", () => {
    for (const lei of ["5493001KJTIIGC8Y1R12", "7LTWFZYICNSX8D621K86", "HWUPKR0MPOU8FGXBT394", "529900T8BM49AURSDO55"]) expect(isLei(lei)).toBe(true);
    for (const bad of ["5493001KJTIIGC8Y1R13", "5493001KJTIIGC8Y1R1", "5493001kjtiigc8y1r12", "5493001KJTIIGC8Y1RA2", ""]) expect(isLei(bad)).toBe(false);
  });

  test("fields are set, identifiers kept per type (upper-cased type, LEI upper-cased), an empty value removes one", () => {
    const a = applyProfileChange(null, { legalName: " Acme GmbH ", country: "de", identifiers: [{ type: "lei", value: "5493001kjtiigc8y1r12" }, { type: "RAID", value: "HRB 1" }] });
    expect(a).toEqual({
      ok: true,
      profile: { legalName: "Acme GmbH", country: "DE", identifiers: [{ type: "LEI", value: "5493001KJTIIGC8Y1R12" }, { type: "RAID", value: "HRB 1" }] },
      fields: ["legalName", "country", "identifiers"],
    });
    const b = a.ok && applyProfileChange(a.profile, { identifiers: [{ type: "RAID", value: "" }] });
    expect(b && b.ok && b.profile).toEqual({ legalName: "Acme GmbH", country: "DE", identifiers: [{ type: "LEI", value: "5493001KJTIIGC8Y1R12" }] });
  });

  test("only fields whose value changes are reported (a repeated command changes nothing)", () => {
    const a = applyProfileChange(null, { country: "FR", identifiers: [{ type: "TXID", value: "1" }] });
    const again = a.ok && applyProfileChange(a.profile, { country: "fr", legalName: "", identifiers: [{ type: "txid", value: "1" }] });
    expect(again && again.ok && again.fields).toEqual([]);
  });

  test("a bad country, LEI or identifier type is refused with every reason", () => {
    const r = applyProfileChange(null, { country: "XX", identifiers: [{ type: "LEI", value: "5493001KJTIIGC8Y1R13" }, { type: "1x", value: "v" }] });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.length).toBe(3);
  });

  test("a stored profile is read defensively", () => {
    expect(parseProfile(null)).toBeNull();
    expect(parseProfile("not json")).toBeNull();
    expect(parseProfile('{"legalName":"A","country":"ZZ","identifiers":[{"type":"LEI"}]}')).toEqual({ legalName: "A", country: null, identifiers: [] });
  });
});
