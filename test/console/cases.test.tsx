// Cases screen (issue 18, item 3): mine / open / all by priority, detail with notes and history, add a note, assign,
// resolve with meta.transferAction and the transfer_updated entry arriving afterwards. Keys in, frames out.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { caseTitleText } from "../../src/console/words.ts";
import { Stub, list, one, refuse, mount, frame, keys, until, KEY, ME_ANALYST } from "./stub.ts";
import { caseItem, caseDetail, now, transferDetail, nameScreening, SANCTIONED } from "./fixtures.ts";

/** A frame's text without box borders and with whitespace (wrapped rows included) collapsed. */
const flat = (s: string) => s.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const cases = [
  caseItem("cas_low", 1, { priority: "low", title: "Low one" }),
  caseItem("cas_high", 2, { priority: "high", title: "High one" }),
  caseItem("cas_med", 3, { priority: "medium", title: "Medium one" }),
];

test("open cases are listed by priority, high first; v cycles mine (assigneeId=me) and all (no status)", async () => {
  stub = new Stub().on("GET", "/api/v2/cases", list(cases));
  const r = mount(stub, "cases");
  const f = await frame(r, (f) => f.includes("Low one"));
  expect(f.indexOf("High one")).toBeLessThan(f.indexOf("Medium one"));
  expect(f.indexOf("Medium one")).toBeLessThan(f.indexOf("Low one"));
  expect(stub.requests("GET", "/api/v2/cases")[0].query.get("status")).toBe("open");
  await keys(r, "v");
  await frame(r, (f) => f.includes("Cases · all"));
  await until(() => stub.requests("GET", "/api/v2/cases").some((s) => s.query.get("status") === null));
  await keys(r, "v");
  await frame(r, (f) => f.includes("Cases · mine"));
  await until(() => stub.requests("GET", "/api/v2/cases").some((s) => s.query.get("assigneeId") === "me" && s.query.get("status") === "open"));
});

test("Enter opens the detail with the rule, linked transfer, notes and history", async () => {
  stub = new Stub()
    .on("GET", "/api/v2/cases", list([cases[1]]))
    .on(
      "GET",
      "/api/v2/cases/cas_high",
      one(
        caseDetail("cas_high", 2, {
          transferIds: ["trf_1"],
          transfers: [{ id: "trf_1", externalId: null, direction: "outgoing", state: "held", complianceStatus: "pending", amount: "1", asset: "ETH", network: "ethereum", createdAt: now() }],
          notes: [{ id: "n1", content: "Called the customer", authorId: "mem_x", author: { id: "mem_x", name: "x@example.com", email: "x@example.com" }, createdAt: now() }],
          noteCount: 1,
        }),
      ),
    );
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("High one"));
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("Notes (1)"));
  expect(f).toContain("Rule        Watch-list name hit (sanctions, require_review, high)");
  expect(f).toContain("Transfer    trf_1 outgoing 1 ETH · held · verdict pending");
  expect(f).toContain("x@example.com: Called the customer");
  // History in words, with who did it (Caravan for what it did itself).
  expect(f).toContain("Caravan: opened");
  expect(f).not.toContain("created status open");
});

test("n adds a note: POST …/notes with the typed content", async () => {
  stub = new Stub().on("GET", "/api/v2/cases", list([cases[1]])).on("POST", "/api/v2/cases/cas_high/notes", { status: 201, body: { data: { id: "n2" }, meta: {} } });
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("High one"));
  await keys(r, "n");
  await frame(r, (f) => f.includes("Note on CASE-TEST-2026-000002"));
  for (const ch of "ok now") await keys(r, ch);
  await keys(r, KEY.backspace, KEY.enter);
  await frame(r, (f) => f.includes("✓ note added to CASE-TEST-2026-000002"));
  expect(stub.requests("POST", "/api/v2/cases/cas_high/notes")[0].body).toEqual({ content: "ok no" });
});

