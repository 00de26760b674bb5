// Held transfers screen: the selection follows the transfer (not the row) across inserts and removals; the detail's
// evidence (parties, each check's finding, the rule branch that fired, raw answers); one path per decision (a held
// transfer with an open case is approved or rejected through the case); only the actions the state allows; sort,
// filter as you type, yank, state kept across tabs. Keys in, frames and requests out.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, refuse, mount, frame, frameSeen, keys, until, KEY, ME_ANALYST } from "./stub.ts";
import { transferItem, transferDetail, caseItem, caseDetail, nameScreening, addressScreening, SANCTIONED } from "./fixtures.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const T1 = "trf_01aaaaaaaaaaaaaaaaaaaaaaaa";
const T2 = "trf_01bbbbbbbbbbbbbbbbbbbbbbbb";
const T3 = "trf_01cccccccccccccccccccccccc";
const BENE = "Viktor Krasnov";
/** A frame's text without box borders and with whitespace (wrapped rows included) collapsed. */
const flat = (s: string) => s.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");

const screened = (bene: string, hit = false) => ({
  compliance: { checks: [{ name: "screening_c", status: "passed", response: { screenings: [nameScreening("originator", "Jane Doe"), nameScreening("beneficiary", bene, hit ? SANCTIONED : undefined)] } }] },
});

function withTransfers(s: Stub) {
  return s
    .on("GET", "/api/v2/transfers", (r) => (r.query.get("state") === "held" ? list([transferItem(T1, screened(BENE, true)), transferItem(T2, { amount: "250", direction: "incoming", ...screened("Ruth Roe") })], { total: 2 }) : list([])))
    .on("GET", `/api/v2/transfers/${T1}`, one(transferDetail(T1)))
    .on("GET", `/api/v2/transfers/${T2}`, one(transferDetail(T2, { direction: "incoming", amount: "250" })));
}

test("lists held transfers newest first with time, amount, state, verdict and the counterparty's name; asks for state=held", async () => {
  stub = withTransfers(new Stub());
  const r = mount(stub, "transfers");
  const f = await frame(r, (f) => f.includes("bbbbbbbb"));
  expect(f).toContain("Transfers · held · 2");
  expect(f.indexOf("aaaaaaaa")).toBeLessThan(f.indexOf("bbbbbbbb"));
  const row1 = f.split("\n").find((l) => l.includes("aaaaaaaa"))!;
  expect(row1).toMatch(/^›\d\d:\d\d:\d\d /); // selected (the gutter mark), created today: the time of day
  expect(row1).toMatch(/1\.5 ETH\s+held\s+pending/);
  expect(row1).toContain(`${BENE} at Bene Exchange`);
  // An incoming transfer's counterparty is its originator.
  expect(f.split("\n").find((l) => l.includes("bbbbbbbb"))).toContain("Jane Doe at Caravan");
  expect(stub.requests("GET", "/api/v2/transfers")[0].query.get("state")).toBe("held");
});

test("the selection follows the transfer: rows inserted above and the selected row's removal never move an action to another transfer", async () => {
  let held = [transferItem(T1, screened(BENE, true)), transferItem(T2, { amount: "250", ...screened("Ruth Roe") })];
  stub = new Stub().on("GET", "/api/v2/transfers", () => list(held));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("bbbbbbbb") && f.includes("● live") && f.includes("x reject"));
  await keys(r, "j"); // T2
  held = [transferItem(T3, { amount: "7" }), ...held];
  stub.emit(1, "transfer.held", { id: T3, state: "held" });
  const inserted = await frame(r, (f) => f.includes("cccccccc"));
  // The mark stays on T2's row, now the third.
  expect(inserted.split("\n").filter((l) => l.startsWith("›"))).toEqual([expect.stringContaining("bbbbbbbb")]);
  await keys(r, "x");
  // The confirmation names the full ID of the transfer that was selected, not the one now at its row.
  await frame(r, (f) => f.includes(`reject transfer ${T2}`));
  await keys(r, "3"); // SANCTIONS_MATCH
  await keys(r, KEY.enter);
  const c = await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(flat(c)).toContain(`Reject transfer ${T2} (250 ETH to Ruth Roe at Bene Exchange) with SANCTIONS_MATCH`);
  await keys(r, "n");
  // The selected transfer leaves the list: the selection goes to the row now in its place, not to the top.
  held = [held[0], held[1]];
  stub.emit(2, "transfer.rejected", { id: T2, state: "rejected" });
  await frame(r, (f) => !f.includes("bbbbbbbb"));
  await keys(r, "x");
  await frame(r, (f) => f.includes(`reject transfer ${T1}`));
});

