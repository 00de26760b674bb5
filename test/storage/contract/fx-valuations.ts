// The recorded valuations port (src/ports/fx-valuations.ts), as every engine must keep it: a valuation recorded under
// its transfer's fxRateId reads back as the same record (amounts and rates decimal text, times ISO), only in its
// company and environment; a second valuation under the same ID is refused and the first stays.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { FxValuationRecord } from "../../../src/ports/fx-valuations.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

export function fxValuationContract(engine: Engine): void {
  describe("fx valuations", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    const valuation = (o: Partial<FxValuationRecord> = {}): FxValuationRecord => ({
      fxRateId: newId("fxr", NOW),
      companyId: store.companyId,
      environment: "test",
      assetId: "ETH",
      amount: "1.500000000000000001",
      currency: "EUR",
      rate: "2345.6789",
      value: "3518.52",
      source: "coingecko",
      asOf: "2026-03-01T09:59:30.000Z",
      createdAt: iso(NOW),
      ...o,
    });

    test("a recorded valuation reads back as the same record, decimal text untouched", async () => {
      const v = store.repositories.fxValuations;
      const given = valuation({ amount: "0.000000010", rate: "0.00000001", value: "0.00" });
      await store.store.transaction(() => v.record(given));
      const got = await v.get(store.companyId, "test", given.fxRateId);
      expect(got).toEqual(given);
      expect(typeof got!.amount).toBe("string");
      expect(got!.amount).toBe("0.000000010");
    });

    test("only its company and environment find it; an unknown ID is absent", async () => {
      const v = store.repositories.fxValuations;
      const given = valuation({ environment: "live" });
      await store.store.transaction(() => v.record(given));
      expect(await v.get(store.companyId, "live", given.fxRateId)).toEqual(given);
      expect(await v.get(store.companyId, "test", given.fxRateId)).toBeUndefined();
      expect(await v.get("cmp_other", "live", given.fxRateId)).toBeUndefined();
      expect(await v.get(store.companyId, "live", newId("fxr", NOW))).toBeUndefined();
    });

    test("a second valuation under the same ID is refused; the first stays", async () => {
      const v = store.repositories.fxValuations;
      const given = valuation();
      await store.store.transaction(() => v.record(given));
      await expect(store.store.transaction(() => v.record({ ...given, rate: "1", value: "1.5" }))).rejects.toThrow();
      expect(await v.get(store.companyId, "test", given.fxRateId)).toEqual(given);
    });

    test("recorded inside a unit of work that fails, it is not kept", async () => {
      const v = store.repositories.fxValuations;
      const given = valuation();
      await expect(
        store.store.transaction(async () => {
          await v.record(given);
          throw new Error("the transfer create failed");
        }),
      ).rejects.toThrow("the transfer create failed");
      expect(await v.get(store.companyId, "test", given.fxRateId)).toBeUndefined();
    });
  });
}
