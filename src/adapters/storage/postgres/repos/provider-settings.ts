// Provider and integration settings on PostgreSQL: the twin of ../../repos/provider-settings.ts (same port, same
// answers). Credentials are sealed with the secrets sealer (bound to company, environment and name) before they are
// bound to a statement, and opened only by `credentials()`: the database never holds them in clear. A name's switch
// (provider_settings) and its environment's row (provider_credentials) are read together in one statement, and a
// whole list in one statement whatever its length.
import type { Environment } from "../../../../domain/types.ts";
import { definitions, type SettingsKind, type SettingsName } from "../../../../domain/providers/catalog.ts";
import type { SavedSettings, SettingsEnvironment, SettingsSwitch } from "../../../../domain/providers/settings.ts";
import type { Sealer } from "../../../crypto/envelope.ts";
import type { ProviderSettingsRepository, SettingsState } from "../../../../ports/provider-settings.ts";
import { credentialsAad, credentialsInsertValues, savedSettings, settingsState, type CompanyRow, type EnvRow } from "../../repos/provider-settings.ts";
import type { PgSession } from "../session.ts";

/** A name's two rows as JSON text (null when absent), for the names `$3` in their order. */
const ROWS = `SELECT n.name, row_to_json(s)::text AS c, row_to_json(p)::text AS e
  FROM unnest($3::text[]) WITH ORDINALITY AS n(name, i)
  LEFT JOIN (SELECT id, name, enabled, enabled_changed_at, created_at, updated_at FROM provider_settings WHERE company_id = $1) s ON s.name = n.name
  LEFT JOIN provider_credentials p ON p.company_id = $1 AND p.environment = $2 AND p.name = n.name
  ORDER BY n.i`;

type Rows = { c: CompanyRow | undefined; e: EnvRow | undefined };

export class PgProviderSettings implements ProviderSettingsRepository {
  constructor(
    private readonly db: PgSession,
    private readonly secrets: Sealer,
  ) {}

  private async rows(companyId: string, env: Environment, names: readonly SettingsName[]): Promise<Rows[]> {
    const found = await this.db.read<{ c: string | null; e: string | null }>(ROWS, [companyId, env, names]);
    return found.map((r) => ({ c: r.c === null ? undefined : (JSON.parse(r.c) as CompanyRow), e: r.e === null ? undefined : (JSON.parse(r.e) as EnvRow) }));
  }

  private async row(companyId: string, env: Environment, name: SettingsName): Promise<Rows> {
    return (await this.rows(companyId, env, [name]))[0]!;
  }

  private async companyRow(companyId: string, name: SettingsName): Promise<CompanyRow | undefined> {
    return (await this.db.read<CompanyRow>("SELECT id, enabled, enabled_changed_at, created_at, updated_at FROM provider_settings WHERE company_id = $1 AND name = $2", [companyId, name]))[0];
  }

  async get(companyId: string, env: Environment, name: SettingsName): Promise<SettingsState> {
    const r = await this.row(companyId, env, name);
    return settingsState(name, env, r.c, r.e);
  }

  /** Every name of the kind in list order (providers by priority, integrations by name), saved or not. */
  async list(companyId: string, env: Environment, kind: SettingsKind): Promise<SettingsState[]> {
    const names = definitions(kind).map((d) => d.name);
    const rows = await this.rows(companyId, env, names);
    return names.map((name, i) => settingsState(name, env, rows[i]!.c, rows[i]!.e));
  }

  /** The decrypted values saved for the environment (adapters' view); null when none are saved. Rejects with UnreadableError under another master key. */
  async credentials(companyId: string, env: Environment, name: SettingsName): Promise<Record<string, string> | null> {
    const e = (
      await this.db.read<{ credentials_sealed: string }>("SELECT credentials_sealed FROM provider_credentials WHERE company_id = $1 AND environment = $2 AND name = $3", [companyId, env, name])
    )[0];
    return e ? this.secrets.openJson<Record<string, string>>(e.credentials_sealed, credentialsAad(companyId, env, name)) : null;
  }

  /** The company's one switch (both environments). */
  async enabled(companyId: string, name: SettingsName): Promise<boolean> {
    return (await this.companyRow(companyId, name))?.enabled === 1;
  }

  /** The stable ID, or undefined before the first save. */
  async id(companyId: string, name: SettingsName): Promise<string | undefined> {
    return (await this.companyRow(companyId, name))?.id;
  }

  async saved(companyId: string, env: Environment, name: SettingsName): Promise<SavedSettings> {
    const r = await this.row(companyId, env, name);
    return savedSettings(r.c, r.e);
  }

  async insertSwitch(companyId: string, name: SettingsName, sw: SettingsSwitch): Promise<void> {
    await this.db.q("INSERT INTO provider_settings (id, company_id, name, enabled, enabled_changed_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
      sw.id,
      companyId,
      name,
      sw.enabled ? 1 : 0,
      sw.enabledChangedAt,
      sw.createdAt,
      sw.updatedAt,
    ]);
  }

  async saveSwitch(companyId: string, name: SettingsName, sw: SettingsSwitch): Promise<void> {
    await this.db.q("UPDATE provider_settings SET enabled = $1, enabled_changed_at = $2, updated_at = $3 WHERE id = $4 AND company_id = $5 AND name = $6", [
      sw.enabled ? 1 : 0,
      sw.enabledChangedAt,
      sw.updatedAt,
      sw.id,
      companyId,
      name,
    ]);
  }

  async insertEnvironment(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment, credentials: Record<string, string>): Promise<void> {
    const sealed = this.secrets.sealJson(credentials, credentialsAad(companyId, env, name));
    await this.db.q(
      `INSERT INTO provider_credentials (company_id, environment, name, credentials_sealed, configured_fields, notes, last_tested_at, last_test_result, last_error, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      credentialsInsertValues(companyId, env, name, e, sealed),
    );
  }

  async saveCredentials(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment, credentials: Record<string, string>): Promise<void> {
    const sealed = this.secrets.sealJson(credentials, credentialsAad(companyId, env, name));
    await this.db.q("UPDATE provider_credentials SET credentials_sealed = $1, configured_fields = $2, notes = $3, updated_at = $4 WHERE company_id = $5 AND environment = $6 AND name = $7", [
      sealed,
      JSON.stringify(e.configuredFields),
      e.notes,
      e.updatedAt,
      companyId,
      env,
      name,
    ]);
  }

  async saveTest(companyId: string, env: Environment, name: SettingsName, e: SettingsEnvironment): Promise<void> {
    await this.db.q("UPDATE provider_credentials SET last_tested_at = $1, last_test_result = $2, last_error = $3 WHERE company_id = $4 AND environment = $5 AND name = $6", [
      e.lastTestedAt,
      e.lastTestResult,
      e.lastError,
      companyId,
      env,
      name,
    ]);
  }
}
