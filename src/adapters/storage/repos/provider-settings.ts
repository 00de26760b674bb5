// Provider and integration settings: one enabled switch and stable ID per company and name, sealed credentials per environment.
// Only reads and writes: every save, switch change and connection test is decided by src/domain/providers/settings.ts
// in the company's settings actor (src/actors/settings.ts), which commits these writes with their audit entry.
import type { Environment } from "../../../domain/types.ts";
import { definitions, type SettingsKind, type SettingsName } from "../../../domain/providers/catalog.ts";
import type { SavedSettings, SettingsEnvironment, SettingsSwitch } from "../../../domain/providers/settings.ts";
import type { Sealer } from "../../crypto/envelope.ts";
import type { Storage } from "../types.ts";
import type { RowOf } from "./row.ts";
import type { providerCredentials as providerCredentialsTable, providerSettings as providerSettingsTable } from "../../../../db/schema/providers.ts";
import type { ProviderSettingsRepository, SettingsState } from "../../../ports/provider-settings.ts";

export type CompanyRow = Pick<RowOf<typeof providerSettingsTable>, "id" | "enabled" | "enabled_changed_at" | "created_at" | "updated_at">;

/** `last_test_result` is text in the table; only these two values are written. */
export type EnvRow = Pick<
  RowOf<typeof providerCredentialsTable>,
  "credentials_sealed" | "configured_fields" | "notes" | "last_tested_at" | "last_error" | "created_at" | "updated_at"
> & { last_test_result: "success" | "error" | null };

/** The associated data that binds sealed credentials to their company, environment and name. */
export const credentialsAad = (companyId: string, env: Environment, name: SettingsName) => `settings:${companyId}:${env}:${name}`;

/** A name's state in an environment, from its company row (the switch) and its environment row (both engines). */
export function settingsState(name: SettingsName, env: Environment, c: CompanyRow | undefined, e: EnvRow | undefined): SettingsState {
  // Switching on or off is a change of the settings: updatedAt shows it once this environment has been saved.
  const updatedAt = e ? (c?.enabled_changed_at && c.enabled_changed_at > e.updated_at ? c.enabled_changed_at : e.updated_at) : null;
  return {
    name,
    id: c?.id ?? null,
    environment: env,
    enabled: c?.enabled === 1,
    configured: e !== undefined,
    configuredFields: e ? (JSON.parse(e.configured_fields) as string[]) : [],
    notes: e?.notes ?? null,
    lastTestedAt: e?.last_tested_at ?? null,
    lastTestResult: e?.last_test_result ?? null,
    lastError: e?.last_error ?? null,
    createdAt: e?.created_at ?? null,
    updatedAt,
  };
}

/** What is saved of a name, as the settings actor decides from it (both engines). */
export function savedSettings(c: CompanyRow | undefined, e: EnvRow | undefined): SavedSettings {
  return {
    company: c && { id: c.id, enabled: c.enabled === 1, enabledChangedAt: c.enabled_changed_at, createdAt: c.created_at, updatedAt: c.updated_at },
    environment: e && {
      configuredFields: JSON.parse(e.configured_fields) as string[],
      notes: e.notes,
      lastTestedAt: e.last_tested_at,
      lastTestResult: e.last_test_result,
      lastError: e.last_error,
      createdAt: e.created_at,
      updatedAt: e.updated_at,
    },
  };
}

/** The values of a provider_credentials INSERT in table order; `sealed`: the credentials sealed with the secrets sealer. */
export function credentialsInsertValues(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment, sealed: string): (string | null)[] {
  return [companyId, env, name, sealed, JSON.stringify(e.configuredFields), e.notes, e.lastTestedAt, e.lastTestResult, e.lastError, e.createdAt, e.updatedAt];
}

export class ProviderSettings implements ProviderSettingsRepository {
  constructor(
    private readonly s: Storage,
    private readonly secrets: Sealer,
  ) {}

