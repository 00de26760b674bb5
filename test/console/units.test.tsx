// The console's pure parts: the key map (j/k, arrows, g/G, paging, Enter/Esc), list windowing, row identity kept
// across reloads (what lets memoised rows skip redrawing), sparklines and deadline text.
import { test, expect } from "bun:test";
import { moveSelection, navOf } from "../../src/console/keys.ts";
import { windowStart } from "../../src/console/components/List.tsx";
import { stabilise } from "../../src/console/context.ts";
import { cut, perMinute, sparkline, stateGroup } from "../../src/console/format.ts";
import { deadlineText } from "../../src/console/screens/Reports.tsx";
import { byPriority } from "../../src/console/screens/Cases.tsx";

test("navOf: j/k and arrows move, g/G and Home/End jump, PgUp/PgDn, ctrl-u/ctrl-d and space page, Enter/l open, Esc/h back", () => {
  const table: [string, Record<string, boolean>, string | null][] = [
    ["j", {}, "down"],
    ["", { downArrow: true }, "down"],
    ["k", {}, "up"],
    ["", { upArrow: true }, "up"],
    ["g", {}, "top"],
    ["G", {}, "bottom"],
    ["", { pageDown: true }, "pageDown"],
    ["d", { ctrl: true }, "pageDown"],
    [" ", {}, "pageDown"],
    ["", { pageUp: true }, "pageUp"],
    ["u", { ctrl: true }, "pageUp"],
    ["", { return: true }, "open"],
    ["\n", {}, "open"],
    ["", { escape: true }, "back"],
    ["x", {}, null],
  ];
  for (const [input, key, want] of table) expect(navOf(input, key)).toBe(want as never);
});

test("moveSelection stays within the list and pages by the page size", () => {
  expect(moveSelection(0, "up", 10, 4)).toBe(0);
  expect(moveSelection(9, "down", 10, 4)).toBe(9);
  expect(moveSelection(2, "pageDown", 10, 4)).toBe(6);
  expect(moveSelection(8, "pageDown", 10, 4)).toBe(9);
  expect(moveSelection(3, "pageUp", 10, 4)).toBe(0);
  expect(moveSelection(5, "bottom", 10, 4)).toBe(9);
  expect(moveSelection(5, "top", 10, 4)).toBe(0);
  expect(moveSelection(5, "down", 0, 4)).toBe(0);
});

test("windowStart keeps the selection visible and the window full", () => {
  expect(windowStart(0, 5, 3)).toBe(0);
  expect(windowStart(0, 5, 100)).toBe(0);
  expect(windowStart(50, 5, 100)).toBe(48);
  expect(windowStart(99, 5, 100)).toBe(95);
});

test("stabilise keeps unchanged rows' identity and replaces changed ones; an unchanged list keeps its own identity", () => {
  const a = { id: "a", state: "held" };
  const b = { id: "b", state: "held" };
  const prev = [a, b];
  const same = stabilise(prev, [{ id: "a", state: "held" }, { id: "b", state: "held" }]);
  expect(same).toBe(prev);
  const next = stabilise(prev, [{ id: "c", state: "held" }, { id: "a", state: "held" }, { id: "b", state: "queued" }]);
  expect(next[1]).toBe(a);
  expect(next[2]).not.toBe(b);
  expect(next[2].state).toBe("queued");
});

test("sparkline scales to the largest value; perMinute buckets by creation minute and state group", () => {
  expect(sparkline([0, 1, 2, 4, 8])).toBe(" ▁▂▄█");
  const now = Date.parse("2026-11-25T10:05:30.000Z");
  const m = perMinute(
    [
      { createdAt: "2026-11-25T10:05:01.000Z", state: "held" },
      { createdAt: "2026-11-25T10:04:59.000Z", state: "completed" },
      { createdAt: "2026-11-25T10:04:00.000Z", state: "accepted" },
      { createdAt: "2026-11-25T09:00:00.000Z", state: "held" }, // outside the window
    ],
    now,
    3,
    stateGroup,
  );
  expect(m.get("held")).toEqual([0, 0, 1]);
  expect(m.get("done")).toEqual([0, 2, 0]);
});

