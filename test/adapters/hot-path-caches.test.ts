// Issue 19: what every create reads is cached (applicable threshold, own VASP, asset policy) and the transfer search
// index is filled off the request path. Caches: a write through the repositories counts at once; another
// connection's transaction (the CLI in another process) counts at once too; a threshold whose effective date
// passes counts without any write. Search: a transfer not yet indexed is found; indexing, updates and deletes of
// indexed and not-yet-indexed transfers keep the FTS index consistent (FTS5 integrity-check).
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { Thresholds, applicableThreshold, ownVasp, setCompanyProfile } from "../../src/adapters/storage/repos/thresholds.ts";
import { decideChange, newThreshold } from "../../src/domain/thresholds.ts";
import { iso, newId } from "../../src/domain/ids.ts";
import { AssetPolicy } from "../../src/adapters/storage/repos/assets.ts";
import { Transfers, toTransfer, trigramQuery, type TransferRow } from "../../src/adapters/storage/repos/transfers.ts";
import { findAsset } from "../../src/domain/assets/catalog.ts";
import { loadCatalog } from "../../src/adapters/assets/catalog.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const file = join(dir, "caches.db");
let storage: Storage;
/** A second connection to the same file: its commits are "another process". */
let other: Storage;
let companyId: string;

beforeAll(async () => {
  storage = await openStorage(file);
  other = await openStorage(file);
  companyId = (await new Tenancy(storage, Date.now).createCompany("acme", "Acme Ltd")).id;
});

afterAll(() => {
  other.close();
  storage.close();
});

const by = { actor: { type: "system" } as never, memberId: "mem_test" };
const NOW = Date.parse("2030-06-01T00:00:00.000Z");

test("applicable threshold: in-process changes, another connection's change and a passing effective date all count", async () => {
  expect(applicableThreshold(storage, companyId, { type: "tr", now: NOW }).threshold).toMatchObject({ id: null, amount: "1000", jurisdiction: "DEFAULT" });
  // Written as the thresholds actor writes one: the domain's record, inserted in a transaction.
  const repo = new Thresholds(storage);
  const input = { countryCode: "DEFAULT", type: "tr", name: "Own", thresholdAmount: "500", thresholdCurrency: "USD", regulation: "R", regulatoryBody: null, effectiveDate: null, filingDeadlineDays: null, isEUMember: false, requiresOriginatorAccount: true, isActive: true, notes: null } as const;
  const created = newThreshold(newId("thr", NOW), input, by.memberId, iso(NOW));
  await storage.transaction(() => repo.insert(companyId, created));
  const id = created.id;
  expect(applicableThreshold(storage, companyId, { type: "tr", now: NOW }).threshold).toMatchObject({ id, amount: "500" });
  // Written in a transaction, as every Caravan writer does: seen at once, in the same turn (the change beacon).
  other.tx(() => other.stmt("UPDATE thresholds SET threshold_amount = '700' WHERE id = ?").run(id));
  expect(applicableThreshold(storage, companyId, { type: "tr", now: NOW }).threshold).toMatchObject({ id, amount: "700" });
  // Effective from 2031: the fallback applies before, the company's threshold after, with no write in between.
  const u = decideChange((await repo.get(companyId, id))!, { effectiveDate: "2031-01-01" }, { ...by, canDisable: true }, iso(NOW));
  expect(u.ok).toBe(true);
  if (u.ok && u.change) await storage.transaction(() => repo.save(companyId, u.threshold, u.change!.fields));
  expect(applicableThreshold(storage, companyId, { type: "tr", now: NOW }).threshold).toMatchObject({ id: null, amount: "1000" });
  expect(applicableThreshold(storage, companyId, { type: "tr", now: Date.parse("2031-01-01T00:00:00.000Z") }).threshold).toMatchObject({ id, amount: "700" });
  expect(applicableThreshold(storage, companyId, { type: "tr", now: NOW }).threshold).toMatchObject({ id: null, amount: "1000" });
  // What the cache hands out cannot be changed by a caller.
  expect(Object.isFrozen(applicableThreshold(storage, companyId, { type: "tr", now: NOW }).threshold)).toBe(true);
});

