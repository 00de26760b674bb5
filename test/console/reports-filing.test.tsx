// The console carries a report to filing and shows customers, the audit log and rule promotion (Caravan's operator
// routes): keys in, frames and recorded requests out, against a stub API on loopback.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, refuse, mount, frame, keys, until, KEY, ME_OWNER } from "./stub.ts";
import { ApiClient } from "../../src/console/client.ts";

/** A member's console session (the stub takes any credential): what promoting and filing are sent with. */
const SESSION = `crv_sess_${"b".repeat(64)}`;

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const ME_FILER = {
  ...ME_OWNER,
  key: { ...ME_OWNER.key, scopes: [...ME_OWNER.key.scopes, "strs:write", "customers:read", "audit:read", "rules:read", "rules:write"] },
  permissions: [...ME_OWNER.permissions, "strs:update", "reports:create", "customers:view", "audit:view", "rules:view", "rules:create"],
};

const report = (id: string, number: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "suspicion",
  label: "Unusual Transaction Report (UTR)",
  reportNumber: number,
  status: "draft",
  jurisdiction: null,
  transferId: `trf_${id}`,
  filingReady: false,
  generatedBy: "mem_officer",
  filingDeadline: { deadline: "2026-12-01T00:00:00.000Z", daysRemaining: 4, isOverdue: false, isApproaching: false },
  narrative: "[DRAFT: the reporting officer writes the narrative here]",
  riskIndicators: ["Sanctions screening match (sanctions_hit)"],
  regulatoryData: { subjectName: "山田 太郎" },
  ...extra,
});
const readiness = (extra: Record<string, unknown> = {}) => ({
  filingReady: false,
  missing: { fields: ["jurisdiction", "contactOfficer"], narrative: true, labels: ["Jurisdiction (where the report is filed) (jurisdiction)", "Reporting officer (MLRO) name and contact (contactOfficer)", "Narrative written by the officer (narrative)"] },
  fields: [
    { key: "jurisdiction", label: "Jurisdiction (where the report is filed)", required: true },
    { key: "contactOfficer", label: "Reporting officer (MLRO) name and contact", required: true },
    { key: "subjectName", label: "Subject name", required: true },
  ],
  submittedBy: null,
  approvedBy: null,
  reportingThreshold: null,
  ...extra,
});

test("filing: Enter lists what is missing; F refuses before any call while something is; e sets a field, n the narrative, s submits, each through the operator routes", async () => {
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/reports", list([report("r1", "STR-TEST-2026-000001")]))
    .on("GET", "/api/v2/reports/r1", one(report("r1", "STR-TEST-2026-000001")))
    .on("GET", "/api/v2/reports/r1/readiness", one(readiness()))
    .on("PATCH", "/api/v2/reports/r1", (s) => one({ ...report("r1", "STR-TEST-2026-000001"), ...(s.body.jurisdiction ? { jurisdiction: "NL" } : {}) }))
    .on("POST", "/api/v2/reports/r1/submit", one(report("r1", "STR-TEST-2026-000001", { status: "pending_review" })));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("STR-TEST-2026-000001"));
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("Missing for filing"));
  expect(f).toContain("jurisdiction not set");
  expect(f).toContain("• Reporting officer (MLRO) name and contact (contactOfficer)");
  await keys(r, "F");
  await frame(r, (f) => f.includes("✕ not filing-ready, missing: Jurisdiction"));
  expect(stub.requests("POST", "/api/v2/reports/r1/file")).toHaveLength(0);
  // e: pick the second field (contactOfficer), type its value.
  await keys(r, "e");
  await frame(r, (f) => f.includes("Field of STR-TEST-2026-000001 (r1)"));
  await keys(r, "2");
  // The prompt names the field and shows its value.
  await frame(r, (f) => f.includes("Reporting officer (MLRO) name and contact of STR-TEST-2026-000001 (r1), now empty"));
  await keys(r, ..."J. de Vries".split(""), KEY.enter);
  await until(() => stub.requests("PATCH", "/api/v2/reports/r1").length === 1);
  expect(stub.requests("PATCH", "/api/v2/reports/r1")[0].body).toEqual({ fields: { contactOfficer: "J. de Vries" } });
  // The jurisdiction is set through the same key, sent as the jurisdiction.
  await keys(r, "e", "1", "n", "l", KEY.enter);
  await until(() => stub.requests("PATCH", "/api/v2/reports/r1").length === 2);
  expect(stub.requests("PATCH", "/api/v2/reports/r1")[1].body).toEqual({ jurisdiction: "nl" });
  await keys(r, "n");
  await frame(r, (f) => f.includes("Narrative of STR-TEST-2026-000001"));
  await keys(r, ..."Confirmed match.".split(""), KEY.ctrlS);
  await until(() => stub.requests("PATCH", "/api/v2/reports/r1").length === 3);
  expect(stub.requests("PATCH", "/api/v2/reports/r1")[2].body).toEqual({ narrative: "Confirmed match." });
  await keys(r, "s");
  await frame(r, (f) => f.includes("Submit STR-TEST-2026-000001 (r1) for review?"));
  await keys(r, "y");
  await frame(r, (f) => f.includes("✓ STR-TEST-2026-000001 submitted for review · pending_review"));
});

