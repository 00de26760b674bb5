// The officers' workbench end to end: the real server (one for the file), the provider_b sandbox, and
// `caravan console` in real terminals (tmux at 80×24, read back with capture-pane). A rule holds a transfer; its case
// resolved rejected drafts a suspicion report. Filing: officer A opens it, reads what is missing, edits a field and
// the narrative, submits; approving it again is refused on screen in words; officer B approves in a second console;
// A files it with the FIU's reference; the API shows each state and the audit names each member. Customers: the
// list, filter as you type, one customer's overview; names in clear for an officer, masked for an analyst. Audit:
// an entry made over the API while the screen is open appears, the list filters by action and by actor, Enter shows
// the entry, and no key or credential is on screen. CONSOLE_CAPTURES=<dir> saves the screens for docs/console.md.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { hasTmux, terminal } from "./support/tmux.ts";
import { runCli, startServer, type ChildServer } from "./support/server.ts";
import { apiClient } from "./support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../src/adapters/providers/provider_b/crypto.ts";
import { JANE, RICHARD } from "./support/persons.ts";

// Servers, sandboxes and terminals on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "workbench.db");
const { tmux, screen, press, type, until, capture, openConsole: openIn, signIn } = terminal("caravan-workbench-e2e");
let S: ChildServer;
let peer: ProviderBPeer;
const { newKey, newSession, call } = apiClient(db, () => S.url);
/** Officer A's session (set up before A signs in at the console): the API's own answer to A approving. */
let sessionA: string;
type Key = { key: string; id: string; memberId: string; memberEmail: string };
let owner: Key, officerA: Key, officerB: Key, analyst: Key;
let customerId: string;
let transferId: string;
let caseNumber: string;
let caseId: string;
let reportId: string;
let reportNumber: string;
const seed = randomSeedBase64();

const ORIGIN_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const CONTACT = "J. de Vries, MLRO, +31 20 555 0100";
const NARRATIVE =
  "The customer tried to send 1 ETH to a beneficiary held for review by the ETH rule; the officer found no economic purpose and the counterparty could not explain the source, so the transfer was rejected and reported.";
const REFERENCE = "FIU-NL-2026-0042";

/** Polls the API until `what` gives a value. */
async function eventually<T>(what: () => Promise<T | undefined>, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await what();
    if (v !== undefined) return v;
    await Bun.sleep(50);
  }
  throw new Error("the API never showed it");
}

const openConsole = (session: string, key: string, size: [number, number] = [80, 24]) => openIn(session, S.url, key, { size });

/** The screen as one line: wrapped and boxed text read as sentences. */
const flat = (s: string) => s.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");

async function auditOf(entityId: string, key = owner.key): Promise<{ action: string; actor: { memberId: string | null } }[]> {
  const r = await call(`/api/v2/audit-log?entityId=${entityId}&limit=200`, { key });
  expect(r.status).toBe(200);
  return [...r.body.data].reverse();
}

async function report(): Promise<any> {
  const r = await call(`/api/v2/reports/${reportId}`, { key: owner.key });
  expect(r.status).toBe(200);
  return r.body.data;
}

