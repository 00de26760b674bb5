// Part 2 "Report", "Report type" and the Reports endpoints over real HTTP: list/detail fields, filters, cursor,
// permissions, the PDF download (headers, hash = bytes = audit entry, text read back, CJK rasterised), every
// download refusal, and the CLI life draft → pending_review → submitted → filed.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { extractText, getDocumentProxy } from "unpdf";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, ISO_MS } from "../support/api.ts";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { loadMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { Reports, newReportId } from "../../src/adapters/storage/repos/reports.ts";
import { newId, iso } from "../../src/domain/ids.ts";
import { resolveReportType } from "../../src/domain/reports/report.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "reports.db");
const { cli, newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let storage: Storage;
let pii: Sealer;
let companyId: string;

type Key = { key: string; id: string; memberId: string; memberEmail: string };
let owner: Key, ownerLive: Key, analyst: Key, noStrs: Key, noTransfers: Key, noReports: Key;
let officerEmail: string;

const LIST_FIELDS = [
  "createdAt", "detectionMethod", "filedAt", "filedBy", "filedByMember", "filingDeadline", "filingReady", "filingReference", "generatedAt", "generatedBy",
  "generatedByMember", "id", "jurisdiction", "kind", "label", "reportNumber", "reportTo", "status", "transferId", "updatedAt",
];
const DEADLINE_FIELDS = ["daysConfigured", "daysRemaining", "deadline", "isApproaching", "isOverdue", "regulation", "regulatoryBody", "source"];

const natural = (primary: string, secondary: string) => [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: primary, secondaryIdentifier: secondary, nameIdentifierType: "LEGL" }] }, countryOfResidence: "JP" } }];