test("s assigns to me (the key's member ID from /me) or to a typed member ID", async () => {
  stub = new Stub()
    .on("GET", "/api/v2/cases", list([cases[1]]))
    .on("PATCH", "/api/v2/cases/cas_high", (q) => one(caseDetail("cas_high", 2, { assignee: q.body.assigneeId ? { id: q.body.assigneeId, name: "who", email: `${q.body.assigneeId}@example.com` } : null })));
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("High one") && f.includes("officer@example.com"));
  await keys(r, "s");
  await frame(r, (f) => f.includes("1. me (officer@example.com)"));
  await keys(r, "1");
  await frame(r, (f) => f.includes("✓ CASE-TEST-2026-000002 assigned to mem_officer@example.com"));
  await keys(r, "s", "2");
  await frame(r, (f) => f.includes("Member ID"));
  for (const ch of "mem_7") await keys(r, ch);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("assigned to mem_7@example.com"));
  expect(stub.requests("PATCH", "/api/v2/cases/cas_high").map((s) => s.body)).toEqual([{ assigneeId: "mem_officer" }, { assigneeId: "mem_7" }]);
});

test("resolve approved with a note: shows meta.transferAction queued, then the transfer_updated entry when it arrives", async () => {
  let resolved = false;
  let moved = false;
  const detail = () =>
    caseDetail("cas_high", 2, {
      transferIds: ["trf_1"],
      transfers: [{ id: "trf_1", externalId: null, direction: "outgoing", state: moved ? "awaiting_counterparty" : "held", complianceStatus: "pending", amount: "1", asset: "ETH", network: "ethereum", createdAt: now() }],
      status: resolved ? "closed" : "open",
      resolution: resolved ? "approved" : null,
      history: [
        ...(moved ? [{ id: "h3", action: "transfer_updated", field: null, oldValue: null, newValue: "awaiting_counterparty", userId: "mem_officer", user: { id: "mem_officer", name: "o", email: "officer@example.com" }, createdAt: now() }] : []),
        ...(resolved ? [{ id: "h2", action: "resolved", field: "resolution", oldValue: null, newValue: "approved", userId: "mem_officer", user: null, createdAt: now() }] : []),
      ],
    });
  stub = new Stub()
    .on("GET", "/api/v2/cases", list([cases[1]]))
    .on("GET", "/api/v2/cases/cas_high", () => one(detail()))
    .on("GET", "/api/v2/transfers/trf_1", one(transferDetail("trf_1", { compliance: { status: "pending", total: 1, checks: [{ id: "chk_1", integration: "screening_c", displayName: "C", type: "sanctions", stage: "precheck", status: "success", durationMs: 3, response: { screenings: [nameScreening("beneficiary", "Viktor Krasnov", SANCTIONED)] } }] } })))
    .on("POST", "/api/v2/cases/cas_high/resolve", () => {
      resolved = true;
      return one(detail(), { transferAction: { transferId: "trf_1", result: "queued" } });
    });
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("High one"));
  await keys(r, "o");
  await frame(r, (f) => f.includes("1. approve: resumes transfer trf_1") && f.includes("2. reject: rejects transfer trf_1 and drafts a suspicion report"));
  await keys(r, KEY.enter);
  for (const ch of "fine") await keys(r, ch);
  await keys(r, KEY.enter);
  const c = await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(flat(c)).toContain("Resolve CASE-TEST-2026-000002 as approved for transfer trf_1 (1 ETH to Viktor Krasnov at Bene Exchange): resumes transfer trf_1.");
  await keys(r, "y");
  const f = await frame(r, (f) => f.includes("Transfer action: transfer trf_1 queued"));
  expect(f).toContain("✓ CASE-TEST-2026-000002 resolved approved; transfer trf_1 queued");
  expect(f).not.toContain("transfer_updated");
  expect(stub.requests("POST", "/api/v2/cases/cas_high/resolve")[0].body).toEqual({ resolution: "approved", resolutionNote: "fine" });
  moved = true;
  await frame(r, (f) => f.includes("officer@example.com: the transfer moved: awaiting_counterparty"));
});