test("filing: the narrative editor takes several lines (a pasted \\r is a line break), keeps the facts block Caravan wrote, and a field prompt shows the current value", async () => {
  const drafted = "[DRAFT: the reporting officer writes the narrative here and removes this line. A report cannot be filed while this line is in it.]\n\nWhat Caravan recorded:\nCase CASE-TEST-2026-000001: Transfer held\nTransfer trf_1: outgoing 1 ETH on ethereum";
  const rep = report("r1", "STR-TEST-2026-000001", { narrative: drafted, regulatoryData: { contactOfficer: "A. Jansen" } });
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/reports", list([rep]))
    .on("GET", "/api/v2/reports/r1", one(rep))
    .on("GET", "/api/v2/reports/r1/readiness", one(readiness()))
    .on("PATCH", "/api/v2/reports/r1", one(rep));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("STR-TEST-2026-000001"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Missing for filing"));
  await keys(r, "e");
  const pick = await frame(r, (f) => f.includes("Field of STR-TEST-2026-000001 (r1)"));
  expect(pick).toContain("Reporting officer (MLRO) name and contact *: A. Jansen");
  await keys(r, "2");
  await frame(r, (f) => f.includes('now "A. Jansen"') && f.includes("> A. Jansen█"));
  await keys(r, KEY.esc);
  await keys(r, "n");
  const ed = await frame(r, (f) => f.includes("Narrative of STR-TEST-2026-000001") && f.includes("kept below as Caravan wrote it"));
  expect(ed).not.toContain("[DRAFT:");
  await keys(r, "First line.", "\r\nSecond line, pasted.", KEY.enter, "Third.");
  await frame(r, (f) => f.includes("Third.█"));
  await keys(r, KEY.ctrlS);
  await until(() => stub.requests("PATCH", "/api/v2/reports/r1").length === 1);
  const body = stub.requests("PATCH", "/api/v2/reports/r1")[0].body as { narrative: string };
  expect(body.narrative).toBe("First line.\nSecond line, pasted.\nThird.\n\nWhat Caravan recorded:\nCase CASE-TEST-2026-000001: Transfer held\nTransfer trf_1: outgoing 1 ETH on ethereum");
  expect(body.narrative).not.toContain("\r");
});

test("filing: approving my own submission or my own draft is refused on screen (four eyes); another officer's is approved; F files with the reference once nothing is missing; a refusal is shown verbatim", async () => {
  let submittedBy = "mem_officer";
  let generatedBy = "mem_officer";
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/reports", list([report("r2", "STR-TEST-2026-000002", { status: "pending_review", filingReady: true })]))
    .on("GET", "/api/v2/reports/r2", () => one(report("r2", "STR-TEST-2026-000002", { status: "pending_review", filingReady: true, generatedBy })))
    .on("GET", "/api/v2/reports/r2/readiness", () => one(readiness({ filingReady: true, missing: { fields: [], narrative: false, labels: [] }, submittedBy: { id: submittedBy, email: `${submittedBy}@example.com` } })))
    .on("POST", "/api/v2/reports/r2/approve", one(report("r2", "STR-TEST-2026-000002", { status: "submitted" })))
    .on("POST", "/api/v2/reports/r2/file", (s) => (s.body.reference === "BAD" ? refuse(409, "INVALID_REPORT_STATE", "only an approved report can be marked filed") : one(report("r2", "STR-TEST-2026-000002", { status: "filed", filingReference: s.body.reference }))));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("STR-TEST-2026-000002"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Ready to file: nothing missing"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("✕ four eyes: you submitted this report"));
  expect(stub.requests("POST", "/api/v2/reports/r2/approve")).toHaveLength(0);
  submittedBy = "mem_other";
  await keys(r, "R");
  await frame(r, (f) => f.includes("Submitted") && f.includes("mem_other@example.com"));
  // Submitted by another, but drafted by me: still not mine to approve.
  await keys(r, "a");
  await frame(r, (f) => f.includes("✕ four eyes: you drafted this report; another officer approves it"));
  expect(stub.requests("POST", "/api/v2/reports/r2/approve")).toHaveLength(0);
  generatedBy = "mem_drafter";
  await keys(r, "R");
  await frame(r, (f) => f.includes("Drafted     by mem_drafter"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("(submitted by mem_other@example.com)"));
  await keys(r, "y");
  await until(() => stub.requests("POST", "/api/v2/reports/r2/approve").length === 1);
  await keys(r, "F", ..."BAD".split(""), KEY.enter, "y");
  await frame(r, (f) => f.includes("✕ INVALID_REPORT_STATE: only an approved report can be marked filed"));
  await keys(r, "F", ..."FIU-NL-42".split(""), KEY.enter);
  await frame(r, (f) => f.includes("with reference FIU-NL-42? This is final."));
  await keys(r, "y");
  await frame(r, (f) => f.includes("✓ STR-TEST-2026-000002 filed as FIU-NL-42"));
});

test("filing: D drafts a report by hand for a transfer; the selection follows the report's ID when a new row arrives above it", async () => {
  let rows = [report("r1", "STR-TEST-2026-000001"), report("r3", "STR-TEST-2026-000003")];
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/reports", () => list(rows))
    .on("GET", "/api/v2/reports/*", (s) => one(report(s.path.split("/")[4], "STR-TEST-2026-000003")))
    .on("GET", "/api/v2/reports/*/readiness", one(readiness()))
    .on("POST", "/api/v2/reports", (s) => ({ status: 201, body: { data: report("r9", "STR-TEST-2026-000009", { transferId: s.body.transferId }), meta: {} } }));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("STR-TEST-2026-000003"));
  await keys(r, "j");
  rows = [report("r0", "STR-TEST-2026-000000"), ...rows];
  await keys(r, "R");
  await frame(r, (f) => f.includes("STR-TEST-2026-000000"));
  await keys(r, KEY.enter);
  await until(() => stub.requests("GET", /^\/api\/v2\/reports\/r\d$/).length > 0);
  expect(stub.requests("GET", /^\/api\/v2\/reports\/r\d$/)[0].path).toBe("/api/v2/reports/r3");
  await keys(r, KEY.esc, "D", ..."trf_abc".split(""), KEY.enter, KEY.enter);
  await frame(r, (f) => f.includes("Draft a suspicion report for trf_abc?"));
  await keys(r, "y");
  await frame(r, (f) => f.includes("✓ drafted STR-TEST-2026-000009 (r9) for trf_abc"));
  expect(stub.requests("POST", "/api/v2/reports")[0].body).toEqual({ transferId: "trf_abc" });
});

test("filing: a role without strs:update reads but is told the true reason (the role, not the key)", async () => {
  // ME_OWNER's key has strs:write; its role (compliance_officer here) lacks strs:update.
  stub = new Stub().on("GET", "/api/v2/reports", list([report("r1", "STR-TEST-2026-000001")]));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("read only: the role compliance_officer lacks strs:update") && f.includes("STR-TEST-2026-000001") && f.includes("● live"));
  expect(r.lastFrame()).not.toContain("the key lacks strs:write");
  await keys(r, "D");
  await frame(r, (f) => f.includes("✕ not allowed: the role compliance_officer lacks strs:update (the key's scope allows it)"));
});

test("filing: a key without strs:write is told it is the key", async () => {
  const me = { ...ME_FILER, key: { ...ME_FILER.key, scopes: ME_FILER.key.scopes.filter((s) => s !== "strs:write") } };
  stub = new Stub(me).on("GET", "/api/v2/reports", list([report("r1", "STR-TEST-2026-000001")]));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("read only: the key lacks strs:write") && f.includes("STR-TEST-2026-000001") && f.includes("● live"));
  await keys(r, "D");
  await frame(r, (f) => f.includes("✕ not allowed: the key lacks strs:write"));
});