  private companyRow(companyId: string, name: SettingsName): CompanyRow | undefined {
    return (this.s.stmt("SELECT id, enabled, enabled_changed_at, created_at, updated_at FROM provider_settings WHERE company_id = ? AND name = ?").get(companyId, name) ?? undefined) as
      | CompanyRow
      | undefined;
  }

  private envRow(companyId: string, env: Environment, name: SettingsName): EnvRow | undefined {
    return (this.s.stmt("SELECT * FROM provider_credentials WHERE company_id = ? AND environment = ? AND name = ?").get(companyId, env, name) ?? undefined) as
      | EnvRow
      | undefined;
  }

  private read(companyId: string, env: Environment, name: SettingsName): SettingsState {
    return settingsState(name, env, this.companyRow(companyId, name), this.envRow(companyId, env, name));
  }

  get(companyId: string, env: Environment, name: SettingsName): Promise<SettingsState> {
    return this.s.run(() => this.read(companyId, env, name));
  }

  /** Every name of the kind in list order (providers by priority, integrations by name), saved or not. */
  list(companyId: string, env: Environment, kind: SettingsKind): Promise<SettingsState[]> {
    return this.s.run(() => definitions(kind).map((d) => this.read(companyId, env, d.name)));
  }

  /** The decrypted values saved for the environment (adapters' view); null when none are saved. Rejects with UnreadableError under another master key. */
  credentials(companyId: string, env: Environment, name: SettingsName): Promise<Record<string, string> | null> {
    return this.s.run(() => {
      const e = this.envRow(companyId, env, name);
      return e ? this.secrets.openJson<Record<string, string>>(e.credentials_sealed, credentialsAad(companyId, env, name)) : null;
    });
  }

  /** The company's one switch (both environments). */
  enabled(companyId: string, name: SettingsName): Promise<boolean> {
    return this.s.run(() => this.companyRow(companyId, name)?.enabled === 1);
  }

  /** The stable ID, or undefined before the first save. */
  id(companyId: string, name: SettingsName): Promise<string | undefined> {
    return this.s.run(() => this.companyRow(companyId, name)?.id);
  }

  saved(companyId: string, env: Environment, name: SettingsName): Promise<SavedSettings> {
    return this.s.run(() => {
      const c = this.companyRow(companyId, name);
      const e = this.envRow(companyId, env, name);
      return savedSettings(c, e);
    });
  }

  insertSwitch(companyId: string, name: SettingsName, sw: SettingsSwitch): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt("INSERT INTO provider_settings (id, company_id, name, enabled, enabled_changed_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .run(sw.id, companyId, name, sw.enabled ? 1 : 0, sw.enabledChangedAt, sw.createdAt, sw.updatedAt);
    });
  }

  saveSwitch(companyId: string, name: SettingsName, sw: SettingsSwitch): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt("UPDATE provider_settings SET enabled = ?, enabled_changed_at = ?, updated_at = ? WHERE id = ? AND company_id = ? AND name = ?")
        .run(sw.enabled ? 1 : 0, sw.enabledChangedAt, sw.updatedAt, sw.id, companyId, name);
    });
  }

  insertEnvironment(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment, credentials: Record<string, string>): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          "INSERT INTO provider_credentials (company_id, environment, name, credentials_sealed, configured_fields, notes, last_tested_at, last_test_result, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(...credentialsInsertValues(companyId, env, name, e, this.secrets.sealJson(credentials, credentialsAad(companyId, env, name))));
    });
  }

  saveCredentials(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment, credentials: Record<string, string>): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt("UPDATE provider_credentials SET credentials_sealed = ?, configured_fields = ?, notes = ?, updated_at = ? WHERE company_id = ? AND environment = ? AND name = ?")
        .run(this.secrets.sealJson(credentials, credentialsAad(companyId, env, name)), JSON.stringify(e.configuredFields), e.notes, e.updatedAt, companyId, env, name);
    });
  }

  saveTest(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt("UPDATE provider_credentials SET last_tested_at = ?, last_test_result = ?, last_error = ? WHERE company_id = ? AND environment = ? AND name = ?")
        .run(e.lastTestedAt, e.lastTestResult, e.lastError, companyId, env, name);
    });
  }
}
