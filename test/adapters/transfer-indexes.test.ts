// Issue 19: the transfer indexes a create below the threshold does not touch are partial (migration 0014). What must
// hold: every lookup that used them is still answered from an index (query plans), the lookups answer the same rows,
// the unique Idempotency-Key index still refuses a second transfer with the same key, and the customer's transfers
// that are not final (erasure waits for them) are found on either side from the two partial indexes.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { defaultMigrationsFolder, openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { ACTIVE_FOR_CUSTOMER, Transfers, toTransfer, trigramQuery, type TransferRow } from "../../src/adapters/storage/repos/transfers.ts";
import { iso, newId } from "../../src/domain/ids.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
let storage: Storage;
let companyId: string;
const NOW = Date.parse("2030-06-01T00:00:00.000Z");

beforeAll(async () => {
  storage = await openStorage(join(dir, "indexes.db"));
  companyId = (await new Tenancy(storage, Date.now).createCompany("acme", "Acme Ltd")).id;
});

afterAll(() => storage.close());

let n = 0;
function transfer(over: Partial<TransferRow> = {}): TransferRow {
  const at = iso(NOW + ++n);
  return {
    id: newId("trf", NOW + n), company_id: companyId, environment: "test", direction: "outgoing", state: "completed", status: "approved", external_id: null,
    asset: "ETH", asset_id: "eip155:1/slip44:60", amount: "1", network: "ethereum", blockchain_type: "ethereum", originator_customer_id: null,
    originator_address: null, beneficiary_address: `0xbeef${String(n).padStart(4, "0")}`, beneficiary_customer_id: null, is_unhosted_wallet: 0,
    originator_sealed: null, beneficiary_sealed: null, originator_vasp_id: "vasp_own", originator_vasp_name: null, beneficiary_vasp_id: null, beneficiary_vasp_name: null,
    preferred_protocol: null, protocol: null, provider_external_id: null, matched_at: null, ours_status: null, theirs_status: null, rejection_reason: null,
    rejection_details_sealed: null, tx_hash: null, sanctions_status: null, sanctions_provider: null, threshold_info: null, fx_rate_id: null, checks: "[]",
    attempts: "[]", messages: "[]", history: "[]", expires_at: null, accepted_at: null, completed_at: at, created_at: at, updated_at: at, ...over,
  };
}

/** Rows inserted through the port, in one unit of work. */
const insertAll = (s: Storage, repo: Transfers, rows: TransferRow[]) => s.transaction(async () => {
  for (const r of rows) await repo.insert(toTransfer(r));
});

/** The plan's lines, e.g. "SEARCH transfers USING INDEX transfers_external_id (…)". */
const plan = (sql: string): string[] => (storage.client.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);

test("the customer's transfers not yet final are found on either side, in creation order, from the partial indexes", async () => {
  const repo = new Transfers(storage);
  const alice = newId("cus", NOW);
  const bob = newId("cus", NOW + 1);
  const rows = [
    transfer({ originator_customer_id: alice, state: "queued", status: "pending" }),
    transfer({ originator_customer_id: alice }), // completed: final
    transfer({ direction: "incoming", beneficiary_customer_id: alice, state: "awaiting_counterparty" }),
    transfer({ originator_customer_id: alice, state: "rejected", status: "rejected" }),
    transfer({ originator_customer_id: bob, state: "held", status: "pending" }),
    transfer({ originator_customer_id: alice, beneficiary_customer_id: alice, state: "exchanging", status: "pending" }), // both sides: once
    transfer({ direction: "incoming", beneficiary_customer_id: alice, state: "cancelled" }),
  ];
  await insertAll(storage, repo, rows);
  expect(await repo.activeForCustomer(companyId, "test", alice)).toEqual([rows[0].id, rows[2].id, rows[5].id]);
  expect(await repo.activeForCustomer(companyId, "test", bob)).toEqual([rows[4].id]);
  expect(await repo.activeForCustomer(companyId, "live", alice)).toEqual([]);
  // A transfer that becomes final leaves the answer (and its partial index entry).
  await repo.update(rows[0].id, { state: "completed", status: "approved" });
  expect(await repo.activeForCustomer(companyId, "test", alice)).toEqual([rows[2].id, rows[5].id]);
  // It is answered from the two partial indexes, not by walking the company's transfers.
  const lines = plan(ACTIVE_FOR_CUSTOMER);
  expect(lines.some((l) => l.startsWith("SEARCH transfers USING INDEX transfers_active_originator "))).toBe(true);
  expect(lines.some((l) => l.startsWith("SEARCH transfers USING INDEX transfers_active_beneficiary "))).toBe(true);
  expect(lines.some((l) => l.startsWith("SCAN transfers") || l.includes("transfers_list"))).toBe(false);
});

