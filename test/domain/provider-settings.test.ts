// The settings actor's decisions without I/O (src/domain/providers/settings.ts): each refusal and each outcome of a
// save, a switch change and a connection test's result, as the records they write and the audit entry they name.
import { test, expect, describe } from "bun:test";
import {
  decideEnabled,
  decideSave,
  decideTest,
  type SavedSettings,
  type SettingsEnvironment,
  type SettingsSwitch,
} from "../../src/domain/providers/settings.ts";
import type { SettingsInput, SettingsName } from "../../src/domain/providers/catalog.ts";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const NOW = Date.parse("2026-03-02T12:00:00.000Z");
const AT = "2026-03-02T12:00:00.000Z";
const EARLIER = "2026-03-01T10:00:00.000Z";

const sw = (o: Partial<SettingsSwitch> = {}): SettingsSwitch => ({ id: "int_saved", enabled: false, enabledChangedAt: null, createdAt: EARLIER, updatedAt: EARLIER, ...o });
const env = (o: Partial<SettingsEnvironment> = {}): SettingsEnvironment => ({
  configuredFields: ["apiKey"],
  notes: "kept",
  lastTestedAt: EARLIER,
  lastTestResult: "success",
  lastError: null,
  createdAt: EARLIER,
  updatedAt: EARLIER,
  ...o,
});
const nothing: SavedSettings = { company: undefined, environment: undefined };
/** Saved in the other environment only: the switch and ID exist, nothing here. */
const elsewhere: SavedSettings = { company: sw(), environment: undefined };
const here: SavedSettings = { company: sw(), environment: env() };

