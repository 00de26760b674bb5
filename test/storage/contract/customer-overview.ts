// The customer overview port (src/ports/customer-overview.ts), as every engine must keep it, for what the customers
// suite (test/storage/contract/customers.ts) leaves: the customer's latest transfers on either side, newest first
// (ties by ID), at most the limit, in its environment only; and the cases linked to any of those transfers, each once,
// newest first, their linked transfers as a list. Everything is written through the ports it belongs to.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso } from "../../../src/domain/ids.ts";
import { newCustomer } from "./customers.ts";
import { record as newTransfer } from "./transfers.ts";
import { insertCase } from "./cases.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

export function customerOverviewContract(engine: Engine): void {
  describe("customer overview", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    async function customer(env: "test" | "live" = "test", at = NOW) {
      const c = newCustomer(store.companyId, env, at);
      await store.repositories.customers.insert(c);
      return c;
    }

    test("the customer's transfers, originator or beneficiary side, newest first (ties by ID), at most the limit, its environment only", async () => {
      const o = store.repositories.customerOverview;
      const c = await customer();
      const someoneElse = await customer();
      const put = async (t: ReturnType<typeof newTransfer>) => (await store.store.transaction(() => store.repositories.transfers.insert(t)), t);
      const out = await put(newTransfer(store.companyId, { originatorCustomerId: c.id, createdAt: iso(NOW + 1000), amount: "0.000000000000000001" }));
      const inc = await put(newTransfer(store.companyId, { direction: "incoming", state: "completed", status: "completed", beneficiaryCustomerId: c.id, protocol: "provider_b", createdAt: iso(NOW + 2000) }));
      const tieA = await put(newTransfer(store.companyId, { originatorCustomerId: c.id, createdAt: iso(NOW + 3000) }));
      const tieB = await put(newTransfer(store.companyId, { originatorCustomerId: c.id, createdAt: iso(NOW + 3000) }));
      await put(newTransfer(store.companyId, { originatorCustomerId: someoneElse.id, createdAt: iso(NOW + 4000) }));
      const ties = [tieA, tieB].sort((x, y) => (x.id < y.id ? 1 : -1));

      const got = await o.transfers(store.companyId, "test", c.id, 50);
      expect(got.map((t) => t.id)).toEqual([ties[0]!.id, ties[1]!.id, inc.id, out.id]);
      expect(got[2]).toEqual({ id: inc.id, direction: "incoming", state: "completed", status: "completed", amount: inc.amount, asset: "ETH", network: "ethereum", protocol: "provider_b", createdAt: iso(NOW + 2000) });
      expect(got[3]).toEqual({ id: out.id, direction: "outgoing", state: "queued", status: "pending", amount: "0.000000000000000001", asset: "ETH", network: "ethereum", protocol: null, createdAt: iso(NOW + 1000) });
      expect((await o.transfers(store.companyId, "test", c.id, 3)).map((t) => t.id)).toEqual([ties[0]!.id, ties[1]!.id, inc.id]);
      expect(await o.transfers(store.companyId, "live", c.id, 50)).toEqual([]);
      expect(await o.transfers("cmp_other", "test", c.id, 50)).toEqual([]);
      expect((await o.transfers(store.companyId, "test", someoneElse.id, 50)).length).toBe(1);
    });

    test("the cases linked to any of the transfers: each once, newest first, linked transfers as a list, their environment only", async () => {
      const o = store.repositories.customerOverview;
      const [t1, t2] = ["trf_overview_1", "trf_overview_2"];
      const a = await insertCase(store, "test", { transferIds: [t1, "trf_unrelated"], priority: "high" }, NOW + 1000);
      const b = await insertCase(store, "test", { transferIds: [t2], status: "closed", resolution: "approved" }, NOW + 2000);
      const both = await insertCase(store, "test", { transferIds: [t1, t2] }, NOW + 3000);
      await insertCase(store, "test", { transferIds: ["trf_unrelated"] }, NOW + 4000);
      const live = await insertCase(store, "live", { transferIds: [t1] }, NOW + 5000);

      const got = await o.cases(store.companyId, "test", [t1, t2]);
      expect(got.map((x) => x.id)).toEqual([both.id, b.id, a.id]);
      expect(got[1]).toEqual({ id: b.id, caseNumber: b.caseNumber, type: b.type, status: "closed", resolution: "approved", priority: "medium", transferIds: [t2], createdAt: iso(NOW + 2000) });
      expect(got[2]).toMatchObject({ priority: "high", resolution: null, transferIds: [t1, "trf_unrelated"] });
      expect((await o.cases(store.companyId, "test", [t2])).map((x) => x.id)).toEqual([both.id, b.id]);
      expect((await o.cases(store.companyId, "live", [t1])).map((x) => x.id)).toEqual([live.id]);
      expect(await o.cases("cmp_other", "test", [t1, t2])).toEqual([]);
      expect(await o.cases(store.companyId, "test", [])).toEqual([]);
    });
  });
}
