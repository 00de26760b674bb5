// The provider and integration settings port: per company and name one enabled switch (both environments) and a
// stable ID, and per environment the credentials (sealed at rest by the engine under the service's secrets key, never
// returned by the API), notes and the last connection test. Asynchronous like every port (src/ports/store.ts). Every
// save, switch change and connection test is decided here (`plan…`, against what is saved) and applied, with its
// audit entry (field names only, never values), in the unit of work of the company's settings actor
// (src/actors/settings.ts). The SQLite engine implements it in storage's repos/provider-settings.ts, and the
// storage contract suite (test/storage/contract/) holds every engine to it.
import type { Environment } from "../domain/types.ts";
import type { SettingsInput, SettingsKind, SettingsName } from "../domain/providers/catalog.ts";
import type { AuditActor } from "./audit.ts";

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

export type SaveOutcome =
  | { ok: true; created: boolean; state: SettingsState; fields: string[] }
  | { ok: false; code: "MISSING_FIELDS"; fields: string[] }
  | { ok: false; code: "INVALID_FIELDS"; fields: string[]; issues: { path: string; message: string }[] };

export type EnableOutcome = { ok: true; changed: boolean; state: SettingsState } | { ok: false; code: "NOT_CONFIGURED" };

/** A decision and the writes it takes, to run in the caller's unit of work (`apply` is re-runnable: it only writes). */
export interface Planned<T> {
  outcome: T;
  apply(): Promise<void>;
}
export type SaveDecision = { ok: true; created: boolean; fields: string[] } | Extract<SaveOutcome, { ok: false }>;
export type EnableDecision = { ok: true; changed: boolean } | { ok: false; code: "NOT_CONFIGURED" };

/** A connection test's result as recorded. */
export interface TestRecord {
  success: boolean;
  error?: string | null;
}

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
  /**
   * PUT, decided: credentials for the environment only; an empty value keeps the saved one; notes null clears, absent
   * keeps. `apply` writes the save and its audit entry inside the caller's unit of work. Rejects with UnreadableError
   * when the saved values were sealed under another key.
   */
  planSave(companyId: string, env: Environment, name: SettingsName, input: SettingsInput, by: AuditActor, now: number): Promise<Planned<SaveDecision>>;
  /** `planSave` applied in a unit of work of its own, with the state after it. */
  save(companyId: string, env: Environment, name: SettingsName, input: SettingsInput, by: AuditActor, now: number): Promise<SaveOutcome>;
  /** PATCH, decided: the one switch; credentials must be saved in `env` first. A PATCH that changes nothing writes nothing. */
  planEnabled(companyId: string, env: Environment, name: SettingsName, enabled: boolean, by: AuditActor, now: number): Promise<Planned<EnableDecision>>;
  /** `planEnabled` applied in a unit of work of its own, with the state after it. */
  setEnabled(companyId: string, env: Environment, name: SettingsName, enabled: boolean, by: AuditActor, now: number): Promise<EnableOutcome>;
  /** A connection test's result for the environment, decided: false when nothing is saved there (anymore). */
  planTest(companyId: string, env: Environment, name: SettingsName, result: TestRecord, by: AuditActor, now: number): Promise<Planned<boolean>>;
}