test("own VASP: a profile set in this process or by another connection counts", async () => {
  expect(ownVasp(storage, companyId)).toEqual({ id: companyId, name: "Acme Ltd" });
  setCompanyProfile(storage, companyId, { legalName: "Acme Holdings B.V.", identifiers: [{ type: "LEI", value: "HWUPKR0MPOU8FGXBT394" }] }, NOW);
  expect(ownVasp(storage, companyId)).toEqual({ id: "HWUPKR0MPOU8FGXBT394", name: "Acme Holdings B.V." });
  // Written in a transaction, as every Caravan writer does: seen at once, in the same turn (the change beacon).
  other.tx(() => other.stmt("UPDATE companies SET profile = ? WHERE id = ?").run(JSON.stringify({ legalName: "Acme Renamed", country: null, identifiers: [] }), companyId));
  expect(ownVasp(storage, companyId)).toEqual({ id: companyId, name: "Acme Renamed" });
});

test("asset policy: a change through the repository or by another connection counts", async () => {
  const policy = new AssetPolicy(storage, Date.now);
  const eth = "eip155:1/slip44:60";
  expect(await policy.isEnabled(companyId, "test", eth, true)).toBe(true);
  await new AssetPolicy(storage, Date.now).set(companyId, "test", eth, false, { type: "system" } as never);
  expect(await policy.isEnabled(companyId, "test", eth, true)).toBe(false);
  expect(await policy.isEnabled(companyId, "live", eth, true)).toBe(true);
  // Written in a transaction, as every Caravan writer does: seen at once, in the same turn (the change beacon).
  other.tx(() => other.stmt("UPDATE asset_policies SET enabled = 1 WHERE company_id = ? AND environment = 'test' AND asset_id = ?").run(companyId, eth));
  expect(await policy.isEnabled(companyId, "test", eth, true)).toBe(true);
});

test("catalog lookup by index answers as the linear search did: by ID, by code in any case, natives first, ambiguity", () => {
  const catalog = loadCatalog();
  const linear = (asset: string, network: string) => {
    const onNetwork = catalog.assets.filter((a) => a.network === network);
    const byId = onNetwork.find((a) => a.id === asset.trim());
    if (byId) return byId.id;
    const m = onNetwork.filter((a) => a.aliases.some((x) => x.toUpperCase() === asset.trim().toUpperCase()));
    return m.length === 0 ? null : m.map((a) => a.id).sort().join(",");
  };
  let checked = 0;
  for (const a of catalog.assets.slice(0, 400)) {
    for (const q of [a.id, a.aliases[0], a.aliases[0].toLowerCase()]) {
      const found = findAsset(catalog.assets, { asset: q, network: a.network });
      const want = linear(q, a.network);
      if (!found) expect(want).toBeNull();
      else if (found.ok) expect(want!.split(",")).toContain(found.asset.id);
      else expect(found.candidates.map((x) => x.id).sort().join(",")).toBe(want!);
      checked++;
    }
  }
  expect(checked).toBe(1200);
  expect(findAsset(catalog.assets, { asset: "eth", network: "ethereum" })).toMatchObject({ ok: true, asset: { id: "eip155:1/slip44:60" } });
  expect(findAsset(catalog.assets, { asset: "NOPE-NOT-AN-ASSET", network: "ethereum" })).toBeNull();
});

