// The provider and integration settings port (src/ports/provider-settings.ts), as every engine must keep it: nothing
// saved reads as unconfigured (never a throw), a save keeps what it is not sent, credentials come back opened per
// environment while the one switch and the stable ID are shared by both, a plan writes nothing until applied, and a
// connection test is recorded only where credentials are saved.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import type { Engine, OpenedStore } from "./engines.ts";
import { definitions } from "../../../src/domain/providers/catalog.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const by = { type: "system" } as const;

export function providerSettingsContract(engine: Engine): void {
  describe("provider settings", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("nothing saved: unconfigured, off, no ID, no credentials; the list is every name of the kind in list order", async () => {
      const s = store.repositories.providerSettings;
      expect(await s.get(store.companyId, "test", "screening_d")).toEqual({
        name: "screening_d",
        id: null,
        environment: "test",
        enabled: false,
        configured: false,
        configuredFields: [],
        notes: null,
        lastTestedAt: null,
        lastTestResult: null,
        lastError: null,
        createdAt: null,
        updatedAt: null,
      });
      expect(await s.credentials(store.companyId, "test", "screening_d")).toBeNull();
      expect(await s.enabled(store.companyId, "screening_d")).toBe(false);
      expect(await s.id(store.companyId, "screening_d")).toBeUndefined();
      expect((await s.list(store.companyId, "test", "provider")).map((x) => x.name)).toEqual(definitions("provider").map((d) => d.name));
      expect((await s.list(store.companyId, "live", "integration")).map((x) => x.name)).toEqual(definitions("integration").map((d) => d.name));
    });

    test("a save without a required value is refused and writes nothing", async () => {
      const s = store.repositories.providerSettings;
      const out = await s.save(store.companyId, "test", "screening_c", { credentials: { region: "us" }, notes: undefined }, by, NOW);
      expect(out).toEqual({ ok: false, code: "MISSING_FIELDS", fields: ["apiKey"] });
      expect((await s.get(store.companyId, "test", "screening_c")).configured).toBe(false);
      expect(await s.id(store.companyId, "screening_c")).toBeUndefined();
    });

    test("saved per environment; the ID is one for both; a value not sent keeps the saved one; notes null clears, absent keeps", async () => {
      const s = store.repositories.providerSettings;
      const first = await s.save(store.companyId, "test", "screening_c", { credentials: { apiKey: "key-test", region: "us" }, notes: "first" }, by, NOW);
      if (!first.ok) throw new Error(first.code);
      expect(first.created).toBe(true);
      expect(first.fields).toEqual(["apiKey", "region"]);
      expect(first.state).toMatchObject({ configured: true, configuredFields: ["apiKey", "region"], notes: "first", enabled: false, createdAt: "2026-03-01T10:00:00.000Z" });
      expect(first.state.id).toMatch(/^int_[0-9a-z]{26}$/);
      expect(await s.credentials(store.companyId, "test", "screening_c")).toEqual({ apiKey: "key-test", region: "us" });
      expect(await s.credentials(store.companyId, "live", "screening_c")).toBeNull();
      const again = await s.save(store.companyId, "test", "screening_c", { credentials: { fuzziness: "0.7" }, notes: undefined }, by, NOW + 1000);
      if (!again.ok) throw new Error(again.code);
      expect(again.created).toBe(false);
      expect(again.state).toMatchObject({ notes: "first", configuredFields: ["apiKey", "region", "fuzziness"], updatedAt: "2026-03-01T10:00:01.000Z", createdAt: "2026-03-01T10:00:00.000Z" });
      expect(await s.credentials(store.companyId, "test", "screening_c")).toEqual({ apiKey: "key-test", region: "us", fuzziness: "0.7" });
      const live = await s.save(store.companyId, "live", "screening_c", { credentials: { apiKey: "key-live" }, notes: null }, by, NOW + 2000);
      if (!live.ok) throw new Error(live.code);
      expect(live.created).toBe(true);
      expect(live.state.id).toBe(first.state.id);
      expect(live.state.notes).toBeNull();
      expect(await s.credentials(store.companyId, "live", "screening_c")).toEqual({ apiKey: "key-live" });
      expect(await s.id(store.companyId, "screening_c")).toBe(first.state.id!);
    });

    test("the one switch: refused where nothing is saved; changes both environments; the same value again changes nothing", async () => {
      const s = store.repositories.providerSettings;
      expect(await s.setEnabled(store.companyId, "test", "screening_d", true, by, NOW)).toEqual({ ok: false, code: "NOT_CONFIGURED" });
      const on = await s.setEnabled(store.companyId, "live", "screening_c", true, by, NOW + 3000);
      if (!on.ok) throw new Error(on.code);
      expect(on.changed).toBe(true);
      expect(on.state).toMatchObject({ enabled: true, updatedAt: "2026-03-01T10:00:03.000Z" });
      expect(await s.enabled(store.companyId, "screening_c")).toBe(true);
      expect((await s.get(store.companyId, "test", "screening_c")).enabled).toBe(true);
      const same = await s.setEnabled(store.companyId, "live", "screening_c", true, by, NOW + 4000);
      expect(same.ok && same.changed).toBe(false);
      expect((await s.get(store.companyId, "live", "screening_c")).updatedAt).toBe("2026-03-01T10:00:03.000Z");
    });

    test("a plan writes nothing until applied; applied in a unit of work that fails, nothing is kept", async () => {
      const s = store.repositories.providerSettings;
      const plan = await s.planSave(store.companyId, "test", "screening_d", { credentials: { apiKey: "d-key" }, notes: undefined }, by, NOW);
      expect(plan.outcome).toEqual({ ok: true, created: true, fields: ["apiKey"] });
      expect((await s.get(store.companyId, "test", "screening_d")).configured).toBe(false);
      await expect(
        store.store.transaction(async () => {
          await plan.apply();
          throw new Error("the commit failed");
        }),
      ).rejects.toThrow("the commit failed");
      expect((await s.get(store.companyId, "test", "screening_d")).configured).toBe(false);
      await store.store.transaction(() => plan.apply());
      expect(await s.credentials(store.companyId, "test", "screening_d")).toEqual({ apiKey: "d-key" });
    });

    test("a connection test is recorded where credentials are saved, and only there", async () => {
      const s = store.repositories.providerSettings;
      const none = await s.planTest(store.companyId, "live", "screening_d", { success: true }, by, NOW);
      expect(none.outcome).toBe(false);
      const failed = await s.planTest(store.companyId, "test", "screening_c", { success: false, error: "401 from the vendor" }, by, NOW + 5000);
      expect(failed.outcome).toBe(true);
      await store.store.transaction(() => failed.apply());
      expect(await s.get(store.companyId, "test", "screening_c")).toMatchObject({ lastTestedAt: "2026-03-01T10:00:05.000Z", lastTestResult: "error", lastError: "401 from the vendor" });
      const passed = await s.planTest(store.companyId, "test", "screening_c", { success: true, error: "ignored" }, by, NOW + 6000);
      await store.store.transaction(() => passed.apply());
      expect(await s.get(store.companyId, "test", "screening_c")).toMatchObject({ lastTestResult: "success", lastError: null });
      expect((await s.get(store.companyId, "live", "screening_c")).lastTestedAt).toBeNull();
    });
  });
}
