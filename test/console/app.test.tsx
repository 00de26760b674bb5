// The console's frame (issue 18, items 1 and 4): tabs, `?` key map, status line, connection states (stream refused →
// polling, server gone → offline and back, key refused), colours and NO_COLOR, and the SSE client's resume.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import chalk from "chalk"; // Ink's own colouring; off when not on a terminal, switched on for the colour test
import { cleanup } from "ink-testing-library";
import { Stub, list, mount, frame, keys, until, refuse, KEY } from "./stub.ts";
import { SseParser, EventStream, ApiClient } from "../../src/console/client.ts";

setDefaultTimeout(60_000);

let stub: Stub;
const chalkLevel = chalk.level;
afterEach(() => {
  chalk.level = chalkLevel;
  cleanup();
  stub?.stop();
});

test("the status line names server, environment, member and role, and says the stream is live", async () => {
  stub = new Stub();
  const r = mount(stub, "overview");
  const f = await frame(r, (f) => f.includes("● live"));
  expect(f).toContain(`${stub.url.replace("http://", "")} · test · officer@example.com · compliance_officer`);
  expect(f).toContain("1 Overview");
  expect(f).toContain("5 Reports");
});

test("1-5 and Tab / Shift-Tab switch screens; ? shows the global and the screen's keys; any key closes it; q quits", async () => {
  stub = new Stub();
  const r = mount(stub, "overview");
  await frame(r, (f) => f.includes("Overview ·"));
  await keys(r, "3");
  await frame(r, (f) => f.includes("Cases · open"));
  await keys(r, KEY.tab);
  await frame(r, (f) => f.includes("Webhook subscriptions"));
  await keys(r, "\u001B[Z"); // shift-tab
  await frame(r, (f) => f.includes("Cases · open"));
  await keys(r, "?");
  const h = await frame(r, (f) => f.includes("Keys everywhere"));
  expect(h).toContain("o        resolve: approve / reject");
  expect(h).toContain("y                 yank the ID (OSC 52)");
  expect(h).toContain("q, ^c");
  await keys(r, "x");
  await frame(r, (f) => f.includes("Cases · open") && !f.includes("Keys everywhere"));
});

test("a stream the server refuses (404 from an older server) → polling; lists still refresh by themselves", async () => {
  let n = 0;
  stub = new Stub().on("GET", "/api/v2/cases", () => list(n++ < 1 ? [] : [{ id: "cas_new", caseNumber: "CASE-TEST-2026-000042", title: "t", priority: "high", status: "open", type: "sanctions_hit", assignee: null, createdAt: new Date().toISOString() }]));
  stub.streamMode = "refuse";
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("◌ polling (stream refused: NOT_FOUND"));
  await frame(r, (f) => f.includes("CASE-TEST-2026-000042"));
});

test("server gone: a clear offline line, no stack trace; back: reconnects and resumes the stream with Last-Event-ID", async () => {
  stub = new Stub();
  const port = stub.server.port;
  const r = mount(stub, "overview");
  await frame(r, (f) => f.includes("● live"));
  stub.emit(17, "transfer.updated", { id: "trf_1" });
  await Bun.sleep(100);
  stub.stop();
  const f = await frame(r, (f) => f.includes("offline:"));
  expect(f).toContain(`cannot reach ${stub.url.replace(/:\d+$/, `:${port}`)}`);
  expect(f).not.toMatch(/\n\s+at .*:\d+/);
  const again = new Stub();
  void again.server.stop(true);
  again.server = Bun.serve({ port, hostname: "127.0.0.1", idleTimeout: 0, fetch: (req) => (again as any).handle(req) });
  stub = again;
  await frame(r, (f) => f.includes("● live"), 20_000);
  expect(again.lastEventIds.at(-1)).toBe("17");
});

