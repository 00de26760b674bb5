// A report's risk indicators read as sentences in its detail; `c` shows each code beside its sentence.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, mount, frame, keys, KEY, ME_OWNER } from "./stub.ts";
import { indicatorText, indicatorWords } from "../../src/console/words.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const flat = (f: string) => f.replace(/\s+/g, " ");

test("words: rule and screening indicators read as sentences; free text stays as written", () => {
  expect(indicatorWords("rule:high:Watch-list hit")).toBe("A screening rule fired: Watch-list hit (high severity).");
  expect(indicatorWords("screening_incomplete")).toContain("Screening could not be completed");
  expect(indicatorWords("an officer's own words")).toBeNull();
  expect(indicatorText("rule:low:rul_1", true)).toBe("A screening rule fired: rul_1 (low severity).  [rule:low:rul_1]");
  expect(indicatorText("an officer's own words", true)).toBe("an officer's own words");
});

test("report detail: indicators in words, c shows the codes beside them and hides them again", async () => {
  const rep = {
    id: "rpt_1",
    kind: "suspicion",
    label: "Suspicious Transaction Report (STR)",
    reportNumber: "STR-TEST-2026-000001",
    status: "draft",
    jurisdiction: "NL",
    transferId: null,
    filingReady: false,
    generatedBy: "mem_officer",
    detectionMethod: "screening",
    generatedAt: new Date().toISOString(),
    filingDeadline: { deadline: "2026-12-15T00:00:00.000Z", daysRemaining: 14, isOverdue: false, isApproaching: false, source: "system_default", daysConfigured: 14, regulation: "Wwft", regulatoryBody: "DNB" },
    narrative: "x",
    riskIndicators: ["rule:high:rul_watch", "screening_incomplete", "seen at three exchanges"],
    regulatoryData: {},
  };
  stub = new Stub(ME_OWNER).on("GET", "/api/v2/reports", list([rep])).on("GET", "/api/v2/reports/rpt_1", one(rep));
  const r = mount(stub, "reports");
  await frame(r, (f) => f.includes("STR-TEST-2026-000001"));
  await keys(r, KEY.enter);
  let d = flat(await frame(r, (f) => f.includes("Risk indicators")));
  expect(d).toContain("A screening rule fired: rul_watch (high severity).");
  expect(d).toContain("Screening could not be completed");
  expect(d).toContain("seen at three exchanges");
  expect(d).not.toContain("rule:high:rul_watch");
  expect(d).toContain("c shows the codes");
  await keys(r, "c");
  d = flat(await frame(r, (f) => f.includes("[rule:high:rul_watch]")));
  expect(d).toContain("[screening_incomplete]");
  await keys(r, "c");
  d = flat(await frame(r, (f) => !f.includes("[rule:high:rul_watch]") && f.includes("A screening rule fired")));
});

test("filing detail: the same indicators read as sentences, and c shows the codes there too", async () => {
  const rep = {
    id: "rpt_2",
    kind: "suspicion",
    label: "Suspicious Transaction Report (STR)",
    reportNumber: "STR-TEST-2026-000002",
    status: "draft",
    jurisdiction: "NL",
    transferId: "trf_2",
    filingReady: false,
    generatedBy: "system",
    detectionMethod: "screening",
    generatedAt: new Date().toISOString(),
    filingDeadline: { deadline: "2026-12-15T00:00:00.000Z", daysRemaining: 14, isOverdue: false, isApproaching: false },
    narrative: "x",
    riskIndicators: ["rule:high:rul_watch", "screening_incomplete", "seen at three exchanges"],
    regulatoryData: {},
  };
  const readiness = { filingReady: false, missing: { fields: [], narrative: false, labels: [] }, fields: [], submittedBy: null, approvedBy: null, reportingThreshold: null };
  stub = new Stub(ME_OWNER).on("GET", "/api/v2/reports", list([rep])).on("GET", "/api/v2/reports/rpt_2", one(rep)).on("GET", "/api/v2/reports/rpt_2/readiness", one(readiness));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("STR-TEST-2026-000002"));
  await keys(r, KEY.enter);
  let d = flat(await frame(r, (f) => f.includes("Risk indicators")));
  expect(d).toContain("A screening rule fired: rul_watch (high severity).");
  expect(d).toContain("Screening could not be completed");
  expect(d).toContain("seen at three exchanges");
  expect(d).not.toContain("rule:high:rul_watch");
  expect(d).not.toContain(" screening_incomplete");
  expect(d).toContain("c shows the codes");
  await keys(r, "c");
  d = flat(await frame(r, (f) => f.includes("[rule:high:rul_watch]")));
  expect(d).toContain("[screening_incomplete]");
  expect(d).toContain("c hides the codes");
  await keys(r, "c");
  await frame(r, (f) => !f.includes("[rule:high:rul_watch]") && f.includes("A screening rule fired"));
});
