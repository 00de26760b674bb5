// Settings saved without a runtime, for tests that set up a company's providers or integrations: the settings actor's
// own load, decision and writes (src/actors/settings.ts `planSettings`), committed in a transaction of their own, with
// the state after it.
import { planSettings, type SettingsActorDeps, type SettingsMsg } from "../../src/actors/settings.ts";
import type { SettingsInput, SettingsName } from "../../src/domain/providers/catalog.ts";
import type { Environment } from "../../src/domain/types.ts";
import type { AuditActor } from "../../src/ports/audit.ts";
import type { EnableDecision, SaveDecision, SettingsState } from "../../src/ports/provider-settings.ts";
import type { UnitOfWork } from "../../src/ports/store.ts";

export type Saved = Exclude<SaveDecision, { ok: true }> | (Extract<SaveDecision, { ok: true }> & { state: SettingsState });
export type Switched = Exclude<EnableDecision, { ok: true }> | (Extract<EnableDecision, { ok: true }> & { state: SettingsState });

export function settingsWriter(store: Pick<UnitOfWork, "transaction">, deps: SettingsActorDeps) {
  async function run<T extends { ok: boolean }>(msg: SettingsMsg, now: number): Promise<T | (T & { state: SettingsState })> {
    return store.transaction(async () => {
      const p = await planSettings(deps, msg, now);
      const answer = p.answer as unknown as T;
      if (!answer.ok) return answer;
      await p.writes();
      return { ...answer, state: await deps.providerSettings.get(msg.companyId, msg.environment, msg.name) };
    });
  }
  return {
    save: (companyId: string, environment: Environment, name: SettingsName, input: SettingsInput, actor: AuditActor, now: number) =>
      run<SaveDecision>({ type: "save", companyId, environment, name, input, actor }, now) as Promise<Saved>,
    setEnabled: (companyId: string, environment: Environment, name: SettingsName, enabled: boolean, actor: AuditActor, now: number) =>
      run<EnableDecision>({ type: "setEnabled", companyId, environment, name, enabled, actor }, now) as Promise<Switched>,
  };
}