/** A transfer row as the transfer actors write it, with sealed IVMS101 persons. */
function seedTransfer(env: "test" | "live", originator: [string, string], beneficiary: [string, string]): string {
  const id = newId("trf", Date.now());
  const at = iso(Date.now());
  storage
    .stmt(
      "INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, originator_address, originator_sealed, beneficiary_sealed, created_at, updated_at) VALUES (?, ?, ?, 'outgoing', 'rejected', 'rejected', 'USDC', '1250.50', 'ethereum', ?, ?, ?, ?, ?, ?)",
    )
    .run(id, companyId, env, "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "0x1111111111111111111111111111111111111111", pii.seal(JSON.stringify(natural(...originator)), `transfer:${id}:originator`), pii.seal(JSON.stringify(natural(...beneficiary)), `transfer:${id}:beneficiary`), at, at);
  return id;
}

function seedReport(o: { env?: "test" | "live"; transferId: string; jurisdiction?: string; narrative?: string; indicators?: string[]; fields?: Record<string, string>; by?: string }) {
  const id = newReportId();
  return storage.transaction(() =>
    new Reports(storage, pii).createDraft(
      {
        id,
        companyId,
        environment: o.env ?? "test",
        transferId: o.transferId,
        caseId: null,
        jurisdiction: o.jurisdiction ?? "US",
        narrative: o.narrative ?? "",
        riskIndicators: o.indicators ?? ["Funds sent to a sanctioned mixer"],
        generatedBy: o.by ?? "system",
        detectionMethod: "screening",
        regulatoryData: o.fields,
      },
      Date.now(),
    ),
  );
}

/** Every required field of a type, so the report is filing-ready. */
const PREFILLED = new Set(["filingInstitutionName", "subjectName", "subjectWalletAddress", "transactionDate", "amount", "asset", "network", "direction"]);
const complete = (jurisdiction: string) =>
  Object.fromEntries(resolveReportType(jurisdiction).fields.filter((f) => f.required && !PREFILLED.has(f.key)).map((f) => [f.key, `value of ${f.key}`]));
const NARRATIVE = "The customer moved 1,250.50 USDC to a wallet that blockchain analytics attributes to a sanctioned mixing service. ".repeat(3);

let cjkTransfer: string;
let latinTransfer: string;
let draft: { id: string; reportNumber: string };
let ready: { id: string; reportNumber: string };
let cjkReport: { id: string; reportNumber: string };

beforeAll(async () => {
  S = await startServer({ CARAVAN_DB: db });
  owner = await newKey("--env", "test", "--role", "owner");
  ownerLive = await newKey("--env", "live", "--role", "owner", "--member", owner.memberEmail);
  analyst = await newKey("--env", "test", "--role", "analyst");
  noStrs = await newKey("--env", "test", "--role", "owner", "--scopes", "reports:read,transfers:read");
  noTransfers = await newKey("--env", "test", "--role", "owner", "--scopes", "reports:read,strs:read");
  noReports = await newKey("--env", "test", "--role", "owner", "--scopes", "strs:read,transfers:read");
  officerEmail = (await newKey("--env", "test", "--role", "compliance_officer")).memberEmail;
  storage = await openStorage(db, { migrate: false });
  pii = new Sealer(loadMasterKey(db, {}).derive("pii"));
  companyId = (storage.stmt("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;
  cjkTransfer = seedTransfer("test", ["山田", "太郎"], ["김", "민준"]);
  latinTransfer = seedTransfer("test", ["Żółć", "Łukasz"], ["Papadopoulou", "Ελένη"]);
  draft = await seedReport({ transferId: latinTransfer });
  ready = await seedReport({ transferId: latinTransfer, narrative: NARRATIVE, fields: complete("US") });
  cjkReport = await seedReport({ transferId: cjkTransfer, jurisdiction: "JP", narrative: `顧客は制裁対象のミキサーに送金した。${NARRATIVE}`, fields: { ...complete("JP"), subjectName: "山田, 太郎" } });
});

afterAll(async () => {
  storage?.close();
  await S?.stop();
});

describe("GET /api/v2/report-types", () => {
  test("lists the catalogue with system-default deadlines; jurisdiction in any case, UK for GB", async () => {
    const all = await call("/api/v2/report-types", { key: owner.key });
    expect(all.status).toBe(200);
    const codes = all.body.data.map((t: { jurisdiction: string }) => t.jurisdiction);
    for (const j of ["US", "GB", "CA", "AU", "SG", "HK", "JP", "KR", "CH", "AE", "DE", "FR", "NL", "IE"]) expect(codes).toContain(j);
    const uk = await call("/api/v2/report-types?jurisdiction=uk", { key: owner.key });
    expect(uk.body.data).toHaveLength(1);
    expect(uk.body.data[0]).toMatchObject({ kind: "suspicion", jurisdiction: "GB", formats: ["pdf"], filingDeadline: { source: "system_default" } });
    expect(uk.body.data[0].reportTo).toContain("National Crime Agency");
  });

  test("EU is not a jurisdiction → 400 INVALID_QUERY; another country gets the generic type with reportTo null", async () => {
    expectError(await call("/api/v2/report-types?jurisdiction=EU", { key: owner.key }), 400, "INVALID_QUERY");
    expectError(await call("/api/v2/report-types?kind=currency", { key: owner.key }), 400, "INVALID_QUERY");
    const br = await call("/api/v2/report-types?jurisdiction=br&kind=suspicion", { key: owner.key });
    expect(br.body.data[0]).toMatchObject({ jurisdiction: "BR", reportTo: null });
  });

  test("a company str threshold with filingDeadlineDays sets the deadline (source threshold), in types and reports", async () => {
    const th = await call("/api/v2/thresholds", { method: "POST", key: ownerLive.key, json: { countryCode: "US", type: "str", name: "FinCEN SAR", thresholdAmount: "0", regulation: "Company SAR policy", filingDeadlineDays: 20 } });
    expect(th.status).toBe(201);
    const us = await call("/api/v2/report-types?jurisdiction=US", { key: owner.key });
    expect(us.body.data[0].filingDeadline).toEqual({ days: 20, source: "threshold", regulation: "Company SAR policy", regulatoryBody: expect.any(String) });
    const r = await call(`/api/v2/reports/${draft.id}`, { key: owner.key });
    expect(r.body.data.filingDeadline).toMatchObject({ source: "threshold", daysConfigured: 20, daysRemaining: 20, isOverdue: false, isApproaching: false });
    await call(`/api/v2/thresholds/${th.body.data.id}`, { method: "PATCH", key: ownerLive.key, json: { isActive: false } });
  });
});

describe("GET /api/v2/reports", () => {
  test("list items carry exactly the list fields, no narrative or subject details", async () => {
    const r = await call("/api/v2/reports", { key: owner.key });
    expect(r.status).toBe(200);
    const item = r.body.data.find((x: { id: string }) => x.id === draft.id);
    expect(Object.keys(item).sort()).toEqual(LIST_FIELDS);
    expect(Object.keys(item.filingDeadline).sort()).toEqual(DEADLINE_FIELDS);
    expect(item).toMatchObject({ kind: "suspicion", status: "draft", jurisdiction: "US", transferId: latinTransfer, generatedBy: "system", generatedByMember: null, filedByMember: null, filingReady: false, detectionMethod: "screening" });
    expect(item.reportNumber).toMatch(/^SAR-TEST-\d{4}-\d{6}$/);
    expect(item.createdAt).toMatch(ISO_MS);
    expect(r.text).not.toContain("mixer");
  });

  test("filters: status, jurisdiction in any case, transferId, search by number or transfer ID, from/to", async () => {
    const ids = async (qs: string) => (await call(`/api/v2/reports?${qs}`, { key: owner.key })).body.data.map((x: { id: string }) => x.id);
    expect(await ids("jurisdiction=jp")).toEqual([cjkReport.id]);
    expect(await ids(`transferId=${cjkTransfer}`)).toEqual([cjkReport.id]);
    expect(await ids(`search=${ready.reportNumber.toLowerCase()}`)).toEqual([ready.id]);
    expect((await ids(`search=${latinTransfer.toUpperCase()}`)).sort()).toEqual([draft.id, ready.id].sort());
    expect(await ids("status=filed")).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await ids(`from=${today}`)).length).toBeGreaterThanOrEqual(3);
    expect(await ids(`to=${today}`)).toEqual([]);
    expect(await ids(`to=${encodeURIComponent("2000-01-01T00:00:00+02:00")}`)).toEqual([]);
    for (const bad of ["status=open", "from=2026-13-01", "from=2026-01-01T00:00:00", `search=${"x".repeat(101)}`, "limit=201", "color=red"])
      expectError(await call(`/api/v2/reports?${bad}`, { key: owner.key }), 400, "INVALID_QUERY");
  });

  test("keyset cursor pages newest first without repeats", async () => {
    const p1 = await call("/api/v2/reports?limit=2", { key: owner.key });
    expect(p1.body.meta).toMatchObject({ hasMore: true, limit: 2 });
    const p2 = await call(`/api/v2/reports?limit=2&cursor=${encodeURIComponent(p1.body.meta.cursor)}`, { key: owner.key });
    const all = [...p1.body.data, ...p2.body.data].map((x: { id: string }) => x.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain(draft.id);
    expectError(await call(`/api/v2/reports?status=draft&cursor=${encodeURIComponent(p1.body.meta.cursor)}`, { key: owner.key }), 400, "INVALID_CURSOR");
  });

  test("scopes and roles: no strs:read → 403 INSUFFICIENT_PERMISSION; no reports:read → INSUFFICIENT_SCOPE; analyst (no strs:view) → INSUFFICIENT_PERMISSION", async () => {
    expectError(await call("/api/v2/reports", { key: noStrs.key }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call("/api/v2/report-types", { key: noStrs.key }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call("/api/v2/reports", { key: noReports.key }), 403, "INSUFFICIENT_SCOPE");
    expectError(await call("/api/v2/reports", { key: analyst.key }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call(`/api/v2/reports/${draft.id}`, { key: analyst.key }), 403, "INSUFFICIENT_PERMISSION");
  });
});

describe("GET /api/v2/reports/:id", () => {
  test("detail adds narrative, risk indicators and regulatory data prefilled from the transfer, decrypted", async () => {
    const r = await call(`/api/v2/reports/${cjkReport.id}`, { key: owner.key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual([...LIST_FIELDS, "narrative", "regulatoryData", "riskIndicators"].sort());
    expect(r.body.data.narrative).toStartWith("顧客は");
    expect(r.body.data.riskIndicators).toEqual(["Funds sent to a sanctioned mixer"]);
    // The counterparty's name is prefilled in the identity's order: a Korean name family name first, without a comma.
    expect(r.body.data.regulatoryData).toMatchObject({ subjectName: "山田, 太郎", counterpartyName: "김 민준", amount: "1250.50", asset: "USDC" });
    expect(r.body.data.filingReady).toBe(true);
    expect(r.body.data.label).toContain("STR");
    expect(r.body.meta.piiMasked).toBeUndefined();
  });

  test("sealed at rest: the database file holds no narrative or subject name", async () => {
    const row = storage.stmt("SELECT * FROM reports WHERE id = ?").get(cjkReport.id) as Record<string, unknown>;
    const text = JSON.stringify(row);
    for (const s of ["顧客", "山田", "mixer", "Funds sent"]) expect(text).not.toContain(s);
  });

  test("a report of the other environment, or an unknown ID → 404 REPORT_NOT_FOUND", async () => {
    expectError(await call(`/api/v2/reports/${draft.id}`, { key: ownerLive.key }), 404, "REPORT_NOT_FOUND");
    expectError(await call(`/api/v2/reports/rpt_nope`, { key: owner.key }), 404, "REPORT_NOT_FOUND");
  });
});

async function download(id: string, key = owner.key, qs = "") {
  const res = await fetch(`${S.url}/api/v2/reports/${id}/download${qs}`, { headers: { "x-api-key": key } });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

function auditEntries(id: string): { detail: string; action: string }[] {
  return storage.stmt("SELECT action, detail FROM audit_log WHERE entity_type = 'TransactionReport' AND entity_id = ? AND action = 'str.downloaded' ORDER BY seq").all(id) as never;
}

describe("GET /api/v2/reports/:id/download", () => {
  test("a filing-ready report: exact headers; hash of the bytes = header = audit entry; text read back", async () => {
    const { res, bytes } = await download(ready.id, owner.key, "?format=pdf");
    expect(res.status).toBe(200);
    const hash = bytesToHex(sha256(bytes));
    expect({
      type: res.headers.get("content-type"),
      length: res.headers.get("content-length"),
      disposition: res.headers.get("content-disposition"),
      sha: res.headers.get("x-content-sha256"),
      version: res.headers.get("api-version"),
      cache: res.headers.get("cache-control"),
    }).toEqual({ type: "application/pdf", length: String(bytes.length), disposition: `attachment; filename=${ready.reportNumber}.pdf`, sha: hash, version: "2", cache: "no-store" });
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
    const audit = auditEntries(ready.id);
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0].detail)).toMatchObject({ sha256: hash, bytes: bytes.length });
    const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
    expect(text).toContain(ready.reportNumber);
    expect(text).toContain("sanctioned mixing service");
    // Names prefilled from the identities, given name first for Latin and Greek script, never "family, given".
    expect(text).toContain("Subject name Łukasz Żółć");
    expect(text).toContain("Counterparty name Ελένη Papadopoulou");
    expect(text).not.toContain("Żółć, Łukasz");
    expect(text).toContain("Financial Crimes Enforcement Network");
    expect(text).not.toContain("DRAFT");
  });

  test("a report not ready to file: name ends _DRAFT.pdf and every page says DRAFT", async () => {
    const { res, bytes } = await download(draft.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename=${draft.reportNumber}_DRAFT.pdf`);
    const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
    expect(text).toContain("DRAFT");
  });

  test("CJK text renders as glyphs: extracted back, and its area on the rasterised page is not blank", async () => {
    const { res, bytes } = await download(cjkReport.id);
    expect(res.status).toBe(200);
    const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
    expect(text).toContain("山田, 太郎");
    expect(text).toContain("김 민준");
    const pdfPath = join(dir, "cjk.pdf");
    await Bun.write(pdfPath, bytes);
    // Where the name sits (points), from poppler's own text layout, then its pixels at 72 dpi.
    const bbox = Bun.spawnSync(["pdftotext", "-f", "1", "-l", "1", "-bbox", pdfPath, "-"]).stdout.toString();
    const m = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">[^<]*山田[^<]*<\/word>/.exec(bbox);
    expect(m).not.toBeNull();
    const [x0, y0, x1, y1] = m!.slice(1).map(Number);
    Bun.spawnSync(["pdftoppm", "-f", "1", "-l", "1", "-r", "72", "-gray", pdfPath, join(dir, "page")]);
    const pgm = new Uint8Array(await Bun.file(join(dir, "page-1.pgm")).arrayBuffer());
    const header = new TextDecoder().decode(pgm.subarray(0, 20)).split(/\s+/);
    const [w] = [Number(header[1])];
    const dataStart = pgm.length - w * Number(header[2]);
    let dark = 0;
    let total = 0;
    for (let y = Math.floor(y0); y < Math.ceil(y1); y++)
      for (let x = Math.floor(x0); x < Math.ceil(x1); x++) {
        total++;
        if (pgm[dataStart + y * w + x] < 128) dark++;
      }
    expect(total).toBeGreaterThan(20);
    expect(dark / total).toBeGreaterThan(0.05);
  });

  test("HEAD → 405 METHOD_NOT_ALLOWED; format other than pdf → 400 INVALID_QUERY", async () => {
    const head = await fetch(`${S.url}/api/v2/reports/${ready.id}/download`, { method: "HEAD", headers: { "x-api-key": owner.key } });
    expect(head.status).toBe(405);
    expectError(await call(`/api/v2/reports/${ready.id}/download?format=docx`, { key: owner.key }), 400, "INVALID_QUERY");
  });

  test("permissions: no transfers:read or strs:read → INSUFFICIENT_PERMISSION; role without pii:view → PII_ACCESS_REQUIRED", async () => {
    expectError(await call(`/api/v2/reports/${ready.id}/download`, { key: noTransfers.key }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call(`/api/v2/reports/${ready.id}/download`, { key: noStrs.key }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call(`/api/v2/reports/${ready.id}/download`, { key: analyst.key }), 403, "PII_ACCESS_REQUIRED");
    expectError(await call(`/api/v2/reports/${ready.id}/download`, { key: ownerLive.key }), 404, "REPORT_NOT_FOUND");
  });

  test("the report's transfer not in the environment → 409 TRANSFER_NOT_FOUND", async () => {
    const r = await seedReport({ transferId: newId("trf", Date.now()) });
    expectError(await call(`/api/v2/reports/${r.id}/download`, { key: owner.key }), 409, "TRANSFER_NOT_FOUND");
    expect(auditEntries(r.id)).toHaveLength(0);
  });

  test("over 100,000 characters of text → 422 REPORT_TOO_LONG_FOR_PDF, nothing audited; exactly 100,000 is drawn", async () => {
    const long = await seedReport({ transferId: latinTransfer, narrative: "a".repeat(100_001 - "Funds sent to a sanctioned mixer".length) + "b".repeat(0), fields: {} });
    const row = storage.stmt("SELECT text_length FROM reports WHERE id = ?").get(long.id) as { text_length: number };
    expect(row.text_length).toBeGreaterThan(100_000);
    expectError(await call(`/api/v2/reports/${long.id}/download`, { key: owner.key }), 422, "REPORT_TOO_LONG_FOR_PDF");
    expect(auditEntries(long.id)).toHaveLength(0);
  });

  test("one CJK render at a time: others meanwhile → 503 PDF_RENDERER_BUSY with Retry-After: 5", async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => fetch(`${S.url}/api/v2/reports/${cjkReport.id}/download`, { headers: { "x-api-key": owner.key } })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toContain(200);
    expect(statuses).toContain(503);
    for (const a of answers) {
      if (a.status !== 503) continue;
      expect(a.headers.get("retry-after")).toBe("5");
      expect((await a.json()).code).toBe("PDF_RENDERER_BUSY");
    }
  });
});

describe("CLI: the life draft → pending_review → submitted → filed", () => {
  const reports = async (...args: string[]) => runCli(["reports", ...args, "--json"], { CARAVAN_DB: db });

  test("edit completes a report, submit, approve by another member (four eyes), file with reference; each audited", async () => {
    const r = await seedReport({ transferId: latinTransfer, jurisdiction: "GB" });
    const narrativeFile = join(dir, "narrative.txt");
    await Bun.write(narrativeFile, NARRATIVE);
    const early = await reports("submit", "--id", r.id, "--member", owner.memberEmail);
    expect(early.code).not.toBe(0);
    expect(early.stderr).toContain("NOT_FILING_READY");
    const fields = Object.entries(complete("GB")).flatMap(([k, v]) => ["--field", `${k}=${v}`]);
    const edited = await reports("edit", "--id", r.reportNumber, "--narrative-file", narrativeFile, ...fields, "--member", owner.memberEmail);
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ status: "draft", filingReady: true, narrative: NARRATIVE });
    expect((await reports("submit", "--id", r.id, "--member", owner.memberEmail)).code).toBe(0);
    const self = await reports("approve", "--id", r.id, "--member", owner.memberEmail);
    expect(self.stderr).toContain("SAME_MEMBER");
    expect((await reports("approve", "--id", r.id, "--member", officerEmail)).code).toBe(0);
    expect((await reports("file", "--id", r.id, "--member", officerEmail)).code).not.toBe(0);
    const filed = await reports("file", "--id", r.id, "--reference", "NCA-REF-77", "--member", officerEmail);
    expect(filed.code).toBe(0);
    expect(JSON.parse(filed.stdout)).toMatchObject({ status: "filed", filingReference: "NCA-REF-77", filingDeadline: { isOverdue: false } });
    const api = await call(`/api/v2/reports?search=nca-ref`, { key: owner.key });
    expect(api.body.data.map((x: { id: string }) => x.id)).toEqual([r.id]);
    expect(api.body.data[0]).toMatchObject({ status: "filed", filingReference: "NCA-REF-77", filedByMember: { email: officerEmail, name: officerEmail } });
    expect(api.body.data[0].filedAt).toMatch(ISO_MS);
    const actions = (storage.stmt("SELECT action FROM audit_log WHERE entity_id = ? ORDER BY seq").all(r.id) as { action: string }[]).map((a) => a.action);
    expect(actions).toEqual(["str.drafted", "str.updated", "str.submitted", "str.approved", "str.filed"]);
    const again = await reports("edit", "--id", r.id, "--field", "subjectName=X", "--member", owner.memberEmail);
    expect(again.stderr).toContain("INVALID_REPORT_STATE");
  });

  test("a member whose role lacks strs:update may not act; an unknown field is refused", async () => {
    const r = await seedReport({ transferId: latinTransfer });
    const res = await reports("submit", "--id", r.id, "--member", analyst.memberEmail);
    expect(res.stderr).toContain("INSUFFICIENT_PERMISSION");
    const bad = await reports("edit", "--id", r.id, "--field", "favouriteColour=red", "--member", owner.memberEmail);
    expect(bad.stderr).toContain("unknown field");
  });
});