test("the detail shows the parties by name, each check's finding, the rule branch that fired, and J the raw answers", async () => {
  const checks = [
    { id: "chk_1", integration: "screening_c", displayName: "Screening C", type: "sanctions", stage: "precheck", status: "success", durationMs: 4, response: { screenings: [nameScreening("originator", "Jane Doe"), nameScreening("beneficiary", BENE, SANCTIONED)] } },
    { id: "chk_2", integration: "screening_d", displayName: "Screening D", type: "blockchain_analytics", stage: "precheck", status: "success", durationMs: 2, response: { screenings: [addressScreening("beneficiary", "0xd1220a0c", 0.92, "sanctioned mixer")] } },
  ];
  stub = withTransfers(new Stub())
    .on("GET", `/api/v2/transfers/${T1}`, one(transferDetail(T1, { compliance: { status: "pending", total: 2, checks } })))
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 7, { transferIds: [T1] })]))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 7, { transferIds: [T1] })))
    .on(
      "GET",
      "/api/v2/rules/rul_1",
      one({ id: "rul_1", name: "Watch-list name hit", category: "sanctions", action: "require_review", severity: "high", conditions: [{ type: "if", action: "require_review", field: null, query: "content.data.total_hits", integrationId: "int_c", integrationName: "screening_c", operator: "gt", value: "0", subjectMatch: "any" }] }),
    );
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, KEY.enter);
  const f = flat(await frame(r, (f) => f.includes("▶ fired") && f.includes("CASE-TEST-2026-000007")));
  expect(f).toContain(`Originator Jane Doe · 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed · VASP Caravan`);
  expect(f).toContain(`Beneficiary ${BENE} · 0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb · VASP Bene Exchange`);
  expect(f).toContain(`beneficiary "${BENE}": matched ${BENE} (SBX1VK0001) on sandbox-sanctions-list [sanction], name_exact, score 1`);
  expect(f).toContain('originator "Jane Doe": no match');
  expect(f).toContain("beneficiary 0xd1220a0c: risk score 0.92, sanctioned mixer");
  expect(f).toContain("rule matched: Watch-list name hit (sanctions, require_review, high)");
  expect(f).toMatch(/▶ fired if the number of watch-list hits from screening_c is more than 0: hold for review\s+· read originator 0, beneficiary 1/);
  await keys(r, "G"); // the actions are further down
  const end = flat(await frame(r, (f) => f.includes("Actions")));
  expect(end).toContain("x reject: resolves CASE-TEST-2026-000007 as rejected, which rejects the transfer and drafts a suspicion report");
  expect(end).toContain("a approve: resolves CASE-TEST-2026-000007 as approved, which resumes the transfer");
  await keys(r, "J");
  const raw = await frame(r, (f) => f.includes("compliance.checks as the API answered"));
  expect(raw).toContain('"integration": "screening_c"');
  await keys(r, KEY.esc);
  await frame(r, (f) => f.includes("▶ fired"));
  await keys(r, KEY.esc);
  await frame(r, (f) => f.includes("Transfers · held") && !f.includes("▶ fired"));
});

test("without pii:view the detail says the names and findings are masked, as the API answers", async () => {
  stub = withTransfers(new Stub(ME_ANALYST)).on("GET", `/api/v2/transfers/${T1}`, one(transferDetail(T1), { piiMasked: true }));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("Checks (1)"));
  expect(f).toContain("Beneficiary *** (personal data masked) · 0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb");
  expect(f).toContain("finding: *** (personal data masked)");
});

