// Part 2, Case: "rejected rejects it and drafts a suspicion report when the key has strs:write" — with no condition on a
// jurisdiction. The case actor in its own runtime with a stub transfer actor that answers the real messages; the
// drafted report is read back from SQLite (jurisdiction, filing readiness, indicators, narrative placeholder).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { createRepositories } from "../../src/adapters/storage/repositories.ts";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { caseActor, newCaseId, type CaseResolved, type TransferOutcome } from "../../src/actors/case.ts";
import { Reports } from "../../src/adapters/storage/repos/reports.ts";
import type { RowOf } from "../../src/adapters/storage/repos/row.ts";
import type { reports as reportsTable } from "../../db/schema/reports.ts";
import type { ReportRecord } from "../../src/ports/reports.ts";

type ReportRow = RowOf<typeof reportsTable>;
import { setCompanyProfile } from "../../src/adapters/storage/repos/thresholds.ts";
import { NARRATIVE_PLACEHOLDER } from "../../src/domain/reports/report.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
let storage: Storage;
let runtime: ActorRuntime;
let companyId: string;
const pii = new Sealer(crypto.getRandomValues(new Uint8Array(32)));

const stubTransfer: ActorKind<Record<string, never>, CaseResolved> = {
  kind: "transfer",
  initialState: () => ({}),
  handle(ctx, msg) {
    const out: TransferOutcome = { type: "transferOutcome", companyId: msg.companyId, environment: msg.environment, transferId: ctx.id, moved: true, newValue: msg.resolution === "rejected" ? "rejected" : "queued" };
    ctx.tell(`case:${msg.caseId}`, out);
  },
};

let n = 0;
/** A held transfer checked against `jurisdiction`'s threshold, priced at `value` EUR. */
function heldTransfer(jurisdiction: string, value: string): string {
  const id = `trf_${String(++n).padStart(6, "0")}${"1".repeat(20)}`;
  const fx = `fxv_${String(n).padStart(6, "0")}${"1".repeat(20)}`;
  const now = new Date().toISOString();
  storage
    .stmt("INSERT INTO fx_valuations (id, company_id, environment, asset_id, amount, currency, rate, value, source, rate_as_of, created_at) VALUES (?, ?, 'test', 'ast_eth', '2', 'EUR', ?, ?, 'snapshot', ?, ?)")
    .run(fx, companyId, String(Number(value) / 2), value, now, now);
  storage
    .stmt(
      `INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, created_at, updated_at, threshold_info, fx_rate_id)
       VALUES (?, ?, 'test', 'outgoing', 'held', 'pending', 'ETH', '2', 'ethereum', '0xabc', ?, ?, ?, ?)`,
    )
    .run(id, companyId, now, now, JSON.stringify({ jurisdiction }), fx);
  return id;
}

function strThreshold(country: string, amount: string): void {
  const now = new Date().toISOString();
  storage
    .stmt(
      `INSERT INTO thresholds (id, company_id, country_code, type, name, threshold_amount, threshold_currency, regulation, regulatory_body, effective_date, filing_deadline_days, is_eu_member, requires_originator_account, is_active, notes, created_at, updated_at, created_by, updated_by)
       VALUES (?, ?, ?, 'str', 'STR', ?, 'EUR', 'Wwft art. 16', 'FIU-NL', NULL, 14, 1, 0, 1, NULL, ?, ?, NULL, NULL)`,
    )
    .run(`thr_${country.toLowerCase()}${"0".repeat(24)}`, companyId, country, amount, now, now);
}

/** The report as the port answers it (the row above is the stored one, read back from SQLite). */
const record = async (row: ReportRow): Promise<ReportRecord> => (await new Reports(storage, pii).get(row.company_id, row.environment as "test" | "live", row.id))!;

async function reject(transferId: string, mayWriteStrs = true): Promise<{ caseId: string; report: ReportRow | undefined }> {
  const caseId = newCaseId(Date.now());
  const at = new Date().toISOString();
  await runtime.tell(`case:${caseId}`, { type: "openFromScreening", companyId, environment: "test", transferId, ruleId: null, caseType: "sanctions_hit", category: "sanctions", severity: "high", stage: "precheck", verdict: "require_review", at });
  await runtime.idle();
  await runtime.ask(`case:${caseId}`, { type: "resolve", companyId, environment: "test", actor: { type: "member", memberId: "mem_officer" }, resolution: "rejected", resolutionNote: "Confirmed", mayWriteTransfers: true, mayWriteStrs });
  await runtime.idle();
  const report = storage.stmt("SELECT * FROM reports WHERE case_id = ?").get(caseId) as ReportRow | undefined;
  return { caseId, report: report ?? undefined };
}

