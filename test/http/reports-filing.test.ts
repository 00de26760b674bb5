// Caravan's operator routes for reports over real HTTP, against a real server: a rejected resolution drafts a report
// even with no jurisdiction known; drafting by hand for any transfer of the environment (completed, rejected,
// incoming, provider_a or provider_e carried); edit, submit, approve by a second officer, file with a reference, each
// through a member's console session (an API key is OFFICER_SESSION_REQUIRED); four eyes on the drafter, the last
// editor and the submitter; the same audit as the CLI; and the PDF rendered by poppler (pdftotext, pdftoppm).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { JANE, RICHARD } from "../support/persons.ts";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { loadMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { newId, iso } from "../../src/domain/ids.ts";
import { NARRATIVE_PLACEHOLDER } from "../../src/domain/reports/report.ts";
import { parseXml, childNames, child } from "../support/xml.ts";

setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "filing.db");
const { cli, newKey, newSession, call } = apiClient(db, () => S.url);
let S: ChildServer;
let peer: ProviderBPeer;
let storage: Storage;
let pii: Sealer;
let companyId: string;
type Key = { key: string; id: string; memberId: string; memberEmail: string };
let owner: Key, officerA: Key, officerB: Key, analyst: Key, noStrsWrite: Key;
/** The members' console sessions (test environment): the operator routes take these, not keys. */
let ownerS: string, officerAS: string, officerBS: string, analystS: string;

const japanese = [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "山田", secondaryIdentifier: "太郎", nameIdentifierType: "LEGL" }, { primaryIdentifier: "やまだ", secondaryIdentifier: "たろう", nameIdentifierType: "ALIA" }] }, countryOfResidence: "JP" } }];
const dutch = [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "van Dijk", secondaryIdentifier: "Anna", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } }];

