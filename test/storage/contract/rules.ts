// The rules port (src/ports/rules.ts), as every engine must keep it: the domain's records in and out (parsed JSON,
// booleans, decimal text), environments apart, keyset pages newest first, filters, the active set, promotions found.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { validateCreateRule } from "../../../src/domain/rules/validate.ts";
import { decideRuleChange, newRule } from "../../../src/domain/rules/life.ts";
import type { Rule } from "../../../src/domain/rules/types.ts";
import type { Environment } from "../../../src/domain/types.ts";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const noIntegrations = () => undefined;

export function ruleContract(engine: Engine): void {
  describe("rules", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    function rule(env: Environment, o: Record<string, unknown> = {}): Rule {
      const v = validateCreateRule({ name: "Large amounts", category: "aml", jurisdictions: ["DE"], threshold: 5000, thresholdCurrency: "EUR", metadata: { asset: "BTC" }, ...o }, noIntegrations);
      if (!v.ok) throw new Error(JSON.stringify(v.issues));
      return newRule(newId("rul", NOW), store.companyId, env, v.value, "mem_contract", iso(NOW));
    }

    test("an inserted rule reads back as the same record; the other environment does not see it", async () => {
      const r = store.repositories.rules;
      const given = rule("test");
      await r.insert(given);
      expect(await r.get(store.companyId, "test", given.id)).toEqual(given);
      const got = (await r.get(store.companyId, "test", given.id))!;
      expect(got.jurisdictions).toEqual(["DE"]);
      expect(got.metadata).toEqual({ asset: "BTC" });
      expect(got.isActive).toBe(true);
      expect(typeof got.threshold).toBe("string");
      expect(got.createdAt).toBe("2026-03-01T10:00:00.000Z");
      expect(await r.get(store.companyId, "live", given.id)).toBeUndefined();
      expect((await r.active(store.companyId, "test")).map((x) => x.id)).toContain(given.id);
    });

    test("pages are newest first and continue from the last seq; count and filters agree", async () => {
      const r = store.repositories.rules;
      const made = [1, 2, 3].map((i) => rule("test", { name: `Paged ${i}`, category: "sanctions" }));
      for (const m of made) await r.insert(m);
      const f = { category: "sanctions" as const };
      const first = await r.page(store.companyId, "test", f, null, 2);
      expect(first.map((x) => x.rule.id)).toEqual([made[2].id, made[1].id]);
      const next = await r.page(store.companyId, "test", f, first[first.length - 1].seq, 2);
      expect(next.map((x) => x.rule.id)).toEqual([made[0].id]);
      expect(await r.count(store.companyId, "test", f)).toBe(3);
      expect(await r.count(store.companyId, "test", { ...f, search: "paged 2" })).toBe(1);
    });

    test("a saved change reads back whole; an inactive rule is kept and leaves the active set", async () => {
      const r = store.repositories.rules;
      const given = rule("test", { name: "To change" });
      await r.insert(given);
      const d = decideRuleChange(given, { severity: "high", condition: null }, iso(NOW + 1000))!;
      await r.save(d.rule);
      const got = (await r.get(store.companyId, "test", given.id))!;
      expect(got).toEqual({ ...given, severity: "high", updatedAt: "2026-03-01T10:00:01.000Z" });
      await r.save({ ...got, isActive: false });
      expect((await r.get(store.companyId, "test", given.id))?.isActive).toBe(false);
      expect((await r.active(store.companyId, "test")).map((x) => x.id)).not.toContain(given.id);
      expect(await r.count(store.companyId, "test", { isActive: false })).toBeGreaterThan(0);
    });

    test("the active rules come oldest first, in insertion order, whatever their IDs (made in one millisecond)", async () => {
      const r = store.repositories.rules;
      // Inserted in the reverse of the order their IDs sort in.
      const made = Array.from({ length: 6 }, (_, i) => rule("live", { name: `Ordered ${i}` })).reverse();
      for (const m of made) await r.insert(m);
      const ids = made.map((m) => m.id);
      expect([...ids].sort()).toEqual([...ids].reverse());
      expect((await r.active(store.companyId, "live")).map((x) => x.id).filter((id) => ids.includes(id))).toEqual(ids);
      const pages = (await r.page(store.companyId, "live", { search: "ordered" }, null, 10)).map((x) => x.rule.id);
      expect(pages).toEqual([...ids].reverse());
    });

    test("a promotion whose live copy is gone is passed over for an older one whose copy exists", async () => {
      const r = store.repositories.rules;
      const from = rule("test", { name: "Promoted twice" });
      const live = rule("live", { name: "Promoted twice" });
      await r.insert(from);
      await r.insert(live);
      const promoted = (liveRuleId: string) =>
        store.repositories.audit.record(
          { companyId: store.companyId, environment: "test", actor: { type: "system" }, action: "rule.promoted", entityType: "Rule", entityId: from.id, detail: { liveRuleId } },
          NOW,
        );
      await promoted(live.id);
      await promoted("rul_never_written");
      expect(await r.promotedTo(store.companyId, from.id)).toBe(live.id);
      expect(await r.promotedTo("com_other", from.id)).toBeNull();
    });

    test("a promotion is found from the test environment's audit entry while its live copy exists", async () => {
      const r = store.repositories.rules;
      const from = rule("test", { name: "Promoted" });
      const live = rule("live", { name: "Promoted" });
      await r.insert(from);
      expect(await r.promotedTo(store.companyId, from.id)).toBeNull();
      await r.insert(live);
      await store.repositories.audit.record(
        { companyId: store.companyId, environment: "test", actor: { type: "system" }, action: "rule.promoted", entityType: "Rule", entityId: from.id, detail: { liveRuleId: live.id } },
        NOW,
      );
      expect(await r.promotedTo(store.companyId, from.id)).toBe(live.id);
    });
  });
}
