// The thresholds port (src/ports/thresholds.ts), as every engine must keep it: the domain's records in, the same
// records out (camelCase, booleans, decimal text, ISO times), found by jurisdiction, changed field by field, counted.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { decideChange, newThreshold, validateCreateThreshold, type Threshold } from "../../../src/domain/thresholds.ts";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

function record(o: Record<string, unknown> = {}, at = NOW): Threshold {
  const v = validateCreateThreshold({ countryCode: "DE", type: "tr", name: "Travel Rule", thresholdAmount: "1000", regulation: "Law", ...o });
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return newThreshold(newId("thr", at), v.value, "mem_contract", iso(at));
}

export function thresholdContract(engine: Engine): void {
  describe("thresholds", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("an inserted threshold reads back as the same record", async () => {
      const t = store.repositories.thresholds;
      const given = record({ thresholdAmount: "1000.50", isEUMember: true, filingDeadlineDays: null });
      await t.insert(store.companyId, given);
      const got = (await t.get(store.companyId, given.id))!;
      expect(got).toEqual(given);
      expect(typeof got.thresholdAmount).toBe("string");
      expect(got.isEUMember).toBe(true);
      expect(typeof got.requiresOriginatorAccount).toBe("boolean");
      expect(got.createdAt).toBe("2026-03-01T10:00:00.000Z");
      expect(await t.get("com_other", given.id)).toBeUndefined();
    });

    test("found by jurisdiction and type; listed by jurisdiction, type, ID", async () => {
      const t = store.repositories.thresholds;
      const fr = record({ countryCode: "FR" });
      const at = record({ countryCode: "AT" });
      await t.insert(store.companyId, fr);
      await t.insert(store.companyId, at);
      expect(await t.idByJurisdiction(store.companyId, "FR", "tr")).toBe(fr.id);
      expect(await t.idByJurisdiction(store.companyId, "FR", "str")).toBeUndefined();
      const codes = (await t.all(store.companyId)).map((x) => x.countryCode);
      expect(codes).toEqual([...codes].sort());
      expect(codes).toContain("AT");
    });

    test("a saved change writes the changed fields and who changed it when; the rest stays", async () => {
      const t = store.repositories.thresholds;
      const given = record({ countryCode: "IT" });
      await t.insert(store.companyId, given);
      const d = decideChange(given, { thresholdAmount: "2000", notes: "raised" }, { memberId: "mem_other", canDisable: true }, iso(NOW + 1000));
      if (!d.ok || !d.change) throw new Error("no change");
      await t.save(store.companyId, d.threshold, d.change.fields);
      const got = (await t.get(store.companyId, given.id))!;
      expect(got).toEqual({ ...given, thresholdAmount: "2000", notes: "raised", updatedAt: "2026-03-01T10:00:01.000Z", updatedBy: "mem_other" });
    });

    test("the active count follows the switch", async () => {
      const t = store.repositories.thresholds;
      const before = await t.activeCount(store.companyId);
      const given = record({ countryCode: "NL" });
      await t.insert(store.companyId, given);
      expect(await t.activeCount(store.companyId)).toBe(before + 1);
      await t.save(store.companyId, { ...given, isActive: false }, ["isActive"]);
      expect(await t.activeCount(store.companyId)).toBe(before);
    });
    test("the profile reads back as set and names the company as a VASP; a refused change changes nothing", async () => {
      const t = store.repositories.thresholds;
      const before = await t.ownVasp(store.companyId);
      expect(before.id).toBe(store.companyId);
      const set = await t.setProfile(store.companyId, { legalName: "Contract VASP B.V.", identifiers: [{ type: "LEI", value: "HWUPKR0MPOU8FGXBT394" }] }, NOW);
      expect(set).toEqual({ ok: true, profile: { legalName: "Contract VASP B.V.", country: null, identifiers: [{ type: "LEI", value: "HWUPKR0MPOU8FGXBT394" }] } });
      expect(await t.profile(store.companyId)).toEqual({ legalName: "Contract VASP B.V.", country: null, identifiers: [{ type: "LEI", value: "HWUPKR0MPOU8FGXBT394" }] });
      expect(await t.ownVasp(store.companyId)).toEqual({ id: "HWUPKR0MPOU8FGXBT394", name: "Contract VASP B.V." });
      const refused = await t.setProfile(store.companyId, { legalName: "Renamed", country: "XX" }, NOW);
      expect(refused.ok).toBe(false);
      expect(await t.profile(store.companyId)).toEqual({ legalName: "Contract VASP B.V.", country: null, identifiers: [{ type: "LEI", value: "HWUPKR0MPOU8FGXBT394" }] });
      expect(await t.profile("com_other")).toBeNull();
    });

    test("the applicable threshold is the company's own for its country, and follows its writes", async () => {
      const t = store.repositories.thresholds;
      expect((await t.setProfile(store.companyId, { country: "PT" }, NOW)).ok).toBe(true);
      const pt = record({ countryCode: "PT", thresholdAmount: "750" });
      await t.insert(store.companyId, pt);
      expect(await t.applicable(store.companyId, { type: "tr", now: NOW })).toMatchObject({ source: "company", threshold: { id: pt.id, amount: "750", jurisdiction: "PT" } });
      await t.save(store.companyId, { ...pt, isActive: false }, ["isActive"]);
      expect((await t.applicable(store.companyId, { type: "tr", now: NOW })).threshold.id).not.toBe(pt.id);
    });

    test("the applicable threshold's amount is the stored decimal text, never a number's rendering", async () => {
      const t = store.repositories.thresholds;
      expect((await t.setProfile(store.companyId, { country: "BE" }, NOW)).ok).toBe(true);
      const be = record({ countryCode: "BE", thresholdAmount: "1000.50" });
      const beStr = record({ countryCode: "BE", type: "str", thresholdAmount: "123456789012345678.12345678" });
      await t.insert(store.companyId, be);
      await t.insert(store.companyId, beStr);
      expect((await t.applicable(store.companyId, { type: "tr", now: NOW })).threshold).toMatchObject({ id: be.id, amount: be.thresholdAmount, jurisdiction: "BE" });
      expect((await t.applicable(store.companyId, { type: "str", now: NOW })).threshold).toMatchObject({ id: beStr.id, amount: "123456789012345678.12345678" });
      expect(beStr.thresholdAmount).toBe("123456789012345678.12345678");
      expect((await t.get(store.companyId, beStr.id))!.thresholdAmount).toBe("123456789012345678.12345678");
    });
  });
}
