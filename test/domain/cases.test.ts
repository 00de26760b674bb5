// Part 2 "Case" rules without I/O: bodies and limits, defaults, case numbers, meta.transferAction, report jurisdiction.
import { test, expect, describe } from "bun:test";
import {
  caseNumberSearch,
  defaultCategory,
  formatCaseNumber,
  screeningTitle,
  transferAction,
  validateCreateCase,
  validateNote,
  validatePatchCase,
  validateResolve,
} from "../../src/domain/cases.ts";
import { reportJurisdiction } from "../../src/actors/case.ts";

const paths = (r: { ok: boolean; issues?: { path: string }[] }) => (r.ok ? [] : r.issues!.map((i) => i.path).sort());

describe("create body", () => {
  test.each([
    [{ title: "t", type: "kyc_failure" }, []],
    [{ title: "x".repeat(200), type: "kyc_failure" }, []],
    [{ title: "x".repeat(201), type: "kyc_failure" }, ["title"]],
    [{ title: "", type: "kyc_failure" }, ["title"]],
    [{ title: "   ", type: "kyc_failure" }, ["title"]],
    [{ type: "kyc_failure" }, ["title"]],
    [{ title: "t" }, ["type"]],
    [{ title: "t", type: "other" }, ["type"]],
    [{ title: "t", type: "kyc_failure", description: "d".repeat(2000) }, []],
    [{ title: "t", type: "kyc_failure", description: "d".repeat(2001) }, ["description"]],
    [{ title: "t", type: "kyc_failure", priority: "urgent", category: "tax" }, ["category", "priority"]],
    [{ title: "t", type: "kyc_failure", status: "closed" }, ["status"]],
    [{ title: "t", type: "kyc_failure", transferId: 5, ruleId: "", assigneeId: null }, ["ruleId", "transferId"]],
  ] as const)("%j → issues at %j", (body, expected) => {
    expect(paths(validateCreateCase(body))).toEqual([...expected]);
  });

  test("characters, not bytes or UTF-16 units, count: 200 emoji are a valid title", () => {
    expect(validateCreateCase({ title: "😀".repeat(200), type: "kyc_failure" }).ok).toBe(true);
  });

  test("defaults: priority medium, category from the type", () => {
    const r = validateCreateCase({ title: "t", type: "threshold_breach" });
    expect(r.ok && [r.value.priority, r.value.category]).toEqual(["medium", "threshold"]);
    expect(["compliance_review", "sanctions_hit", "provider_rejection", "manual_escalation", "threshold_breach", "kyc_failure"].map((t) => defaultCategory(t as never))).toEqual([
      "aml", "sanctions", "aml", "aml", "threshold", "kyc",
    ]);
  });
});

describe("patch, resolve, note bodies", () => {
  test.each([
    [{}, [""]],
    [{ title: null }, ["title"]],
    [{ description: null }, []],
    [{ assigneeId: null, ruleId: null, transferId: null }, []],
    [{ status: "closed" }, ["", "status"]],
  ] as const)("patch %j → issues at %j", (body, expected) => {
    expect(paths(validatePatchCase(body))).toEqual([...expected]);
  });

  test.each([
    [{ resolution: "approved" }, []],
    [{ resolution: "rejected", resolutionNote: "x".repeat(2000) }, []],
    [{ resolution: "rejected", resolutionNote: "x".repeat(2001) }, ["resolutionNote"]],
    [{}, ["resolution"]],
    [{ resolution: "closed" }, ["resolution"]],
  ] as const)("resolve %j → issues at %j", (body, expected) => {
    expect(paths(validateResolve(body))).toEqual([...expected]);
  });

  test.each([
    ["n".repeat(5000), []],
    ["n".repeat(5001), ["content"]],
    ["", ["content"]],
  ] as const)("note of %#", (content, expected) => {
    expect(paths(validateNote({ content }))).toEqual([...expected]);
  });
});

describe("case numbers", () => {
  const at = Date.parse("2026-03-01T00:00:00Z");
  test("CASE-<year>-<6 digits>, CASE-TEST- in test; more digits past 999,999", () => {
    expect(formatCaseNumber("live", 123, at)).toBe("CASE-2026-000123");
    expect(formatCaseNumber("test", 1, at)).toBe("CASE-TEST-2026-000001");
    expect(formatCaseNumber("live", 1234567, at)).toBe("CASE-2026-1234567");
  });
  test.each([
    ["CASE-2026-000123", 123],
    ["case-test-2026-000123", 123],
    ["000123", 123],
    ["123", 123],
    ["CASE-2026", null],
    ["review", null],
    ["0", null],
  ] as const)("search %s → sequence %p", (s, n) => {
    expect(caseNumberSearch(s)).toBe(n);
  });
});

describe("meta.transferAction (Part 2 table)", () => {
  const held = { id: "trf_1", state: "held", status: "pending" };
  test.each([
    ["approved", null, true, null],
    ["approved", { ...held, state: "completed" }, true, null],
    ["approved", held, true, { transferId: "trf_1", result: "queued" }],
    ["rejected", held, true, { transferId: "trf_1", result: "queued" }],
    ["approved", held, false, { transferId: "trf_1", result: "skipped", reason: "insufficient_permission" }],
    ["rejected", held, false, { transferId: "trf_1", result: "skipped", reason: "insufficient_permission" }],
    ["rejected", { ...held, status: "approved" }, true, { transferId: "trf_1", result: "skipped", reason: "not_rejectable" }],
    ["approved", { ...held, status: "approved" }, true, { transferId: "trf_1", result: "queued" }],
  ] as const)("%s, transfer %j, may write transfers %p → %j", (resolution, transfer, mayWriteTransfers, expected) => {
    expect(transferAction({ resolution, transfer, mayWriteTransfers })).toEqual(expected as never);
  });
});

describe("screening titles and report jurisdiction", () => {
  test("titles name the stage, the verdict and the rule", () => {
    expect(screeningTitle({ stage: "precheck", verdict: "require_review", ruleName: "Large USD" })).toBe("Transfer held at precheck by rule Large USD");
    expect(screeningTitle({ stage: "postcheck", verdict: "block", ruleName: null })).toBe("Transfer blocked at postcheck by screening");
  });
  test.each([
    ['{"jurisdiction":"nl"}', null, "NL"],
    ['{"jurisdiction":"EU"}', "DE", "DE"],
    ['{"jurisdiction":"DEFAULT"}', "fr", "FR"],
    [null, null, null],
    ["not json", "GB", "GB"],
  ] as const)("threshold %s, company %s → %s", (info, country, expected) => {
    expect(reportJurisdiction(info, country)).toBe(expected);
  });
});
