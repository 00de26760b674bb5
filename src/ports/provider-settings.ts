// The provider and integration settings port: per company and name one enabled switch (both environments) and a
// stable ID, and per environment the credentials (sealed at rest by the engine under the service's secrets key, never
// returned by the API), notes and the last connection test. Asynchronous like every port (src/ports/store.ts). The
// company's settings actor (src/actors/settings.ts) is the one writer: it loads what is saved through this port,
// decides with src/domain/providers/settings.ts and writes what was decided, with its audit entry, in its unit of
// work; the writes below only write. The SQLite engine implements it in storage's repos/provider-settings.ts, and the
// storage contract suite (test/storage/contract/) holds every engine to it.
import type { Environment } from "../domain/types.ts";
import type { SettingsKind, SettingsName } from "../domain/providers/catalog.ts";
import type { SavedSettings, SaveRefusal, SettingsEnvironment, SettingsSwitch } from "../domain/providers/settings.ts";

export type { TestRecord } from "../domain/providers/settings.ts";

/** The stored state of one name for one environment; the API resource adds the catalog definition to it. */
export interface SettingsState {
  name: SettingsName;
  /** `prv_…` / `int_…`, the same in both environments; null until the first save in either. */
  id: string | null;
  environment: Environment;
  /** One switch for both environments. */
  enabled: boolean;
  /** Credentials saved for this environment. */
  configured: boolean;
  configuredFields: string[];
  notes: string | null;
  lastTestedAt: string | null;
  lastTestResult: "success" | "error" | null;
  lastError: string | null;
  /** Null until first saved in this environment. */
  createdAt: string | null;
  updatedAt: string | null;
}

/** The settings actor's answers: a save, and a switch change. */
export type SaveDecision = { ok: true; created: boolean; fields: string[] } | SaveRefusal;
export type EnableDecision = { ok: true; changed: boolean } | { ok: false; code: "NOT_CONFIGURED" };

export interface ProviderSettingsRepository {
  get(companyId: string, env: Environment, name: SettingsName): Promise<SettingsState>;
  /** Every name of the kind in list order (providers by priority, integrations by name), saved or not. */
  list(companyId: string, env: Environment, kind: SettingsKind): Promise<SettingsState[]>;
  /** The opened values saved for the environment (adapters' view); null when none are saved. Rejects with UnreadableError under another master key. */
  credentials(companyId: string, env: Environment, name: SettingsName): Promise<Record<string, string> | null>;
  /** The company's one switch (both environments). */
  enabled(companyId: string, name: SettingsName): Promise<boolean>;
  /** The stable ID, or undefined before the first save. */
  id(companyId: string, name: SettingsName): Promise<string | undefined>;
  /** The saved records a decision is taken against (the credentials apart: `credentials`). */
  saved(companyId: string, env: Environment, name: SettingsName): Promise<SavedSettings>;
  /** Writes a new switch (first save in either environment), inside the caller's unit of work. */
  insertSwitch(companyId: string, name: SettingsName, s: SettingsSwitch): Promise<void>;
  /** Writes the switch's enabled, enabledChangedAt and updatedAt, inside the caller's unit of work. */
  saveSwitch(companyId: string, name: SettingsName, s: SettingsSwitch): Promise<void>;
  /** Writes the environment's first save with its credentials (sealed by the engine), inside the caller's unit of work. */
  insertEnvironment(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment, credentials: Record<string, string>): Promise<void>;
  /** Writes a later save: the credentials (sealed by the engine), configuredFields, notes and updatedAt. */
  saveCredentials(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment, credentials: Record<string, string>): Promise<void>;
  /** Writes the last connection test: lastTestedAt, lastTestResult and lastError. */
  saveTest(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment): Promise<void>;
}
