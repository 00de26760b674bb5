// The settings actor kind: one actor per company (`settings:<companyId>`) owns its provider and integration settings'
// writes (the enabled switch is shared by both environments). A save, a switch and a connection test's result are typed
// commands handled one at a time per company: the handler loads what is saved through the port (opening the saved
// credentials only for a save, which merges them, so two saves never lose each other's fields), decides with
// src/domain/providers/settings.ts, and commits the writes decided and their audit entry in the runtime's unit of work,
// with the message, exactly once.
import type { SettingsInput, SettingsName } from "../domain/providers/catalog.ts";
import { definitionOf } from "../domain/providers/catalog.ts";
import { decideEnabled, decideSave, decideTest, SETTINGS_ID_PREFIX, type SettingsAudit, type TestRecord } from "../domain/providers/settings.ts";
import { newId } from "../domain/ids.ts";
import type { Environment } from "../domain/types.ts";
import { UnreadableError } from "../adapters/crypto/envelope.ts";
import type { EnableDecision, ProviderSettingsRepository, SaveDecision } from "../ports/provider-settings.ts";
import type { AuditActor, AuditRepository } from "../ports/audit.ts";
import { refuse, type Outcome } from "./outcome.ts";
import type { ActorKind } from "./types.ts";

export const settingsAddress = (companyId: string) => `settings:${companyId}`;

interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

export type SettingsCommand =
  | { type: "save"; name: SettingsName; input: SettingsInput }
  | { type: "setEnabled"; name: SettingsName; enabled: boolean }
  /** Answers false when nothing is saved in the environment (anymore). */
  | { type: "recordTest"; name: SettingsName; result: TestRecord; testedAt: number };

export type SettingsMsg = Scoped & SettingsCommand;

export interface SettingsActorDeps {
  providerSettings: ProviderSettingsRepository;
  audit: AuditRepository;
}

/** A command decided against what is saved: the answer, and the writes it takes (only writes; none for a refusal). */
export interface SettingsPlan<T> {
  answer: T;
  writes(): Promise<void>;
}

const none = async () => {};

/**
 * Loads, decides and names the writes of one command at time `now`, for the actor's unit of work (or, in tests that
 * set up settings without a runtime, a transaction of their own). Rejects with UnreadableError when a save finds the
 * saved values sealed under another key.
 */
export async function planSettings(deps: SettingsActorDeps, msg: SettingsMsg, now: number): Promise<SettingsPlan<SaveDecision | EnableDecision | boolean>> {
  const repo = deps.providerSettings;
  const { companyId, environment: env, name } = msg;
  const audited = (a: SettingsAudit, at: number) =>
    deps.audit.record({ companyId, environment: env, actor: msg.actor, action: a.action, entityType: a.entityType, entityId: a.entityId, detail: a.detail }, at);
  const saved = await repo.saved(companyId, env, name);
  if (msg.type === "save") {
    const credentials = saved.environment ? await repo.credentials(companyId, env, name) : null;
    const id = saved.company?.id ?? newId(SETTINGS_ID_PREFIX[definitionOf(name).kind], now);
    const d = decideSave(name, saved, credentials, msg.input, id, now);
    if (!d.ok) return { answer: d, writes: none };
    return {
      answer: { ok: true, created: d.created, fields: d.fields },
      writes: async () => {
        if (d.newSwitch) await repo.insertSwitch(companyId, name, d.newSwitch);
        if (d.created) await repo.insertEnvironment(companyId, env, name, d.environment, d.credentials);
        else await repo.saveCredentials(companyId, env, name, d.environment, d.credentials);
        await audited(d.audit, now);
      },
    };
  }
  if (msg.type === "setEnabled") {
    const d = decideEnabled(name, saved, msg.enabled, now);
    if (!d.ok || !d.changed) return { answer: d, writes: none };
    return {
      answer: { ok: true, changed: true },
      writes: async () => {
        await repo.saveSwitch(companyId, name, d.switch);
        await audited(d.audit, now);
      },
    };
  }
  const d = decideTest(name, saved, msg.result, msg.testedAt);
  if (!d.ok) return { answer: false, writes: none };
  return {
    answer: true,
    writes: async () => {
      await repo.saveTest(companyId, env, name, d.environment);
      await audited(d.audit, msg.testedAt);
    },
  };
}

export function settingsActor(deps: SettingsActorDeps): ActorKind<Record<string, never>, SettingsMsg> {
  return {
    kind: "settings",
    initialState: () => ({}),
    async handle(ctx, msg) {
      let plan: SettingsPlan<SaveDecision | EnableDecision | boolean>;
      try {
        plan = await planSettings(deps, msg, ctx.now);
      } catch (e) {
        // Saved under another master key: answered at once, never retried (no attempt would read it).
        if (e instanceof UnreadableError) return void ctx.reply(refuse("SERVICE_UNAVAILABLE", "The saved credentials cannot be decrypted (another master key?)"));
        throw e;
      }
      ctx.write(() => plan.writes());
      ctx.reply({ ok: true, data: plan.answer } satisfies Outcome<SaveDecision | EnableDecision | boolean>);
    },
  };
}
