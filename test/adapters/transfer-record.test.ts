// A transfer read from its row (toTransfer): `thresholdInfo` and `history` are parsed when first read, and the record
// still behaves as a plain object everywhere it goes: compared, spread, serialised (same keys, same order), cloned,
// assigned and changed in place; a list column "[]" gives each record its own empty list.
import { test, expect, afterAll } from "bun:test";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { Transfers, toTransfer, insertValues, INSERT_COLUMNS, type TransferRow } from "../../src/adapters/storage/repos/transfers.ts";
import type { Transfer } from "../../src/ports/transfers.ts";

const storage = await openStorage(":memory:");
afterAll(() => storage.close());
const repo = new Transfers(storage);

const at = "2030-06-01T00:00:00.000Z";
const threshold = { amount: "0.01", asset: "ETH", threshold: "1000", thresholdCurrency: "USD", jurisdiction: "DEFAULT" };
const history = [{ type: "created", from: null, to: "completed", at }];

function row(id: string, over: Partial<TransferRow> = {}): TransferRow {
  return {
    id, company_id: "cmp_a", environment: "test", direction: "outgoing", state: "completed", status: "approved", external_id: null,
    asset: "ETH", asset_id: "eip155:1/slip44:60", amount: "1", network: "ethereum", blockchain_type: "ethereum", originator_customer_id: null,
    originator_address: null, beneficiary_address: "0xbeef", beneficiary_customer_id: null, is_unhosted_wallet: 1,
    originator_sealed: null, beneficiary_sealed: null, originator_vasp_id: "vasp_own", originator_vasp_name: null, beneficiary_vasp_id: null, beneficiary_vasp_name: null,
    preferred_protocol: null, protocol: null, provider_external_id: null, matched_at: null, ours_status: null, theirs_status: null, rejection_reason: null,
    rejection_details_sealed: null, tx_hash: null, sanctions_status: null, sanctions_provider: null, threshold_info: JSON.stringify(threshold), fx_rate_id: null,
    checks: "[]", attempts: "[]", messages: '[{"type":"transfer_request"}]', history: JSON.stringify(history), expires_at: null, accepted_at: null,
    completed_at: at, created_at: at, updated_at: at, ...over,
  };
}

/** What the record of `r` holds, written as plain data in the record's field order. */
function plain(r: TransferRow): Transfer {
  return {
    id: r.id, companyId: r.company_id, environment: r.environment, direction: r.direction, state: r.state, status: r.status, externalId: r.external_id,
    asset: r.asset, assetId: r.asset_id, amount: r.amount, network: r.network, blockchainType: r.blockchain_type, originatorCustomerId: r.originator_customer_id,
    originatorAddress: r.originator_address, beneficiaryAddress: r.beneficiary_address, beneficiaryCustomerId: r.beneficiary_customer_id,
    isUnhostedWallet: r.is_unhosted_wallet === 1, originatorSealed: r.originator_sealed, beneficiarySealed: r.beneficiary_sealed,
    originatorVaspId: r.originator_vasp_id, originatorVaspName: r.originator_vasp_name, beneficiaryVaspId: r.beneficiary_vasp_id,
    beneficiaryVaspName: r.beneficiary_vasp_name, preferredProtocol: r.preferred_protocol, protocol: r.protocol, providerExternalId: r.provider_external_id,
    matchedAt: r.matched_at, oursStatus: r.ours_status, theirsStatus: r.theirs_status, rejectionReason: r.rejection_reason,
    rejectionDetailsSealed: r.rejection_details_sealed, txHash: r.tx_hash, sanctionsStatus: r.sanctions_status, sanctionsProvider: r.sanctions_provider,
    thresholdInfo: r.threshold_info === null ? null : JSON.parse(r.threshold_info), fxRateId: r.fx_rate_id, checks: JSON.parse(r.checks),
    attempts: JSON.parse(r.attempts), messages: JSON.parse(r.messages), history: JSON.parse(r.history), expiresAt: r.expires_at, acceptedAt: r.accepted_at,
    completedAt: r.completed_at, createdAt: r.created_at, updatedAt: r.updated_at,
  } as Transfer;
}

test("a record read from its row compares, spreads, serialises and clones as the plain record", () => {
  for (const r of [row("trf_a"), row("trf_b", { threshold_info: null, history: "[]" })]) {
    const t = toTransfer(r);
    const want = plain(r);
    expect(t).toStrictEqual(want);
    expect(Object.keys(t)).toEqual(Object.keys(want));
    expect(JSON.stringify(t)).toBe(JSON.stringify(want));
    expect({ ...t }).toStrictEqual(want);
    expect(structuredClone(t)).toStrictEqual(want);
    expect(insertValues(t)).toEqual(INSERT_COLUMNS.map((c) => r[c as keyof TransferRow]));
  }
});

test("the lazily parsed fields keep what is assigned and what is changed in place; lists are each record's own", () => {
  const r = row("trf_c");
  const t = toTransfer(r);
  t.history.push({ type: "note", from: "completed", to: "completed", at });
  expect(t.history).toHaveLength(2);
  expect(t.history).toBe(t.history);
  t.thresholdInfo = null;
  expect(t.thresholdInfo).toBeNull();
  const u = toTransfer(r);
  u.history = [];
  expect(u.history).toEqual([]);
  u.thresholdInfo = { amount: "2" };
  expect(u.thresholdInfo).toEqual({ amount: "2" });
  expect(toTransfer(r).history).toEqual(history);
  expect(toTransfer(r).thresholdInfo).toEqual(threshold);
  // "[]" is answered without a parse, still a new list per record.
  const a = toTransfer(r);
  const b = toTransfer(r);
  a.checks.push({} as never);
  expect(b.checks).toEqual([]);
  expect(a.checks).not.toBe(b.checks);
});

test("a record read, changed and written back stores the change", async () => {
  await repo.insert(toTransfer(row("trf_d")));
  const t = (await repo.get("cmp_a", "test", "trf_d"))!;
  t.history.push({ type: "note", from: "completed", to: "completed", at });
  await repo.update(t.id, { history: t.history, thresholdInfo: t.thresholdInfo });
  const again = (await repo.get("cmp_a", "test", "trf_d"))!;
  expect(again.history).toEqual([...history, { type: "note", from: "completed", to: "completed", at }]);
  expect(again.thresholdInfo).toEqual(threshold);
  await repo.update(t.id, { ...again, thresholdInfo: null });
  expect((await repo.get("cmp_a", "test", "trf_d"))!.thresholdInfo).toBeNull();
});
