// The transfers port (src/ports/transfers.ts), as every engine must keep it: the same `Transfer` record out as went in
// (camelCase, parsed JSON, booleans, decimal text, ISO times), found by ID, Idempotency-Key and provider reference,
// listed newest first with a keyset, filtered, searched, counted, changed field by field; unknown → undefined.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Transfer } from "../../../src/ports/transfers.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-05-01T10:00:00.000Z");
let n = 0;

/** A complete outgoing transfer, every field set the way a create sets it (overridable). */
export function record(companyId: string, o: Partial<Transfer> = {}): Transfer {
  const ms = NOW + ++n * 1000;
  const at = iso(ms);
  return {
    id: newId("trf", ms),
    companyId,
    environment: "test",
    direction: "outgoing",
    state: "queued",
    status: "pending",
    externalId: null,
    asset: "ETH",
    assetId: "eip155:1/slip44:60",
    amount: "1234.567890123456789",
    network: "ethereum",
    blockchainType: "ethereum",
    originatorCustomerId: null,
    originatorAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
    beneficiaryAddress: `0xbeef${String(n).padStart(36, "0")}`,
    beneficiaryCustomerId: null,
    isUnhostedWallet: true,
    originatorSealed: "v1:sealed-originator",
    beneficiarySealed: null,
    originatorVaspId: "vasp_own",
    originatorVaspName: "Caravan",
    beneficiaryVaspId: null,
    beneficiaryVaspName: null,
    preferredProtocol: "provider_b",
    protocol: null,
    providerExternalId: null,
    matchedAt: null,
    oursStatus: "pending",
    theirsStatus: null,
    rejectionReason: null,
    rejectionDetailsSealed: null,
    txHash: null,
    sanctionsStatus: null,
    sanctionsProvider: null,
    thresholdInfo: { amount: "1234.567890123456789", asset: "ETH", threshold: "1000", thresholdCurrency: "EUR", jurisdiction: "DE", regulation: "TFR" },
    fxRateId: "fxv_contract",
    checks: [],
    attempts: [],
    messages: [],
    history: [{ type: "created", from: null, to: "queued", at }],
    expiresAt: iso(ms + 3_600_000),
    acceptedAt: null,
    completedAt: null,
    createdAt: at,
    updatedAt: at,
    ...o,
  };
}