beforeAll(async () => {
  // Not skipped when missing: the console's proof needs a real terminal.
  if (!hasTmux) throw new Error("tmux is required for the console's end-to-end test (Debian package tmux; .ci/run installs it)");
  peer = await startProviderBPeer({ vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { richard: [RICHARD] }, wallets: [{ address: BENE_ADDR, customer: "richard" }] }] });
  expect((await runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  owner = await newKey("--env", "test", "--role", "owner");
  const live = await newKey("--env", "live", "--role", "owner", "--member", owner.memberEmail);
  officerA = await newKey("--env", "test", "--role", "compliance_officer");
  officerB = await newKey("--env", "test", "--role", "compliance_officer");
  analyst = await newKey("--env", "test", "--role", "analyst");
  // A filing jurisdiction: a case resolved rejected drafts its suspicion report for it.
  expect((await runCli(["companies", "profile", "--slug", "default", "--country", "NL"], { CARAVAN_DB: db })).code).toBe(0);
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", PROVIDER_B_ALLOWED_IPS: "127.0.0.1" });
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const key of [owner.key, live.key]) expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: live.key, json: { enabled: true } })).status).toBe(200);
  peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url, legalName: "Caravan Test VASP", country: "NL" });
  const c = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Jane Doe", externalId: "ext-jane-001" } });
  customerId = c.body.data.id;
  expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: owner.key, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
  expect((await call("/api/v2/wallets", { method: "POST", key: owner.key, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } })).status).toBe(201);
  for (const [name, externalId] of [["Ana Lima", "ext-ana-002"], ["Bruno Costa", "ext-bruno-003"]])
    expect((await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name, externalId } })).status).toBe(201);
  // A rule holds the transfer and opens a case; officer A resolves it rejected, which drafts the report.
  const rule = await call("/api/v2/rules", { method: "POST", key: owner.key, json: { name: "Review every ETH transfer", category: "aml", stage: "precheck", action: "require_review", condition: { rules: [{ type: "if", field: "asset", operator: "eq", value: "ETH", action: "require_review" }] } } });
  expect(rule.status).toBe(201);
  const t = await call("/api/v2/transfers", {
    method: "POST",
    key: owner.key,
    headers: { "Idempotency-Key": crypto.randomUUID() },
    json: { asset: "ETH", amount: "1", network: "ethereum", originatorCustomerId: customerId, originatorAddress: ORIGIN_ADDR, beneficiaryAddress: BENE_ADDR, originator: { originatorPersons: [JANE] }, beneficiary: { beneficiaryPersons: [RICHARD] } },
  });
  expect(t.status).toBe(202);
  transferId = t.body.data.id;
  const held = await eventually(async () => (await call("/api/v2/cases?hasTransfer=true&limit=200", { key: owner.key })).body.data.find((x: { transferIds: string[] }) => x.transferIds.includes(transferId)));
  caseId = held.id;
  caseNumber = held.caseNumber;
  const resolved = await call(`/api/v2/cases/${caseId}/resolve`, { method: "POST", key: officerA.key, json: { resolution: "rejected", resolutionNote: "No economic purpose" } });
  expect(resolved.status).toBe(200);
  const drafted = await eventually(async () => (await call(`/api/v2/reports?transferId=${transferId}`, { key: owner.key })).body.data[0]);
  expect(drafted).toMatchObject({ status: "draft", jurisdiction: "NL", filingReady: false });
  reportId = drafted.id;
  reportNumber = drafted.reportNumber;
});

afterAll(async () => {
  if (!hasTmux) return;
  try {
    tmux("kill-server");
  } catch {
    /* no session left */
  }
  await S?.stop();
  await peer?.stop();
});