test("lookups by Idempotency-Key, provider reference and transaction hash are answered from their partial indexes", async () => {
  const eqp = [
    ["SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND external_id = ?", "transfers_external_id"],
    ["SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND provider_external_id = ? AND protocol = 'provider_e'", "transfers_provider_external"],
    ["SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND tx_hash IN (SELECT value FROM json_each(?)) AND direction = 'outgoing'", "transfers_tx_hash"],
  ] as const;
  for (const [sql, index] of eqp) expect(plan(sql).some((l) => l.startsWith("SEARCH transfers USING INDEX " + index + " "))).toBe(true);
  const repo = new Transfers(storage);
  const keyed = transfer({ external_id: "order-77", provider_external_id: "pb-77", tx_hash: "0xabc77" });
  await repo.insert(toTransfer(keyed));
  expect((await repo.byExternalId(companyId, "test", "order-77"))?.id).toBe(keyed.id);
  const byProvider = storage.stmt("SELECT id FROM transfers WHERE company_id = ? AND environment = ? AND provider_external_id = ?").all(companyId, "test", "pb-77");
  expect(byProvider).toEqual([{ id: keyed.id }]);
  const byTx = storage.stmt("SELECT id FROM transfers WHERE company_id = ? AND environment = ? AND tx_hash IN (SELECT value FROM json_each(?))").all(companyId, "test", JSON.stringify(["0xabc77", "abc77"]));
  expect(byTx).toEqual([{ id: keyed.id }]);
  // The unique index still refuses a second transfer with the key in the same environment, and allows keyless ones.
  await expect(repo.insert(toTransfer(transfer({ external_id: "order-77" })))).rejects.toThrow(/UNIQUE/);
  await repo.insert(toTransfer(transfer({ external_id: "order-77", environment: "live" })));
  await insertAll(storage, repo, [transfer(), transfer()]);
});

test("search in the index without positions: the text must appear in one piece in one column, any case", async () => {
  const repo = new Transfers(storage);
  // Every trigram of "cafe-77" is in this transfer, but spread over two columns: not a match.
  const spread = transfer({ external_id: "xcafe-", beneficiary_address: "0xe-77z" });
  // The trigrams of "cafe77" appear in one column, but apart: not a match either.
  const apart = transfer({ external_id: "cafe_fe77" });
  const whole = transfer({ external_id: "order-CAFE-77-b" });
  const unicode = transfer({ external_id: "zahlung-müller-öl" });
  await insertAll(storage, repo, [spread, apart, whole, unicode]);
  const ids = async (search: string) => (await repo.page(companyId, "test", { search }, null, 100)).map((t) => t.id);
  const check = async () => {
    expect(await ids("cafe-77")).toEqual([whole.id]);
    expect(await ids("Cafe-77-B")).toEqual([whole.id]);
    expect(await ids("cafe77")).toEqual([]);
    expect(await ids("müller-ö")).toEqual([unicode.id]);
    expect(await repo.count(companyId, "test", { search: "cafe-77" })).toBe(1);
  };
  await check(); // not yet indexed: the queue is scanned
  while ((await repo.indexPending(500)) === 500);
  expect(await repo.pendingIndex()).toBe(0);
  await check(); // indexed: the trigrams narrow, the text decides
  expect(trigramQuery("ab")).toBeNull();
  expect(trigramQuery('a"bc')).toBe('"a""b" AND """bc"');
});

