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

    test("an inserted threshold reads back as the same record", () => {
      const t = store.repositories.thresholds;
      const given = record({ thresholdAmount: "1000.50", isEUMember: true, filingDeadlineDays: null });
      t.insert(store.companyId, given);
      const got = t.get(store.companyId, given.id)!;
      expect(got).toEqual(given);
      expect(typeof got.thresholdAmount).toBe("string");
      expect(got.isEUMember).toBe(true);
      expect(typeof got.requiresOriginatorAccount).toBe("boolean");
      expect(got.createdAt).toBe("2026-03-01T10:00:00.000Z");
      expect(t.get("com_other", given.id)).toBeUndefined();
    });

    test("found by jurisdiction and type; listed by jurisdiction, type, ID", () => {
      const t = store.repositories.thresholds;
      const fr = record({ countryCode: "FR" });
      const at = record({ countryCode: "AT" });
      t.insert(store.companyId, fr);
      t.insert(store.companyId, at);
      expect(t.idByJurisdiction(store.companyId, "FR", "tr")).toBe(fr.id);
      expect(t.idByJurisdiction(store.companyId, "FR", "str")).toBeUndefined();
      const codes = t.all(store.companyId).map((x) => x.countryCode);
      expect(codes).toEqual([...codes].sort());
      expect(codes).toContain("AT");
    });

    test("a saved change writes the changed fields and who changed it when; the rest stays", () => {
      const t = store.repositories.thresholds;
      const given = record({ countryCode: "IT" });
      t.insert(store.companyId, given);
      const d = decideChange(given, { thresholdAmount: "2000", notes: "raised" }, { memberId: "mem_other", canDisable: true }, iso(NOW + 1000));
      if (!d.ok || !d.change) throw new Error("no change");
      t.save(store.companyId, d.threshold, d.change.fields);
      const got = t.get(store.companyId, given.id)!;
      expect(got).toEqual({ ...given, thresholdAmount: "2000", notes: "raised", updatedAt: "2026-03-01T10:00:01.000Z", updatedBy: "mem_other" });
    });

    test("the active count follows the switch", () => {
      const t = store.repositories.thresholds;
      const before = t.activeCount(store.companyId);
      const given = record({ countryCode: "NL" });
      t.insert(store.companyId, given);
      expect(t.activeCount(store.companyId)).toBe(before + 1);
      t.save(store.companyId, { ...given, isActive: false }, ["isActive"]);
      expect(t.activeCount(store.companyId)).toBe(before);
    });
  });
}
