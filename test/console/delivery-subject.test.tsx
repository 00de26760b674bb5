// Deliveries name the transfer or case each concerns (the API's `subject`, from the event's own record), in the list
// at every width and in the attempts; `o` (and Enter in the attempts) opens it on its own screen, or says why not.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, mount, frame, keys, KEY, ME_ANALYST } from "./stub.ts";
import { transferDetail, caseDetail, caseItem } from "./fixtures.ts";
import { deliveryColumns } from "../../src/console/screens/Deliveries.tsx";
import { layout, rowText } from "../../src/console/table.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const TRF = "trf_01jd0000000000000000aaaa01";
const CAS = "cas_01jd0000000000000000bbbb02";
const at = () => new Date().toISOString();
const delivery = (id: string, eventType: string, subject: { type: "transfer" | "case"; id: string } | null) => ({
  id,
  eventType,
  subject,
  status: "failed" as const,
  attempts: 3,
  maxAttempts: 3,
  httpStatus: 500,
  responseTimeMs: 20,
  lastError: "the receiver answered HTTP 500",
  nextRetryAt: null,
  sentAt: null,
  createdAt: at(),
});
const toTransfer = delivery("dlv_01jd00000000000000000000t1", "transfer.held", { type: "transfer", id: TRF });
const toCase = delivery("dlv_01jd00000000000000000000c1", "case.created", { type: "case", id: CAS });
const ping = delivery("dlv_01jd00000000000000000000p1", "test.ping", null);
const hooks = [{ id: "whk_bad", name: "compliance-bus", url: "https://bus.example/***", status: "active", consecutiveFailures: 3, deliveryCount: 9, lastSuccessAt: null }];

const withDeliveries = (s: Stub) =>
  s
    .on("GET", "/api/v2/webhooks", list(hooks))
    .on("GET", "/api/v2/webhooks/whk_bad/deliveries", list([toTransfer, toCase, ping]))
    .on("GET", `/api/v2/transfers/${TRF}`, one(transferDetail(TRF, { state: "held" })))
    .on("GET", "/api/v2/transfers", list([]))
    .on("GET", "/api/v2/cases", list([caseItem(CAS, 7)]))
    .on("GET", `/api/v2/cases/${CAS}`, one(caseDetail(CAS, 7)));

test("columns: the subject beside the event at 100, 120 and 160 columns, whole at 160; a ping names none", () => {
  for (const width of [100, 120, 160]) {
    const laid = layout(deliveryColumns(width, () => Date.now()), width - 1);
    const row = rowText(laid, toTransfer);
    expect(row.length).toBeLessThanOrEqual(width - 1);
    expect(row).toContain(" transfer.held ");
    expect(row).toContain(width >= 160 ? `transfer ${TRF}` : "trf_…00aaaa01");
    expect(rowText(laid, toCase)).toContain(width >= 160 ? `case ${CAS}` : "cas_…00bbbb02");
    expect(rowText(laid, ping)).toMatch(/test\.ping\s+-\s/);
  }
});

test("list and attempts name the subject; o opens the transfer, Enter in the attempts opens the case", async () => {
  stub = withDeliveries(new Stub());
  const r = mount(stub, "deliveries");
  await frame(r, (f) => f.includes("compliance-bus"));
  await keys(r, KEY.enter);
  const l = await frame(r, (f) => f.includes("transfer.held") && f.includes("case.created"));
  expect(l).toContain("concerns");
  expect(l).toMatch(/transfer\.held\s+trf_…00aaaa01/);
  expect(l).toMatch(/case\.created\s+cas_…00bbbb02/);
  await keys(r, "o");
  await frame(r, (f) => f.includes("Transfers ·") && f.includes(`${TRF} · outgoing · held`));
  await keys(r, "4");
  await frame(r, (f) => f.includes("Deliveries of compliance-bus"));
  await keys(r, "j", KEY.enter);
  const d = await frame(r, (f) => f.includes("Attempts"));
  expect(d).toContain(`Concerns    case ${CAS}`);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("CASE-TEST-2026-000007 · open"));
});

test("a delivery that names nothing says so; a key that may not read cases is told why instead of an empty screen", async () => {
  stub = withDeliveries(new Stub({ ...ME_ANALYST, key: { ...ME_ANALYST.key, scopes: ["transfers:read", "webhooks:read"] }, permissions: ["transfers:view", "cases:view", "webhooks:view"] }));
  const r = mount(stub, "deliveries");
  await frame(r, (f) => f.includes("compliance-bus"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("test.ping"));
  await keys(r, "j", "o");
  await frame(r, (f) => f.includes(`✕ cannot open case ${CAS}: the key lacks cases:read`));
  await keys(r, "j", "o");
  await frame(r, (f) => f.includes("names no transfer or case"));
  await keys(r, KEY.enter);
  const d = await frame(r, (f) => f.includes("Attempts"));
  expect(d).toContain("Concerns    nothing named");
});