test("filing and reports: / filters as you type, and typed characters never act (no screen switch, no open)", async () => {
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/reports", list([report("r1", "STR-TEST-2026-000001"), report("r4", "STR-TEST-2026-000004"), report("r9", "STR-TEST-2026-000009", { jurisdiction: "DE" })]))
    .on("GET", "/api/v2/webhooks", list([{ id: "wh_1", name: "ops hook", url: "https://example.com", status: "active", events: ["*"], consecutiveFailures: 0, createdAt: new Date().toISOString() }]));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("STR-TEST-2026-000009") && f.includes("● live"));
  await keys(r, "/");
  for (const ch of "000004") await keys(r, ch);
  const f = await frame(r, (f) => !f.includes("STR-TEST-2026-000009") && f.includes("STR-TEST-2026-000004"));
  expect(f).toContain("Filing ·");
  expect(f).not.toContain("STR-TEST-2026-000001");
  await keys(r, KEY.enter); // ends the filter; the list stays filtered, still Filing
  const kept = await frame(r, (f) => f.includes(`filter "000004"`));
  expect(kept).toContain("Filing ·");
  expect(kept).not.toContain("Webhook subscriptions");
  // `:filter` and the sort keys work there too.
  await keys(r, ":");
  for (const ch of "filter DE") await keys(r, ch);
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("STR-TEST-2026-000009") && !f.includes("STR-TEST-2026-000004"));
  // Reports: the same.
  await keys(r, "5");
  await frame(r, (f) => f.includes("Reports ·") && f.includes("STR-TEST-2026-000001"));
  await keys(r, "/");
  for (const ch of "000001") await keys(r, ch);
  const rep = await frame(r, (f) => f.includes("Reports ·") && !f.includes("STR-TEST-2026-000004") && f.includes("STR-TEST-2026-000001"));
  expect(rep).not.toContain("Webhook subscriptions");
  expect(stub.requests("GET", "/api/v2/reports/r1")).toHaveLength(0); // nothing opened while typing
});

