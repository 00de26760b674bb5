// Overview, Deliveries and Reports screens (issue 18, item 3): counts and sparklines, subscription health and retrying
// one delivery, deadlines and the PDF download to a path. Keys in, frames out.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { Stub, list, one, refuse, mount, frame, keys, until, KEY, ME_ANALYST } from "./stub.ts";
import { transferItem } from "./fixtures.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});
const dir = tempDir();

const total = (n: number) => ({ body: { data: [], meta: { total: n, hasMore: false, cursor: null, limit: 1 } } });

test("overview: held transfers, open cases by priority, mine, failing deliveries, reports by deadline, a sparkline by state", async () => {
  const minute = (ago: number) => new Date(Date.now() - ago * 60_000).toISOString();
  stub = new Stub()
    .on("GET", "/api/v2/transfers", (q) =>
      q.query.get("state") === "held"
        ? total(3)
        : list([transferItem("trf_a", { createdAt: minute(0), state: "held" }), transferItem("trf_b", { createdAt: minute(0), state: "held" }), transferItem("trf_c", { createdAt: minute(2), state: "completed" })]),
    )
    .on("GET", "/api/v2/cases", (q) => (q.query.get("assigneeId") === "me" ? total(1) : total({ high: 4, medium: 5, low: 6 }[q.query.get("priority") as "high"] ?? 0)))
    .on("GET", "/api/v2/webhooks", list([{ id: "whk_1", name: "ops", status: "active", consecutiveFailures: 2, url: "https://x.example/hook" }, { id: "whk_2", name: "ok", status: "active", consecutiveFailures: 0 }]))
    .on("GET", "/api/v2/webhooks/whk_1/deliveries", total(7))
    .on(
      "GET",
      "/api/v2/reports",
      list([
        { id: "r1", status: "draft", filingDeadline: { isOverdue: true, isApproaching: false, daysRemaining: -2 } },
        { id: "r2", status: "draft", filingDeadline: { isOverdue: false, isApproaching: true, daysRemaining: 3 } },
        { id: "r3", status: "filed", filingDeadline: { isOverdue: false, isApproaching: true, daysRemaining: 1 } },
      ]),
    );
  const r = mount(stub, "overview");
  const f = await frame(r, (f) => /Failing subscriptions \/ failed deliveries\s+1 \/ 7/.test(f) && /Held transfers\s+3/.test(f) && /overdue \/ approaching deadline\s+1 \/ 1/.test(f));
  expect(f).toMatch(/high \/ medium \/ low\s+4 \/ 5 \/ 6/);
  expect(f).toMatch(/assigned to me\s+1/);
  // Two held in the current minute (full bar, last cell), one completed two minutes ago.
  // The counts are of transfers created in the window; the held row also says how many are held in all, so
  // "held 0" never sits under "Held transfers 3" unexplained.
  expect(f).toMatch(/held\s+█ 2 new · 3 held in all/);
  expect(f).toMatch(/done\s+█\s\s 1 new/);
  expect(f).toContain("Transfers created per minute, by their state now");
  await keys(r, "j", "j", "j", KEY.enter);
  await frame(r, (f) => f.includes("Webhook subscriptions"));
});

test("overview: a key without a scope sees 'no access' for that count, not an error", async () => {
  stub = new Stub({ ...ME_ANALYST, key: { id: "k", scopes: ["cases:read"] } });
  const r = mount(stub, "overview");
  const f = await frame(r, (f) => /Held transfers\s+no access/.test(f) && /assigned to me\s+0/.test(f));
  expect(f).toMatch(/Reports overdue \/ approaching deadline\s+no access/);
  expect(stub.requests("GET", "/api/v2/transfers")).toHaveLength(0);
});

