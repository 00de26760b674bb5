// Part 2 "Report" and "Report type": the catalogue (every type, its FIU and deadline source), deadline rules
// (threshold vs system default), filingDeadline as of a time, filing readiness, the life, masking, numbers.
import { test, expect, describe, setDefaultTimeout } from "bun:test";
import { REPORT_TYPE_DEFINITIONS, COMMON_FIELDS } from "../../src/domain/reports/catalogue.ts";
import {
  deadlineRule,
  filingDeadline,
  hasCjk,
  isFilingReady,
  maskReportContent,
  nextStatus,
  normaliseJurisdiction,
  presentReportType,
  reportNumber,
  resolveReportType,
  textLength,
  type DeadlineThreshold,
} from "../../src/domain/reports/report.ts";
import { EU_MEMBERS } from "../../src/domain/thresholds.ts";

setDefaultTimeout(60_000);

const DAY = 86_400_000;
const FIU: Record<string, RegExp> = {
  US: /FinCEN/, GB: /National Crime Agency/, CA: /FINTRAC/, AU: /AUSTRAC/, SG: /STRO/, HK: /JFIU/, JP: /JAFIC/, KR: /KoFIU/, CH: /MROS/, AE: /UAE Financial Intelligence Unit/,
};
const LABEL: Record<string, string> = { US: "SAR", GB: "SAR", CA: "STR", AU: "SMR", SG: "STR", HK: "STR", JP: "STR", KR: "STR", CH: "SAR", AE: "STR" };
/** System default days per jurisdiction, as the catalogue documents them. */
const DAYS: Record<string, number> = { US: 30, AU: 3, KR: 3, SG: 15, CZ: 5, EE: 2, LT: 1, MT: 1, PL: 2, RO: 1 };

const th = (countryCode: string, days: number | null, o: Partial<DeadlineThreshold> = {}): DeadlineThreshold => ({
  countryCode, type: "str", isActive: true, filingDeadlineDays: days, regulation: `Company rule ${countryCode}`, regulatoryBody: "Company body", ...o,
});