export function transferContract(engine: Engine): void {
  describe("transfers", () => {
    let store: OpenedStore;
    let company: string;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
      company = (await store.repositories.tenancy.createCompany(`transfers-${crypto.randomUUID().slice(0, 8)}`, "Transfers Ltd")).id;
    });
    afterAll(() => store.close());

    test("an inserted transfer reads back as the same record: JSON parsed, flags boolean, amounts text", async () => {
      const t = store.repositories.transfers;
      const given = record(company, {
        checks: [{ id: "chk_1", integration: null, integrationId: "int_1", displayName: "Names", type: "sanctions", stage: "precheck", evaluation: 0, status: "pending", requestedAt: iso(NOW), durationMs: null, error: null, responseSealed: null, run: "1" }],
        attempts: [{ id: "att_1", provider: "provider_b", displayName: "B", protocol: "provider_b", order: 1, status: "discovering", externalId: null, error: null, durationMs: 12 }],
        messages: [{ type: "transfer_request", direction: "outbound", timestamp: iso(NOW) }],
      });
      await t.insert(given);
      const got = await t.get(company, "test", given.id);
      expect(got).toEqual(given);
      expect(got!.isUnhostedWallet).toBe(true);
      expect(typeof got!.amount).toBe("string");
      expect(got!.amount).toBe("1234.567890123456789");
      expect(Array.isArray(got!.history)).toBe(true);
      // A transfer without a threshold record and on a hosted wallet.
      const plain = record(company, { thresholdInfo: null, isUnhostedWallet: false, expiresAt: null, fxRateId: null });
      await t.insert(plain);
      expect(await t.get(company, "test", plain.id)).toEqual(plain);
    });

    test("not found → undefined: an unknown ID, another environment, another company", async () => {
      const t = store.repositories.transfers;
      const given = record(company);
      await t.insert(given);
      expect(await t.get(company, "test", newId("trf", NOW))).toBeUndefined();
      expect(await t.get(company, "live", given.id)).toBeUndefined();
      expect(await t.get(store.companyId, "test", given.id)).toBeUndefined();
      expect(await t.byExternalId(company, "test", "never-used")).toBeUndefined();
      expect(await t.byProviderReference(company, "test", "provider_e", "never-used")).toBeUndefined();
    });

    test("found by Idempotency-Key (once per environment) and by the carrying provider's reference", async () => {
      const t = store.repositories.transfers;
      const keyed = record(company, { externalId: "order-1", protocol: "provider_e", providerExternalId: "pe-1", state: "exchanging" });
      await t.insert(keyed);
      expect(await t.byExternalId(company, "test", "order-1")).toEqual(keyed);
      expect(await t.byExternalId(company, "live", "order-1")).toBeUndefined();
      expect(await t.byProviderReference(company, "test", "provider_e", "pe-1")).toEqual(keyed);
      // The reference counts only with the provider that carries it.
      expect(await t.byProviderReference(company, "test", "provider_a", "pe-1")).toBeUndefined();
      // The same key again in the environment is refused; in the other environment it is another transfer.
      await expect(t.insert(record(company, { externalId: "order-1" }))).rejects.toThrow();
      const live = record(company, { externalId: "order-1", environment: "live" });
      await t.insert(live);
      expect((await t.byExternalId(company, "live", "order-1"))?.id).toBe(live.id);
    });

    test("outgoing provider_b transfers by the provider's ID and by transaction, oldest first, to the named VASP only", async () => {
      const t = store.repositories.transfers;
      const b = (o: Partial<Transfer>) => record(company, { protocol: "provider_b", beneficiaryVaspId: "vasp_peer", state: "awaiting_counterparty", ...o });
      const first = b({ providerExternalId: "pb-1", txHash: "0xaaa" });
      const second = b({ providerExternalId: "pb-2", txHash: "aaa" });
      const other = b({ providerExternalId: "pb-3", txHash: "0xaaa", beneficiaryVaspId: "vasp_else" });
      const incoming = b({ providerExternalId: "pb-4", txHash: "0xaaa", direction: "incoming" });
      for (const x of [first, second, other, incoming]) await t.insert(x);
      expect(await t.outgoingProviderB(company, "test", "pb-1", "vasp_peer")).toEqual(first);
      expect(await t.outgoingProviderB(company, "test", "pb-3", "vasp_peer")).toBeUndefined();
      expect(await t.outgoingProviderB(company, "test", "pb-4", "vasp_peer")).toBeUndefined();
      expect((await t.outgoingProviderBByTx(company, "test", ["0xaaa", "aaa"], "vasp_peer")).map((x) => x.id)).toEqual([first.id, second.id]);
      expect(await t.outgoingProviderBByTx(company, "test", ["0xbbb"], "vasp_peer")).toEqual([]);
    });

    test("an update writes the fields given (JSON, flags, nulls) and leaves the rest as it was", async () => {
      const t = store.repositories.transfers;
      const given = record(company);
      await t.insert(given);
      const set: Partial<Transfer> = {
        state: "rejected",
        status: "rejected",
        oursStatus: "rejected",
        rejectionReason: "COMPLIANCE_POLICY",
        isUnhostedWallet: false,
        expiresAt: null,
        history: [...given.history, { type: "rejected", from: "queued", to: "rejected", at: iso(NOW + 5000), detail: { caseId: "case_1" } }],
        checks: [{ id: "chk_2", integration: null, integrationId: "int_2", displayName: "Names", type: "sanctions", stage: "postcheck", evaluation: 1, status: "success", requestedAt: iso(NOW), durationMs: 40, error: null, responseSealed: "v1:x", run: "2" }],
        updatedAt: iso(NOW + 5000),
      };
      await t.update(given.id, set);
      expect(await t.get(company, "test", given.id)).toEqual({ ...given, ...set });
      // Nothing to change is no change.
      await t.update(given.id, {});
      expect(await t.get(company, "test", given.id)).toEqual({ ...given, ...set });
    });

    test("the list: newest first by (createdAt, id), continued after a keyset position, filtered and counted", async () => {
      const t = store.repositories.transfers;
      const own = (await store.repositories.tenancy.createCompany(`list-${crypto.randomUUID().slice(0, 8)}`, "List Ltd")).id;
      const same = iso(NOW + 999_000);
      const rows = [
        record(own, { state: "completed", status: "approved" }),
        record(own, { direction: "incoming", state: "exchanging", protocol: "provider_e" }),
        record(own, { createdAt: same, id: newId("trf", NOW + 999_000) }),
        record(own, { createdAt: same, id: newId("trf", NOW + 999_000) }),
        record(own, { state: "completed", status: "approved", externalId: "Needle-ref-42" }),
      ];
      for (const r of rows) await t.insert(r);
      const order = [...rows].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)).map((r) => r.id);
      const first = await t.page(own, "test", {}, null, 2);
      expect(first.map((x) => x.id)).toEqual(order.slice(0, 2));
      const last = first[first.length - 1];
      const next = await t.page(own, "test", {}, [last.createdAt, last.id], 2);
      expect(next.map((x) => x.id)).toEqual(order.slice(2, 4));
      expect((await t.page(own, "test", {}, [next[1].createdAt, next[1].id], 10)).map((x) => x.id)).toEqual(order.slice(4));
      // The rows of the list are whole records.
      expect(first[0]).toEqual(rows.find((r) => r.id === order[0])!);
      expect(await t.count(own, "test", {})).toBe(5);
      expect(await t.count(own, "live", {})).toBe(0);
      expect(await t.page(own, "live", {}, null, 10)).toEqual([]);
      expect((await t.page(own, "test", { status: "approved" }, null, 10)).map((x) => x.id).sort()).toEqual([rows[0].id, rows[4].id].sort());
      expect(await t.count(own, "test", { state: "completed" })).toBe(2);
      expect((await t.page(own, "test", { direction: "incoming" }, null, 10)).map((x) => x.id)).toEqual([rows[1].id]);
      expect((await t.page(own, "test", { protocol: "provider_e" }, null, 10)).map((x) => x.id)).toEqual([rows[1].id]);
      // Search: a piece of a searched field, any case.
      expect((await t.page(own, "test", { search: "needle-REF" }, null, 10)).map((x) => x.id)).toEqual([rows[4].id]);
      expect(await t.count(own, "test", { search: "needle-ref" })).toBe(1);
      expect(await t.count(own, "test", { search: "no-such-text" })).toBe(0);
    });

    test("search: a piece of one searched column, ASCII letters in any case, LIKE's characters and short texts taken literally", async () => {
      const t = store.repositories.transfers;
      const own = (await store.repositories.tenancy.createCompany(`search-${crypto.randomUUID().slice(0, 8)}`, "Search Ltd")).id;
      // Texts an ID (trf_ and digits and letters) cannot hold, so only the columns set here can match.
      const one = (o: Partial<Transfer>) => record(own, { originatorVaspId: null, originatorAddress: null, beneficiaryAddress: "-", ...o });
      const [pct, under, plain, across, umlaut, upper] = [
        one({ externalId: "50%_off\\x" }),
        one({ externalId: "a_b" }),
        one({ externalId: "a-b-50" }),
        one({ originatorVaspId: "vasp-z-", externalId: "-qq", beneficiaryAddress: "yy-end" }),
        one({ externalId: "zahlung-müller" }),
        one({ externalId: "MÜLLER-AG" }),
      ];
      for (const x of [pct, under, plain, across, umlaut, upper]) await t.insert(x);
      const ids = async (search: string) => (await t.page(own, "test", { search }, null, 10)).map((x) => x.id);
      expect(await ids("%")).toEqual([pct.id]);
      expect(await ids("a_b")).toEqual([under.id]);
      expect(await ids("\\")).toEqual([pct.id]);
      expect(await ids("50%_")).toEqual([pct.id]);
      expect(await ids("A-B")).toEqual([plain.id]);
      expect(await ids("-5")).toEqual([plain.id]);
      expect(await ids("Z-")).toEqual([across.id]);
      expect(await ids("z--q")).toEqual([]); // not across two columns
      // Letters beyond ASCII: the search is lowered; a column holding the capital is not found by it.
      expect(await ids("MÜLLER")).toEqual([umlaut.id]);
      expect(await ids("ü")).toEqual([umlaut.id]);
      expect(await ids("Ü-ag")).toEqual([]);
      expect(await t.count(own, "test", { search: "a_b" })).toBe(1);
      expect(await t.count(own, "test", { search: "-" })).toBe(6);
    });

    test("a customer's transfers not in a final state, either side, oldest first", async () => {
      const t = store.repositories.transfers;
      const cus = newId("cus", NOW);
      const open1 = record(company, { originatorCustomerId: cus, state: "held" });
      const done = record(company, { originatorCustomerId: cus, state: "completed", status: "approved" });
      const open2 = record(company, { direction: "incoming", beneficiaryCustomerId: cus, originatorCustomerId: null, state: "awaiting_counterparty" });
      for (const x of [open1, done, open2]) await t.insert(x);
      expect(await t.activeForCustomer(company, "test", cus)).toEqual([open1.id, open2.id]);
      expect(await t.activeForCustomer(company, "live", cus)).toEqual([]);
      await t.update(open1.id, { state: "cancelled" });
      expect(await t.activeForCustomer(company, "test", cus)).toEqual([open2.id]);
    });

    test("due for cancellation: an outgoing transfer no provider took, past its expiry; not one still valid or carried", async () => {
      const t = store.repositories.transfers;
      const expired = record(company, { state: "queued", expiresAt: iso(NOW - 1) });
      const valid = record(company, { state: "queued", expiresAt: iso(NOW + 3_600_000) });
      const carried = record(company, { state: "exchanging", protocol: "provider_e", expiresAt: iso(NOW - 1) });
      for (const x of [expired, valid, carried]) await t.insert(x);
      const due = await t.dueForCancel(iso(NOW));
      expect(due).toContainEqual({ id: expired.id, companyId: company, environment: "test" });
      expect(due.map((d) => d.id)).not.toContain(valid.id);
      expect(due.map((d) => d.id)).not.toContain(carried.id);
    });

    test("the provider through which a VASP was last reached; null when no transfer reached it", async () => {
      const t = store.repositories.transfers;
      expect(await t.lastReached(company, "test", "vasp_never", "trf_none")).toBeNull();
      const reached = record(company, { protocol: "provider_a", beneficiaryVaspId: "vasp_reached", state: "exchanging" });
      await t.insert(reached);
      await store.repositories.vasps.record(company, "test", "vasp_reached", "Reached", "transfer_history", reached.createdAt);
      expect(await t.lastReached(company, "test", "vasp_reached", "trf_none")).toEqual({ protocol: "provider_a", at: reached.updatedAt });
      expect(await t.lastReached(company, "test", "vasp_reached", reached.id)).toBeNull();
    });

    test("the search index's queue: a new transfer is queued (where search has a queue), indexing empties it, and search finds it before and after", async () => {
      const t = store.repositories.transfers;
      // An engine that keeps its search index with the rows (searchQueued false) never has anything pending.
      const queued = t.searchQueued ? 1 : 0;
      while ((await t.indexPending(500)) === 500);
      expect(await t.pendingIndex()).toBe(0);
      const given = record(company, { externalId: "queued-for-index-7" });
      await t.insert(given);
      expect(await t.pendingIndex()).toBe(queued);
      expect((await t.page(company, "test", { search: "for-index-7" }, null, 10)).map((x) => x.id)).toEqual([given.id]);
      expect(await t.indexPending(500)).toBe(queued);
      expect(await t.pendingIndex()).toBe(0);
      expect((await t.page(company, "test", { search: "for-index-7" }, null, 10)).map((x) => x.id)).toEqual([given.id]);
      expect(await t.trimSearchQueue()).toBeGreaterThanOrEqual(0);
    });
  });
}
