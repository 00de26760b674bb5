// The provider and integration settings port (src/ports/provider-settings.ts), as every engine must keep it, with the
// settings actor's decisions (src/actors/settings.ts `planSettings`) taken against it: nothing saved reads as
// unconfigured (never a throw), a save keeps what it is not sent, credentials come back opened per environment while
// the one switch and the stable ID are shared by both, the writes write what they are given and nothing until run, and
// a connection test is recorded only where credentials are saved.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import type { Engine, OpenedStore } from "./engines.ts";
import { definitions } from "../../../src/domain/providers/catalog.ts";
import { planSettings, type SettingsActorDeps } from "../../../src/actors/settings.ts";
import { settingsWriter } from "../../support/settings.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const by = { type: "system" } as const;

export function providerSettingsContract(engine: Engine): void {
  describe("provider settings", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());
    const deps = (): SettingsActorDeps => ({ providerSettings: store.repositories.providerSettings, audit: store.repositories.audit });
    const writer = () => settingsWriter(store.store, deps());

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
      expect(await s.saved(store.companyId, "test", "screening_d")).toEqual({ company: undefined, environment: undefined });
      expect((await s.list(store.companyId, "test", "provider")).map((x) => x.name)).toEqual(definitions("provider").map((d) => d.name));
      expect((await s.list(store.companyId, "live", "integration")).map((x) => x.name)).toEqual(definitions("integration").map((d) => d.name));
    });

    test("a save without a required value is refused and writes nothing", async () => {
      const s = store.repositories.providerSettings;
      const out = await writer().save(store.companyId, "test", "screening_c", { credentials: { region: "us" }, notes: undefined }, by, NOW);
      expect(out).toEqual({ ok: false, code: "MISSING_FIELDS", fields: ["apiKey"] });
      expect((await s.get(store.companyId, "test", "screening_c")).configured).toBe(false);
      expect(await s.id(store.companyId, "screening_c")).toBeUndefined();
    });

    test("saved per environment; the ID is one for both; a value not sent keeps the saved one; notes null clears, absent keeps", async () => {
      const s = store.repositories.providerSettings;
      const first = await writer().save(store.companyId, "test", "screening_c", { credentials: { apiKey: "key-test", region: "us" }, notes: "first" }, by, NOW);
      if (!first.ok) throw new Error(first.code);
      expect(first.created).toBe(true);
      expect(first.fields).toEqual(["apiKey", "region"]);
      expect(first.state).toMatchObject({ configured: true, configuredFields: ["apiKey", "region"], notes: "first", enabled: false, createdAt: "2026-03-01T10:00:00.000Z" });
      expect(first.state.id).toMatch(/^int_[0-9a-z]{26}$/);
      expect(await s.credentials(store.companyId, "test", "screening_c")).toEqual({ apiKey: "key-test", region: "us" });
      expect(await s.credentials(store.companyId, "live", "screening_c")).toBeNull();
      const again = await writer().save(store.companyId, "test", "screening_c", { credentials: { fuzziness: "0.7" }, notes: undefined }, by, NOW + 1000);
      if (!again.ok) throw new Error(again.code);
      expect(again.created).toBe(false);
      expect(again.state).toMatchObject({ notes: "first", configuredFields: ["apiKey", "region", "fuzziness"], updatedAt: "2026-03-01T10:00:01.000Z", createdAt: "2026-03-01T10:00:00.000Z" });
      expect(await s.credentials(store.companyId, "test", "screening_c")).toEqual({ apiKey: "key-test", region: "us", fuzziness: "0.7" });
      const live = await writer().save(store.companyId, "live", "screening_c", { credentials: { apiKey: "key-live" }, notes: null }, by, NOW + 2000);
      if (!live.ok) throw new Error(live.code);
      expect(live.created).toBe(true);
      expect(live.state.id).toBe(first.state.id);
      expect(live.state.notes).toBeNull();
      expect(await s.credentials(store.companyId, "live", "screening_c")).toEqual({ apiKey: "key-live" });
      expect(await s.id(store.companyId, "screening_c")).toBe(first.state.id!);
    });

    test("the one switch: refused where nothing is saved; changes both environments; the same value again changes nothing", async () => {
      const s = store.repositories.providerSettings;
      expect(await writer().setEnabled(store.companyId, "test", "screening_d", true, by, NOW)).toEqual({ ok: false, code: "NOT_CONFIGURED" });
      const on = await writer().setEnabled(store.companyId, "live", "screening_c", true, by, NOW + 3000);
      if (!on.ok) throw new Error(on.code);
      expect(on.changed).toBe(true);
      expect(on.state).toMatchObject({ enabled: true, updatedAt: "2026-03-01T10:00:03.000Z" });
      expect(await s.enabled(store.companyId, "screening_c")).toBe(true);
      expect((await s.get(store.companyId, "test", "screening_c")).enabled).toBe(true);
      const same = await writer().setEnabled(store.companyId, "live", "screening_c", true, by, NOW + 4000);
      expect(same.ok && same.changed).toBe(false);
      expect((await s.get(store.companyId, "live", "screening_c")).updatedAt).toBe("2026-03-01T10:00:03.000Z");
    });

    test("a plan writes nothing until applied; applied in a unit of work that fails, nothing is kept", async () => {
      const s = store.repositories.providerSettings;
      const plan = await planSettings(deps(), { type: "save", companyId: store.companyId, environment: "test", name: "screening_d", input: { credentials: { apiKey: "d-key" }, notes: undefined }, actor: by }, NOW);
      expect(plan.answer).toEqual({ ok: true, created: true, fields: ["apiKey"] });
      expect((await s.get(store.companyId, "test", "screening_d")).configured).toBe(false);
      await expect(
        store.store.transaction(async () => {
          await plan.writes();
          throw new Error("the commit failed");
        }),
      ).rejects.toThrow("the commit failed");
      expect((await s.get(store.companyId, "test", "screening_d")).configured).toBe(false);
      await store.store.transaction(() => plan.writes());
      expect(await s.credentials(store.companyId, "test", "screening_d")).toEqual({ apiKey: "d-key" });
    });

    test("a connection test is recorded where credentials are saved, and only there", async () => {
      const s = store.repositories.providerSettings;
      const test = (environment: "test" | "live", name: "screening_c" | "screening_d", result: { success: boolean; error?: string }, testedAt: number) =>
        planSettings(deps(), { type: "recordTest", companyId: store.companyId, environment, name, result, testedAt, actor: by }, NOW);
      const none = await test("live", "screening_d", { success: true }, NOW);
      expect(none.answer).toBe(false);
      const failed = await test("test", "screening_c", { success: false, error: "401 from the vendor" }, NOW + 5000);
      expect(failed.answer).toBe(true);
      await store.store.transaction(() => failed.writes());
      expect(await s.get(store.companyId, "test", "screening_c")).toMatchObject({ lastTestedAt: "2026-03-01T10:00:05.000Z", lastTestResult: "error", lastError: "401 from the vendor" });
      const passed = await test("test", "screening_c", { success: true, error: "ignored" }, NOW + 6000);
      await store.store.transaction(() => passed.writes());
      expect(await s.get(store.companyId, "test", "screening_c")).toMatchObject({ lastTestResult: "success", lastError: null });
      expect((await s.get(store.companyId, "live", "screening_c")).lastTestedAt).toBeNull();
    });

    test("the writes write what they are given, and only that: read back through saved, get and credentials", async () => {
      const s = store.repositories.providerSettings;
      const at = (ms: number) => new Date(NOW + ms).toISOString();
      const sw = { id: "prv_writes", enabled: false, enabledChangedAt: null, createdAt: at(0), updatedAt: at(0) };
      const env = { configuredFields: ["apiKey"], notes: "n", lastTestedAt: null, lastTestResult: null, lastError: null, createdAt: at(0), updatedAt: at(0) };
      await store.store.transaction(async () => {
        await s.insertSwitch(store.companyId, "screening_a", sw);
        await s.insertEnvironment(store.companyId, "live", "screening_a", env, { apiKey: "a-key" });
      });
      expect(await s.saved(store.companyId, "live", "screening_a")).toEqual({ company: sw, environment: env });
      expect(await s.saved(store.companyId, "test", "screening_a")).toEqual({ company: sw, environment: undefined });
      expect(await s.credentials(store.companyId, "live", "screening_a")).toEqual({ apiKey: "a-key" });
      // A later save writes the credentials, fields, notes and updatedAt; never createdAt nor the last test.
      const tested = { ...env, lastTestedAt: at(1), lastTestResult: "error" as const, lastError: "boom" };
      await store.store.transaction(() => s.saveTest(store.companyId, "live", "screening_a", tested));
      await store.store.transaction(() =>
        s.saveCredentials(store.companyId, "live", "screening_a", { ...env, configuredFields: ["apiKey", "extra"], notes: null, createdAt: at(9), updatedAt: at(2), lastTestedAt: null }, { apiKey: "b-key" }),
      );
      expect((await s.saved(store.companyId, "live", "screening_a")).environment).toEqual({
        configuredFields: ["apiKey", "extra"],
        notes: null,
        lastTestedAt: at(1),
        lastTestResult: "error",
        lastError: "boom",
        createdAt: at(0),
        updatedAt: at(2),
      });
      expect(await s.credentials(store.companyId, "live", "screening_a")).toEqual({ apiKey: "b-key" });
      // The switch: enabled, when it changed and updatedAt; the state's updatedAt is the later of the switch's change and the save.
      await store.store.transaction(() => s.saveSwitch(store.companyId, "screening_a", { ...sw, enabled: true, enabledChangedAt: at(3), updatedAt: at(3), createdAt: at(9) }));
      expect((await s.saved(store.companyId, "test", "screening_a")).company).toEqual({ ...sw, enabled: true, enabledChangedAt: at(3), updatedAt: at(3) });
      expect(await s.get(store.companyId, "live", "screening_a")).toMatchObject({ id: "prv_writes", enabled: true, updatedAt: at(3), createdAt: at(0), lastTestResult: "error" });
      expect(await s.enabled(store.companyId, "screening_a")).toBe(true);
    });
  });
}