test("one path per decision: x on a held transfer with an open case resolves the case rejected (and says a report is drafted); no PATCH", async () => {
  stub = withTransfers(new Stub())
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 7, { transferIds: [T1] })]))
    .on("POST", "/api/v2/cases/cas_1/resolve", one(caseDetail("cas_1", 7, { status: "closed", resolution: "rejected" }), { transferAction: { transferId: T1, result: "queued" } }))
    .on(
      "GET",
      "/api/v2/cases/cas_1",
      one(
        caseDetail("cas_1", 7, {
          status: "closed",
          history: [
            { id: "h3", action: "str_drafted", field: "reportId", oldValue: null, newValue: "rpt_1", userId: null, user: null, createdAt: new Date().toISOString() },
            { id: "h2", action: "transfer_updated", field: "state", oldValue: null, newValue: "rejected", userId: null, user: null, createdAt: new Date().toISOString() },
          ],
        }),
      ),
    );
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("a approve · x reject")); // the open case is known
  await keys(r, "x");
  await frame(r, (f) => f.includes("Resolution note for CASE-TEST-2026-000007"));
  for (const ch of "on list") await keys(r, ch);
  await keys(r, KEY.enter);
  const c = await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(flat(c)).toContain(flat(`Reject transfer ${T1} (1.5 ETH to ${BENE} at Bene Exchange): resolves CASE-TEST-2026-000007 as rejected, which rejects the transfer and drafts a suspicion report.`));
  await keys(r, "y");
  // The next answer (the case's history) may replace this flash within one poll: any frame that showed it counts.
  await frameSeen(r, (f) => f.includes(`✓ CASE-TEST-2026-000007 resolved rejected; transfer ${T1} queued`));
  expect(stub.requests("POST", "/api/v2/cases/cas_1/resolve")[0].body).toEqual({ resolution: "rejected", resolutionNote: "on list" });
  // Then how it ended, read from the case's history: the transfer's state and the drafted report.
  await frame(r, (f) => f.includes(`✓ ${T1} rejected; suspicion report rpt_1 drafted`));
  expect(stub.seen.filter((s) => s.method === "PATCH")).toHaveLength(0);
});

test("a approves through the case (resolves it approved); an outgoing held transfer without a case offers no approve, and says why", async () => {
  stub = withTransfers(new Stub())
    .on("GET", "/api/v2/cases", list([caseItem("cas_2", 8, { transferIds: [T2] })]))
    .on("POST", "/api/v2/cases/cas_2/resolve", one(caseDetail("cas_2", 8, { status: "closed", resolution: "approved" }), { transferAction: { transferId: T2, result: "queued" } }));
  const r = mount(stub, "transfers");
  const f = await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("x reject"));
  expect(f).not.toContain("accept");
  expect(f).not.toContain("a approve"); // T1: outgoing, held, no case
  await keys(r, "a");
  await frame(r, (f) => f.includes("✕ a does nothing on a held transfer: x reject · r retry"));
  await keys(r, "j");
  await frame(r, (f) => f.includes("a approve · x reject"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("Resolution note for CASE-TEST-2026-000008"));
  await keys(r, KEY.enter);
  const c = await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(flat(c)).toContain(flat(`Approve transfer ${T2} (250 ETH from Jane Doe at Caravan): resolves CASE-TEST-2026-000008 as approved, which resumes the transfer.`));
  await keys(r, "y");
  await frame(r, (f) => f.includes("✓ CASE-TEST-2026-000008 resolved approved"));
  expect(stub.requests("POST", "/api/v2/cases/cas_2/resolve")[0].body).toEqual({ resolution: "approved" });
});

test("an incoming held transfer with no case is approved by PATCH accept (no txHash); n at the confirmation sends nothing", async () => {
  stub = withTransfers(new Stub()).on("PATCH", `/api/v2/transfers/${T2}`, { body: { data: { id: T2, state: "accepted", status: { ours: "accepted", theirs: null }, txHash: null }, meta: { apiVersion: 2, action: "accept", previousState: "held" } } });
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("bbbbbbbb") && f.includes("x reject")); // open cases read
  await keys(r, "j", "a");
  const c = await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(flat(c)).toContain(flat(`Approve transfer ${T2} (250 ETH from Jane Doe at Caravan): accepts the transfer; its verdict becomes approved.`));
  await keys(r, "n");
  await frame(r, (f) => !f.includes("Confirm?"));
  await Bun.sleep(100);
  expect(stub.seen.filter((s) => s.method === "PATCH")).toHaveLength(0);
  await keys(r, "a", "y");
  await frame(r, (f) => f.includes(`✓ approve ${T2}: held → accepted`));
  expect(stub.requests("PATCH", `/api/v2/transfers/${T2}`)[0].body).toEqual({ action: "accept" });
});