/** A transfer row as the actors write it: sealed identities, priced in EUR (fx valuation), of the given kind. */
function seedTransfer(o: { state: string; status?: string; direction?: "outgoing" | "incoming"; protocol?: string | null; jurisdiction?: string }): string {
  const id = newId("trf", Date.now());
  const fx = newId("fxv", Date.now());
  const at = iso(Date.now());
  storage.stmt("INSERT INTO fx_valuations (id, company_id, environment, asset_id, amount, currency, rate, value, source, rate_as_of, created_at) VALUES (?, ?, 'test', 'ast_eth', '2.5', 'EUR', '3120.40', '7801.00', 'coingecko', ?, ?)").run(fx, companyId, at, at);
  const [orig, bene] = o.direction === "incoming" ? [dutch, japanese] : [japanese, dutch];
  storage
    .stmt(
      `INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, originator_address, originator_sealed, beneficiary_sealed, protocol, threshold_info, fx_rate_id, created_at, updated_at)
       VALUES (?, ?, 'test', ?, ?, ?, 'ETH', '2.5', 'ethereum', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', '0x1111111111111111111111111111111111111111', ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      companyId,
      o.direction ?? "outgoing",
      o.state,
      o.status ?? o.state,
      pii.seal(JSON.stringify(orig), `transfer:${id}:originator`),
      pii.seal(JSON.stringify(bene), `transfer:${id}:beneficiary`),
      o.protocol ?? null,
      JSON.stringify({ jurisdiction: o.jurisdiction ?? "DEFAULT" }),
      fx,
      at,
      at,
    );
  return id;
}

async function until<T>(what: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await what();
    if (v !== undefined) return v;
    await Bun.sleep(50);
  }
}

/** The PDF through the API, its text as poppler lays it out, and page one rasterised. */
async function pdf(id: string, key = owner.key): Promise<{ text: string; png: number }> {
  const res = await fetch(`${S.url}/api/v2/reports/${id}/download?format=pdf`, { headers: { "x-api-key": key } });
  expect(res.status).toBe(200);
  const path = join(dir, `${id}.pdf`);
  await Bun.write(path, new Uint8Array(await res.arrayBuffer()));
  // -raw: the content stream's order (label, then its value), not the page's columns.
  const text = Bun.spawnSync(["pdftotext", "-raw", path, "-"]).stdout.toString();
  const r = Bun.spawnSync(["pdftoppm", "-f", "1", "-l", "1", "-r", "40", "-png", path, join(dir, id)]);
  expect(r.exitCode).toBe(0);
  const png = (await Bun.file(join(dir, `${id}-1.png`)).arrayBuffer()).byteLength;
  // Lines wrapped by the layout are joined: the assertions read the document's sentences.
  return { text: text.replace(/\s+/g, " "), png };
}

const auditOf = (entityId: string) =>
  (storage.stmt("SELECT action, member_id, detail FROM audit_log WHERE entity_id = ? ORDER BY seq").all(entityId) as { action: string; member_id: string | null; detail: string }[]).map((a) => ({
    action: a.action,
    member: a.member_id,
    detail: JSON.parse(a.detail),
  }));

const ORIGIN_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
let customerId: string;

beforeAll(async () => {
  // A real transfer held by a field rule: the provider_b sandbox network carries it; the company has no country and
  // no threshold, so the FATF fallback applies and no jurisdiction is known for its report.
  peer = await startProviderBPeer({ vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { richard: [RICHARD] }, wallets: [{ address: BENE_ADDR, customer: "richard" }] }] });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  owner = await newKey("--env", "test", "--role", "owner");
  const live = await newKey("--env", "live", "--role", "owner", "--member", owner.memberEmail);
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", PROVIDER_B_ALLOWED_IPS: "127.0.0.1" });
  const seed = randomSeedBase64();
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const key of [owner.key, live.key]) expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: live.key, json: { enabled: true } })).status).toBe(200);
  peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url, legalName: "Caravan Test VASP", country: "NL" });
  const c = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Jane Doe" } });
  customerId = c.body.data.id;
  expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: owner.key, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
  expect((await call("/api/v2/wallets", { method: "POST", key: owner.key, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } })).status).toBe(201);
  officerA = await newKey("--env", "test", "--role", "compliance_officer");
  officerB = await newKey("--env", "test", "--role", "compliance_officer");
  analyst = await newKey("--env", "test", "--role", "analyst");
  noStrsWrite = await newKey("--env", "test", "--role", "owner", "--scopes", "reports:read,strs:read,transfers:read");
  [ownerS, officerAS, officerBS, analystS] = await Promise.all([owner, officerA, officerB, analyst].map(async (k) => (await newSession({ email: k.memberEmail })).token));
  storage = await openStorage(db, { migrate: false });
  pii = new Sealer(loadMasterKey(db, {}).derive("pii"));
  companyId = (storage.stmt("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;
});

afterAll(async () => {
  storage?.close();
  await S?.stop();
  await peer?.stop();
});

let drafted: { id: string; caseNumber: string; caseId: string };

describe("a rejected resolution drafts the report, always", () => {
  test("no company country, FATF fallback: jurisdiction ZZ (always an upper-case alpha-2 code, never null), filingReady false, jurisdiction listed as missing; the PDF is marked DRAFT", async () => {
    const rule = await call("/api/v2/rules", { method: "POST", key: owner.key, json: { name: "Review every ETH transfer", category: "aml", stage: "precheck", action: "require_review", condition: { rules: [{ type: "if", field: "asset", operator: "eq", value: "ETH", action: "require_review" }] } } });
    expect(rule.status).toBe(201);
    const created = await call("/api/v2/transfers", {
      method: "POST",
      key: owner.key,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      json: { asset: "ETH", amount: "1", network: "ethereum", originatorCustomerId: customerId, originatorAddress: ORIGIN_ADDR, beneficiaryAddress: BENE_ADDR, originator: { originatorPersons: [JANE] }, beneficiary: { beneficiaryPersons: [RICHARD] } },
    });
    expect(created.status).toBe(202);
    const t = created.body.data.id as string;
    const c = { body: { data: await until(async () => (await call("/api/v2/cases?hasTransfer=true&limit=200", { key: owner.key })).body.data.find((x: { transferIds: string[] }) => x.transferIds.includes(t))) } };
    await call(`/api/v2/rules/${rule.body.data.id}`, { method: "DELETE", key: owner.key });
    const r = await call(`/api/v2/cases/${c.body.data.id}/resolve`, { method: "POST", key: owner.key, json: { resolution: "rejected", resolutionNote: "Confirmed match" } });
    expect(r.body.meta.transferAction).toEqual({ transferId: t, result: "queued" });
    const report = await until(async () => (await call(`/api/v2/reports?transferId=${t}`, { key: owner.key })).body.data[0]);
    expect(report).toMatchObject({ jurisdiction: "ZZ", filingReady: false, status: "draft", generatedBy: owner.memberId });
    expect((await call(`/api/v2/reports/${report.id}`, { key: owner.key })).body.data.jurisdiction).toBe("ZZ");
    // The list finds the reports still waiting for their jurisdiction with ZZ, in any case.
    expect((await call("/api/v2/reports?jurisdiction=zz", { key: owner.key })).body.data.map((x: { id: string }) => x.id)).toContain(report.id);
    expect((await call("/api/v2/reports?jurisdiction=NL", { key: owner.key })).body.data.map((x: { id: string }) => x.id)).not.toContain(report.id);
    const ready = await call(`/api/v2/reports/${report.id}/readiness`, { key: owner.key });
    expect(ready.body.data.jurisdiction).toBe("ZZ");
    expect(ready.body.data.missing.fields[0]).toBe("jurisdiction");
    expect(ready.body.data.missing.narrative).toBe(true);
    drafted = { id: report.id, caseNumber: c.body.data.caseNumber, caseId: c.body.data.id };
    const { text } = await pdf(report.id);
    expect(text).toContain("DRAFT");
    expect(text).toContain("Not set: the officer sets the jurisdiction before filing");
  });

  test("the PDF of a draft: placeholder narrative marked, indicators in words with their code, case number not its ID, fiat value and rate, times with zone, names in the identity's order, missing fields listed", async () => {
    const { text, png } = await pdf(drafted.id);
    expect(png).toBeGreaterThan(1000);
    expect(text).toContain("Not yet written by the reporting officer");
    expect(text).toContain(NARRATIVE_PLACEHOLDER.slice(0, 40));
    expect(text).toContain("Held for compliance review by a screening rule (compliance_review)");
    expect(text).toContain('Screening rule "Review every ETH transfer" fired, severity medium (rule)');
    expect(text).toContain("Transfer rejected by an officer on review (rejected_on_review)");
    expect(text).toContain(`Case number ${drafted.caseNumber}`);
    expect(text).not.toContain(drafted.caseId);
    expect(text).toMatch(/Value in fiat [\d.]+ USD at [\d.]+ USD per ETH \([^,]+, rate of \d{1,2} \w+ \d{4}, \d\d:\d\d:\d\d UTC\)/);
    expect(text).toMatch(/Generated at \d{1,2} \w+ \d{4}, \d\d:\d\d:\d\d UTC/);
    expect(text).not.toMatch(/Generated at \d{4}-\d\d-\d\dT/);
    // Latin script: given name first, the family name named, never "family, given".
    expect(text).toContain("Subject name Jane Doe");
    expect(text).toContain("Jane Doe (legal name; family name Doe, given name Jane)");
    expect(text).not.toContain("Doe, Jane");
    expect(text).toContain("Missing for filing");
    expect(text).toContain("Jurisdiction (where the report is filed) (jurisdiction)");
    expect(text).toContain("Reporting officer (MLRO) name and contact (contactOfficer)");
  });
});

describe("the customer overview (operator route for the console's customer view)", () => {
  test("identity status, wallets, the customer's transfers and the cases linked to them; the name masked without pii:view", async () => {
    const o = await call(`/api/v2/customers/${customerId}/overview`, { key: owner.key });
    expect(o.status).toBe(200);
    expect(o.body.data.customer).toMatchObject({ id: customerId, name: "Jane Doe", identityStatus: "verified" });
    expect(o.body.data.wallets.map((w: { address: string }) => w.address)).toEqual([ORIGIN_ADDR]);
    const held = o.body.data.transfers.find((t: { state: string }) => t.state === "rejected");
    expect(held).toBeDefined();
    expect(o.body.data.cases.find((c: { transferIds: string[] }) => c.transferIds.includes(held.id)).caseNumber).toBe(drafted.caseNumber);
    const masked = await call(`/api/v2/customers/${customerId}/overview`, { key: analyst.key });
    expect(masked.body.data.customer.name).not.toBe("Jane Doe");
    expect(masked.body.meta.piiMasked).toBe(true);
    expectError(await call(`/api/v2/customers/cus_${"0".repeat(26)}/overview`, { key: owner.key }), 404, "CUSTOMER_NOT_FOUND");
  });
});

describe("carried to filing through the operator routes", () => {
  test("edit sets the jurisdiction, fields and narrative; submit by one officer; approve by the same → 403 SAME_MEMBER; by a second → submitted; file with a reference → filed", async () => {
    const patch = (json: unknown, session = officerAS) => call(`/api/v2/reports/${drafted.id}`, { method: "PATCH", session, json });
    const submitEarly = await call(`/api/v2/reports/${drafted.id}/submit`, { method: "POST", session: officerAS });
    expectError(submitEarly, 409, "NOT_FILING_READY");
    const e1 = await patch({ jurisdiction: "nl", fields: { contactOfficer: "J. de Vries, MLRO, +31 20 555 0100", filingInstitutionCountry: "NL" } });
    expect(e1.status).toBe(200);
    expect(e1.body.data.jurisdiction).toBe("NL");
    expect(e1.body.data.readiness.missing.fields).not.toContain("jurisdiction");
    expect(e1.body.data.readiness.missing.narrative).toBe(true);
    const narrative = "On 27 November the customer attempted to send 2.5 ETH to a counterparty whose name matched a sanctions watch-list entry; the officer confirmed the match against the list's date of birth and rejected the transfer.";
    const e2 = await patch({ narrative });
    expect(e2.body.data.filingReady).toBe(true);
    expect(e2.body.data.readiness.missing.labels).toEqual([]);
    const s = await call(`/api/v2/reports/${drafted.id}/submit`, { method: "POST", session: officerAS });
    expect(s.status).toBe(200);
    expect(s.body.data.status).toBe("pending_review");
    expect(s.body.data.readiness.submittedBy.id).toBe(officerA.memberId);
    expectError(await call(`/api/v2/reports/${drafted.id}/approve`, { method: "POST", session: officerAS }), 403, "SAME_MEMBER");
    const a = await call(`/api/v2/reports/${drafted.id}/approve`, { method: "POST", session: officerBS });
    expect(a.body.data.status).toBe("submitted");
    expectError(await call(`/api/v2/reports/${drafted.id}`, { method: "PATCH", session: officerBS, json: { narrative: "x" } }), 409, "INVALID_REPORT_STATE");
    expectError(await call(`/api/v2/reports/${drafted.id}/file`, { method: "POST", session: officerBS, json: { reference: "  " } }), 422, "REFERENCE_REQUIRED");
    expectError(await call(`/api/v2/reports/${drafted.id}/file`, { method: "POST", session: officerBS, json: {} }), 422, "VALIDATION_ERROR");
    const f = await call(`/api/v2/reports/${drafted.id}/file`, { method: "POST", session: officerBS, json: { reference: "FIU-NL-2026-0042" } });
    expect(f.body.data).toMatchObject({ status: "filed", filingReference: "FIU-NL-2026-0042", filedBy: officerB.memberId });
    const log = auditOf(drafted.id).map((x) => [x.action, x.member]);
    expect(log).toEqual([
      // Drafted by the resolution: the resolving member is its author.
      ["str.drafted", owner.memberId],
      ["str.downloaded", owner.memberId],
      ["str.downloaded", owner.memberId],
      ["str.updated", officerA.memberId],
      ["str.updated", officerA.memberId],
      ["str.submitted", officerA.memberId],
      ["str.approved", officerB.memberId],
      ["str.filed", officerB.memberId],
    ]);
    // Values of the fields are personal data: the audit names the keys only.
    expect(auditOf(drafted.id)[3].detail).toMatchObject({ fields: ["contactOfficer", "filingInstitutionCountry"], jurisdiction: { from: "ZZ", to: "NL" } });
    const { text } = await pdf(drafted.id);
    expect(text).not.toContain("Missing for filing");
    expect(text).toContain(narrative.slice(0, 60));
    expect(text).toContain("FIU-NL-2026-0042");
  });

  test("four eyes that hold: whoever drafted, last edited or submitted a report cannot approve it (an owner neither); a fourth member can", async () => {
    const officerCS = (await newSession("compliance_officer")).token;
    const t = seedTransfer({ state: "completed", jurisdiction: "NL" });
    // Officer A drafts by hand; officer B completes it (last editor); the owner submits.
    const d = await call("/api/v2/reports", { method: "POST", session: officerAS, json: { transferId: t } });
    expect(d.status).toBe(201);
    const id = d.body.data.id;
    const narrative = "The customer sent 2.5 ETH to an address the officer linked to a fraud report; the counterparty confirmed the beneficiary could not be identified.";
    const e = await call(`/api/v2/reports/${id}`, { method: "PATCH", session: officerBS, json: { narrative, fields: { contactOfficer: "J. de Vries, MLRO, +31 20 555 0100", filingInstitutionCountry: "NL" } } });
    expect(e.body.data.filingReady).toBe(true);
    expect((await call(`/api/v2/reports/${id}/submit`, { method: "POST", session: ownerS })).body.data.status).toBe("pending_review");
    const drafter = await call(`/api/v2/reports/${id}/approve`, { method: "POST", session: officerAS });
    expectError(drafter, 403, "SAME_MEMBER");
    expect(drafter.body.error).toContain("drafted");
    const editor = await call(`/api/v2/reports/${id}/approve`, { method: "POST", session: officerBS });
    expectError(editor, 403, "SAME_MEMBER");
    expect(editor.body.error).toContain("last edited");
    const submitter = await call(`/api/v2/reports/${id}/approve`, { method: "POST", session: ownerS });
    expectError(submitter, 403, "SAME_MEMBER");
    expect(submitter.body.error).toContain("submitted");
    const ok = await call(`/api/v2/reports/${id}/approve`, { method: "POST", session: officerCS });
    expect(ok.body.data.status).toBe("submitted");
    // Each step names its member and the session it came from.
    const rows = storage.stmt("SELECT action, member_id, session_id FROM audit_log WHERE entity_id = ? ORDER BY seq").all(id) as { action: string; member_id: string; session_id: string | null }[];
    expect(rows.map((r) => r.action)).toEqual(["str.drafted", "str.updated", "str.submitted", "str.approved"]);
    expect(rows.every((r) => typeof r.session_id === "string" && r.session_id.startsWith("ses_"))).toBe(true);
    expect(auditOf(id).slice(1).map((a) => a.detail.via)).toEqual(["console", "console", "console"]);
  });

  test("refusals: an analyst's session → INSUFFICIENT_PERMISSION (no strs:update); any API key → OFFICER_SESSION_REQUIRED; unknown report → 404; unknown field → 422", async () => {
    const t = seedTransfer({ state: "completed" });
    expectError(await call("/api/v2/reports", { method: "POST", session: analystS, json: { transferId: t } }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call("/api/v2/reports", { method: "POST", key: noStrsWrite.key, json: { transferId: t } }), 403, "OFFICER_SESSION_REQUIRED");
    expectError(await call("/api/v2/reports", { method: "POST", key: owner.key, json: { transferId: t } }), 403, "OFFICER_SESSION_REQUIRED");
    expectError(await call(`/api/v2/reports/rpt_${"0".repeat(26)}/submit`, { method: "POST", session: ownerS }), 404, "REPORT_NOT_FOUND");
    expectError(await call("/api/v2/reports", { method: "POST", session: ownerS, json: { transferId: `trf_${"0".repeat(26)}` } }), 422, "TRANSFER_NOT_FOUND");
    const d = await call("/api/v2/reports", { method: "POST", session: ownerS, json: { transferId: t, jurisdiction: "US" } });
    expectError(await call(`/api/v2/reports/${d.body.data.id}`, { method: "PATCH", session: ownerS, json: { fields: { favouriteColour: "blue" } } }), 422, "VALIDATION_ERROR");
    expectError(await call(`/api/v2/reports/${d.body.data.id}`, { method: "PATCH", session: ownerS, json: { jurisdiction: "EU" } }), 422, "VALIDATION_ERROR");
    // A pasted Windows line break is stored as \n, never a raw \r.
    expect((await call(`/api/v2/reports/${d.body.data.id}`, { method: "PATCH", session: ownerS, json: { narrative: "First line.\r\nSecond line.\rThird." } })).status).toBe(200);
    expect((await call(`/api/v2/reports/${d.body.data.id}`, { session: ownerS })).body.data.narrative).toBe("First line.\nSecond line.\nThird.");
    expectError(await call(`/api/v2/reports/${d.body.data.id}`, { method: "PATCH", session: ownerS, json: {} }), 422, "VALIDATION_ERROR");
  });
});

describe("drafting by hand", () => {
  test.each([
    ["completed outgoing", { state: "completed" }],
    ["rejected", { state: "rejected" }],
    ["incoming", { state: "completed", direction: "incoming" as const }],
    ["carried by provider_a", { state: "accepted", protocol: "provider_a" }],
    ["carried by provider_e", { state: "awaiting_counterparty", protocol: "provider_e" }],
  ])("%s: drafted by the member, detection manual, str.drafted as a case's draft", async (_name, kind) => {
    const t = seedTransfer({ ...kind, jurisdiction: "DE" });
    const r = await call("/api/v2/reports", { method: "POST", session: officerAS, json: { transferId: t } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ transferId: t, status: "draft", jurisdiction: "DE", detectionMethod: "manual", generatedBy: officerA.memberId, filingReady: false });
    expect(r.body.data.riskIndicators).toEqual(["drafted_by_hand"]);
    expect(r.body.data.narrative.startsWith(NARRATIVE_PLACEHOLDER)).toBe(true);
    // Our customer is the subject: the originator of an outgoing transfer, the beneficiary of an incoming one.
    expect(r.body.data.regulatoryData.subjectName).toBe("山田 太郎");
    const audit = auditOf(r.body.data.id);
    expect(audit.map((a) => [a.action, a.member])).toEqual([["str.drafted", officerA.memberId]]);
    expect(audit[0].detail).toMatchObject({ transferId: t, caseId: null, detectionMethod: "manual", jurisdiction: "DE" });
  });

  test("the PDF of a report drafted by hand prints a Japanese name family name first as the identity gives it, its alias after it, and the fiat value with its rate", async () => {
    const t = seedTransfer({ state: "completed", jurisdiction: "JP" });
    const r = await call("/api/v2/reports", { method: "POST", session: officerAS, json: { transferId: t } });
    const { text } = await pdf(r.body.data.id);
    expect(text).toContain("Subject name 山田 太郎");
    expect(text).toContain("山田 太郎 (legal name; family name 山田, given name 太郎)");
    expect(text).toContain("やまだ たろう (alias;");
    expect(text).not.toContain("山田, 太郎");
    expect(text).toContain("Anna van Dijk");
    expect(text).toMatch(/7801\.00 EUR at 3120\.40 EUR per ETH \(coingecko, rate of \d{1,2} \w+ \d{4}, \d\d:\d\d:\d\d UTC\)/);
    expect(text).toContain("Drafted by an officer without a case (drafted_by_hand)");
  });

  test("a Dutch and a German report read as a regulator needs: the customer's own reference, the value in EUR with its rate and source, the deadline as the law states it to the FIU, no internal footer", async () => {
    // A transfer priced in USD at its threshold decision (the FATF fallback), of a customer with its own reference.
    const cus = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Anna van Dijk", externalId: "KLANT-0042" } });
    expect(cus.status).toBe(201);
    const id = newId("trf", Date.now());
    const fx = newId("fxv", Date.now());
    const at = iso(Date.now());
    storage.stmt("INSERT INTO fx_valuations (id, company_id, environment, asset_id, amount, currency, rate, value, source, rate_as_of, created_at) VALUES (?, ?, 'test', 'eip155:1/slip44:60', '2.5', 'USD', '3200', '8000', 'snapshot:2026-11-01', ?, ?)").run(fx, companyId, at, at);
    storage
      .stmt(
        `INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, asset_id, amount, network, beneficiary_address, originator_address, originator_customer_id, originator_sealed, beneficiary_sealed, threshold_info, fx_rate_id, created_at, updated_at)
         VALUES (?, ?, 'test', 'outgoing', 'rejected', 'rejected', 'ETH', 'eip155:1/slip44:60', '2.5', 'ethereum', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', '0x1111111111111111111111111111111111111111', ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, companyId, cus.body.data.id, pii.seal(JSON.stringify(dutch), `transfer:${id}:originator`), pii.seal(JSON.stringify(japanese), `transfer:${id}:beneficiary`), JSON.stringify({ jurisdiction: "DEFAULT", thresholdCurrency: "USD" }), fx, at, at);
    const texts: Record<string, string> = {};
    for (const jurisdiction of ["NL", "DE"]) {
      const r = await call("/api/v2/reports", { method: "POST", session: officerAS, json: { transferId: id, jurisdiction } });
      expect(r.status).toBe(201);
      texts[jurisdiction] = (await pdf(r.body.data.id)).text;
    }
    for (const [j, text] of Object.entries(texts)) {
      // The customer's own reference, never Caravan's internal ID.
      expect(text).toContain("Subject customer reference KLANT-0042");
      expect(text).not.toMatch(/cus_[0-9a-z]{26}/);
      // The value in the jurisdiction's currency, with the rate and its source and time; the decision's USD value beside it.
      expect(text).toMatch(/Value in fiat [\d.]+ EUR at [\d.]+ EUR per ETH \(snapshot:\d{4}-\d\d-\d\d, rate of \d{1,2} \w+ \d{4}, \d\d:\d\d:\d\d UTC\)/);
      expect(text).toContain("Value at the threshold decision 8000 USD at 3200 USD per ETH (snapshot:2026-11-01");
      expect(text).not.toMatch(/Value in fiat [\d.]+ USD/);
      // No internal plumbing in the footer.
      expect(text).not.toContain("x-content-sha256");
      expect(text).not.toContain("str.downloaded");
      expect(text).not.toMatch(/\(3 days, system default/);
      expect(j === "NL" || j === "DE").toBe(true);
    }
    // The deadline as the law states it, to the FIU (not the supervisor), Caravan's target date beside it.
    expect(texts.NL).toMatch(/Filing deadline Without delay \(onverwijld\) once the unusual nature is known \(unusual transaction report\) under Wwft art\. 16\(1\), to Financial Intelligence Unit – the Netherlands \(FIU-Nederland\); Caravan's target: \d{1,2} \w+ \d{4} \(3 days after drafting\)/);
    expect(texts.NL).not.toMatch(/Filing deadline[^.]*De Nederlandsche Bank/);
    expect(texts.DE).toMatch(/Filing deadline Without delay \(unverzüglich\) under Geldwäschegesetz \(GwG\) § 43, to Financial Intelligence Unit \(FIU, Zentralstelle für Finanztransaktionsuntersuchungen\)/);
    expect(texts.DE).not.toMatch(/Filing deadline[^.]*BaFin/);
  });

  test("goAML XML: a filing-ready German report exports in the published field order (report, transaction, from my client, to, indicators); not ready → 409; a non-goAML FIU → 400; audited", async () => {
    const t = seedTransfer({ state: "rejected", jurisdiction: "DE" });
    const d = await call("/api/v2/reports", { method: "POST", session: officerAS, json: { transferId: t, jurisdiction: "DE" } });
    expect(d.status).toBe(201);
    const id = d.body.data.id as string;
    const goaml = () => fetch(`${S.url}/api/v2/reports/${id}/goaml`, { headers: { "x-api-key": officerA.key } });
    const early = await goaml();
    expect(early.status).toBe(409);
    expect((await early.json()).code).toBe("NOT_FILING_READY");
    const narrative = "The customer sent 2.5 ETH to a counterparty named on a watch list; the officer confirmed the match & rejected it <on review>.";
    const e = await call(`/api/v2/reports/${id}`, { method: "PATCH", session: officerAS, json: { narrative, fields: { contactOfficer: "J. de Vries, MLRO, +49 30 555 0100", filingInstitutionCountry: "DE", filingInstitutionIdentifier: "GOAML-4711" } } });
    expect(e.status).toBe(200);
    expect(e.body.data.readiness.missing.labels).toEqual([]);
    const res = await goaml();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const text = await res.text();
    expect(res.headers.get("x-content-sha256")).toMatch(/^[0-9a-f]{64}$/);
    const report = parseXml(text); // well-formed, or it throws
    expect(report.name).toBe("report");
    expect(childNames(report)).toEqual(["rentity_id", "submission_code", "report_code", "entity_reference", "submission_date", "currency_code_local", "reporting_person", "location", "reason", "action", "transaction", "report_indicators"]);
    const v = (e: ReturnType<typeof parseXml>, n: string) => child(e, n)?.text;
    expect(v(report, "rentity_id")).toBe("GOAML-4711");
    expect(v(report, "submission_code")).toBe("E");
    expect(v(report, "report_code")).toBe("SAR");
    expect(v(report, "entity_reference")).toBe(d.body.data.reportNumber);
    expect(v(report, "submission_date")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(v(report, "currency_code_local")).toBe("EUR");
    expect(childNames(child(report, "reporting_person")!)).toEqual(["first_name", "last_name", "occupation"]);
    expect(v(child(report, "reporting_person")!, "last_name")).toBe("de Vries");
    expect(v(report, "reason")).toContain("the match & rejected it <on review>."); // escaped in the file, read back as typed
    expect(text).toContain("&amp; rejected it &lt;on review&gt;.");
    const tx = child(report, "transaction")!;
    expect(childNames(tx)).toEqual(["transactionnumber", "internal_ref_number", "transaction_location", "transaction_description", "date_transaction", "transmode_code", "transmode_comment", "amount_local", "t_from_my_client", "t_to"]);
    expect(v(tx, "internal_ref_number")).toBe(t);
    expect(v(tx, "amount_local")).toBe("7801.00");
    const from = child(tx, "t_from_my_client")!;
    expect(childNames(from)).toEqual(["from_funds_code", "from_funds_comment", "from_person", "from_country"]);
    // The subject (our customer, the originator): IVMS101's primary identifier is the family name.
    expect(childNames(child(from, "from_person")!)).toEqual(["first_name", "last_name", "nationality1", "residence"]);
    expect(v(child(from, "from_person")!, "last_name")).toBe("山田");
    expect(v(child(from, "from_person")!, "first_name")).toBe("太郎");
    const to = child(tx, "t_to")!;
    expect(v(child(to, "to_person")!, "last_name")).toBe("van Dijk");
    expect(v(to, "to_country")).toBe("NL");
    expect(child(report, "report_indicators")!.children.map((c) => c.name)).toEqual(["indicator"]);
    expect(auditOf(id).filter((a) => a.action === "str.downloaded").map((a) => a.detail.format)).toEqual(["goaml"]);
    // A jurisdiction whose FIU does not take goAML here: said so, with the ones that do.
    const us = await call("/api/v2/reports", { method: "POST", session: officerAS, json: { transferId: t, jurisdiction: "US" } });
    const refused = await fetch(`${S.url}/api/v2/reports/${us.body.data.id}/goaml`, { headers: { "x-api-key": officerA.key } });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.code).toBe("INVALID_REQUEST");
    expect(body.details.goamlJurisdictions).toContain("DE");
    // Personal data: a role without pii:view is refused.
    expect((await fetch(`${S.url}/api/v2/reports/${id}/goaml`, { headers: { "x-api-key": analyst.key } })).status).toBe(403);
  });

  test("the CLI drafts through the same core: same audit action and detail, by the named member", async () => {
    const t = seedTransfer({ state: "completed", jurisdiction: "DE" });
    const out = JSON.parse(await cli("reports", "draft", "--transfer", t, "--env", "test", "--member", officerB.memberEmail, "--json"));
    expect(out).toMatchObject({ transferId: t, jurisdiction: "DE", status: "draft", filingReady: false });
    const audit = auditOf(out.id);
    expect(audit.map((a) => [a.action, a.member])).toEqual([["str.drafted", officerB.memberId]]);
    expect(Object.keys(audit[0].detail).sort()).toEqual(["caseId", "detectionMethod", "filingReady", "jurisdiction", "reportNumber", "transferId"]);
    // The CLI sets a jurisdiction as the console does.
    const edited = JSON.parse(await cli("reports", "edit", "--id", out.id, "--jurisdiction", "fr", "--member", officerB.memberEmail, "--json"));
    expect(edited.jurisdiction).toBe("FR");
  });
});
