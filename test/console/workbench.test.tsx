// The officer's workbench, pure parts: the selection by ID, what a check found in words, the rule branch a check's
// answer meets, the actions a transfer's state allows, sorting and filtering rows, the `:` command line, OSC 52.
import { test, expect } from "bun:test";
import { selectById } from "../../src/console/hooks.ts";
import { branchText, checkFindings, compare, partyNames, readPath, readRule, screeningFinding } from "../../src/console/evidence.ts";
import { transferActions, counterparty, rowTime } from "../../src/console/screens/Transfers.tsx";
import { resolutionEffect } from "../../src/console/screens/Cases.tsx";
import { decimalKey, filterRows, layout, nextSort, sortByName, sortRows, type Column } from "../../src/console/table.ts";
import { parseCommand } from "../../src/console/components/CommandLine.tsx";
import { wrapLines } from "../../src/console/components/Lines.tsx";
import { osc52 } from "../../src/console/app.tsx";
import type { Check } from "../../src/console/api.ts";
import { ME_ANALYST, ME_OWNER } from "./stub.ts";
import { addressScreening, nameScreening, SANCTIONED, transferItem } from "./fixtures.ts";

const ids = (...xs: string[]) => xs.map((id) => ({ id }));

test("selectById: inserts above and below keep the item; its removal goes to the row now in its place, or stays pinned", () => {
  expect(selectById(ids("b", "c"), "c", 1, false)).toEqual({ index: 1, id: "c" });
  expect(selectById(ids("a", "b", "c"), "c", 1, false)).toEqual({ index: 2, id: "c" }); // a inserted above
  expect(selectById(ids("a", "b", "d"), "c", 2, false)).toEqual({ index: 2, id: "d" }); // c left: the row in its place
  expect(selectById(ids("a"), "c", 2, false)).toEqual({ index: 0, id: "a" }); // clamped to the last row
  expect(selectById(ids("a", "b"), "c", 2, true)).toEqual({ index: -1, id: "c" }); // detail open: still c
  expect(selectById([], null, 0, false)).toEqual({ index: -1, id: null });
  expect(selectById(ids("x", "y"), null, 0, false)).toEqual({ index: 0, id: "x" }); // first load: the first row
});

test("screening findings in words: a watch-list match with its entry, list and score; no match; an address's score and category", () => {
  expect(screeningFinding(nameScreening("beneficiary", "Viktor Krasnov", SANCTIONED))).toBe('beneficiary "Viktor Krasnov": matched Viktor Krasnov (SBX1VK0001) on sandbox-sanctions-list [sanction], name_exact, score 1');
  expect(screeningFinding(nameScreening("originator", "Jane Doe"))).toBe('originator "Jane Doe": no match');
  expect(screeningFinding(addressScreening("beneficiary", "0xabc", 0.92, "sanctioned mixer"))).toBe("beneficiary 0xabc: risk score 0.92, sanctioned mixer (Sandbox Tumbler)");
  expect(screeningFinding(addressScreening("originator", "0xdef", 0.05, null))).toBe("originator 0xdef: risk score 0.05, no category");
  expect(screeningFinding({ party: "beneficiary", kind: "name", status: "error", response: null })).toBe("beneficiary: name error");
  const masked = { id: "c", integration: "screening_c", displayName: "C", type: "sanctions", status: "success", response: null, durationMs: 1 } as Check;
  expect(checkFindings(masked)).toBeNull();
  expect(partyNames([{ response: { screenings: [nameScreening("originator", "Jane Doe"), nameScreening("beneficiary", "Ruth Roe")] } }])).toEqual({ originator: "Jane Doe", beneficiary: "Ruth Roe" });
  expect(partyNames([{ response: null }])).toEqual({ originator: null, beneficiary: null });
});

