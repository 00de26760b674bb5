// The thresholds port (src/ports/thresholds.ts), as every engine must keep it: records in, the same records out,
// one per jurisdiction and type, a change's refusals in their order, the audit entry with the change.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { validateCreateThreshold, type ThresholdInput } from "../../../src/domain/thresholds.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const by = { actor: { type: "member" as const, memberId: "mem_contract", apiKeyId: null }, memberId: "mem_contract" };

function input(o: Record<string, unknown> = {}): ThresholdInput {
  const v = validateCreateThreshold({ countryCode: "DE", type: "tr", name: "Travel Rule", thresholdAmount: "1000", regulation: "Law", ...o });
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return v.value;
}

export function thresholdContract(engine: Engine): void {
  describe("thresholds", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("a created threshold reads back as the same record (camelCase, booleans, decimal text, ISO times)", () => {
      const t = store.repositories.thresholds;
      const given = input({ thresholdAmount: "1000.50", isEUMember: true });
      const res = t.create(store.companyId, given, by, NOW);
      expect(res.ok).toBe(true);
      if (!res.ok) return;
      const got = t.get(store.companyId, res.threshold.id)!;
      expect(got).toEqual(res.threshold);
      expect(got.countryCode).toBe("DE");
      expect(got.thresholdAmount).toBe(given.thresholdAmount); // decimal text, as the domain gave it
      expect(typeof got.thresholdAmount).toBe("string");
      expect(got.isEUMember).toBe(true);
      expect(got.isActive).toBe(true);
      expect(got.createdAt).toBe("2026-03-01T10:00:00.000Z");
      expect(t.all(store.companyId).map((x) => x.id)).toContain(got.id);
    });

    test("one threshold per jurisdiction and type: a second is refused with the first's ID", () => {
      const t = store.repositories.thresholds;
      const first = t.create(store.companyId, input({ countryCode: "FR" }), by, NOW);
      const again = t.create(store.companyId, input({ countryCode: "FR", name: "Another" }), by, NOW);
      expect(first.ok).toBe(true);
      expect(again).toEqual({ ok: false, kind: "exists", existingId: first.ok ? first.threshold.id : "" });
    });

    test("a change: not_found, immutable, invalid, needs_disable in that order; a real change is audited with it", () => {
      const t = store.repositories.thresholds;
      const made = t.create(store.companyId, input({ countryCode: "IT" }), by, NOW);
      if (!made.ok) throw new Error("create failed");
      const id = made.threshold.id;
      expect(t.update(store.companyId, "thr_00000000000000000000000000", { name: "x" }, { ...by, canDisable: true }, NOW)).toEqual({ ok: false, kind: "not_found" });
      expect(t.update(store.companyId, id, { countryCode: "ES" }, { ...by, canDisable: true }, NOW)).toEqual({ ok: false, kind: "immutable", fields: ["countryCode"] });
      expect(t.update(store.companyId, id, { name: "" }, { ...by, canDisable: true }, NOW)).toMatchObject({ ok: false, kind: "invalid" });
      expect(t.update(store.companyId, id, { isActive: false }, { ...by, canDisable: false }, NOW)).toEqual({ ok: false, kind: "needs_disable" });
      const later = NOW + 1000;
      const changed = t.update(store.companyId, id, { thresholdAmount: "2000" }, { ...by, canDisable: false }, later);
      expect(changed.ok && changed.threshold.thresholdAmount).toBe("2000");
      expect(changed.ok && changed.threshold.updatedAt).toBe("2026-03-01T10:00:01.000Z");
      const entries = store.repositories.audit.page(store.companyId, "live", { entityType: "Threshold", entityId: id }, null, 10);
      expect(entries.map((e) => e.action)).toEqual(["threshold.updated", "threshold.created"]);
    });

    test("the active count follows the switch", () => {
      const t = store.repositories.thresholds;
      const before = t.activeCount(store.companyId);
      const made = t.create(store.companyId, input({ countryCode: "NL" }), by, NOW);
      if (!made.ok) throw new Error("create failed");
      expect(t.activeCount(store.companyId)).toBe(before + 1);
      t.update(store.companyId, made.threshold.id, { isActive: false }, { ...by, canDisable: true }, NOW);
      expect(t.activeCount(store.companyId)).toBe(before);
    });
  });
}