test("migration 0021: the index leaves the main file; every stored transfer is queued again and found before and after indexing", async () => {
  // A database migrated to 0020, with a transfer in the old in-file index, then migrated on to the newest.
  const folder = join(dir, "migrations-0020");
  mkdirSync(join(folder, "meta"), { recursive: true });
  const journal = JSON.parse(readFileSync(join(defaultMigrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };
  const upTo = journal.entries.filter((e) => e.idx <= 20);
  writeFileSync(join(folder, "meta", "_journal.json"), JSON.stringify({ ...journal, entries: upTo }));
  for (const e of upTo) copyFileSync(join(defaultMigrationsFolder, `${e.tag}.sql`), join(folder, `${e.tag}.sql`));
  const path = join(dir, "upgrade.db");
  const old = await openStorage(path, { migrationsFolder: folder, search: false });
  // The company as that schema holds it (written by hand: today's repositories write today's columns, such as the
  // audit entry's session).
  const oldCompany = "cmp_upgrade0000000000000000";
  const at = new Date().toISOString();
  old.stmt("INSERT INTO companies (id, slug, name, status, disabled_features, created_at, updated_at) VALUES (?, 'upgrade', 'Upgrade Ltd', 'active', '[]', ?, ?)").run(oldCompany, at, at);
  const row = { ...transfer({ external_id: "before-upgrade-42" }), company_id: oldCompany };
  await new Transfers(old).insert(toTransfer(row));
  old.close();

  const upgraded = await openStorage(path);
  try {
    const repo = new Transfers(upgraded);
    const tables = (upgraded.client.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'transfers_search%'").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toEqual(["transfers_search_pending"]);
    expect(existsSync(`${path}-search`)).toBe(true);
    expect(await repo.pendingIndex()).toBe(1);
    expect((await repo.page(oldCompany, "test", { search: "upgrade-4" }, null, 10)).map((t) => t.id)).toEqual([row.id]);
    expect(await repo.indexPending(100)).toBe(1);
    expect(await repo.pendingIndex()).toBe(0);
    expect((await repo.page(oldCompany, "test", { search: "upgrade-4" }, null, 10)).map((t) => t.id)).toEqual([row.id]);
    expect(() => upgraded.search!.exec("INSERT INTO search.transfers_search (transfers_search) VALUES ('integrity-check')")).not.toThrow();
  } finally {
    upgraded.close();
  }
});

test("a search with few candidates (looked up by rowid) and one with many (the list walked) answer the same way", async () => {
  const repo = new Transfers(storage);
  const company = (await new Tenancy(storage, Date.now).createCompany("many", "Many Ltd")).id;
  // 2,100 transfers share "shared-ref" (more candidates than the rowid path takes); 3 of them also hold "rare-77".
  const rows = Array.from({ length: 2100 }, (_, i) => ({ ...transfer({ external_id: `shared-ref-${i}${i % 700 === 0 ? "-rare-77" : ""}` }), company_id: company }));
  await insertAll(storage, repo, rows);
  const newest = [...rows].reverse();
  const check = async () => {
    // Many candidates: every one is found, newest first, page by page.
    expect(await repo.count(company, "test", { search: "shared-ref" })).toBe(2100);
    const first = await repo.page(company, "test", { search: "shared-ref" }, null, 50);
    expect(first.map((t) => t.id)).toEqual(newest.slice(0, 50).map((t) => t.id));
    const last = first[first.length - 1];
    expect((await repo.page(company, "test", { search: "shared-ref" }, [last.createdAt, last.id], 50)).map((t) => t.id)).toEqual(newest.slice(50, 100).map((t) => t.id));
    // Few candidates: the same order and cursors.
    const rare = newest.filter((t) => t.external_id!.endsWith("-rare-77"));
    expect(rare.length).toBe(3);
    expect(await repo.count(company, "test", { search: "RARE-77" })).toBe(3);
    const p1 = await repo.page(company, "test", { search: "rare-77" }, null, 2);
    expect(p1.map((t) => t.id)).toEqual(rare.slice(0, 2).map((t) => t.id));
    expect((await repo.page(company, "test", { search: "rare-77" }, [p1[1].createdAt, p1[1].id], 2)).map((t) => t.id)).toEqual([rare[2].id]);
    // Other companies' transfers are candidates of the index too, never answers.
    expect(await repo.count(companyId, "test", { search: "rare-77" })).toBe(0);
    expect(await repo.page(company, "test", { search: "rare-77", state: "queued" }, null, 10)).toEqual([]);
  };
  await check(); // all queued: more than the rowid path takes, the list is walked
  while ((await repo.indexPending(500)) === 500);
  await check(); // indexed: "rare-77" has few candidates, "shared-ref" many
});

test("every index a below-threshold create writes on transfers and audit_log answers a query (none can be dropped)", () => {
  const list = "SELECT * FROM transfers WHERE company_id = ? AND environment = ?";
  const newest = " ORDER BY created_at DESC, id DESC LIMIT 20";
  const eqp = [
    [list + newest, "SEARCH transfers USING INDEX transfers_list "],
    [list + " AND state = ?" + newest, "SEARCH transfers USING INDEX transfers_state "],
    [list + " AND status = ?" + newest, "SEARCH transfers USING INDEX transfers_status "],
    ["SELECT * FROM transfers WHERE id = ?", "SEARCH transfers USING INDEX sqlite_autoindex_transfers_1 "],
    // One audit entry by ID (GET of an audit entry): audit_log_id_unique.
    ["SELECT * FROM audit_log WHERE id = ? AND company_id = ? AND environment = ?", "SEARCH audit_log USING INDEX audit_log_id_unique "],
    ["SELECT * FROM audit_log WHERE company_id = ? AND environment = ? ORDER BY seq DESC LIMIT 20", "SEARCH audit_log USING INDEX audit_log_company_env_seq "],
    ["SELECT * FROM audit_log WHERE company_id = ? AND environment = ? AND entity_type = ? AND entity_id = ? ORDER BY seq DESC LIMIT 20", "SEARCH audit_log USING INDEX audit_log_entity "],
  ] as const;
  for (const [sql, line] of eqp) expect({ sql, plan: plan(sql).some((l) => l.startsWith(line)) }).toEqual({ sql, plan: true });
});
