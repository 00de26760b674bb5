// The filing life's step as a pure decision (src/domain/reports/life.ts): the status, the fields it sets, the content
// and what it decides, and the audit entry; refusals with the life's codes; content opened only by an edit.
import { describe, test, expect } from "bun:test";
import { decideStep, type ReportContent, type ReportFacts } from "../../src/domain/reports/life.ts";

const AT = "2026-03-01T10:00:00.000Z";
const facts = (o: Partial<ReportFacts> = {}): ReportFacts => ({
  id: "rpt_x",
  reportNumber: "SAR-TEST-1",
  status: "draft",
  jurisdiction: "US",
  filingReady: true,
  generatedBy: "mem_drafter",
  submittedBy: null,
  lastEditedBy: null,
  ...o,
});
const content: ReportContent = { narrative: "Old.", riskIndicators: ["layering"], regulatoryData: { subjectName: "Doe, Jane", amount: "10" } };
const noContent = () => {
  throw new Error("this step opens no content");
};

describe("decideStep", () => {
  test("an edit of a report in review sends it back to draft, clears the submission, records the editor and what changed (keys only)", () => {
    const d = decideStep(facts({ status: "pending_review", submittedBy: "mem_s" }), "edit", { memberId: "mem_e", viaConsole: true }, { narrative: "New.", fields: { subjectName: "", amount: "12" } }, AT, () => content);
    if (!d.ok) throw new Error(d.refusal.message);
    expect(d.step.content).toEqual({ narrative: "New.", riskIndicators: ["layering"], regulatoryData: { amount: "12" } });
    expect(d.step.set).toMatchObject({ status: "draft", updatedAt: AT, submittedAt: null, submittedBy: null, lastEditedBy: "mem_e", textLength: expect.any(Number), hasCjk: false, filingReady: expect.any(Boolean) });
    expect(d.step.audit).toEqual({ action: "str.updated", detail: { reportNumber: "SAR-TEST-1", from: "pending_review", to: "draft", via: "console", fields: ["subjectName", "amount"], narrative: true, riskIndicators: false } });
  });

  test("an edit that sets the jurisdiction names both in the audit entry; an invalid one is INVALID_EDIT and opens nothing", () => {
    const d = decideStep(facts({ jurisdiction: "" }), "edit", { memberId: "mem_e", viaConsole: false }, { jurisdiction: "de" }, AT, () => content);
    if (!d.ok) throw new Error(d.refusal.message);
    expect(d.step.set.jurisdiction).toBe("DE");
    expect(d.step.audit.detail).toMatchObject({ jurisdiction: { from: "ZZ", to: "DE" }, via: "cli" });
    const bad = decideStep(facts(), "edit", { memberId: "mem_e", viaConsole: true }, { jurisdiction: "EU" }, AT, noContent);
    expect(bad).toMatchObject({ ok: false, refusal: { code: "INVALID_EDIT" } });
  });

  test("submit, approve and file set who and when; the filing reference is trimmed and audited; none opens the content", () => {
    const s = decideStep(facts(), "submit", { memberId: "mem_s", viaConsole: true }, {}, AT, noContent);
    expect(s).toMatchObject({ ok: true, step: { set: { status: "pending_review", submittedAt: AT, submittedBy: "mem_s" }, audit: { action: "str.submitted" } } });
    const a = decideStep(facts({ status: "pending_review", submittedBy: "mem_s" }), "approve", { memberId: "mem_a", viaConsole: true }, {}, AT, noContent);
    expect(a).toMatchObject({ ok: true, step: { set: { status: "submitted", approvedAt: AT, approvedBy: "mem_a" }, audit: { action: "str.approved" } } });
    const f = decideStep(facts({ status: "submitted" }), "file", { memberId: "mem_f", viaConsole: true }, { reference: "  FIU-1 " }, AT, noContent);
    expect(f).toMatchObject({ ok: true, step: { set: { status: "filed", filedAt: AT, filedBy: "mem_f", filingReference: "FIU-1" }, audit: { action: "str.filed", detail: { filingReference: "FIU-1" } } } });
    if (f.ok) expect(f.step.content).toBeUndefined();
  });

  test("refusals keep the life's codes: four eyes, readiness, state, reference", () => {
    expect(decideStep(facts({ status: "pending_review", submittedBy: "mem_s" }), "approve", { memberId: "mem_s", viaConsole: true }, {}, AT, noContent)).toMatchObject({ ok: false, refusal: { code: "SAME_MEMBER" } });
    expect(decideStep(facts({ filingReady: false }), "submit", { memberId: "mem_s", viaConsole: true }, {}, AT, noContent)).toMatchObject({ ok: false, refusal: { code: "NOT_FILING_READY" } });
    expect(decideStep(facts({ status: "filed" }), "edit", { memberId: "mem_e", viaConsole: true }, { narrative: "x" }, AT, noContent)).toMatchObject({ ok: false, refusal: { code: "INVALID_REPORT_STATE" } });
    expect(decideStep(facts({ status: "submitted" }), "file", { memberId: "mem_f", viaConsole: true }, { reference: " " }, AT, noContent)).toMatchObject({ ok: false, refusal: { code: "REFERENCE_REQUIRED" } });
  });
});