test("reject without a case: the reason picker, optional details, a confirmation saying no report is drafted, then the PATCH body", async () => {
  stub = withTransfers(new Stub()).on("PATCH", `/api/v2/transfers/${T1}`, { body: { data: { id: T1, state: "rejected", status: { ours: "rejected", theirs: null }, txHash: null }, meta: { apiVersion: 2, action: "reject", previousState: "held" } } });
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("x reject")); // open cases read
  await keys(r, "x");
  await frame(r, (f) => f.includes("1. BENE_NOT_FOUND") && f.includes("8. OTHER"));
  await keys(r, "j", "j", KEY.enter); // SANCTIONS_MATCH
  await frame(r, (f) => f.includes("Details (at most 500 characters) (optional)"));
  for (const ch of "on list") await keys(r, ch);
  await keys(r, KEY.enter);
  const c = await frame(r, (f) => f.includes("Confirm? y / n"));
  expect(flat(c)).toContain(flat(`Reject transfer ${T1} (1.5 ETH to ${BENE} at Bene Exchange) with SANCTIONS_MATCH: rejects the transfer with the reason you pick; no case is open, so no suspicion report is drafted.`));
  await keys(r, "y");
  await frame(r, (f) => f.includes(`✓ reject ${T1}: held → rejected`));
  expect(stub.requests("PATCH", `/api/v2/transfers/${T1}`)[0].body).toEqual({ action: "reject", status: "rejected", reason: "SANCTIONS_MATCH", details: "on list" });
});

test("retry needs a reason; the API's refusal is shown verbatim with its code; a completed transfer offers no action", async () => {
  stub = withTransfers(new Stub())
    .on("PATCH", `/api/v2/transfers/${T1}`, refuse(400, "INVALID_TRANSFER_STATE", "Transfer cannot be retried in state held by provider_b"))
    .on("GET", "/api/v2/transfers", (q) => (q.query.get("state") === null ? list([transferItem(T3, { state: "completed", status: "approved" })]) : undefined));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, "r");
  await frame(r, (f) => f.includes(`Reason for retrying ${T1}`));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("required;"));
  for (const ch of "vendor back") await keys(r, ch);
  await keys(r, KEY.enter, "y");
  await frame(r, (f) => f.includes("✕ INVALID_TRANSFER_STATE: Transfer cannot be retried in state held by provider_b"));
  expect(stub.requests("PATCH", `/api/v2/transfers/${T1}`)[0].body).toEqual({ action: "retry", reason: "vendor back" });
  await keys(r, "f", "f");
  await frame(r, (f) => f.includes("Transfers · all") && f.includes("cccccccc"));
  await keys(r, "x");
  await frame(r, (f) => f.includes("✕ x does nothing on a completed transfer: no action applies"));
});

test("a role without transfers:update is offered no action, is told the true reason (the role, not the key), and sends nothing", async () => {
  stub = withTransfers(new Stub(ME_ANALYST));
  const r = mount(stub, "transfers");
  const f = await frame(r, (f) => f.includes("bbbbbbbb") && f.includes("analyst") && f.includes("read only: the role analyst lacks transfers:update"));
  expect(f).not.toContain("x reject");
  expect(f).not.toContain("a approve");
  await keys(r, "j", "a");
  await frame(r, (f) => f.includes("✕ approve is not offered: the role analyst lacks transfers:update (the key's scope allows it)"));
  await keys(r, KEY.enter);
  const d = await frame(r, (f) => f.includes("reject not offered: the role analyst lacks transfers:update"));
  expect(d).not.toMatch(/ x reject:/);
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

test("/ filters as you type (names included); : sort amount desc sorts decimals; :search asks the server; y yanks the full ID", async () => {
  const copied: string[] = [];
  stub = new Stub().on("GET", "/api/v2/transfers", (q) =>
    q.query.get("search") === "0xD1" ? list([]) : list([transferItem(T1, { amount: "9", ...screened(BENE) }), transferItem(T2, { amount: "10", ...screened("Ruth Roe") }), transferItem(T3, { amount: "0.5", ...screened("Ann Lee") })]),
  );
  const r = mount(stub, "transfers", { clipboard: (t) => copied.push(t) });
  await frame(r, (f) => f.includes("cccccccc"));
  await keys(r, "/", "r", "u");
  // Narrowed after each key, before Enter.
  const f = await frame(r, (f) => f.includes("/ru█") && !f.includes("aaaaaaaa") && !f.includes("cccccccc"));
  expect(f).toContain("bbbbbbbb");
  await keys(r, KEY.esc);
  await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("cccccccc"));
  await keys(r, ":");
  for (const ch of "sort amount desc") await keys(r, ch);
  await keys(r, KEY.enter);
  const s = await frame(r, (f) => f.includes("amount▼"));
  expect(s.indexOf("bbbbbbbb")).toBeLessThan(s.indexOf("aaaaaaaa")); // 10 > 9 as decimals, not as text
  expect(s.indexOf("aaaaaaaa")).toBeLessThan(s.indexOf("cccccccc"));
  await keys(r, "y");
  await frame(r, (f) => f.includes(`✓ copied ${T2}`));
  expect(copied).toEqual([T2]);
  await keys(r, ":");
  for (const ch of "search 0xD1") await keys(r, ch);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes('search "0xD1"'));
  await until(() => stub.requests("GET", "/api/v2/transfers").some((s) => s.query.get("search") === "0xD1"));
});