test("readRule: the first branch the check's answers meet fired; values read per subject; decimals compare as decimals", () => {
  const check = { id: "chk", integration: "screening_d", displayName: "D", type: "x", status: "success", durationMs: 1, response: { screenings: [addressScreening("originator", "0x1", 0.05, null), addressScreening("beneficiary", "0x2", 0.92, "mixer")] } } as Check;
  const branch = (type: "if" | "elseIf" | "else", operator: string, value: string, action: string) => ({ type, action, field: null, query: type === "else" ? null : "data.counterparty.riskscore", integrationId: "int_d", integrationName: "screening_d", operator, value, subjectMatch: "any" as const });
  const r = readRule({ conditions: [branch("if", "gte", "0.95", "block"), branch("elseIf", "gte", "0.9", "require_review"), branch("else", "", "", "flag")] }, [check], {});
  expect(r.fired).toBe(1);
  expect(r.branches[0]).toMatchObject({ met: false, read: ["originator 0.05", "beneficiary 0.92"] });
  expect(branchText(r.branches[1].branch)).toBe("elseIf screening_d data.counterparty.riskscore gte 0.9 → require_review");
  const all = readRule({ conditions: [{ ...branch("if", "gte", "0.9", "block"), subjectMatch: "all" }] }, [check], {});
  expect(all.fired).toBeNull();
  const field = readRule({ conditions: [{ type: "if", action: "flag", field: "amount", query: null, integrationId: null, operator: "gt", value: "1000.00", subjectMatch: "any" }] }, [], { amount: "1000.5" });
  expect(field.fired).toBe(0);
  expect(compare("1000", "eq", "1000.00")).toBe(true);
  expect(compare("ABC", "eq", "abc")).toBe(true);
  expect(compare("x", "gt", "1")).toBe(false);
  expect(readPath({ a: [{ b: 1 }, { b: [2, 3] }] }, "a.b")).toEqual([1, 2, 3]);
});

test("transferActions: one path per decision; only what the state allows; labels say what they do", () => {
  const held = { state: "held" as const, status: "pending" as const, direction: "outgoing" as const };
  const viaCase = transferActions(held, { caseNumber: "CASE-1" }, ME_OWNER as never);
  expect(viaCase.map((a) => `${a.key} ${a.label} ${a.via}`)).toEqual(["a approve case", "x reject case", "r retry transfer"]);
  expect(viaCase[1].what).toBe("resolves CASE-1 as rejected, which rejects the transfer and drafts a suspicion report");
  // No case, outgoing: nothing to approve (an outgoing accept needs a tx hash and a counterparty's acceptance).
  expect(transferActions(held, null, ME_OWNER as never).map((a) => a.label)).toEqual(["reject", "retry"]);
  expect(transferActions({ ...held, direction: "incoming" }, null, ME_OWNER as never).map((a) => a.label)).toEqual(["approve", "reject", "retry"]);
  // Cases unknown (no cases:read): the reject says what it cannot know.
  expect(transferActions(held, undefined, ME_ANALYST as never)[0].what).toContain("open cases unknown");
  // A key without strs:write: the rejection drafts no report, and the label says so.
  expect(transferActions(held, { caseNumber: "CASE-1" }, ME_ANALYST as never)[1].what).toContain("drafts no suspicion report (the key lacks strs:write)");
  expect(transferActions({ state: "failed", status: "pending", direction: "outgoing" }, null, null).map((a) => a.label)).toEqual(["retry"]);
  expect(transferActions({ state: "completed", status: "approved", direction: "outgoing" }, null, null)).toEqual([]);
  expect(transferActions({ state: "awaiting_counterparty", status: "approved", direction: "outgoing" }, null, null).map((a) => a.label)).toEqual(["report tx hash"]);
  expect(transferActions(held, null, null).some((a) => (a.label as string) === "accept")).toBe(false);
  expect(resolutionEffect("rejected", { id: "trf_1", state: "held" }, true)).toBe("rejects transfer trf_1 and drafts a suspicion report");
  expect(resolutionEffect("approved", { id: "trf_1", state: "completed" }, true)).toBe("transfer trf_1 is completed, not held: it is not moved");
});