const hooks = [
  { id: "whk_bad", name: "compliance-bus", url: "https://bus.example/***", status: "active", consecutiveFailures: 3, deliveryCount: 9, lastSuccessAt: null },
  { id: "whk_ok", name: "ledger", url: "https://ledger.example/hook", status: "paused", consecutiveFailures: 0, deliveryCount: 4, lastSuccessAt: new Date().toISOString() },
];
const failed = { id: "dlv_1", eventType: "transfer.held", status: "failed", attempts: 3, maxAttempts: 3, httpStatus: 500, responseTimeMs: 20, lastError: "HTTP 500", nextRetryAt: null, sentAt: null, createdAt: new Date().toISOString() };

test("deliveries: subscriptions with health; Enter lists failed deliveries; r confirms and retries one, showing the answer", async () => {
  stub = new Stub()
    .on("GET", "/api/v2/webhooks", list(hooks))
    .on("GET", "/api/v2/webhooks/whk_bad/deliveries", list([failed]))
    .on("POST", "/api/v2/webhooks/whk_bad/deliveries/dlv_1/retry", one({ deliveryId: "dlv_1", delivered: true }));
  const r = mount(stub, "deliveries");
  const f = await frame(r, (f) => f.includes("ledger"));
  expect(f).toMatch(/compliance-bus\s+active\s+failing ×3/);
  expect(f).toMatch(/ledger\s+paused\s+paused/);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("dlv_1") && f.includes("HTTP 500"));
  expect(stub.requests("GET", "/api/v2/webhooks/whk_bad/deliveries")[0].query.get("status")).toBe("failed");
  await keys(r, "r");
  await frame(r, (f) => f.includes("Send delivery dlv_1 (transfer.held) again, signed anew?"));
  await keys(r, "y");
  await frame(r, (f) => f.includes("✓ delivery dlv_1 retried: delivered"));
  expect(stub.requests("POST", "/api/v2/webhooks/whk_bad/deliveries/dlv_1/retry")).toHaveLength(1);
});