test("deadline text: days left, overdue by N days, filed; cases sort high → medium → low keeping API order within", () => {
  expect(deadlineText({ status: "draft", filingDeadline: { daysRemaining: 3, isOverdue: false } })).toBe("3d left");
  expect(deadlineText({ status: "draft", filingDeadline: { daysRemaining: -2, isOverdue: true } })).toBe("overdue 2d");
  expect(deadlineText({ status: "filed", filingDeadline: { daysRemaining: -2, isOverdue: false } })).toBe("filed");
  const sorted = byPriority([
    { id: "1", priority: "low" },
    { id: "2", priority: "high" },
    { id: "3", priority: "medium" },
    { id: "4", priority: "high" },
  ]);
  expect(sorted.map((c) => c.id)).toEqual(["2", "4", "3", "1"]);
  expect(cut("abcdef", 4)).toBe("abc…");
});

test("case history in words: who was assigned, which report was drafted, a hold whose screening did not run", async () => {
  const { caseHistoryText } = await import("../../src/console/words.ts");
  const ruth = { id: "mem_ruth", email: "ruth@example.com" };
  expect(caseHistoryText({ action: "assigned", field: "assigneeId", oldValue: null, newValue: "mem_ruth" }, [ruth])).toBe("assigned to ruth@example.com");
  expect(caseHistoryText({ action: "note_added", field: "notes", oldValue: null, newValue: "cnt_1" })).toBe("note added");
  expect(caseHistoryText({ action: "str_drafted", field: "reportId", oldValue: null, newValue: "rpt_1" })).toBe("suspicion report rpt_1 drafted (Reports shows it)");
  expect(caseHistoryText({ action: "updated", field: "screening", oldValue: null, newValue: "precheck:require_review:rul_1:unscreened" })).toBe("held again by screening at precheck (review): screening did not run");
});

test("codes in words: a rejection reason with its code beside it; no 'verdict pending' on a transfer that ended without one", async () => {
  const { rejectionWords, verdictText } = await import("../../src/console/words.ts");
  expect(rejectionWords("COMPLIANCE_POLICY")).toBe("the compliance policy (a rule or an officer's review) (COMPLIANCE_POLICY)");
  expect(rejectionWords("SOMETHING_NEW")).toBe("SOMETHING_NEW");
  expect(verdictText("failed", "pending")).toBe("none (the transfer is failed; screening gave none)");
  expect(verdictText("held", "pending")).toBe("pending");
  expect(verdictText("completed", "approved")).toBe("approved");
});

test("the status line keeps the role whole and the reconnect countdown first at every width", async () => {
  const { render } = await import("ink-testing-library");
  const { createElement } = await import("react");
  const { StatusLine, connectionText } = await import("../../src/console/components/StatusLine.tsx");
  const me = { company: { slug: "default" }, environment: "test", member: { id: "mem_1", email: "a-very-long-officer-address@compliance.example.com", role: "compliance_officer" }, key: { id: "k", scopes: [] }, permissions: [] };
  const offline = { kind: "offline", message: "cannot reach 127.0.0.1:8080 (connection refused, the server may be restarting)", retryInMs: 4000 } as const;
  expect(connectionText({ kind: "ok" } as never, offline as never).text).toMatch(/^offline, retrying in 4s: /);
  for (const width of [60, 80, 100, 160]) {
    const r = render(createElement(StatusLine, { url: "http://caravan.internal.example.com:8080", me: me as never, health: { kind: "ok" } as never, stream: offline as never, width }));
    const line = r.lastFrame() ?? "";
    expect(line).toContain("compliance_officer");
    expect(line).toContain("retrying in 4s");
    r.unmount();
  }
});
