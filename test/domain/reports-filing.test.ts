// A filing's content without I/O: names in the identity's order (IVMS101), indicators in words with their code,
// human times with the zone, what is missing for filing (jurisdiction, placeholder narrative), the reporting
// threshold (the str threshold's amount), and the document a PDF is drawn from.
import { test, expect, describe } from "bun:test";
import { identityNameLines, reportNames, writtenName } from "../../src/domain/reports/names.ts";
import { describeIndicator, latestRunIncomplete, ruleIndicator } from "../../src/domain/reports/indicators.ts";
import { humanTime, reportDocument } from "../../src/domain/reports/document.ts";
import {
  filingDeadline,
  deadlineRule,
  missingForFiling,
  missingLabels,
  NARRATIVE_PLACEHOLDER,
  reportingThreshold,
  resolveReportType,
  UNKNOWN_JURISDICTION,
  type DeadlineThreshold,
} from "../../src/domain/reports/report.ts";
import type { Person } from "../../src/domain/ivms101/types.ts";

const natural = (ids: { p: string; s?: string; t: string }[], local: { p: string; s?: string; t: string }[] = []): Person =>
  ({
    naturalPerson: {
      name: {
        nameIdentifier: ids.map((x) => ({ primaryIdentifier: x.p, ...(x.s ? { secondaryIdentifier: x.s } : {}), nameIdentifierType: x.t })),
        ...(local.length ? { localNameIdentifier: local.map((x) => ({ primaryIdentifier: x.p, ...(x.s ? { secondaryIdentifier: x.s } : {}), nameIdentifierType: x.t })) } : {}),
      },
    },
  }) as Person;