test("deliveries: a refused retry shows 409 WEBHOOK_NOT_ACTIVE verbatim; f shows all deliveries", async () => {
  stub = new Stub()
    .on("GET", "/api/v2/webhooks", list(hooks))
    .on("GET", "/api/v2/webhooks/whk_bad/deliveries", list([failed]))
    .on("POST", "/api/v2/webhooks/whk_bad/deliveries/dlv_1/retry", refuse(409, "WEBHOOK_NOT_ACTIVE", "The subscription is not active"));
  const r = mount(stub, "deliveries");
  await frame(r, (f) => f.includes("compliance-bus"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("dlv_1"));
  await keys(r, "r", "y");
  await frame(r, (f) => f.includes("✕ WEBHOOK_NOT_ACTIVE: The subscription is not active"));
  await keys(r, "f");
  await until(() => stub.requests("GET", "/api/v2/webhooks/whk_bad/deliveries").some((s) => s.query.get("status") === null));
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

test("reports: d downloads the PDF to the typed path; a refusal (PII_ACCESS_REQUIRED) is shown verbatim", async () => {
  const pdf = new TextEncoder().encode("%PDF-1.7 test");
  let allowed = true;
  stub = new Stub()
    .on("GET", "/api/v2/reports", list([report("r1", "STR-2026-000009", {})]))
    .on("GET", "/api/v2/reports/r1/download", () => (allowed ? { raw: pdf, headers: { "content-type": "application/pdf", "x-content-sha256": "abcdef0123456789" } } : refuse(403, "PII_ACCESS_REQUIRED", "Downloading needs pii:view")));
  const r = mount(stub, "reports");
  await frame(r, (f) => f.includes("STR-2026-000009"));
  await keys(r, "d");
  await frame(r, (f) => f.includes("./STR-2026-000009.pdf"));
  const path = join(dir, "x.pdf");
  for (let i = 0; i < "./STR-2026-000009.pdf".length; i++) await keys(r, KEY.backspace);
  for (const ch of path) await keys(r, ch);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes(`✓ saved ${path} (13 bytes, sha256 abcdef012345…)`));
  expect(readFileSync(path, "utf8")).toBe("%PDF-1.7 test");
  expect(stub.requests("GET", "/api/v2/reports/r1/download")[0].query.get("format")).toBe("pdf");
  allowed = false;
  await keys(r, "d", KEY.enter);
  await frame(r, (f) => f.includes("✕ PII_ACCESS_REQUIRED: Downloading needs pii:view"));
});

test("reports: x exports the report as goAML XML to the typed path; the API's refusal (not filing-ready, or an FIU without goAML) is shown verbatim", async () => {
  const xml = new TextEncoder().encode('<?xml version="1.0" encoding="UTF-8"?>\n<report></report>\n');
  let ready = true;
  stub = new Stub()
    .on("GET", "/api/v2/reports", list([report("r1", "SAR-2026-000010", {})]))
    .on("GET", "/api/v2/reports/r1/goaml", () => (ready ? { raw: xml, headers: { "content-type": "application/xml; charset=utf-8", "x-content-sha256": "0123456789abcdef" } } : refuse(409, "NOT_FILING_READY", "The report is not filing-ready")));
  const r = mount(stub, "reports");
  await frame(r, (f) => f.includes("SAR-2026-000010") && f.includes("x goAML XML"));
  await keys(r, "x");
  await frame(r, (f) => f.includes("./SAR-2026-000010.goaml.xml"));
  const path = join(dir, "x.goaml.xml");
  for (let i = 0; i < "./SAR-2026-000010.goaml.xml".length; i++) await keys(r, KEY.backspace);
  for (const ch of path) await keys(r, ch);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes(`✓ saved ${path}`));
  expect(readFileSync(path, "utf8")).toContain("<report></report>");
  ready = false;
  await keys(r, "x", KEY.enter);
  await frame(r, (f) => f.includes("✕ NOT_FILING_READY: The report is not filing-ready"));
});

test("deliveries: Enter on a delivery opens its attempts (count, last answer, error, what comes next); the selection stays on it", async () => {
  const other = { ...failed, id: "dlv_0", eventType: "transfer.created", lastError: "connection refused", httpStatus: null };
  let shown: Record<string, unknown>[] = [failed];
  stub = new Stub()
    .on("GET", "/api/v2/webhooks", list(hooks))
    .on("GET", "/api/v2/webhooks/whk_bad/deliveries", () => list(shown));
  const r = mount(stub, "deliveries");
  await frame(r, (f) => f.includes("compliance-bus"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("transfer.held"));
  shown = [other, failed]; // a newer failure arrives above the selected one
  await frame(r, (f) => f.includes("transfer.created"), 8_000);
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("Attempts"));
  expect(f).toContain("dlv_1 · transfer.held · failed · to compliance-bus");
  expect(f).toContain("Attempts    3 of at most 3");
  expect(f).toContain("Last answer HTTP 500 in 20 ms");
  expect(f).toContain("Last error  HTTP 500");
  expect(f).toContain("Next        none: r sends it again, signed anew");
  await keys(r, KEY.esc);
  await frame(r, (f) => f.includes("f failed/all"));
});

test("deliveries: event names are never cut, at 100 columns in the screen and at 160 and 200 in its columns", async () => {
  const { deliveryColumns } = await import("../../src/console/screens/Deliveries.tsx");
  const { layout, rowText } = await import("../../src/console/table.ts");
  const { EVENT_TYPES } = await import("../../src/api/webhooks.ts");
  const long = { ...failed, status: "failed" as const, id: "dlv_01jd0000000000000000000000", eventType: "compliance.screening_complete", subject: null };
  for (const width of [100, 160, 200]) {
    const laid = layout(deliveryColumns(width, () => Date.now()), width - 1);
    for (const eventType of EVENT_TYPES) expect(rowText(laid, { ...long, eventType })).toContain(` ${eventType} `);
  }
  stub = new Stub().on("GET", "/api/v2/webhooks", list(hooks)).on("GET", "/api/v2/webhooks/whk_bad/deliveries", list([long]));
  const r = mount(stub, "deliveries");
  await frame(r, (f) => f.includes("ledger"));
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("HTTP 500"));
  expect(f).toContain("compliance.screening_complete");
});
