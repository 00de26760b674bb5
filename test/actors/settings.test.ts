// The settings actor's load-decide-write (src/actors/settings.ts `planSettings`) against a real SQLite file: the saved
// credentials are opened only by a save (which merges them), so under another master key a save is refused as
// unreadable while the switch and a test's result are still decided; a refusal writes nothing, audit entry included.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ProviderSettings } from "../../src/adapters/storage/repos/provider-settings.ts";
import { AuditLog } from "../../src/adapters/storage/repos/audit.ts";
import { Sealer, UnreadableError } from "../../src/adapters/crypto/envelope.ts";
import { planSettings, type SettingsActorDeps, type SettingsMsg } from "../../src/actors/settings.ts";
import { tempDir } from "../support/tmp.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const by = { type: "system" } as const;
let storage: Storage;
let mine: SettingsActorDeps;
let other: SettingsActorDeps;

beforeAll(async () => {
  storage = await openStorage(join(tempDir(), "settings.db"));
  const audit = new AuditLog(storage);
  mine = { providerSettings: new ProviderSettings(storage, new Sealer(crypto.getRandomValues(new Uint8Array(32)))), audit };
  other = { providerSettings: new ProviderSettings(storage, new Sealer(crypto.getRandomValues(new Uint8Array(32)))), audit };
});
afterAll(() => storage.close());

const base = { companyId: "cmp_settings", environment: "test", actor: by, name: "screening_c" } as const;
const entries = () => (storage.client.prepare("SELECT action, detail FROM audit_log WHERE company_id = ? ORDER BY rowid").all("cmp_settings") as { action: string; detail: string }[]).map((r) => [r.action, JSON.parse(r.detail)]);
async function commit(deps: SettingsActorDeps, msg: SettingsMsg, now: number) {
  return storage.transaction(async () => {
    const p = await planSettings(deps, msg, now);
    await p.writes();
    return p.answer;
  });
}

test("a refusal writes nothing; a save and its audit entry commit together", async () => {
  expect(await commit(mine, { ...base, type: "save", input: { credentials: { region: "us" }, notes: undefined } }, NOW)).toEqual({ ok: false, code: "MISSING_FIELDS", fields: ["apiKey"] });
  expect(await commit(mine, { ...base, type: "setEnabled", enabled: true }, NOW)).toEqual({ ok: false, code: "NOT_CONFIGURED" });
  expect(await commit(mine, { ...base, type: "recordTest", result: { success: true }, testedAt: NOW }, NOW)).toBe(false);
  expect(entries()).toEqual([]);
  expect(await commit(mine, { ...base, type: "save", input: { credentials: { apiKey: "k" }, notes: "n" } }, NOW)).toEqual({ ok: true, created: true, fields: ["apiKey"] });
  const id = await mine.providerSettings.id("cmp_settings", "screening_c");
  expect(entries()).toEqual([["integration.created", { id, fields: ["apiKey"], notes: "set" }]]);
});

test("under another master key a save rejects as unreadable (nothing written), while the switch and a test's result need no key", async () => {
  const before = entries().length;
  await expect(planSettings(other, { ...base, type: "save", input: { credentials: { region: "eu" }, notes: undefined } }, NOW + 1000)).rejects.toBeInstanceOf(UnreadableError);
  expect(entries().length).toBe(before);
  expect(await commit(other, { ...base, type: "setEnabled", enabled: true }, NOW + 2000)).toEqual({ ok: true, changed: true });
  expect(await commit(other, { ...base, type: "recordTest", result: { success: false, error: "401" }, testedAt: NOW + 3000 }, NOW + 3000)).toBe(true);
  const id = await mine.providerSettings.id("cmp_settings", "screening_c");
  expect(entries().slice(before)).toEqual([
    ["integration.enabled", { id }],
    ["integration.tested", { id, result: "error", error: "401" }],
  ]);
  // The credentials saved under the first key are untouched by the others' writes.
  expect(await mine.providerSettings.credentials("cmp_settings", "test", "screening_c")).toEqual({ apiKey: "k" });
});