describe("catalogue", () => {
  test("has the named jurisdictions and every EU member state, each once, with an FIU", () => {
    const codes = REPORT_TYPE_DEFINITIONS.map((d) => d.jurisdiction);
    expect(new Set(codes).size).toBe(codes.length);
    for (const j of [...Object.keys(FIU), ...EU_MEMBERS]) expect(codes).toContain(j);
    expect(codes).not.toContain("EU");
  });

  for (const d of REPORT_TYPE_DEFINITIONS) {
    test(`${d.jurisdiction}: ${d.abbreviation} to ${d.reportTo}, deadline ${d.deadlineDays} days by ${d.regulation}, sourced`, () => {
      expect(d.reportTo).toBeTruthy();
      if (FIU[d.jurisdiction]) expect(d.reportTo!).toMatch(FIU[d.jurisdiction]);
      if (LABEL[d.jurisdiction]) expect(d.abbreviation).toBe(LABEL[d.jurisdiction]);
      expect(d.label).toContain(`(${d.abbreviation}`);
      expect(d.deadlineDays).toBe(DAYS[d.jurisdiction] ?? 3);
      expect(d.deadlineDays).toBeGreaterThanOrEqual(1);
      expect(d.regulation.length).toBeGreaterThan(5);
      expect(d.regulatoryBody.length).toBeGreaterThan(2);
      expect(d.sources.length).toBeGreaterThan(0);
      for (const s of d.sources) expect(s).toMatch(/^https?:\/\//);
      const type = presentReportType(resolveReportType(d.jurisdiction), []);
      expect(Object.keys(type).sort()).toEqual(["fields", "filingDeadline", "formats", "jurisdiction", "kind", "label", "narrative", "reportTo"]);
      expect(type.filingDeadline).toEqual({ days: d.deadlineDays, source: "system_default", regulation: d.regulation, regulatoryBody: d.regulatoryBody });
      expect(type.formats).toEqual(["pdf"]);
      expect(type.narrative).toEqual({ required: true, minLength: d.narrativeMinLength });
      for (const f of type.fields) expect(Object.keys(f).sort()).toEqual(["key", "label", "pii", "type"]);
      expect(type.fields.find((f) => f.key === "subjectName")!.pii).toBe(true);
      expect(type.fields.find((f) => f.key === "filingInstitutionName")!.pii).toBe(false);
    });
  }

  test("a jurisdiction without its own type gets the generic suspicion report with reportTo null", () => {
    const t = presentReportType(resolveReportType("BR"), []);
    expect(t).toMatchObject({ kind: "suspicion", jurisdiction: "BR", reportTo: null, filingDeadline: { source: "system_default", days: 3 } });
    expect(t.fields.map((f) => f.key)).toEqual(COMMON_FIELDS.map((f) => f.key));
  });
});

describe("jurisdiction parameter", () => {
  test.each([["us", "US"], ["Gb", "GB"], ["UK", "GB"], ["uk", "GB"], ["de", "DE"], ["EU", null], ["XX", null], ["USA", null], ["", null]])("%p → %p", (raw, want) => {
    expect(normaliseJurisdiction(raw)).toBe(want);
  });
});

describe("deadline source", () => {
  const us = resolveReportType("US");
  test("an active str threshold of the jurisdiction with filingDeadlineDays wins (source threshold)", () => {
    expect(deadlineRule(us, [th("US", 10)])).toEqual({ days: 10, source: "threshold", regulation: "Company rule US", regulatoryBody: "Company body" });
  });
  test("inactive, tr-type, other-jurisdiction or day-less thresholds leave the system default", () => {
    for (const t of [th("US", 10, { isActive: false }), th("US", 10, { type: "tr" }), th("CA", 10), th("US", null), th("DEFAULT", 9)])
      expect(deadlineRule(us, [t]).source).toBe("system_default");
  });
  test("an EU member state takes the company's EU threshold; its own threshold comes first", () => {
    const de = resolveReportType("DE");
    expect(deadlineRule(de, [th("EU", 7)])).toMatchObject({ days: 7, source: "threshold" });
    expect(deadlineRule(de, [th("EU", 7), th("DE", 4)])).toMatchObject({ days: 4, source: "threshold" });
  });
  test("the generic type takes the company's DEFAULT threshold", () => {
    expect(deadlineRule(resolveReportType("BR"), [th("DEFAULT", 12)])).toMatchObject({ days: 12, source: "threshold" });
  });
});

describe("filingDeadline as of now", () => {
  const rule = { days: 10, source: "system_default" as const, regulation: "r", regulatoryBody: "b" };
  const gen = "2026-03-01T12:00:00.000Z";
  const at = Date.parse(gen);
  test.each([
    [0, 10, false, false],
    [7 * DAY - 1, 4, false, false],
    [7 * DAY, 3, false, true],
    [10 * DAY, 0, false, true],
    [10 * DAY + 1, 0, true, false],
    [12 * DAY + 1, -2, true, false],
  ])("after %p ms: daysRemaining %p, overdue %p, approaching %p", (elapsed, days, overdue, approaching) => {
    const d = filingDeadline(gen, "draft", rule, at + elapsed);
    expect(d).toEqual({ deadline: "2026-03-11T12:00:00.000Z", daysRemaining: days, isOverdue: overdue, isApproaching: approaching, source: "system_default", daysConfigured: 10, regulation: "r", regulatoryBody: "b" });
  });
  test("a filed report is never overdue nor approaching", () => {
    expect(filingDeadline(gen, "filed", rule, at + 40 * DAY)).toMatchObject({ isOverdue: false, isApproaching: false });
  });
});

describe("filing readiness and the life", () => {
  const us = resolveReportType("US");
  const full = Object.fromEntries(us.fields.filter((f) => f.required).map((f) => [f.key, "x"]));
  test("ready only with every required field and a narrative of the type's minimum length", () => {
    expect(isFilingReady(us, "n".repeat(200), full)).toBe(true);
    expect(isFilingReady(us, "n".repeat(199), full)).toBe(false);
    expect(isFilingReady(us, "n".repeat(200), { ...full, subjectName: " " })).toBe(false);
  });
  const by = "mem_a";
  test.each([
    ["draft", "edit", true, null, "draft"],
    ["pending_review", "edit", true, "mem_a", "draft"],
    ["submitted", "edit", true, "mem_a", "INVALID_REPORT_STATE"],
    ["filed", "edit", true, "mem_a", "INVALID_REPORT_STATE"],
    ["draft", "submit", true, null, "pending_review"],
    ["draft", "submit", false, null, "NOT_FILING_READY"],
    ["pending_review", "approve", true, "mem_b", "submitted"],
    ["pending_review", "approve", true, "mem_a", "SAME_MEMBER"],
    ["draft", "approve", true, null, "INVALID_REPORT_STATE"],
    ["submitted", "file", true, "mem_b", "filed"],
    ["pending_review", "file", true, "mem_b", "INVALID_REPORT_STATE"],
  ] as const)("%s + %s (ready %p, submitted by %p) → %s", (status, action, ready, submittedBy, want) => {
    const r = nextStatus({ status, filingReady: ready, submittedBy }, action, by, { reference: "BSA-1" });
    expect(r.ok ? r.status : r.refusal.code).toBe(want);
  });
  test("filing needs the FIU's reference", () => {
    const r = nextStatus({ status: "submitted", filingReady: true, submittedBy: "mem_b" }, "file", by, { reference: " " });
    expect(r.ok ? r.status : r.refusal.code).toBe("REFERENCE_REQUIRED");
  });
});

describe("masking, numbers, text", () => {
  test("without pii:view: narrative, each indicator and subject fields are ***; institution fields shown", () => {
    const m = maskReportContent(resolveReportType("US"), {
      narrative: "secret",
      riskIndicators: ["a", "b"],
      regulatoryData: { subjectName: "Jane", counterpartyName: "Bob", filingInstitutionName: "Acme", amount: "5", retiredKey: "x" },
    });
    expect(m).toEqual({ narrative: "***", riskIndicators: ["***", "***"], regulatoryData: { subjectName: "***", counterpartyName: "***", filingInstitutionName: "Acme", amount: "5", retiredKey: "***" } });
    expect(maskReportContent(resolveReportType("US"), { narrative: null, riskIndicators: [], regulatoryData: {} }).narrative).toBeNull();
  });
  test("report numbers: readable, per environment, year of drafting", () => {
    const t = Date.parse("2026-05-01T00:00:00Z");
    expect(reportNumber("SAR", "live", 1, t)).toBe("SAR-2026-000001");
    expect(reportNumber("STR", "test", 1234567, t)).toBe("STR-TEST-2026-1234567");
  });
  test("CJK detection and text length in characters", () => {
    expect([hasCjk("山田"), hasCjk("김민준"), hasCjk("カタカナ"), hasCjk("Łukasz Ελένη Дмитрий"), hasCjk(null)]).toEqual([true, true, true, false, false]);
    expect(textLength("ab😀", ["山田"], { k: "xyz" })).toBe(8);
  });
});