test("counterparty and row time: the person screened at the VASP; a VASP or address without pii:view; today as a time of day", () => {
  expect(counterparty(transferItem("t", { compliance: { checks: [{ name: "c", status: "passed", response: { screenings: [nameScreening("beneficiary", "Ruth Roe")] } }] } }) as never)).toBe("Ruth Roe at Bene Exchange");
  expect(counterparty(transferItem("t") as never)).toBe("Bene Exchange");
  expect(counterparty(transferItem("t", { beneficiary: { name: null, vaspId: null, vaspName: null, address: "0xabc" } }) as never)).toBe("0xabc");
  const now = Date.parse("2026-11-27T12:00:00.000Z");
  expect(rowTime("2026-11-27T10:42:31.123Z", now)).toBe("10:42:31");
  expect(rowTime("2026-11-26T10:42:31.123Z", now)).toBe("11-26 10:42");
});

type Row = { id: string; amount: string; name: string };
const cols: Column<Row>[] = [
  { key: "id", title: "ID", width: 4, text: (r) => r.id },
  { key: "amount", title: "amount", width: 8, right: true, text: (r) => r.amount, sort: (r) => decimalKey(r.amount) },
  { key: "name", title: "name", width: 6, flex: true, text: (r) => r.name },
  { key: "extra", title: "extra", width: 5, minTotal: 60, text: () => "x" },
];

test("tables: amounts sort as decimals, stable, empty last; filter matches every word in any column; flexible columns take the width", () => {
  const rows: Row[] = [
    { id: "a", amount: "9", name: "Ann Lee" },
    { id: "b", amount: "10", name: "Bo Roe" },
    { id: "c", amount: "0.50", name: "Cy Roe" },
    { id: "d", amount: "", name: "Dee" },
  ];
  expect(sortRows(rows, cols, { key: "amount", desc: true }).map((r) => r.id)).toEqual(["b", "a", "c", "d"]);
  expect(sortRows(rows, cols, { key: "amount", desc: false }).map((r) => r.id)).toEqual(["c", "a", "b", "d"]);
  expect(filterRows(rows, cols, "roe").map((r) => r.id)).toEqual(["b", "c"]);
  expect(filterRows(rows, cols, "roe cy").map((r) => r.id)).toEqual(["c"]);
  expect(nextSort(cols, null, ">")).toEqual({ key: "id", desc: false });
  expect(nextSort(cols, { key: "id", desc: false }, "<")).toEqual({ key: "extra", desc: false });
  expect(nextSort(cols, { key: "id", desc: false }, "~")).toEqual({ key: "id", desc: true });
  expect(sortByName(cols, "am", "desc")).toEqual({ key: "amount", desc: true });
  expect(sortByName(cols, "nope")).toBeNull();
  expect(layout(cols, 40).map((l) => `${l.col.key}:${l.width}`)).toEqual(["id:4", "amount:8", "name:25"]);
  expect(layout(cols, 80).map((l) => l.col.key)).toContain("extra");
});

test("the : command line: screens by name or prefix, IDs open their item, the rest goes to the screen", () => {
  expect(parseCommand("cases")).toEqual({ kind: "screen", screen: "cases" });
  expect(parseCommand(":held")).toEqual({ kind: "screen", screen: "transfers" });
  expect(parseCommand("de")).toEqual({ kind: "screen", screen: "deliveries" });
  expect(parseCommand("trf_01abc")).toEqual({ kind: "transfer", id: "trf_01abc" });
  expect(parseCommand("cas_01abc")).toEqual({ kind: "case", id: "cas_01abc" });
  expect(parseCommand("q")).toEqual({ kind: "quit" });
  expect(parseCommand("sort amount desc")).toEqual({ kind: "screenCommand", name: "sort", args: ["amount", "desc"] });
  expect(parseCommand("  ")).toBeNull();
});

test("OSC 52 carries the text base64-encoded; long detail lines wrap at spaces onto indented rows", () => {
  expect(osc52("trf_01abc")).toBe(`\u001B]52;c;${btoa("trf_01abc")}\u0007`);
  const w = wrapLines([{ text: "  alpha beta gamma delta epsilon zeta eta theta" }], 24);
  expect(w.map((l) => l.text)).toEqual(["  alpha beta gamma delta", "      epsilon zeta eta", "      theta"]);
  expect(w.every((l) => l.text.length <= 24)).toBe(true);
});