describe("decideSave", () => {
  const refusals: { case: string; name: SettingsName; saved: SavedSettings; credentials: Record<string, string> | null; input: SettingsInput; want: unknown }[] = [
    {
      case: "a required value neither sent nor saved",
      name: "screening_c",
      saved: nothing,
      credentials: null,
      input: { credentials: { region: "us" }, notes: undefined },
      want: { ok: false, code: "MISSING_FIELDS", fields: ["apiKey"] },
    },
    {
      case: "every required value of a provider missing, in definition order",
      name: "provider_a",
      saved: nothing,
      credentials: null,
      input: { credentials: { clientId: "c" }, notes: "n" },
      want: { ok: false, code: "MISSING_FIELDS", fields: ["apiUrl", "clientSecret", "vaspDid", "webhookSecret"] },
    },
    {
      case: "a value that does not fit (checked on save)",
      name: "provider_e",
      saved: nothing,
      credentials: null,
      input: {
        credentials: { apiKey: "k", vaspCode: "short", privateKey: "a".repeat(64), bridgePublicKey: "04" + "b".repeat(128), callbackBaseUrl: "https://caravan.example" },
        notes: undefined,
      },
      want: { ok: false, code: "INVALID_FIELDS", fields: ["vaspCode"], issues: [{ path: "credentials.vaspCode", message: "must be 8 to 64 letters, digits, _ or -" }] },
    },
  ];
  for (const r of refusals)
    test(`refused: ${r.case}`, () => {
      expect(decideSave(r.name, r.saved, r.credentials, r.input, "int_new", NOW)).toEqual(r.want as never);
    });

  const outcomes: {
    case: string;
    name: SettingsName;
    saved: SavedSettings;
    credentials: Record<string, string> | null;
    input: SettingsInput;
    want: Record<string, unknown>;
  }[] = [
    {
      case: "the first save in either environment: a new switch (off) with the ID given, created, notes absent read as none",
      name: "screening_c",
      saved: nothing,
      credentials: null,
      input: { credentials: { apiKey: "k", region: "us" }, notes: undefined },
      want: {
        ok: true,
        created: true,
        fields: ["apiKey", "region"],
        newSwitch: { id: "int_new", enabled: false, enabledChangedAt: null, createdAt: AT, updatedAt: AT },
        environment: { configuredFields: ["apiKey", "region"], notes: null, lastTestedAt: null, lastTestResult: null, lastError: null, createdAt: AT, updatedAt: AT },
        credentials: { apiKey: "k", region: "us" },
        audit: { action: "integration.created", entityType: "Integration", entityId: "screening_c", detail: { id: "int_new", fields: ["apiKey", "region"] } },
      },
    },
    {
      case: "the first save in this environment, saved in the other: the saved switch and ID kept, created, notes set",
      name: "screening_c",
      saved: elsewhere,
      credentials: null,
      input: { credentials: { apiKey: "k" }, notes: "live key" },
      want: {
        created: true,
        newSwitch: undefined,
        environment: { configuredFields: ["apiKey"], notes: "live key", lastTestedAt: null, lastTestResult: null, lastError: null, createdAt: AT, updatedAt: AT },
        audit: { action: "integration.created", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved", fields: ["apiKey"], notes: "set" } },
      },
    },
    {
      case: "a later save: values not sent kept, field order of the definition, notes absent kept, createdAt and the last test kept",
      name: "screening_c",
      saved: here,
      credentials: { apiKey: "old", region: "us" },
      input: { credentials: { fuzziness: "0.7" }, notes: undefined },
      want: {
        created: false,
        fields: ["fuzziness"],
        newSwitch: undefined,
        credentials: { apiKey: "old", region: "us", fuzziness: "0.7" },
        environment: env({ configuredFields: ["apiKey", "region", "fuzziness"], updatedAt: AT }),
        audit: { action: "integration.updated", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved", fields: ["fuzziness"] } },
      },
    },
    {
      case: "a later save with notes null: cleared; a sent value replaces the saved one",
      name: "screening_c",
      saved: here,
      credentials: { apiKey: "old" },
      input: { credentials: { apiKey: "new" }, notes: null },
      want: {
        created: false,
        credentials: { apiKey: "new" },
        environment: env({ notes: null, updatedAt: AT }),
        audit: { action: "integration.updated", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved", fields: ["apiKey"], notes: "cleared" } },
      },
    },
    {
      case: "a provider: its kind names the action and the entity",
      name: "provider_a",
      saved: nothing,
      credentials: null,
      input: { credentials: { apiUrl: "https://api.example", clientId: "c", clientSecret: "s", vaspDid: "did:web:x", webhookSecret: "whsec_x" }, notes: undefined },
      want: {
        created: true,
        newSwitch: { id: "prv_new", enabled: false, enabledChangedAt: null, createdAt: AT, updatedAt: AT },
        audit: {
          action: "provider.created",
          entityType: "Provider",
          entityId: "provider_a",
          detail: { id: "prv_new", fields: ["apiUrl", "clientId", "clientSecret", "vaspDid", "webhookSecret"] },
        },
      },
    },
  ];
  for (const o of outcomes)
    test(o.case, () => {
      const id = o.name.startsWith("provider") ? "prv_new" : "int_new";
      const d = decideSave(o.name, o.saved, o.credentials, o.input, id, NOW);
      expect(d).toMatchObject({ ok: true, ...o.want });
      // Exactly the keys named: a detail never carries a value.
      if (d.ok) expect(d.audit.detail).toEqual((o.want.audit as { detail: unknown }).detail as never);
    });
});

describe("decideEnabled", () => {
  const cases: { case: string; saved: SavedSettings; enabled: boolean; want: unknown }[] = [
    { case: "nothing saved anywhere: refused", saved: nothing, enabled: true, want: { ok: false, code: "NOT_CONFIGURED" } },
    { case: "saved only in the other environment: refused", saved: elsewhere, enabled: true, want: { ok: false, code: "NOT_CONFIGURED" } },
    { case: "the same value again: nothing to write", saved: here, enabled: false, want: { ok: true, changed: false } },
    {
      case: "switched on: the switch's change and updatedAt at the clock's time, the rest kept",
      saved: here,
      enabled: true,
      want: {
        ok: true,
        changed: true,
        switch: { id: "int_saved", enabled: true, enabledChangedAt: AT, createdAt: EARLIER, updatedAt: AT },
        audit: { action: "integration.enabled", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved" } },
      },
    },
    {
      case: "switched off",
      saved: { company: sw({ enabled: true, enabledChangedAt: EARLIER }), environment: env() },
      enabled: false,
      want: {
        ok: true,
        changed: true,
        switch: { id: "int_saved", enabled: false, enabledChangedAt: AT, createdAt: EARLIER, updatedAt: AT },
        audit: { action: "integration.disabled", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved" } },
      },
    },
  ];
  for (const c of cases)
    test(c.case, () => {
      expect(decideEnabled("screening_c", c.saved, c.enabled, NOW)).toEqual(c.want as never);
    });

  test("a provider's switch is audited as the provider's", () => {
    const d = decideEnabled("provider_b", { company: sw({ id: "prv_b" }), environment: env() }, true, NOW);
    expect(d).toMatchObject({ audit: { action: "provider.enabled", entityType: "Provider", entityId: "provider_b", detail: { id: "prv_b" } } });
  });
});

describe("decideTest", () => {
  const cases: { case: string; saved: SavedSettings; result: { success: boolean; error?: string | null }; want: unknown }[] = [
    { case: "nothing saved in the environment: not recorded", saved: elsewhere, result: { success: true }, want: { ok: false } },
    { case: "nothing saved at all: not recorded", saved: nothing, result: { success: false, error: "x" }, want: { ok: false } },
    {
      case: "a failure with its error: recorded at the test's time, the error in the record and the detail",
      saved: here,
      result: { success: false, error: "401 from the vendor" },
      want: {
        ok: true,
        environment: env({ lastTestedAt: "2026-03-01T10:00:05.000Z", lastTestResult: "error", lastError: "401 from the vendor" }),
        audit: { action: "integration.tested", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved", result: "error", error: "401 from the vendor" } },
      },
    },
    {
      case: "a failure without an error: no error anywhere",
      saved: here,
      result: { success: false },
      want: {
        ok: true,
        environment: env({ lastTestedAt: "2026-03-01T10:00:05.000Z", lastTestResult: "error", lastError: null }),
        audit: { action: "integration.tested", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved", result: "error" } },
      },
    },
    {
      case: "a success: an error sent with it is ignored, the last error cleared",
      saved: { company: sw(), environment: env({ lastTestResult: "error", lastError: "before" }) },
      result: { success: true, error: "ignored" },
      want: {
        ok: true,
        environment: env({ lastTestedAt: "2026-03-01T10:00:05.000Z", lastTestResult: "success", lastError: null }),
        audit: { action: "integration.tested", entityType: "Integration", entityId: "screening_c", detail: { id: "int_saved", result: "success" } },
      },
    },
  ];
  for (const c of cases)
    test(c.case, () => {
      expect(decideTest("screening_c", c.saved, c.result, T0 + 5000)).toEqual(c.want as never);
    });
});