describe("names as the identity gives them", () => {
  test.each([
    ["山田", "太郎", "山田 太郎"],
    ["김", "민준", "김 민준"],
    ["王", "小明", "王 小明"],
    ["Doe", "Jane", "Jane Doe"],
    ["van Dijk", "Anna", "Anna van Dijk"],
    ["Madonna", undefined, "Madonna"],
  ])("primary %s, secondary %s → %s (never 'family, given')", (p, s, want) => {
    expect(writtenName(p, s)).toBe(want);
  });

  test("every name identifier in the identity's order, with its type in words, then local-script names", () => {
    const p = natural([{ p: "Yamada", s: "Taro", t: "LEGL" }, { p: "Yama", t: "ALIA" }], [{ p: "山田", s: "太郎", t: "LEGL" }]);
    expect(identityNameLines([p])).toEqual([
      "Taro Yamada (legal name; family name Yamada, given name Taro)",
      "Yama (alias; name Yama)",
      "山田 太郎 (legal name, local script; family name 山田, given name 太郎)",
    ]);
    expect(reportNames([p])).toBe("Taro Yamada");
    const legal = { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Harbour Exchange B.V.", legalPersonNameIdentifierType: "LEGL" }, { legalPersonName: "Harbour", legalPersonNameIdentifierType: "TRAD" }] } } } as Person;
    expect(identityNameLines([legal])).toEqual(["Harbour Exchange B.V. (legal name)", "Harbour (trading name)"]);
  });
});

describe("risk indicators and times", () => {
  test("codes in words with the code beside; a rule by name and severity; free text as written", () => {
    expect(describeIndicator("sanctions_hit")).toBe("Sanctions screening match (sanctions_hit)");
    expect(describeIndicator("str_threshold_reached")).toBe("Amount at or above the suspicious transaction reporting threshold (str_threshold_reached)");
    expect(describeIndicator(ruleIndicator({ name: "Watch-list hit", severity: "high" }))).toBe('Screening rule "Watch-list hit" fired, severity high (rule)');
    expect(describeIndicator("Funds sent to a mixer")).toBe("Funds sent to a mixer");
    expect(describeIndicator("screening_incomplete")).toMatch(/^Screening could not be completed: .* nothing was matched or cleared \(screening_incomplete\)$/);
    // The latest run decides: a failure cured by a later successful run is screened.
    expect(latestRunIncomplete([{ status: "error", run: "1" }])).toBe(true);
    expect(latestRunIncomplete([{ status: "error", run: "1" }, { status: "success", run: "2" }])).toBe(false);
    expect(latestRunIncomplete([{ status: "success", run: "2" }, { status: "skipped", run: "2" }])).toBe(true);
    expect(latestRunIncomplete([])).toBe(false);
  });

  test("human times: day month year, seconds and the zone; a day alone; null a dash", () => {
    expect(humanTime("2026-11-27T09:05:03.120Z")).toBe("27 November 2026, 09:05:03 UTC");
    expect(humanTime("2026-01-02")).toBe("2 January 2026");
    expect(humanTime(null)).toBe("—");
  });
});

describe("what filing still needs", () => {
  const us = resolveReportType("US");
  const full = Object.fromEntries(us.fields.filter((f) => f.required).map((f) => [f.key, "x"]));
  test("the drafting placeholder keeps a narrative of any length from being filed", () => {
    expect(missingForFiling(us, "n".repeat(300), full)).toEqual({ fields: [], narrative: false });
    expect(missingForFiling(us, `${NARRATIVE_PLACEHOLDER}\n${"n".repeat(300)}`, full)).toEqual({ fields: [], narrative: true });
  });
  test("an unknown jurisdiction is missing first, in words", () => {
    const unknown = resolveReportType(UNKNOWN_JURISDICTION);
    const m = missingForFiling(unknown, "n".repeat(300), Object.fromEntries(unknown.fields.filter((f) => f.required).map((f) => [f.key, "x"])));
    expect(m.fields).toEqual(["jurisdiction"]);
    expect(missingLabels(unknown, { fields: ["jurisdiction", "contactOfficer"], narrative: true })).toEqual([
      "Jurisdiction (where the report is filed) (jurisdiction)",
      "Reporting officer (MLRO) name and contact (contactOfficer)",
      "Narrative written by the officer, at least 50 characters, without the draft placeholder (narrative)",
    ]);
  });
});

describe("the str threshold decides when a report is due", () => {
  const th = (countryCode: string, thresholdAmount: string, currency = "EUR"): DeadlineThreshold => ({ countryCode, type: "str", isActive: true, filingDeadlineDays: null, regulation: "r", regulatoryBody: null, thresholdAmount, thresholdCurrency: currency });
  test.each([
    ["1000", "1000", true],
    ["999.99", "1000", false],
    ["1000.00000001", "1000", true],
  ])("value %s EUR against %s EUR → reached %p", (value, amount, reached) => {
    expect(reportingThreshold(resolveReportType("NL"), [th("NL", amount)], { value, currency: "EUR" })?.reached).toBe(reached);
  });
  test("an EU member takes the EU threshold; another currency is not compared; no threshold → null; no jurisdiction → null", () => {
    expect(reportingThreshold(resolveReportType("DE"), [th("EU", "500")], { value: "600", currency: "EUR" })).toMatchObject({ countryCode: "EU", reached: true });
    expect(reportingThreshold(resolveReportType("NL"), [th("NL", "500")], { value: "600", currency: "USD" })).toMatchObject({ reached: null, value: null });
    expect(reportingThreshold(resolveReportType("NL"), [], { value: "600", currency: "EUR" })).toBeNull();
    expect(reportingThreshold(resolveReportType(UNKNOWN_JURISDICTION), [th("DEFAULT", "1")], { value: "600", currency: "EUR" })).toBeNull();
  });
});

describe("the document of a draft", () => {
  test("case number, fiat value with rate, human times, indicators in words, missing fields listed; no missing list once ready", () => {
    const type = resolveReportType("NL");
    const at = "2026-11-27T10:00:00.000Z";
    const input = {
      type,
      reportNumber: "UTR-TEST-2026-000001",
      status: "draft",
      generatedAt: at,
      filingReady: false,
      filingReference: null,
      filedAt: null,
      deadline: filingDeadline(at, "draft", deadlineRule(type, []), Date.parse(at)),
      narrative: `${NARRATIVE_PLACEHOLDER}\nfacts`,
      riskIndicators: ["sanctions_hit"],
      regulatoryData: { subjectName: "Jane Doe", transactionDate: "2026-11-27" },
      transfer: { id: "trf_x", state: "rejected", createdAt: at, amount: "2.5", asset: "ETH" },
      caseNumber: "CASE-TEST-2026-000012",
      valuation: { value: "7801.00", currency: "EUR", rate: "3120.40", source: "coingecko", rateAsOf: at },
      subjectNames: ["Jane Doe (legal name; family name Doe, given name Jane)"],
    };
    const d = reportDocument(input);
    const rows = d.sections.flatMap((s) => s.rows.map((r) => `${r.label}: ${r.value}`));
    expect(rows).toContain("Case number: CASE-TEST-2026-000012");
    expect(rows).toContain("Value in fiat: 7801.00 EUR at 3120.40 EUR per ETH (coingecko, rate of 27 November 2026, 10:00:00 UTC)");
    expect(rows).toContain("Transaction date: 27 November 2026");
    expect(rows).toContain("Names in the identity: Jane Doe (legal name; family name Doe, given name Jane)");
    expect(d.generatedAt).toBe("27 November 2026, 10:00:00 UTC");
    expect(d.riskIndicators).toEqual(["Sanctions screening match (sanctions_hit)"]);
    expect(d.narrativeIsPlaceholder).toBe(true);
    expect(d.draft).toBe(true);
    expect(d.missing).toContain("Reporting officer (MLRO) name and contact (contactOfficer)");
    expect(reportDocument({ ...input, filingReady: true }).missing).toEqual([]);
  });
});
