// The evidence an officer decides on: the value in fiat the threshold decision used (amount, currency, rate, its
// source and time, the threshold), in the transfer's detail and its case's detail; the counterparty VASP as discovery
// found it, or "not yet discovered"; the Travel Rule status in words. Keys in, frames out.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, mount, frame, keys, KEY } from "./stub.ts";
import { transferItem, transferDetail, caseItem, caseDetail } from "./fixtures.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const T1 = "trf_01aaaaaaaaaaaaaaaaaaaaaaaa";
const flat = (s: string) => s.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
const valuation = {
  transferId: T1,
  amount: "1.5",
  asset: "ETH",
  valuation: { fxRateId: "fx_1", value: "4350.00", currency: "EUR", rate: "2900.00", source: "coingecko", rateAsOf: "2026-12-01T10:00:00.000Z", valuedAt: "2026-12-01T10:00:05.000Z" },
  threshold: { amount: "1000", currency: "EUR", jurisdiction: "NL", regulation: "TFR" },
};
const precheckHold = transferDetail(T1, { beneficiary: { address: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", vaspId: null, vaspName: null } });

test("the transfer's detail shows the value in EUR with rate, source and time, and the VASP not yet discovered", async () => {
  stub = new Stub()
    .on("GET", "/api/v2/transfers", list([transferItem(T1)]))
    .on("GET", `/api/v2/transfers/${T1}/valuation`, one(valuation))
    .on("GET", `/api/v2/transfers/${T1}`, one(precheckHold));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, KEY.enter);
  const d = flat(await frame(r, (f) => f.includes("Value ") && f.includes("coingecko")));
  expect(d).toContain("Value 4,350.00 EUR at 2,900.00/ETH · coingecko · 2026-12-01 10:00 UTC");
  expect(d).not.toContain("threshold"); // on the case's detail
  expect(d).toContain("VASP not yet discovered");
  expect(d).not.toMatch(/VASP -/);
  expect(d).toContain("Travel Rule our answer pending · the counterparty's none yet");
  expect(stub.requests("GET", `/api/v2/transfers/${T1}/valuation`).length).toBeGreaterThan(0);
});

test("the case's detail shows the same value beside the evidence", async () => {
  stub = new Stub()
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 3, { transferIds: [T1] })]))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 3, { transferIds: [T1], transfers: [{ id: T1, externalId: null, direction: "outgoing", state: "held", complianceStatus: "pending", amount: "1.5", asset: "ETH", network: "ethereum", createdAt: new Date().toISOString() }] })))
    .on("GET", `/api/v2/transfers/${T1}/valuation`, one(valuation))
    .on("GET", `/api/v2/transfers/${T1}`, one(precheckHold));
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("CASE-TEST-2026-000003"));
  await keys(r, KEY.enter);
  const d = flat(await frame(r, (f) => f.includes("coingecko")));
  expect(d).toContain("Value 4,350.00 EUR at 2,900.00/ETH · coingecko · 2026-12-01 10:00 UTC · threshold 1,000 EUR (TFR, NL)");
});

test("a report's detail names the FIU it is filed with (not the supervisor) and shows the transfer's value in fiat", async () => {
  const rep = {
    id: "rpt_1",
    kind: "suspicion",
    label: "Suspicious Activity Report (SAR)",
    reportTo: "Financial Intelligence Unit (FIU, Zentralstelle für Finanztransaktionsuntersuchungen)",
    reportNumber: "SAR-TEST-2026-000001",
    status: "draft",
    jurisdiction: "DE",
    transferId: T1,
    filingReady: false,
    generatedBy: "mem_officer",
    detectionMethod: "screening",
    generatedAt: new Date().toISOString(),
    filingDeadline: { deadline: "2026-12-04T00:00:00.000Z", daysRemaining: 3, isOverdue: false, isApproaching: false, source: "system_default", daysConfigured: 3, regulation: "Geldwäschegesetz (GwG) § 43: without delay (unverzüglich)", regulatoryBody: "Federal Financial Supervisory Authority (BaFin)" },
    narrative: "x",
    riskIndicators: [],
    regulatoryData: {},
  };
  const ME = { ...(await import("./stub.ts")).ME_OWNER };
  stub = new Stub(ME)
    .on("GET", "/api/v2/reports", list([rep]))
    .on("GET", "/api/v2/reports/rpt_1", one(rep))
    .on("GET", `/api/v2/transfers/${T1}/valuation`, one(valuation));
  const r = mount(stub, "reports");
  await frame(r, (f) => f.includes("SAR-TEST-2026-000001"));
  await keys(r, KEY.enter);
  const d = flat(await frame(r, (f) => f.includes("coingecko")));
  expect(d).toContain("file with Financial Intelligence Unit (FIU, Zentralstelle");
  expect(d).not.toContain("BaFin");
  expect(d).toContain("Value 4,350.00 EUR");
});
