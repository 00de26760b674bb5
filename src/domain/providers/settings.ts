// The decisions of the settings actor (src/actors/settings.ts), the one writer of a company's provider and integration
// settings: a save (credentials for one environment, merged with what is saved), the one switch (both environments)
// and a connection test's result. Pure functions over the saved records, the command and the clock's time: each
// answers the refusal, or the records as they become with the audit entry's action and detail (field names only,
// never values). The credentials they see are opened values; sealing them is the storage port's (no key here).
import { iso } from "../ids.ts";
import { configuredFields, definitionOf, mergeCredentials, type SettingsInput, type SettingsKind, type SettingsName } from "./catalog.ts";

/** The company's part of one name: the stable ID and the one enabled switch, shared by both environments. */
export interface SettingsSwitch {
  /** `prv_…` / `int_…`. */
  id: string;
  enabled: boolean;
  /** When the switch last changed; null until it has. */
  enabledChangedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One environment's part of one name: what is saved there (the credentials themselves travel apart, opened). */
export interface SettingsEnvironment {
  /** Keys of the fields that hold a value, in definition order. */
  configuredFields: string[];
  notes: string | null;
  lastTestedAt: string | null;
  lastTestResult: "success" | "error" | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What is saved for one name and environment; both undefined before the first save. */
export interface SavedSettings {
  company: SettingsSwitch | undefined;
  environment: SettingsEnvironment | undefined;
}

/** A connection test's result as recorded. */
export interface TestRecord {
  success: boolean;
  error?: string | null;
}

/** The audit entry a decision records (the actor adds who acts, the company and the environment). */
export interface SettingsAudit {
  action: string;
  entityType: "Provider" | "Integration";
  entityId: SettingsName;
  detail: Record<string, unknown>;
}

const ENTITY: Record<SettingsKind, SettingsAudit["entityType"]> = { provider: "Provider", integration: "Integration" };
/** The stable ID's prefix by kind. */
export const SETTINGS_ID_PREFIX: Record<SettingsKind, string> = { provider: "prv", integration: "int" };

export type SaveRefusal =
  | { ok: false; code: "MISSING_FIELDS"; fields: string[] }
  | { ok: false; code: "INVALID_FIELDS"; fields: string[]; issues: { path: string; message: string }[] };

export interface SaveDecided {
  ok: true;
  /** First save in this environment. */
  created: boolean;
  /** The field keys sent, as the answer and the audit entry name them. */
  fields: string[];
  /** The switch to insert: set on the first save in either environment, else undefined (the saved one is kept as is). */
  newSwitch: SettingsSwitch | undefined;
  environment: SettingsEnvironment;
  /** The merged values to seal and keep. */
  credentials: Record<string, string>;
  audit: SettingsAudit;
}

/**
 * PUT: credentials for the environment only; a value not sent (or sent empty) keeps the saved one; notes null
 * clears, undefined keeps. `credentials` are the opened values saved for the environment (null when none); `id` is
 * the stable ID a first save gives (unused when one is saved).
 */
export function decideSave(name: SettingsName, saved: SavedSettings, credentials: Record<string, string> | null, input: SettingsInput, id: string, now: number): SaveDecided | SaveRefusal {
  const def = definitionOf(name);
  const merged = mergeCredentials(def, input.credentials, credentials, now);
  if (!merged.ok) return merged;
  const at = iso(now);
  const existing = saved.environment;
  const newSwitch = saved.company ? undefined : { id, enabled: false, enabledChangedAt: null, createdAt: at, updatedAt: at };
  const switchId = saved.company?.id ?? id;
  const notes = input.notes === undefined ? (existing?.notes ?? null) : input.notes;
  const environment: SettingsEnvironment = existing
    ? { ...existing, configuredFields: configuredFields(def, merged.values), notes, updatedAt: at }
    : { configuredFields: configuredFields(def, merged.values), notes, lastTestedAt: null, lastTestResult: null, lastError: null, createdAt: at, updatedAt: at };
  const fields = Object.keys(input.credentials);
  return {
    ok: true,
    created: !existing,
    fields,
    newSwitch,
    environment,
    credentials: merged.values,
    audit: {
      action: `${def.kind}.${existing ? "updated" : "created"}`,
      entityType: ENTITY[def.kind],
      entityId: name,
      detail: { id: switchId, fields, ...(input.notes === undefined ? {} : { notes: input.notes === null ? "cleared" : "set" }) },
    },
  };
}

export type EnableDecided =
  | { ok: false; code: "NOT_CONFIGURED" }
  /** The same value again: nothing to write. */
  | { ok: true; changed: false }
  | { ok: true; changed: true; switch: SettingsSwitch; audit: SettingsAudit };

/** PATCH: the one switch for both environments; credentials must be saved in the key's environment first. */
export function decideEnabled(name: SettingsName, saved: SavedSettings, enabled: boolean, now: number): EnableDecided {
  const def = definitionOf(name);
  const company = saved.company;
  if (!saved.environment || !company) return { ok: false, code: "NOT_CONFIGURED" };
  if (company.enabled === enabled) return { ok: true, changed: false };
  const at = iso(now);
  return {
    ok: true,
    changed: true,
    switch: { ...company, enabled, enabledChangedAt: at, updatedAt: at },
    audit: { action: `${def.kind}.${enabled ? "enabled" : "disabled"}`, entityType: ENTITY[def.kind], entityId: name, detail: { id: company.id } },
  };
}

export type TestDecided = { ok: false } | { ok: true; environment: SettingsEnvironment; audit: SettingsAudit };

/** A connection test's result, recorded where credentials are saved in the environment, and only there (an error's text only on a failure). */
export function decideTest(name: SettingsName, saved: SavedSettings, result: TestRecord, testedAt: number): TestDecided {
  const def = definitionOf(name);
  if (!saved.environment) return { ok: false };
  const outcome = result.success ? "success" : "error";
  const error = result.success ? null : (result.error ?? null);
  return {
    ok: true,
    environment: { ...saved.environment, lastTestedAt: iso(testedAt), lastTestResult: outcome, lastError: error },
    audit: {
      action: `${def.kind}.tested`,
      entityType: ENTITY[def.kind],
      entityId: name,
      detail: { id: saved.company?.id ?? null, result: outcome, ...(error ? { error } : {}) },
    },
  };
}