test("a refused key (401 KEY_REVOKED) is one clear line naming the code, retried", async () => {
  stub = new Stub().on("GET", "/api/v2/me", refuse(401, "KEY_REVOKED", "API key has been revoked"));
  const r = mount(stub, "overview");
  const f = await frame(r, (f) => f.includes("The server refused the key: KEY_REVOKED (API key has been revoked)"));
  expect(f).toContain("key refused: KEY_REVOKED");
  await until(() => stub.requests("GET", "/api/v2/me").length >= 2, 10_000);
});

test("a bad URL (nothing listening) says it cannot reach the server", async () => {
  stub = new Stub();
  const url = stub.url;
  stub.stop();
  const { render } = await import("ink-testing-library");
  const { createElement } = await import("react");
  const { App } = await import("../../src/console/app.tsx");
  const r = render(createElement(App, { client: new ApiClient({ url, key: "crv_test_" + "a".repeat(64) }) }));
  await frame(r, (f) => f.includes(`cannot reach ${url}`) && f.includes("check --url or CARAVAN_URL"));
});

const report = (id: string, number: string, extra: Record<string, unknown>) => ({
  id,
  kind: "suspicion",
  label: "SAR",
  reportNumber: number,
  status: "draft",
  jurisdiction: "NL",
  transferId: "trf_1",
  filingReady: false,
  generatedBy: "mem_1",
  filingDeadline: { deadline: "2026-12-01T00:00:00.000Z", daysRemaining: 6, isOverdue: false, isApproaching: false },
  ...extra,
});

test("reports: drafts by deadline with daysRemaining; overdue in red (and plain under NO_COLOR)", async () => {
  const items = [
    report("r_late", "STR-2026-000001", { filingDeadline: { deadline: "2026-11-20T00:00:00.000Z", daysRemaining: -5, isOverdue: true, isApproaching: false } }),
    report("r_soon", "STR-2026-000002", {}),
    report("r_done", "STR-2026-000003", { status: "filed" }),
  ];
  stub = new Stub().on("GET", "/api/v2/reports", list(items));
  chalk.level = 1;
  const r = mount(stub, "reports");
  const f = await frame(r, (f) => f.includes("STR-2026-000002"));
  expect(f).toMatch(/STR-2026-000001\s+draft\s+NL\s+2026-11-20\s+overdue 5d/);
  expect(f).toMatch(/STR-2026-000002.*6d left/);
  expect(f).not.toContain("STR-2026-000003"); // filed: not on the open list
  const late = f.split("\n").find((l) => l.includes("STR-2026-000001"))!;
  expect(late).toContain("\u001b[31m"); // red
  cleanup();
  const plain = mount(stub, "reports", { noColor: true });
  const g = await frame(plain, (f) => f.includes("STR-2026-000001"));
  expect(g.split("\n").find((l) => l.includes("STR-2026-000001"))).not.toMatch(/\u001b\[3\dm/);
  await keys(plain, "f", "f");
  await frame(plain, (f) => f.includes("STR-2026-000003"));
});


test("SSE parser: events split across chunks, comments (heartbeats) ignored, multi-line data joined, ids kept", () => {
  const p = new SseParser();
  expect(p.feed(": ping\n\nid: 5\nevent: case.created\nda")).toEqual([]);
  expect(p.feed('ta: {"a":\ndata: 1}\n\n: ping\n\nid: 6\r\ndata: x\r\n\r\n')).toEqual([
    { id: "5", type: "case.created", data: '{"a":\n1}' },
    { id: "6", type: "message", data: "x" },
  ]);
  expect(p.lastEventId).toBe("6");
});

test("EventStream backs off while the server is gone (doubling, capped) and reports each wait", async () => {
  const waits: number[] = [];
  const failing = (async () => {
    throw new TypeError("connection refused");
  }) as unknown as typeof fetch;
  const s = new EventStream({ url: "http://127.0.0.1:1", key: "k", fetch: failing, backoffMs: { base: 10, max: 40 } }, () => {}, (st) => {
    if (st.kind === "offline") waits.push(st.retryInMs);
  }).start();
  await until(() => waits.length >= 5);
  s.stop();
  expect(waits.slice(0, 5)).toEqual([10, 20, 40, 40, 40]);
});
