// Small things that add up: a flash message belongs to the screen it was said on (switching screens clears it).
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, mount, frame, keys, KEY } from "./stub.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

test("a flash said on one screen is gone after switching to another", async () => {
  stub = new Stub().on("GET", "/api/v2/reports", list([]));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("Filing ·") && f.includes("● live") && f.includes("no report waiting"));
  await keys(r, "D");
  await frame(r, (f) => f.includes("✕ not allowed"));
  await keys(r, "5");
  const f = await frame(r, (f) => f.includes("Reports ·"));
  expect(f).not.toContain("✕ not allowed");
});

test("s offers the members already seen on cases (a picker, no raw ID needed); resolving a case assigned to someone else warns whose it is", async () => {
  const { caseItem, caseDetail } = await import("./fixtures.ts");
  const { one } = await import("./stub.ts");
  const ruth = { id: "mem_ruth", name: "ruth@example.com", email: "ruth@example.com" };
  stub = new Stub()
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 1, { assigneeId: ruth.id, assignee: ruth }), caseItem("cas_2", 2)]))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 1, { assigneeId: ruth.id, assignee: ruth })))
    .on("PATCH", "/api/v2/cases/cas_2", (q) => one(caseDetail("cas_2", 2, { assignee: q.body.assigneeId === ruth.id ? ruth : null })));
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("CASE-TEST-2026-000002") && f.includes("ruth@example") && f.includes("● live"));
  await keys(r, "j"); // cas_2 (sorted by priority, then as listed)
  await keys(r, "s");
  const pick = await frame(r, (f) => f.includes("2. ruth@example.com"));
  expect(pick).toContain("another member, by ID");
  await keys(r, "2");
  await frame(r, (f) => f.includes("assigned to ruth@example.com"));
  const { requests } = stub;
  expect(requests.call(stub, "PATCH", "/api/v2/cases/cas_2")[0].body).toEqual({ assigneeId: "mem_ruth" });
  // cas_1 is Ruth's: resolving it says so in the confirmation.
  await keys(r, "k", "o");
  await frame(r, (f) => f.includes("1. approve"));
  await keys(r, "1", KEY.enter);
  const c = await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(c.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ")).toContain("⚠ assigned to ruth@example.com, not to you.");
});

test("the cases list answers at a glance from 120 columns: the transfer, its amount and (from 140) its counterparty", async () => {
  const { caseColumns } = await import("../../src/console/screens/Cases.tsx");
  const { caseItem, transferItem } = await import("./fixtures.ts");
  const t = transferItem("trf_01aaaaaaaaaaaaaaaaaaaaaaaa", { amount: "2.5" });
  const c = caseItem("cas_1", 1, { transferIds: [t.id] });
  const cols = caseColumns(160, () => Date.now(), (id) => (id === t.id ? (t as never) : undefined));
  const text = (key: string) => cols.find((k) => k.key === key)!.text(c as never);
  expect(text("transfer")).toBe("trf_…aaaaaaaa");
  expect(text("amount")).toBe("2.5 ETH");
  expect(text("counterparty")).toBe("Bene Exchange");
  // A transfer the latest transfers do not hold: its ID, and the amount said to be unknown rather than blank.
  const old = caseItem("cas_2", 2, { transferIds: ["trf_01zzzzzzzzzzzzzzzzzzzzzzzz"] });
  expect(cols.find((k) => k.key === "amount")!.text(old as never)).toBe("?");
  const { layout } = await import("../../src/console/table.ts");
  expect(layout(caseColumns(100, () => Date.now()), 100).map((l) => l.col.key)).not.toContain("counterparty");
  expect(layout(cols, 160).map((l) => l.col.key)).toEqual(expect.arrayContaining(["transfer", "amount", "counterparty"]));
});

test("an open case whose transfer has ended says why it stays open", async () => {
  const { caseItem, caseDetail } = await import("./fixtures.ts");
  const { one } = await import("./stub.ts");
  const done = { id: "trf_1", externalId: null, direction: "outgoing", state: "completed", complianceStatus: "approved", amount: "1", asset: "ETH", network: "ethereum", createdAt: new Date().toISOString() };
  stub = new Stub()
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 1, { transferIds: ["trf_1"], title: "Transfer held at postcheck by screening" })]))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 1, { transferIds: ["trf_1"], transfers: [done] })));
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("CASE-TEST-2026-000001") && f.includes("● live"));
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("Why open"));
  expect(f.replace(/\s+/g, " ")).toContain("Why open its transfer has ended (completed): nothing is held any more.");
});