beforeAll(async () => {
  storage = await openStorage(join(dir, "case-reports.db"));
  companyId = (storage.stmt("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;
  runtime = new ActorRuntime(storage, { concurrency: 4 });
  await runtime.register(caseActor({ repositories: createRepositories(storage, { pii, secrets: pii, clock: Date.now }), pii, nameIndexKey: new Uint8Array(32) })).register(stubTransfer).start();
});

afterAll(async () => {
  await runtime.stop();
  storage.close();
});

describe("a rejected resolution always drafts the suspicion report", () => {
  test("FATF fallback (no country) and no company country: drafted with jurisdiction unknown (stored empty), never filing-ready, jurisdiction listed as missing", async () => {
    const { caseId, report } = await reject(heldTransfer("DEFAULT", "100"));
    expect(report).toBeDefined();
    expect(report!).toMatchObject({ jurisdiction: "", status: "draft", filing_ready: 0, case_id: caseId, generated_by: "mem_officer" });
    const repo = new Reports(storage, pii);
    expect((await repo.missing(await record(report!))).fields[0]).toBe("jurisdiction");
    const audit = storage.stmt("SELECT action, detail FROM audit_log WHERE entity_id IN (?, ?) ORDER BY seq").all(caseId, report!.id) as { action: string; detail: string }[];
    expect(audit.map((a) => a.action)).toContain("str.drafted");
    expect(JSON.parse(audit.find((a) => a.action === "case.str_drafted")!.detail)).toMatchObject({ reportId: report!.id, jurisdiction: null });
  });

  test("drafts carry the narrative placeholder (not filing-ready however long) and indicators as codes: case type, category, rejected_on_review", async () => {
    const { report } = await reject(heldTransfer("DEFAULT", "100"));
    const c = await new Reports(storage, pii).content(await record(report!));
    expect(c.narrative!.startsWith(NARRATIVE_PLACEHOLDER)).toBe(true);
    expect(c.narrative).toContain("What Caravan recorded:");
    expect(c.riskIndicators).toEqual(["sanctions_hit", "sanctions", "rejected_on_review"]);
    expect((await new Reports(storage, pii).missing(await record(report!))).narrative).toBe(true);
  });

  test("with the company's country set and a fallback threshold: the company's jurisdiction", async () => {
    setCompanyProfile(storage, companyId, { country: "FR" }, Date.now());
    try {
      const { report } = await reject(heldTransfer("DEFAULT", "100"));
      expect(report!.jurisdiction).toBe("FR");
    } finally {
      setCompanyProfile(storage, companyId, { country: "" }, Date.now());
    }
  });

  test("the str threshold's thresholdAmount decides whether the report is due: at or above it the indicator str_threshold_reached; below it the report is drafted all the same", async () => {
    strThreshold("NL", "1000");
    const above = await reject(heldTransfer("NL", "1000"));
    const below = await reject(heldTransfer("NL", "999.99"));
    const repo = new Reports(storage, pii);
    expect(above.report!.jurisdiction).toBe("NL");
    expect((await repo.content(await record(above.report!))).riskIndicators).toContain("str_threshold_reached");
    expect(below.report).toBeDefined();
    expect((await repo.content(await record(below.report!))).riskIndicators).not.toContain("str_threshold_reached");
    expect(await repo.threshold(companyId, "test", below.report!.transfer_id, "NL", [{ countryCode: "NL", type: "str", isActive: true, filingDeadlineDays: 14, regulation: "r", regulatoryBody: null, thresholdAmount: "1000", thresholdCurrency: "EUR" }])).toEqual({
      countryCode: "NL",
      thresholdAmount: "1000",
      thresholdCurrency: "EUR",
      value: "999.99",
      reached: false,
    });
  });

  test("without strs:write nothing is drafted (Part 2: only when the key has strs:write)", async () => {
    const { report } = await reject(heldTransfer("NL", "5000"), false);
    expect(report).toBeUndefined();
  });
});
