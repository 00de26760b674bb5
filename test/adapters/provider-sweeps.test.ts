// The provider sweeps (Part 3: provider_a poll and stall, provider_e poll and expiry) read their transfers from one
// partial index (`transfers_provider_sweep`, migration 0017) in (updated_at, id) pages: the plans search the index
// (no SCAN of transfers, no sort), and with more than one page of due transfers every one is read, each once — a poll
// does not change `updated_at`, so one oldest-first page would return the same transfers every minute.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { Transfers, toTransfer, type TransferRow } from "../../src/adapters/storage/repos/transfers.ts";
import { PROVIDER_A_DUE_FOR_POLL, PROVIDER_A_DUE_FOR_STALL, ProviderAStore } from "../../src/adapters/storage/repos/provider-a-store.ts";
import { ProviderEStore, PROVIDER_E_DUE_FOR_EXPIRY, PROVIDER_E_DUE_FOR_POLL } from "../../src/adapters/storage/repos/provider-e-store.ts";
import { iso, newId } from "../../src/domain/ids.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
let storage: Storage;
let companyId: string;
const NOW = Date.parse("2030-06-01T00:00:00.000Z");
const HOUR = 3600_000;

beforeAll(async () => {
  storage = await openStorage(join(dir, "sweeps.db"));
  companyId = (await new Tenancy(storage, Date.now).createCompany("acme", "Acme Ltd")).id;
});

afterAll(() => storage.close());

let n = 0;
function transfer(over: Partial<TransferRow>): TransferRow {
  n++;
  const at = iso(NOW - HOUR);
  return {
    id: newId("trf", NOW + n), company_id: companyId, environment: "test", direction: "outgoing", state: "exchanging", status: "pending", external_id: null,
    asset: "ETH", asset_id: "eip155:1/slip44:60", amount: "1", network: "ethereum", blockchain_type: "ethereum", originator_customer_id: null,
    originator_address: null, beneficiary_address: `0xbeef${String(n).padStart(4, "0")}`, beneficiary_customer_id: null, is_unhosted_wallet: 0,
    originator_sealed: null, beneficiary_sealed: null, originator_vasp_id: "vasp_own", originator_vasp_name: null, beneficiary_vasp_id: null, beneficiary_vasp_name: null,
    preferred_protocol: null, protocol: "provider_a", provider_external_id: null, matched_at: null, ours_status: null, theirs_status: null, rejection_reason: null,
    rejection_details_sealed: null, tx_hash: null, sanctions_status: null, sanctions_provider: null, threshold_info: null, fx_rate_id: null, checks: "[]",
    attempts: "[]", messages: "[]", history: "[]", expires_at: null, accepted_at: null, completed_at: null, created_at: at, updated_at: at, ...over,
  };
}

const plan = (sql: string): string[] => (storage.client.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

test("the four sweep queries search the partial sweep index: no SCAN of transfers, no temporary sort", () => {
  for (const sql of [PROVIDER_A_DUE_FOR_POLL, PROVIDER_A_DUE_FOR_STALL, PROVIDER_E_DUE_FOR_POLL, PROVIDER_E_DUE_FOR_EXPIRY]) {
    const lines = plan(sql);
    expect(lines.some((l) => l.startsWith("SEARCH transfers USING INDEX transfers_provider_sweep "))).toBe(true);
    expect(lines.some((l) => l.startsWith("SCAN transfers"))).toBe(false);
    expect(lines.some((l) => l.includes("TEMP B-TREE"))).toBe(false);
  }
});

test("more than one page of due transfers: every one is read, each once, and only the due ones", async () => {
  const repo = new Transfers(storage);
  // Same updated_at for many rows: the cursor must page on (updated_at, id), not on updated_at alone.
  const same = iso(NOW - 2 * HOUR);
  const aPoll = [
    ...Array.from({ length: 7 }, () => transfer({ state: "exchanging", updated_at: same })),
    ...Array.from({ length: 6 }, (_, i) => transfer({ state: "awaiting_counterparty", updated_at: iso(NOW - HOUR - i) })),
  ];
  const aNotDue = [
    transfer({ state: "exchanging", updated_at: iso(NOW - 60_000) }), // changed a minute ago
    transfer({ state: "accepted" }),
    transfer({ state: "held" }),
    transfer({ state: "completed" }),
  ];
  const eOut = Array.from({ length: 9 }, (_, i) => transfer({ protocol: "provider_e", state: i % 2 ? "exchanging" : "awaiting_counterparty", updated_at: i < 5 ? same : iso(NOW - HOUR - i) }));
  const eIncoming = transfer({ protocol: "provider_e", direction: "incoming", state: "awaiting_counterparty" });
  const eExpired = [
    ...Array.from({ length: 5 }, () => transfer({ protocol: "provider_e", state: "accepted", expires_at: iso(NOW - 1), updated_at: same })),
    transfer({ protocol: "provider_e", direction: "incoming", state: "exchanging", expires_at: iso(NOW - 1) }),
  ];
  const eNotExpired = [transfer({ protocol: "provider_e", state: "accepted", expires_at: iso(NOW + HOUR) }), transfer({ protocol: "provider_e", state: "held", expires_at: iso(NOW - 1) })];
  await storage.transaction(async () => {
    for (const r of [...aPoll, ...aNotDue, ...eOut, eIncoming, ...eExpired, ...eNotExpired]) await repo.insert(toTransfer(r));
  });

  const pa = new ProviderAStore(storage);
  const before = NOW - 5 * 60_000;
  for (const pageSize of [2, 3, 500]) {
    const polled = await pa.dueForPoll(before, pageSize);
    expect(polled.length).toBe(aPoll.length);
    expect(ids(polled)).toEqual(ids(aPoll));
    const stalled = await pa.dueForStall(NOW - 15 * 60_000, pageSize);
    expect(ids(stalled)).toEqual(ids(aPoll.filter((t) => t.state === "exchanging")));
    const ePolled = await new ProviderEStore(storage).dueForPoll(before, pageSize);
    expect(ePolled.length).toBe(eOut.length);
    expect(ids(ePolled)).toEqual(ids(eOut));
    const expiring = await new ProviderEStore(storage).dueForExpiry(NOW, pageSize);
    expect(ids(expiring)).toEqual(ids(eExpired));
  }
  // Each row carries what the sweep tells with.
  expect((await pa.dueForPoll(before, 2))[0]).toEqual({ id: expect.any(String), companyId, environment: "test" });
});