test("resolve rejected shows a skipped transferAction with its reason; 409 CASE_CLOSED verbatim", async () => {
  let first = true;
  // The detail stays "open" (a stale read): the console offers resolve, and the API's refusal is shown verbatim.
  stub = new Stub().on("GET", "/api/v2/cases", list([cases[1]])).on("GET", "/api/v2/cases/cas_high", one(caseDetail("cas_high", 2))).on("POST", "/api/v2/cases/cas_high/resolve", () => {
    if (first) {
      first = false;
      return one(caseDetail("cas_high", 2, { status: "closed", resolution: "rejected" }), { transferAction: { transferId: "trf_9", result: "skipped", reason: "insufficient_permission" } });
    }
    return refuse(409, "CASE_CLOSED", "Case is closed");
  });
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("High one"));
  await keys(r, "o");
  await frame(r, (f) => f.includes("2. reject: no transfer is linked"));
  await keys(r, "2", KEY.enter, "y");
  await frame(r, (f) => f.includes("resolved rejected; transfer trf_9 skipped (insufficient_permission)"));
  await keys(r, "o");
  await frame(r, (f) => f.includes("2. reject"));
  await keys(r, "2", KEY.enter, "y");
  await frame(r, (f) => f.includes("✕ CASE_CLOSED: Case is closed"));
});

test("an analyst (no pii:view, no cases:resolve) sees the masked title named as masked with the type in words, is offered no change, and is told the role lacks it", async () => {
  stub = new Stub(ME_ANALYST).on("GET", "/api/v2/cases", { body: { data: [caseItem("cas_a", 4, { title: "***", type: "sanctions_hit" })], meta: { total: 1, piiMasked: true } } });
  const r = mount(stub, "cases");
  const f = await frame(r, (f) => f.includes("CASE-TEST-2026-000004") && f.includes("analyst"));
  const row = f.split("\n").find((l) => l.includes("CASE-TEST-2026-000004"))!;
  expect(row).toContain("*** masked · san");
  expect(caseTitleText({ title: "***", type: "sanctions_hit" })).toBe("*** masked · sanctions screening match");
  expect(caseTitleText({ title: "Transfer held at precheck by rule X", type: "sanctions_hit" })).toBe("Transfer held at precheck by rule X");
  expect(f).not.toContain("o resolve");
  expect(f).not.toContain("n note");
  await keys(r, "o");
  await frame(r, (f) => f.includes("✕ not allowed: the role analyst lacks cases:resolve (the key's scope allows it)"));
  expect(stub.seen.filter((s) => s.method === "POST")).toHaveLength(0);
});

test("a case's detail shows the evidence: the held transfer's parties by name, the rule branch that fired, each check's finding; J the raw answers", async () => {
  const checks = [{ id: "chk_1", integration: "screening_c", displayName: "C", type: "sanctions", stage: "precheck", status: "success", durationMs: 3, response: { screenings: [nameScreening("originator", "Jane Doe"), nameScreening("beneficiary", "Viktor Krasnov", SANCTIONED)] } }];
  stub = new Stub()
    .on("GET", "/api/v2/cases", list([cases[1]]))
    .on("GET", "/api/v2/cases/cas_high", one(caseDetail("cas_high", 2, { transferIds: ["trf_1"], transfers: [{ id: "trf_1", externalId: null, direction: "outgoing", state: "held", complianceStatus: "pending", amount: "1", asset: "ETH", network: "ethereum", createdAt: now() }] })))
    .on("GET", "/api/v2/transfers/trf_1", one(transferDetail("trf_1", { compliance: { status: "pending", total: 1, checks } })))
    .on("GET", "/api/v2/rules/rul_1", one({ id: "rul_1", name: "Watch-list name hit", category: "sanctions", action: "require_review", severity: "high", conditions: [{ type: "if", action: "require_review", field: null, query: "content.data.total_hits", integrationId: "int_c", integrationName: "screening_c", operator: "gt", value: "0", subjectMatch: "any" }] }));
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("High one"));
  await keys(r, KEY.enter);
  const f = flat(await frame(r, (f) => f.includes("▶ fired") && f.includes("no match")));
  expect(f).toContain("Beneficiary Viktor Krasnov · 0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb · VASP Bene Exchange");
  // The branch as a sentence and what it read; its code is on the Rules screen.
  expect(f).toContain("▶ fired if the number of watch-list hits from screening_c is more than 0: hold for review · read originator 0, beneficiary 1");
  expect(f).not.toContain("content.data.total_hits gt 0");
  expect(f).toContain('beneficiary "Viktor Krasnov": matched Viktor Krasnov (SBX1VK0001) on sandbox-sanctions-list');
  await keys(r, "J");
  await frame(r, (f) => f.includes("compliance.checks as the API answered") && f.includes('"integration": "screening_c"'));
});
