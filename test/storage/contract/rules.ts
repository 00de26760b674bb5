// The rules port (src/ports/rules.ts), as every engine must keep it: records in and out (parsed JSON, booleans),
// environments apart, keyset pages newest first, filters, deactivation kept, promotion all or nothing and once.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { validateCreateRule, type RuleInput } from "../../../src/domain/rules/validate.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const by = { actor: { type: "member" as const, memberId: "mem_contract", apiKeyId: null }, memberId: "mem_contract" };
const noIntegrations = () => undefined;

function input(o: Record<string, unknown> = {}): RuleInput {
  const v = validateCreateRule({ name: "Large amounts", category: "aml", jurisdictions: ["DE"], threshold: 5000, thresholdCurrency: "EUR", metadata: { asset: "BTC" }, ...o }, noIntegrations);
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return v.value;
}

export function ruleContract(engine: Engine): void {
  describe("rules", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("a created rule reads back as the same record; the other environment does not see it", () => {
      const r = store.repositories.rules;
      const rule = r.create(store.companyId, "test", input(), by, NOW);
      expect(r.get(store.companyId, "test", rule.id)).toEqual(rule);
      expect(rule.jurisdictions).toEqual(["DE"]);
      expect(rule.metadata).toEqual({ asset: "BTC" });
      expect(rule.isActive).toBe(true);
      expect(rule.threshold).toBe(input().threshold);
      expect(rule.createdAt).toBe("2026-03-01T10:00:00.000Z");
      expect(r.get(store.companyId, "live", rule.id)).toBeUndefined();
      expect(r.active(store.companyId, "test").map((x) => x.id)).toContain(rule.id);
    });

    test("pages are newest first and continue from the last seq; count and filters agree", () => {
      const r = store.repositories.rules;
      const made = [1, 2, 3].map((i) => r.create(store.companyId, "test", input({ name: `Paged ${i}`, category: "sanctions" }), by, NOW));
      const f = { category: "sanctions" as const };
      const first = r.page(store.companyId, "test", f, null, 2);
      expect(first.map((x) => x.rule.id)).toEqual([made[2].id, made[1].id]);
      const next = r.page(store.companyId, "test", f, first[first.length - 1].seq, 2);
      expect(next.map((x) => x.rule.id)).toEqual([made[0].id]);
      expect(r.count(store.companyId, "test", f)).toBe(3);
      expect(r.count(store.companyId, "test", { ...f, search: "paged 2" })).toBe(1);
    });

    test("a change keeps what was not sent; deactivation keeps the rule, inactive, and leaves the active set", () => {
      const r = store.repositories.rules;
      const rule = r.create(store.companyId, "test", input({ name: "To change" }), by, NOW);
      const changed = r.update(store.companyId, "test", rule.id, { severity: "high" }, by, NOW + 1000)!;
      expect(changed.severity).toBe("high");
      expect(changed.name).toBe("To change");
      expect(changed.updatedAt).toBe("2026-03-01T10:00:01.000Z");
      const off = r.deactivate(store.companyId, "test", rule.id, by, NOW + 2000)!;
      expect(off.isActive).toBe(false);
      expect(r.get(store.companyId, "test", rule.id)?.isActive).toBe(false);
      expect(r.active(store.companyId, "test").map((x) => x.id)).not.toContain(rule.id);
      expect(r.update(store.companyId, "test", "rul_00000000000000000000000000", { severity: "low" }, by, NOW)).toBeUndefined();
    });

    test("promotion copies a test rule to live once; a second promotion names the live copy", () => {
      const r = store.repositories.rules;
      const rule = r.create(store.companyId, "test", input({ name: "To promote" }), by, NOW);
      const res = r.promote(store.companyId, rule.id, by, NOW, noIntegrations);
      expect(res.ok).toBe(true);
      if (!res.ok) return;
      expect(res.from.id).toBe(rule.id);
      expect(res.rule.environment).toBe("live");
      expect({ ...res.rule, id: rule.id, environment: "test" }).toMatchObject({ name: "To promote", jurisdictions: ["DE"], metadata: { asset: "BTC" } });
      expect(r.promotedTo(store.companyId, rule.id)).toBe(res.rule.id);
      expect(r.promote(store.companyId, rule.id, by, NOW, noIntegrations)).toEqual({ ok: false, code: "RULE_ALREADY_PROMOTED", liveRuleId: res.rule.id });
      expect(r.promote(store.companyId, "rul_00000000000000000000000000", by, NOW, noIntegrations)).toEqual({ ok: false, code: "RULE_NOT_FOUND" });
    });
  });
}
