// The asset policy port (src/ports/assets.ts) and the recorded valuations port (src/ports/fx-valuations.ts), as every
// engine must keep them: explicit switches over the catalog's defaults per company and environment, each change saying
// what it replaced; valuations read back as recorded (decimal text kept as text), by company and environment only.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import type { Engine, OpenedStore } from "./engines.ts";
import type { FxValuationRecord } from "../../../src/ports/fx-valuations.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const ETH = "eip155:1/slip44:60";
const BTC = "bip122:000000000019d6689c085ae165831e93/slip44:0";
const system = { type: "system" } as const;

export function assetContract(engine: Engine): void {
  describe("asset policy", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("no switch: the catalog default applies; overrides are empty", async () => {
      const p = store.repositories.assets;
      expect(await p.overrides(store.companyId, "test")).toEqual(new Map());
      expect(await p.isEnabled(store.companyId, "test", ETH, true)).toBe(true);
      expect(await p.isEnabled(store.companyId, "test", ETH, false)).toBe(false);
      expect(await p.enabledMap(store.companyId, "test", [{ id: ETH, defaultEnabled: true }, { id: BTC, defaultEnabled: false }])).toEqual(
        new Map([
          [ETH, true],
          [BTC, false],
        ]),
      );
    });

    test("a switch overrides the default in its environment only, and says what it replaced", async () => {
      const p = store.repositories.assets;
      const first = await p.set(store.companyId, "test", ETH, false, system);
      expect(first).toEqual({ assetId: ETH, environment: "test", enabled: false, previous: null, updatedAt: "2026-03-01T10:00:00.000Z" });
      expect(await p.isEnabled(store.companyId, "test", ETH, true)).toBe(false);
      expect(await p.isEnabled(store.companyId, "live", ETH, true)).toBe(true);
      expect(await p.overrides(store.companyId, "test")).toEqual(new Map([[ETH, false]]));
      expect(await p.overrides(store.companyId, "live")).toEqual(new Map());
      const second = await p.set(store.companyId, "test", ETH, true, system);
      expect(second.previous).toBe(false);
      expect(second.enabled).toBe(true);
      // An explicit "on" overrides a default of off too.
      expect(await p.isEnabled(store.companyId, "test", ETH, false)).toBe(true);
      expect((await p.enabledMap(store.companyId, "test", [{ id: ETH, defaultEnabled: false }])).get(ETH)).toBe(true);
    });

    test("another company's switches are its own", async () => {
      const p = store.repositories.assets;
      await p.set(store.companyId, "live", BTC, false, system);
      expect(await p.isEnabled("com_other", "live", BTC, true)).toBe(true);
      expect(await p.overrides("com_other", "live")).toEqual(new Map());
    });
  });

  describe("recorded valuations", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    const valuation = (o: Partial<FxValuationRecord> = {}): FxValuationRecord => ({
      fxRateId: `fx_${crypto.randomUUID().replaceAll("-", "").slice(0, 26)}`,
      companyId: store.companyId,
      environment: "test",
      assetId: BTC,
      amount: "0.50000000",
      currency: "EUR",
      rate: "81700.125",
      value: "40850.0625",
      source: "snapshot:2026-11-01",
      asOf: "2026-11-01T00:00:00.000Z",
      createdAt: "2026-03-01T10:00:00.000Z",
      ...o,
    });

    test("a recorded valuation reads back as recorded, decimal text untouched", async () => {
      const v = valuation();
      await store.repositories.fxValuations.record(v);
      const got = await store.repositories.fxValuations.get(store.companyId, "test", v.fxRateId);
      expect(got).toEqual(v);
      expect(got!.amount).toBe("0.50000000");
    });

    test("read by company and environment only; unknown → undefined", async () => {
      const v = valuation();
      await store.repositories.fxValuations.record(v);
      expect(await store.repositories.fxValuations.get(store.companyId, "live", v.fxRateId)).toBeUndefined();
      expect(await store.repositories.fxValuations.get("com_other", "test", v.fxRateId)).toBeUndefined();
      expect(await store.repositories.fxValuations.get(store.companyId, "test", "fx_unknown")).toBeUndefined();
    });

    test("recorded inside a unit of work that fails: not kept", async () => {
      const v = valuation();
      await expect(
        store.store.transaction(async () => {
          await store.repositories.fxValuations.record(v);
          throw new Error("the create failed");
        }),
      ).rejects.toThrow("the create failed");
      expect(await store.repositories.fxValuations.get(store.companyId, "test", v.fxRateId)).toBeUndefined();
    });
  });
}