test("filing: a on the list acts on the selected report (opens it, asks to approve), never silently nothing", async () => {
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/reports", list([report("r1", "STR-TEST-2026-000001", { status: "pending_review" })]))
    .on("GET", "/api/v2/reports/r1", one(report("r1", "STR-TEST-2026-000001", { status: "pending_review" })))
    .on("GET", "/api/v2/reports/r1/readiness", one(readiness({ submittedBy: { id: "mem_other", email: "other@example.com" } })));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("STR-TEST-2026-000001") && f.includes("● live"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("Approve STR-TEST-2026-000001 (r1)"));
});

test("customers: Enter shows identity status, wallets, transfers and their cases from the overview route", async () => {
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/customers", list([{ id: "cus_1", name: "Jane Doe", externalId: "user-1", walletCount: 1, createdAt: new Date().toISOString() }]))
    .on(
      "GET",
      "/api/v2/customers/cus_1/overview",
      one({
        customer: { id: "cus_1", name: "Jane Doe", externalId: "user-1", identityStatus: "verified", identityCountry: "NL", createdAt: new Date().toISOString() },
        wallets: [{ id: "wal_1", network: "ethereum", address: "0xabc", verified: true }],
        transfers: [{ id: "trf_9", direction: "outgoing", state: "held", amount: "2.5", asset: "ETH", protocol: "provider_b", createdAt: new Date().toISOString() }],
        cases: [{ id: "cas_1", caseNumber: "CASE-TEST-2026-000004", type: "sanctions_hit", status: "open", resolution: null, priority: "high", transferIds: ["trf_9"] }],
      }),
    );
  const r = mount(stub, "customers");
  await frame(r, (f) => f.includes("Jane Doe") && f.includes("user-1"));
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("CASE-TEST-2026-000004"));
  expect(f).toContain("Identity    verified (NL)");
  expect(f).toMatch(/ethereum\s+0xabc verified/);
  expect(f).toContain("trf_9 outgoing 2.5 ETH held via provider_b");
});