function transfer(n: number, over: Partial<TransferRow> = {}): TransferRow {
  const at = iso(NOW + n);
  return {
    id: newId("trf", NOW + n), company_id: companyId, environment: "test", direction: "outgoing", state: "completed", status: "approved", external_id: `ext-${n}-Search`,
    asset: "ETH", asset_id: "eip155:1/slip44:60", amount: "1", network: "ethereum", blockchain_type: "ethereum", originator_customer_id: null,
    originator_address: null, beneficiary_address: `0xbeef${String(n).padStart(4, "0")}`, beneficiary_customer_id: null, is_unhosted_wallet: 0,
    originator_sealed: null, beneficiary_sealed: null, originator_vasp_id: "vasp_own", originator_vasp_name: null, beneficiary_vasp_id: null, beneficiary_vasp_name: null,
    preferred_protocol: null, protocol: null, provider_external_id: null, matched_at: null, ours_status: null, theirs_status: null, rejection_reason: null,
    rejection_details_sealed: null, tx_hash: null, sanctions_status: null, sanctions_provider: null, threshold_info: null, fx_rate_id: null, checks: "[]",
    attempts: "[]", messages: "[]", history: "[]", expires_at: null, accepted_at: null, completed_at: at, created_at: at, updated_at: at, ...over,
  };
}

test("search finds transfers before and after the background indexing; updates and deletes keep the index consistent", async () => {
  const repo = new Transfers(storage);
  const ids = async (search: string) => (await repo.page(companyId, "test", { search }, null, 100)).map((t) => t.id).sort();
  const rows = Array.from({ length: 6 }, (_, i) => transfer(i));
  await storage.transaction(async () => {
    for (const r of rows) await repo.insert(toTransfer(r));
  });
  expect(await repo.pendingIndex()).toBe(6);
  // Not indexed yet: found by every searched column, any case, through the FTS branch (≥ 3 characters) and the scan.
  expect(await ids("EXT-3-search")).toEqual([rows[3].id]);
  expect(await ids("0XBEEF000")).toEqual(rows.map((r) => r.id).sort());
  expect(await ids(rows[2].id.slice(10, 20))).toEqual([rows[2].id]);
  expect(await ids("xt")).toEqual(rows.map((r) => r.id).sort());
  expect(await repo.count(companyId, "test", { search: "ext-4-" })).toBe(1);
  // Index half of them: an update of an indexed row and of a pending row, then a delete of each kind.
  expect(await repo.indexPending(3)).toBe(3);
  expect(await repo.pendingIndex()).toBe(3);
  await repo.update(rows[1].id, { beneficiaryVaspId: "vasp_counterparty_one" });
  await repo.update(rows[4].id, { beneficiaryVaspId: "vasp_counterparty_four" });
  storage.stmt("DELETE FROM transfers WHERE id = ?").run(rows[0].id);
  storage.stmt("DELETE FROM transfers WHERE id = ?").run(rows[5].id);
  // Each change queues its transfer again (3 still queued from the inserts, 4 changes).
  expect(await repo.pendingIndex()).toBe(7);
  expect(await ids("counterparty")).toEqual([rows[1].id, rows[4].id].sort());
  expect(await repo.indexPending(100)).toBe(7);
  expect(await repo.pendingIndex()).toBe(0);
  expect(await ids("counterparty_four")).toEqual([rows[4].id]);
  expect(await ids("counterparty")).toEqual([rows[1].id, rows[4].id].sort());
  expect(await ids("0xbeef")).toEqual([rows[1].id, rows[2].id, rows[3].id, rows[4].id].sort());
  expect(await ids("ext-0-")).toEqual([]);
  // The FTS5 index is consistent, and indexed rows are found through it: the index alone answers them (the two
  // deleted transfers, one indexed before its delete, are gone from it).
  expect(() => storage.search!.exec("INSERT INTO search.transfers_search (transfers_search) VALUES ('integrity-check')")).not.toThrow();
  const fts = storage.search!.stmt("SELECT count(*) AS n FROM search.transfers_search WHERE transfers_search MATCH ?").get(trigramQuery("0xBEEF")) as { n: number };
  expect(fts.n).toBe(4);
});
