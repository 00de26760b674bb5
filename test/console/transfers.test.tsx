// Held transfers screen (issue 18, item 3): list, filter, search, detail, and the confirmed actions accept, reject,
// retry with the API's refusal shown verbatim; live updates from the event stream. Keys in, frames out.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, refuse, mount, frame, keys, until, KEY, ME_ANALYST } from "./stub.ts";
import { transferItem, transferDetail, caseItem, caseDetail } from "./fixtures.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const T1 = "trf_01aaaaaaaaaaaaaaaaaaaaaaaa";
const T2 = "trf_01bbbbbbbbbbbbbbbbbbbbbbbb";

function withTransfers(s: Stub) {
  return s
    .on("GET", "/api/v2/transfers", (r) => (r.query.get("state") === "held" ? list([transferItem(T1), transferItem(T2, { amount: "250", direction: "incoming" })], { total: 2 }) : list([])))
    .on("GET", `/api/v2/transfers/${T1}`, one(transferDetail(T1)))
    .on("GET", `/api/v2/transfers/${T2}`, one(transferDetail(T2, { direction: "incoming", amount: "250" })));
}

test("lists held transfers newest first with amount, state and verdict; asks for state=held", async () => {
  stub = withTransfers(new Stub());
  const r = mount(stub, "transfers");
  const f = await frame(r, (f) => f.includes("bbbbbbbb"));
  expect(f).toContain("Transfers · held · 2");
  expect(f.indexOf("aaaaaaaa")).toBeLessThan(f.indexOf("bbbbbbbb"));
  expect(f).toMatch(/1\.5 ETH\s+held\s+pending/);
  expect(stub.requests("GET", "/api/v2/transfers")[0].query.get("state")).toBe("held");
});

test("f cycles the filter held → failed → all and / searches with the typed text", async () => {
  stub = withTransfers(new Stub());
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, "f");
  await frame(r, (f) => f.includes("Transfers · failed"));
  await until(() => stub.requests("GET", "/api/v2/transfers").some((s) => s.query.get("state") === "failed"));
  await keys(r, "f");
  await frame(r, (f) => f.includes("Transfers · all"));
  await until(() => stub.requests("GET", "/api/v2/transfers").some((s) => s.query.get("state") === null));
  await keys(r, "/", "0", "x", "D", "1", KEY.enter);
  await frame(r, (f) => f.includes('"0xD1"'));
  await until(() => stub.requests("GET", "/api/v2/transfers").some((s) => s.query.get("search") === "0xD1"));
});

test("j moves the selection; Enter opens the detail with parties, checks, the rule that matched, the linked case and history", async () => {
  stub = withTransfers(new Stub())
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 7, { transferIds: [T2] })]))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 7)));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("bbbbbbbb"));
  await keys(r, "j", KEY.enter);
  const f = await frame(r, (f) => f.includes("rule matched") && f.includes("CASE-TEST-2026-000007"));
  expect(f).toContain(`${T2} · incoming · held · verdict pending`);
  expect(f).toContain("Amount      250 ETH on ethereum");
  expect(f).toContain("Beneficiary 0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb  VASP Bene Exchange");
  expect(f).toContain("screening_c precheck sanctions success 12ms");
  expect(f).toContain("rule matched: Watch-list name hit (sanctions, require_review, high)");
  expect(f).toContain("History");
  expect(f).toContain("internal screening");
  await keys(r, KEY.esc);
  await frame(r, (f) => f.includes("Transfers · held") && !f.includes("rule matched"));
});

test("accept asks for confirmation, then PATCHes {action: accept} with the txHash of an outgoing transfer and shows the move", async () => {
  stub = withTransfers(new Stub()).on("PATCH", `/api/v2/transfers/${T1}`, { body: { data: { id: T1, state: "completed", status: { ours: "accepted", theirs: "accepted" }, txHash: "ab" }, meta: { apiVersion: 2, action: "accept", previousState: "held" } } });
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("Blockchain transaction hash"));
  for (const ch of "0xab") await keys(r, ch);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(stub.requests("PATCH", `/api/v2/transfers/${T1}`)).toHaveLength(0);
  await keys(r, "y");
  await frame(r, (f) => f.includes("✓ accept trf_…aaaaaaaa: held → completed"));
  expect(stub.requests("PATCH", `/api/v2/transfers/${T1}`)[0].body).toEqual({ action: "accept", txHash: "0xab" });
});

test("n at the confirmation sends nothing", async () => {
  stub = withTransfers(new Stub());
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("bbbbbbbb"));
  await keys(r, "j", "a");
  await frame(r, (f) => f.includes("Confirm? y / n") && f.includes("250 ETH"));
  await keys(r, "n");
  await frame(r, (f) => !f.includes("Confirm?"));
  await Bun.sleep(100);
  expect(stub.seen.filter((s) => s.method === "PATCH")).toHaveLength(0);
});

test("reject: the reason picker, optional details, confirmation, then the PATCH body of Part 1", async () => {
  stub = withTransfers(new Stub()).on("PATCH", `/api/v2/transfers/${T1}`, { body: { data: { id: T1, state: "rejected", status: { ours: "rejected", theirs: null }, txHash: null }, meta: { apiVersion: 2, action: "reject", previousState: "held" } } });
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, "x");
  await frame(r, (f) => f.includes("1. BENE_NOT_FOUND") && f.includes("8. OTHER"));
  await keys(r, "j", "j", KEY.enter); // SANCTIONS_MATCH
  await frame(r, (f) => f.includes("Details (at most 500 characters) (optional)"));
  for (const ch of "on list") await keys(r, ch);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Reject trf_…aaaaaaaa with SANCTIONS_MATCH?"));
  await keys(r, "y");
  await frame(r, (f) => f.includes("✓ reject trf_…aaaaaaaa: held → rejected"));
  expect(stub.requests("PATCH", `/api/v2/transfers/${T1}`)[0].body).toEqual({ action: "reject", status: "rejected", reason: "SANCTIONS_MATCH", details: "on list" });
});

test("retry needs a reason; the API's refusal is shown verbatim with its code", async () => {
  stub = withTransfers(new Stub()).on("PATCH", `/api/v2/transfers/${T1}`, refuse(400, "INVALID_TRANSFER_STATE", "Transfer cannot be retried in state held by provider_b"));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, "r");
  await frame(r, (f) => f.includes("Reason for the retry"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("required;"));
  for (const ch of "vendor back") await keys(r, ch);
  await keys(r, KEY.enter, "y");
  await frame(r, (f) => f.includes("✕ INVALID_TRANSFER_STATE: Transfer cannot be retried in state held by provider_b"));
  expect(stub.requests("PATCH", `/api/v2/transfers/${T1}`)[0].body).toEqual({ action: "retry", reason: "vendor back" });
});

test("a key whose role lacks transfers:update is told so and sends nothing", async () => {
  stub = withTransfers(new Stub(ME_ANALYST));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("analyst"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("not allowed: the key needs transfers:write and the role transfers:update"));
  expect(stub.seen.filter((s) => s.method === "PATCH")).toHaveLength(0);
});

test("a transfer.held event on the stream reloads the list: the new transfer appears without a key", async () => {
  let held = [transferItem(T1)];
  stub = new Stub().on("GET", "/api/v2/transfers", () => list(held));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("● live"));
  held = [transferItem(T2), transferItem(T1)];
  stub.emit(1, "transfer.held", { id: T2, state: "held" });
  await frame(r, (f) => f.includes("bbbbbbbb"));
});
