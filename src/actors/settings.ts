// The settings actor kind: one actor per company (`settings:<companyId>`) owns its provider and integration settings'
// writes (the enabled switch is shared by both environments). A save, a switch and a connection test's result are typed
// commands handled one at a time per company: the repository decides against what is saved (merging credentials, so
// two saves never lose each other's fields) and the handler commits the writes and the audit entry it names in the
// runtime's unit of work, with the message, exactly once.
import type { SettingsInput, SettingsName } from "../domain/providers/catalog.ts";
import type { Environment } from "../domain/types.ts";
import { UnreadableError } from "../adapters/crypto/envelope.ts";
import type { EnableDecision, Planned, ProviderSettingsRepository, SaveDecision, TestRecord } from "../ports/provider-settings.ts";
import type { AuditActor } from "../ports/audit.ts";
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
}

export function settingsActor(deps: SettingsActorDeps): ActorKind<Record<string, never>, SettingsMsg> {
  const repo = deps.providerSettings;
  return {
    kind: "settings",
    initialState: () => ({}),
    async handle(ctx, msg) {
      let plan: Planned<SaveDecision | EnableDecision | boolean>;
      try {
        if (msg.type === "save") plan = await repo.planSave(msg.companyId, msg.environment, msg.name, msg.input, msg.actor, ctx.now);
        else if (msg.type === "setEnabled") plan = await repo.planEnabled(msg.companyId, msg.environment, msg.name, msg.enabled, msg.actor, ctx.now);
        else plan = await repo.planTest(msg.companyId, msg.environment, msg.name, msg.result, msg.actor, msg.testedAt);
      } catch (e) {
        // Saved under another master key: answered at once, never retried (no attempt would read it).
        if (e instanceof UnreadableError) return void ctx.reply(refuse("SERVICE_UNAVAILABLE", "The saved credentials cannot be decrypted (another master key?)"));
        throw e;
      }
      ctx.write(() => plan.apply());
      ctx.reply({ ok: true, data: plan.outcome } satisfies Outcome<SaveDecision | EnableDecision | boolean>);
    },
  };
}
