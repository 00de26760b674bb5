// Reports on PostgreSQL, at the columns: what the reports port writes is read back with plain SQL, and no column of the
// report's row or of its audit entries holds the personal data it was given or prefilled from its transfer (the
// narrative, the names, the indicators are sealed before any statement sees them). The drafting reads a transfer the
// test writes with SQL (its persons sealed as the transfers repository seals them), so the prefill, goAML parties, the
// PDF's input and a draft by hand run over PostgreSQL's statements too.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { randomBytes } from "node:crypto";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { openPostgres, createPgRepositories } from "../../src/adapters/storage/postgres/index.ts";
import type { PgSession } from "../../src/adapters/storage/postgres/session.ts";
import { iso, newId } from "../../src/domain/ids.ts";
import { decideStep } from "../../src/domain/reports/life.ts";
import type { Repositories } from "../../src/ports/repositories.ts";
import { startPostgres } from "../support/postgres.ts";

setDefaultTimeout(120_000);

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const CLEAR = ["Zebulon", "Quixote", "Ottoline", "Farquharson", "zebulon_indicator", "Funds for Zebulon"];

let db: PgSession;
let repos: Repositories;
let pii: Sealer;
let companyId: string;
const transferId = newId("trf", NOW);

beforeAll(async () => {
  const server = await startPostgres();
  db = await openPostgres(await server.createDatabase(), { readers: 2 });
  pii = new Sealer(randomBytes(32));
  repos = createPgRepositories(db, { pii, secrets: new Sealer(randomBytes(32)), clock: () => NOW });
  companyId = (await db.read<{ id: string }>("SELECT id FROM companies WHERE slug = 'default'"))[0]!.id;
  const person = (given: string, family: string) => [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] }, countryOfResidence: "DE" } }];
  await db.q(
    `INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, originator_address, beneficiary_address, originator_sealed, beneficiary_sealed, beneficiary_vasp_name, tx_hash, created_at, updated_at)
     VALUES ($1, $2, 'test', 'outgoing', 'completed', 'completed', 'ETH', '1.5', 'ethereum', '0xorigin', '0xbeneficiary', $3, $4, 'Other VASP', '0xhash', $5, $5)`,
    [transferId, companyId, pii.seal(JSON.stringify(person("Zebulon", "Quixote-Marsh")), `transfer:${transferId}:originator`), pii.seal(JSON.stringify(person("Ottoline", "Farquharson")), `transfer:${transferId}:beneficiary`), iso(NOW)],
  );
});
afterAll(() => db?.close());

/** Every text of the rows, as one string. */
async function stored(sql: string, params: string[]): Promise<string> {
  return JSON.stringify(await db.read(sql, params));
}

test("a draft prefilled from its transfer, then edited, leaves no personal data in clear in its row or its audit entries", async () => {
  const reports = repos.reports;
  const id = newId("rpt", NOW);
  const made = await db.transaction(() =>
    reports.createDraft(
      { id, companyId, environment: "test", transferId, caseId: null, jurisdiction: "DE", narrative: "Funds for Zebulon went out.", riskIndicators: ["zebulon_indicator"], generatedBy: "system", detectionMethod: "screening" },
      NOW,
    ),
  );
  // The prefill read the transfer's sealed persons: the names are in the content, opened.
  const c = await reports.content(made);
  expect(c.regulatoryData.subjectName).toContain("Quixote-Marsh");
  expect(c.regulatoryData.counterpartyName).toContain("Farquharson");
  expect(c.regulatoryData).toMatchObject({ counterpartyVasp: "Other VASP", amount: "1.5", network: "ethereum", direction: "outgoing" });
  const row = (await db.read<{ narrative_sealed: string; risk_indicators_sealed: string; regulatory_data_sealed: string }>("SELECT * FROM reports WHERE id = $1", [id]))[0]!;
  expect([row.narrative_sealed, row.risk_indicators_sealed, row.regulatory_data_sealed]).toEqual([made.sealed.narrative!, made.sealed.riskIndicators, made.sealed.regulatoryData]);
  const d = decideStep(made, "edit", { memberId: "mem_editor", viaConsole: false }, { narrative: "Zebulon Quixote-Marsh, edited.", fields: { counterpartyName: "Farquharson, Ottoline B." } }, iso(NOW + 1000), () => c);
  if (!d.ok) throw new Error(d.refusal.message);
  await db.transaction(() => reports.saveStep(made, d.step, { type: "member", memberId: "mem_editor" }, NOW + 1000));
  const text = (await stored("SELECT * FROM reports WHERE id = $1", [id])) + (await stored("SELECT * FROM audit_log WHERE entity_id = $1", [id]));
  expect(await db.read("SELECT 1 FROM audit_log WHERE entity_id = $1", [id])).toHaveLength(2);
  for (const clear of CLEAR) expect(text).not.toContain(clear);
  expect((await reports.content((await reports.get(companyId, "test", id))!)).narrative).toBe("Zebulon Quixote-Marsh, edited.");
});

test("goAML parties, the PDF's input and a draft by hand read the transfer through PostgreSQL's statements", async () => {
  const reports = repos.reports;
  const plan = await reports.planDraft(companyId, "test", { transferId, memberId: "mem_drafter", actor: { type: "member", memberId: "mem_drafter" } }, NOW + 2000);
  expect(plan.outcome.ok).toBe(true);
  const r = (await db.transaction(() => plan.apply()))!;
  expect(r).toMatchObject({ transferId, detectionMethod: "manual", generatedBy: "mem_drafter", status: "draft" });
  expect(await reports.goamlParties(r)).toEqual({
    direction: "outgoing",
    network: "ethereum",
    txHash: "0xhash",
    subject: { given: "Zebulon", family: "Quixote-Marsh", legalName: null, country: "DE", walletAddress: "0xorigin" },
    counterparty: { given: "Ottoline", family: "Farquharson", legalName: null, country: "DE", walletAddress: "0xbeneficiary", vasp: "Other VASP" },
  });
  const doc = (await reports.documentInput(r, [], NOW + 2000))!;
  expect(doc).toMatchObject({ reportNumber: r.reportNumber, transfer: { id: transferId, state: "completed", amount: "1.5", asset: "ETH" }, caseNumber: null, valuation: null });
  expect((doc.subjectNames ?? []).join(" ")).toContain("Quixote-Marsh");
  expect((doc.counterpartyNames ?? []).join(" ")).toContain("Farquharson");
  const refused = await reports.planDraft(companyId, "test", { transferId, jurisdiction: "EU", memberId: "mem_drafter", actor: { type: "member", memberId: "mem_drafter" } }, NOW);
  expect(refused.outcome).toMatchObject({ ok: false, refusal: { code: "INVALID_EDIT" } });
  for (const clear of CLEAR) expect(await stored("SELECT * FROM reports WHERE id = $1", [r.id])).not.toContain(clear);
});