test("customers: R reloads the list now (customers send no stream events), and / narrows it as you type", async () => {
  const jane = { id: "cus_1", name: "Jane Doe", externalId: "user-1", walletCount: 1, createdAt: new Date().toISOString() };
  const ana = { id: "cus_2", name: "Ana Lima", externalId: "user-2", walletCount: 0, createdAt: new Date().toISOString() };
  let rows = [jane];
  stub = new Stub(ME_FILER).on("GET", "/api/v2/customers", () => list(rows));
  const r = mount(stub, "customers");
  await frame(r, (f) => f.includes("Jane Doe"));
  rows = [ana, jane];
  const before = stub.requests("GET", "/api/v2/customers").length;
  await keys(r, "R");
  await frame(r, (f) => f.includes("Ana Lima") && f.includes("Jane Doe"));
  expect(stub.requests("GET", "/api/v2/customers").length).toBe(before + 1);
  await keys(r, "/", "a", "n");
  await frame(r, (f) => f.includes("/an█") && f.includes("Ana Lima") && f.includes("Jane Doe"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("/ana█") && f.includes("Ana Lima") && !f.includes("Jane Doe"));
});

test("audit: entries newest first; f filters by entity type; Enter shows one entry's detail", async () => {
  const entry = { id: "aud_1", action: "str.filed", entityType: "TransactionReport", entityId: "rpt_1", actor: { type: "member", memberId: "mem_b", apiKeyId: "key_9" }, detail: { filingReference: "FIU-1" }, environment: "test", createdAt: new Date().toISOString() };
  const checkpoint = { origin: "caravan/x/audit/cmp_default/test", treeSize: 42, rootHash: "8JgfwKYnkREbsCAQztqq/6quo9conBna/cTWA0aLA0Y=", timestamp: "2026-12-01T21:51:14.500Z", keyId: "ee6ab866e09a9df7" };
  stub = new Stub(ME_FILER).on("GET", "/api/v2/audit-log", list([entry])).on("GET", "/api/v2/audit-log/checkpoints/latest", one(checkpoint));
  const r = mount(stub, "audit");
  await frame(r, (f) => f.includes("str.filed") && f.includes("rpt_1"));
  // The log's latest signed checkpoint, to compare with one kept elsewhere.
  await frame(r, (f) => f.includes("Checkpoint  42 entries · root 8JgfwKYnkREbsCAQ… · 2026-12-01T21:51:14.500Z · key ee6ab866e09a9df7"));
  await keys(r, "f");
  await until(() => stub.requests("GET", "/api/v2/audit-log").some((s) => s.query.get("entityType") === "TransactionReport"));
  await frame(r, (f) => f.includes("Audit log · TransactionReport · 1") && f.includes("rpt_1"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes('"filingReference": "FIU-1"') && f.includes("member mem_b (key key_9)"));
});

test("rules: signed in to live, p promotes the selected test rule after a confirmation naming it; one already live is refused on screen; the session is the credential sent", async () => {
  const live = { ...ME_FILER, environment: "live" };
  stub = new Stub(live)
    .on("GET", "/api/v2/rules/promotable", list([
      { id: "rul_a", name: "Large USDC", action: "require_review", isActive: true, conditionCount: 2, promotedTo: null },
      { id: "rul_b", name: "Old", action: "flag", isActive: true, conditionCount: 1, promotedTo: "rul_live" },
    ]))
    .on("POST", "/api/v2/rules/rul_a/promote", { status: 201, body: { data: { id: "rul_new", name: "Large USDC", conditionCount: 2 }, meta: { promotedFrom: "rul_a" } } });
  const r = mount(stub, "rules", { client: new ApiClient({ url: stub.url, session: SESSION }) });
  await frame(r, (f) => f.includes("Large USDC") && f.includes("p promote to live"));
  await keys(r, "p");
  await frame(r, (f) => f.includes('Copy test rule rul_a "Large USDC" (require_review, 2 conditions, active) to live?'));
  await keys(r, "y");
  await frame(r, (f) => f.includes('✓ promoted rul_a "Large USDC" to live as rul_new (2 conditions)'));
  await keys(r, "j", "p");
  await frame(r, (f) => f.includes("✕ rul_b is live already as rul_live"));
  expect(stub.requests("POST", /promote$/)).toHaveLength(1);
  const sent = stub.requests("POST", /promote$/)[0].headers;
  expect(sent.get("authorization")).toBe(`Bearer ${SESSION}`);
  expect(sent.get("x-api-key")).toBeNull();
});

test("rules: with a live key, p says promoting is an officer's sign-in, and sends nothing", async () => {
  stub = new Stub({ ...ME_FILER, environment: "live" }).on("GET", "/api/v2/rules/promotable", list([{ id: "rul_a", name: "Large USDC", action: "require_review", isActive: true, conditionCount: 2, promotedTo: null }]));
  const r = mount(stub, "rules");
  await frame(r, (f) => f.includes("Large USDC") && f.includes("promoting needs a member's sign-in"));
  await keys(r, "p");
  await frame(r, (f) => f.includes("✕ promoting a rule is an officer's: open the console without --key and sign in"));
  expect(stub.requests("POST", /promote$/)).toHaveLength(0);
});

test("rules: in test, the screen says promotion needs a live sign-in", async () => {
  stub = new Stub(ME_FILER).on("GET", "/api/v2/rules", list([{ id: "rul_a", name: "Large USDC", action: "flag", isActive: true, conditionCount: 1 }]));
  const t = mount(stub, "rules");
  await frame(t, (f) => f.includes("promotion to live needs a live sign-in") && f.includes("Large USDC") && f.includes("● live"));
  await keys(t, "p");
  await frame(t, (f) => f.includes("✕ promotion changes live: sign in to the live environment"));
});

test("rules: the list shows stage, severity and category; Enter opens a rule with its conditions in words, the code beside them", async () => {
  const rule = { id: "rul_a", name: "Watch-list name hit", description: null, category: "sanctions", stage: "precheck", action: "require_review", severity: "high", isActive: true, threshold: null, thresholdCurrency: null, jurisdictions: [], asset: null, network: null, thresholdOperator: null, conditionCount: 1, environment: "test", createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/rules", list([rule]))
    .on("GET", "/api/v2/rules/rul_a", one({ ...rule, conditions: [{ type: "if", action: "require_review", field: null, query: "content.data.total_hits", integrationId: "int_c", integrationName: "screening_c", operator: "gt", value: "0", subjectMatch: "any" }] }));
  const r = mount(stub, "rules");
  const f = await frame(r, (f) => f.includes("Watch-list name hit") && f.includes("● live"));
  expect(f.split("\n").find((l) => l.includes("Watch-list name hit"))).toMatch(/require_review\s+precheck\s+high\s+sanctions/);
  await keys(r, KEY.enter);
  const d = await frame(r, (f) => f.includes("Conditions (1)"));
  expect(d).toContain("Does        hold for review (require_review) · sanctions · severity high");
  expect(d).toContain("if the number of watch-list hits from screening_c is more than 0: hold for review");
  expect(d).toContain("if screening_c content.data.total_hits gt 0 → require_review");
  await keys(r, KEY.esc);
  await frame(r, (f) => !f.includes("Conditions (1)") && f.includes("Watch-list name hit"));
});

test("customers: the overview gives totals (transfers, amount per direction and asset, held, open cases); t picks a transfer and Enter opens it on Transfers", async () => {
  const { transferItem, transferDetail } = await import("./fixtures.ts");
  const at = new Date().toISOString();
  stub = new Stub(ME_FILER)
    .on("GET", "/api/v2/customers", list([{ id: "cus_1", name: "Jane Doe", externalId: "user-1", walletCount: 1, createdAt: at }]))
    .on("GET", "/api/v2/transfers", list([transferItem("trf_8", { state: "completed" }), transferItem("trf_9", { state: "held" })]))
    .on("GET", "/api/v2/transfers/*", (q) => one(transferDetail(q.path.split("/").pop()!, { state: "completed" })))
    .on(
      "GET",
      "/api/v2/customers/cus_1/overview",
      one({
        customer: { id: "cus_1", name: "Jane Doe", externalId: "user-1", identityStatus: "verified", identityCountry: "NL", createdAt: at },
        wallets: [],
        transfers: [
          { id: "trf_9", direction: "outgoing", state: "held", amount: "2.5", asset: "ETH", protocol: null, createdAt: at },
          { id: "trf_8", direction: "outgoing", state: "completed", amount: "0.25", asset: "ETH", protocol: null, createdAt: at },
        ],
        cases: [{ id: "cas_1", caseNumber: "CASE-TEST-2026-000004", type: "sanctions_hit", status: "open", resolution: null, priority: "high", transferIds: ["trf_9"] }],
      }),
    );
  const r = mount(stub, "customers");
  await frame(r, (f) => f.includes("Jane Doe"));
  await keys(r, KEY.enter);
  const f = await frame(r, (f) => f.includes("Totals"));
  expect(f).toContain("Totals      2 transfers · out 2.75 ETH · 1 held · 1 open case of 1");
  expect(f).toMatch(/› \S+ \S+ trf_9 outgoing/);
  await keys(r, "t");
  await frame(r, (f) => /› \S+ \S+ trf_8 outgoing/.test(f));
  await keys(r, KEY.enter);
  // The Transfers screen, on trf_8's detail (as `:trf_8` does).
  const t = await frame(r, (f) => f.includes("Transfers ·") && f.includes("trf_8 · outgoing · completed"));
  expect(t).not.toContain("Totals");
  expect(stub.requests("GET", "/api/v2/transfers/trf_9")).toHaveLength(0);
});