describe("Filing: a drafted report carried to filing by two officers", () => {
  test("officer A opens the Filing tab and the report: what filing still needs is listed in words", async () => {
    // The second officer's and the analyst's consoles start now too: they are used later, and start-up overlaps.
    // The two officers sign in (filing is a member's, not a key's); the analyst reads with a key.
    openConsole("reader", analyst.key);
    const [a, b] = await Promise.all([newSession({ email: officerA.memberEmail }), newSession({ email: officerB.memberEmail })]);
    sessionA = a.token;
    await Promise.all([signIn("first", S.url, { ...a, code: a.nextCode }), signIn("second", S.url, { ...b, code: b.nextCode })]);
    // At 80 columns the member's address is cut, never the role.
    await until("first", (s) => s.includes("compliance_officer") && s.includes("live"));
    await press("first", "6");
    const list = await until("first", (s) => s.includes(reportNumber));
    capture("filing-list", list);
    const row = list.split("\n").find((l) => l.includes(reportNumber))!;
    expect(row).toMatch(/draft\s+NL\s+no/);
    await press("first", "Enter");
    const s = await until("first", (s) => s.includes("Missing for filing"));
    capture("filing-missing", s);
    expect(s).toContain(`${reportNumber} · `);
    expect(flat(s)).toContain("· draft · jurisdiction NL");
    expect(flat(s)).toContain("Reporting officer (MLRO) name and contact (contactOfficer)");
    expect(flat(s)).toMatch(/Narrative written by the officer, at least \d+ characters, without the draft placeholder/);
    // The file key names what is missing instead of offering a filing.
    await press("first", "F");
    expect(flat(await until("first", (s) => s.includes("✕ not filing-ready")))).toContain("missing: Reporting officer (MLRO) name and contact");
  });

  test("officer A edits the contact field and writes the narrative by keystrokes; the API has both, audited as str.updated by A", async () => {
    await press("first", "e");
    const pick = await until("first", (s) => s.includes("Field of") && s.includes("Reporting officer (MLRO) name and contact *"));
    capture("filing-field", pick);
    // The type's twenty-odd fields in a window that fits the terminal: whole rows, numbered in order, the rest counted.
    const numbers = pick.split("\n").map((l) => /^│ (\d+)\. /.exec(l)?.[1]).filter(Boolean).map(Number);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
    expect(pick).toMatch(/… \d+ more below/);
    const n = /(\d)\. Reporting officer \(MLRO\) name and contact \*/.exec(pick)![1];
    await press("first", n);
    await until("first", (s) => s.includes("Reporting officer (MLRO) name and contact of") && s.includes("now empty"));
    await type("first", CONTACT);
    await until("first", (s) => s.includes(`> ${CONTACT}█`));
    await press("first", "Enter");
    await until("first", (s) => s.includes(`${reportNumber} edited · draft`));
    await until("first", (s) => !flat(s).includes("Reporting officer (MLRO) name and contact (contactOfficer)"));
    expect((await report()).regulatoryData.contactOfficer).toBe(CONTACT);
    await press("first", "n");
    await until("first", (s) => s.includes("Narrative of"));
    await type("first", NARRATIVE);
    await until("first", (s) => flat(s).includes("reported.█"));
    await press("first", "C-s"); // Enter is a new line in the narrative editor; Ctrl-S saves
    const s = await until("first", (s) => s.includes("Ready to file: nothing missing"));
    capture("filing-ready", s);
    const r = await report();
    // The officer's text replaces the drafting placeholder; the facts block Caravan wrote stays below it.
    expect({ head: r.narrative.split("\n\nWhat Caravan recorded:\n")[0], filingReady: r.filingReady, status: r.status }).toEqual({ head: NARRATIVE, filingReady: true, status: "draft" });
    expect(r.narrative).toContain("\n\nWhat Caravan recorded:\n");
    expect(r.narrative).not.toContain("[DRAFT:");
    const audit = (await auditOf(reportId)).filter((e) => e.action === "str.updated");
    expect(audit.map((e) => e.actor.memberId)).toEqual([officerA.memberId, officerA.memberId]);
  });

  test("officer A submits; approving it too is refused on screen in words, and the API refuses it as SAME_MEMBER", async () => {
    await press("first", "s");
    const c = await until("first", (s) => s.includes("Confirm? y / n"));
    expect(flat(c)).toContain(`Submit ${reportNumber} (${reportId}) for review? A second officer approves it.`);
    await press("first", "y");
    await until("first", (s) => s.includes(`${reportNumber} submitted for review · pending_review`));
    expect((await report()).status).toBe("pending_review");
    await until("first", (s) => s.includes("Submitted") && s.includes(officerA.memberEmail.slice(0, 20)));
    await press("first", "a");
    const refused = await until("first", (s) => s.includes("✕ four eyes"));
    capture("filing-four-eyes", refused);
    expect(flat(refused)).toContain("you submitted this report; a second officer approves it");
    const same = await call(`/api/v2/reports/${reportId}/approve`, { method: "POST", session: sessionA });
    expect({ status: same.status, code: same.body.code }).toEqual({ status: 403, code: "SAME_MEMBER" });
    expect((await report()).status).toBe("pending_review");
  });

  test("officer B approves in a second console; officer A files with the FIU's reference; the API and the audit follow", async () => {
    await until("second", (s) => s.includes("compliance_officer") && s.includes("live"));
    await press("second", "6");
    await until("second", (s) => s.includes(reportNumber) && s.includes("pending_review"));
    await press("second", "Enter");
    await until("second", (s) => s.includes("Ready to file: nothing missing"));
    await press("second", "a");
    const c = await until("second", (s) => s.includes("Confirm? y / n"));
    expect(flat(c)).toContain(`Approve ${reportNumber} (${reportId}) (submitted by ${officerA.memberEmail})?`);
    await press("second", "y");
    const approved = await until("second", (s) => s.includes(`${reportNumber} approved · submitted`));
    capture("filing-approved", approved);
    expect(await report()).toMatchObject({ status: "submitted" });
    // A step the report's state does not allow: the API's refusal, verbatim, and nothing changes.
    await press("second", "s");
    await until("second", (s) => s.includes("Confirm? y / n"));
    await press("second", "y");
    expect(flat(await until("second", (s) => s.includes("✕ INVALID_REPORT_STATE")))).toMatch(/✕ INVALID_REPORT_STATE: \S/);
    expect(await report()).toMatchObject({ status: "submitted" });
    // Officer A's console learns of it on a reload (reports send no stream events).
    await press("first", "R");
    await until("first", (s) => s.includes("Approved") && s.includes(officerB.memberEmail.slice(0, 20)));
    await press("first", "F");
    await until("first", (s) => s.includes(`FIU reference for ${reportNumber}`));
    await type("first", REFERENCE);
    await press("first", "Enter");
    const c2 = await until("first", (s) => s.includes("Confirm? y / n"));
    expect(flat(c2)).toContain(`Mark ${reportNumber} (${reportId}) filed with reference ${REFERENCE}? This is final.`);
    await press("first", "y");
    // The flash, then the detail read again: filed, with the reference and no readiness line.
    const filed = await until("first", (s) => s.includes(`${reportNumber} filed as ${REFERENCE}`) && flat(s).includes("· filed · jurisdiction NL") && s.includes(`reference ${REFERENCE}`));
    expect(filed).not.toContain("Ready to file");
    capture("filing-filed", filed);
    expect(await report()).toMatchObject({ status: "filed", filingReference: REFERENCE, filedBy: officerA.memberId });
    const log = (await auditOf(reportId)).map((e) => [e.action, e.actor.memberId]);
    expect(log).toEqual([
      ["str.drafted", officerA.memberId],
      ["str.updated", officerA.memberId],
      ["str.updated", officerA.memberId],
      ["str.submitted", officerA.memberId],
      ["str.approved", officerB.memberId],
      ["str.filed", officerA.memberId],
    ]);
    // Filed reports leave the Filing list.
    await press("first", "Escape");
    await until("first", (s) => s.includes("Filing · 0 not filed") && s.includes("no report waiting to be filed"));
  });

  test("D drafts a report by hand for a transfer: the draft opens with what it needs; the API has it, by A, detected by hand", async () => {
    await press("first", "D");
    await until("first", (s) => s.includes("Draft a suspicion report for transfer (trf_…)"));
    await type("first", transferId);
    await press("first", "Enter");
    await until("first", (s) => s.includes("Jurisdiction (empty: the transfer's, else the company's)"));
    await press("first", "Enter"); // none given: the company's (NL)
    const c = await until("first", (s) => s.includes("Confirm? y / n"));
    expect(flat(c)).toContain(`Draft a suspicion report for ${transferId}?`);
    await press("first", "y");
    const s = await until("first", (s) => /✓ drafted UTR-TEST-2026-000002 \(rpt_/.test(s) && s.includes("Missing for filing"));
    expect(flat(s)).toContain("UTR-TEST-2026-000002 · Unusual Transaction Report (UTR) · draft · jurisdiction NL");
    const drafts = (await call(`/api/v2/reports?transferId=${transferId}`, { key: owner.key })).body.data;
    const byHand = drafts.find((r: { reportNumber: string }) => r.reportNumber === "UTR-TEST-2026-000002");
    expect(byHand).toMatchObject({ status: "draft", jurisdiction: "NL", detectionMethod: "manual", generatedBy: officerA.memberId });
    expect((await auditOf(byHand.id)).map((e) => [e.action, e.actor.memberId])).toEqual([["str.drafted", officerA.memberId]]);
    await press("first", "Escape");
    await until("first", (s) => s.includes("Filing · 1 not filed") && s.split("\n").some((l) => l.startsWith("›UTR-TEST-2026-000002")));
  });
});

describe("Customers: the list, filter as you type, one customer's overview; names masked without pii:view", () => {
  test("officer A: each key typed after / narrows the list; Enter opens the customer's identity, wallets, transfers and cases", async () => {
    await press("first", "7");
    const all = await until("first", (s) => s.includes("Jane Doe") && s.includes("Ana Lima") && s.includes("Bruno Costa"));
    capture("customers-list", all);
    expect(all.split("\n").find((l) => l.includes("Jane Doe"))).toMatch(/Jane Doe\s+ext-jane-001\s+1\s/);
    // Letters that no ID can hold (IDs are Crockford base32: no i, l, o, u), so only names and external IDs match.
    await press("first", "/");
    await until("first", (s) => s.includes("/█"));
    await press("first", "o");
    await until("first", (s) => s.includes("/o█") && s.includes("Jane Doe") && s.includes("Bruno Costa") && !s.includes("Ana Lima"));
    await press("first", "e");
    const narrowed = await until("first", (s) => s.includes("/oe█") && s.includes("Jane Doe") && !s.includes("Bruno Costa") && !s.includes("Ana Lima"));
    capture("customers-filter", narrowed);
    await press("first", "Escape");
    await until("first", (s) => s.includes("Ana Lima") && s.includes("Bruno Costa"));
    await press("first", "/");
    await type("first", "lima");
    await until("first", (s) => s.includes("/lima█") && s.includes("Ana Lima") && !s.includes("Jane Doe"));
    await press("first", "Escape");
    await until("first", (s) => s.includes("Jane Doe") && s.includes("Bruno Costa"));
    await press("first", "/");
    await type("first", "doe");
    await press("first", "Enter");
    await until("first", (s) => s.includes('filter "doe" · 1 of 3') && s.includes("Jane Doe"));
    await press("first", "Enter");
    const o = await until("first", (s) => s.includes(caseNumber) && s.includes("Identity"));
    capture("customers-overview", o);
    expect(o).toContain(`Jane Doe · ${customerId} · external ext-jane-001`);
    expect(o).toContain("Identity    verified");
    expect(o).toMatch(new RegExp(`ethereum\\s+${ORIGIN_ADDR}`, "i"));
    expect(flat(o)).toContain(`${transferId} outgoing 1 ETH rejected`);
    expect(flat(o)).toMatch(new RegExp(`${caseNumber} \\S+ closed rejected`));
    expect(o).not.toContain("personal data masked");
    await press("first", "Escape");
    await until("first", (s) => s.includes('filter "doe" · 1 of 3'));
  });

  test("an analyst (no pii:view) sees every name masked, in the list and the overview, as the API answers", async () => {
    const listed = await call("/api/v2/customers?limit=100", { key: analyst.key });
    expect(listed.status).toBe(200);
    const masked = listed.body.data.find((c: { id: string }) => c.id === customerId).name as string;
    expect(masked).not.toBe("Jane Doe");
    await until("reader", (s) => s.includes("analyst") && s.includes("live"));
    await press("reader", "7");
    const s = await until("reader", (s) => s.includes(masked) && s.includes("ext-ana-002"));
    capture("customers-masked", s);
    for (const name of ["Jane Doe", "Ana Lima", "Bruno Costa"]) expect(s).not.toContain(name);
    await press("reader", "/");
    await type("reader", "ext-jane");
    capture("customers-masked-filter", await until("reader", (s) => s.includes("/ext-jane█") && s.includes(masked) && !s.includes("ext-ana-002")));
    await press("reader", "Enter");
    await until("reader", (s) => s.includes('filter "ext-jane" · 1 of 3'));
    await press("reader", "Enter");
    const o = await until("reader", (s) => s.includes(`${masked} · ${customerId}`) && s.includes("personal data masked"));
    capture("customers-masked-overview", o);
    expect(o).not.toContain("Jane Doe");
    expect(o).toContain(caseNumber);
  });
});

describe("Audit: entries appear as actions are taken, filter by action and actor, Enter shows one; nothing secret", () => {
  const sfx = (id: string) => id.slice(-8);
  /** The action column of each row the list shows. */
  const actions = (s: string) =>
    s
      .split("\n")
      .map((l) => /^[ ›](?:\d\d:\d\d:\d\d|\d\d-\d\d \d\d:\d\d)\s+(\S+)/.exec(l)?.[1])
      .filter(Boolean);

  test("officer A's audit screen: newest first, their own entries marked (me); a transfer created over the API while it is open appears", async () => {
    await press("first", "8");
    const s = await until("first", (s) => s.includes("Audit log · all") && s.includes("str.filed"));
    expect(actions(s).slice(0, 2)).toEqual(["str.drafted", "str.filed"]); // the draft by hand, then the filing
    expect(s.split("\n").find((l) => l.includes("str.filed"))).toContain(`${sfx(officerA.memberId)} (me)`);
    const t = await call("/api/v2/transfers", {
      method: "POST",
      key: owner.key,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      json: { asset: "ETH", amount: "2", network: "ethereum", originatorCustomerId: customerId, originatorAddress: ORIGIN_ADDR, beneficiaryAddress: BENE_ADDR, originator: { originatorPersons: [JANE] }, beneficiary: { beneficiaryPersons: [RICHARD] } },
    });
    expect(t.status).toBe(202);
    const id = t.body.data.id as string;
    const live = await until("first", (s) => s.split("\n").some((l) => l.includes("transfer.held") && l.includes(sfx(id))));
    capture("audit-list", live);
    expect(live.split("\n").find((l) => l.includes("transfer.created") && l.includes(sfx(id)))).toBeTruthy();
    const api = (await auditOf(id)).map((e) => e.action);
    expect(api).toEqual(expect.arrayContaining(["transfer.created", "transfer.held"]));
  });

  test("/ filters by action as you type, then by actor (a member's ID): only the second officer's approval, sign-ins, key and membership are left", async () => {
    await press("first", "/");
    await type("first", "str.");
    const byAction = await until("first", (s) => s.includes("/str.█") && !s.includes("transfer.held"));
    capture("audit-filter-action", byAction);
    expect(actions(byAction)).toEqual(["str.drafted", "str.filed", "str.approved", "str.submitted", "str.updated", "str.updated", "str.drafted"]);
    await press("first", "Escape");
    await until("first", (s) => s.includes("transfer.held"));
    await press("first", "/");
    await type("first", officerB.memberId);
    await press("first", "Enter");
    const byActor = await until("first", (s) => s.includes(`filter "${officerB.memberId}" · 6 of`));
    // The member ID is also the entity of their member.created entry: the filter matches every ID a row holds.
    // Their sign-ins are theirs too (set up with the CLI's code, then signed in at the console), each a session's.
    expect(actions(byActor)).toEqual(["str.approved", "session.signed_in", "session.set_up", "member.setup_code_issued", "api_key.created", "member.created"]);
  });

  test("Enter shows the entry: action, entity, actor with member and key, the detail; no secret anywhere on the audit screens", async () => {
    await press("first", "g"); // the first row: the approval
    await until("first", (s) => s.split("\n").some((l) => l.startsWith("›") && l.includes("str.approved")));
    await press("first", "Enter");
    const one = await until("first", (s) => s.includes("Detail") && s.includes("str.approved · TransactionReport"));
    capture("audit-entry", one);
    expect(one).toContain(`str.approved · TransactionReport ${reportId}`);
    // Approved through officer B's console session: the entry names the member and the session.
    expect(flat(one)).toMatch(new RegExp(`Actor\\s+member ${officerB.memberId} \\(session ses_[0-9a-z]{26}\\)`));
    expect(one).toContain('"from": "pending_review"');
    expect(one).toContain('"to": "submitted"');
    // The provider's credentials were set over the API: the entry names the fields, never their values.
    await press("first", "Escape");
    await until("first", (s) => s.includes(`filter "${officerB.memberId}"`) && !s.includes("Detail"));
    await press("first", "/");
    await press("first", "Escape");
    await until("first", (s) => s.includes("transfer.held") && !s.includes("filter \""));
    await press("first", "/");
    await type("first", "provider.created");
    await press("first", "Enter");
    await until("first", (s) => s.includes('filter "provider.created" · 1 of'));
    await press("first", "Enter");
    const p = await until("first", (s) => s.includes("provider.created · Provider"));
    expect(p).toContain('"privateKey"');
    for (const shown of [one, p]) {
      expect(shown).not.toContain(seed);
      expect(shown).not.toMatch(/crv_(test|live)_/);
      for (const k of [owner, officerA, officerB, analyst]) expect(shown).not.toContain(k.key);
    }
  });
});