test("state is kept across tabs: the state filter, the text filter and the selected transfer", async () => {
  stub = withTransfers(new Stub());
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("bbbbbbbb"));
  await keys(r, "j", "/", "j", "a", "n", KEY.enter);
  await frame(r, (f) => f.includes('filter "jan"') && !f.includes("aaaaaaaa"));
  await keys(r, "3");
  await frame(r, (f) => f.includes("Cases · open"));
  await keys(r, "2");
  const f = await frame(r, (f) => f.includes("Transfers · held") && f.includes("bbbbbbbb") && f.includes("x reject"));
  expect(f).toContain('filter "jan"');
  await keys(r, "/", KEY.esc, "x");
  await frame(r, (f) => f.includes(`reject transfer ${T2}`));
});

test(":trf_… opens that transfer's detail even when it is not in the list; it stays selected, and coming back keeps what was done since", async () => {
  stub = withTransfers(new Stub()).on("GET", `/api/v2/transfers/${T3}`, one(transferDetail(T3, { state: "completed", amount: "7" })));
  const r = mount(stub, "overview");
  await frame(r, (f) => f.includes("Overview ·"));
  await keys(r, ":");
  for (const ch of T3) await keys(r, ch);
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes(`${T3} · outgoing · completed`));
  expect(f).toContain(`${T3} is not in this list (now completed); still selected`);
  await keys(r, KEY.esc, "3");
  await frame(r, (f) => f.includes("Cases · open"));
  await keys(r, "2");
  await frame(r, (f) => f.includes("Transfers · held") && f.includes("aaaaaaaa") && !f.includes(`${T3} · outgoing`));
});

test("without pii:view: names read masked, an address risk score reads as not given (not as personal data) beside the address shown", async () => {
  const masked = transferDetail(T1, {
    compliance: {
      status: "pending",
      total: 2,
      checks: [
        { id: "chk_1", integration: "screening_c", displayName: "screening_c", type: "sanctions", stage: "precheck", status: "success", response: null, durationMs: 12 },
        { id: "chk_2", integration: "screening_d", displayName: "Screening D", type: "blockchain_analytics", stage: "precheck", status: "success", response: null, durationMs: 2 },
      ],
    },
  });
  const addressOnly = transferDetail(T2, {
    compliance: { status: "pending", total: 1, checks: [{ id: "chk_3", integration: "screening_d", displayName: "Screening D", type: "blockchain_analytics", stage: "precheck", status: "success", response: null, durationMs: 2 }] },
  });
  stub = withTransfers(new Stub(ME_ANALYST))
    .on("GET", `/api/v2/transfers/${T1}`, one(masked, { piiMasked: true }))
    .on("GET", `/api/v2/transfers/${T2}`, one(addressOnly, { piiMasked: true }));
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, KEY.enter);
  const f = flat(await frame(r, (f) => f.includes("Checks (2)")));
  // The name is personal data: masked. The address is the transfer's own field: in clear.
  expect(f).toContain("Beneficiary *** (personal data masked) · 0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb");
  expect(f).toMatch(/screening_c precheck sanctions success 12ms finding: \*\*\* \(personal data masked\)/);
  // The score is about the address, not a person: never shown as personal data masked beside it.
  expect(f).toMatch(/screening_d precheck blockchain_analytics success 2ms finding: address risk score not given to a role without pii:view/);
  expect(f).toContain("not personal data");
  expect(f.match(/personal data masked\)/g)?.length).toBe(3); // the two names and the name screening, not the score
  await keys(r, KEY.esc, "j", KEY.enter);
  const g = flat(await frame(r, (f) => f.includes("Checks (1)")));
  // Only an address was screened: no name was, so none reads as masked.
  expect(g).toContain("Beneficiary name not screened · 0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb");
  expect(g).not.toContain("personal data masked)");
  expect(g).toContain("address risk score not given to a role without pii:view");
});
