// Provider and integration settings: one enabled switch and stable ID per company and name, sealed credentials per environment.
// Every save, switch change and connection test is decided here and applied, with its audit entry (field names only,
// never values), in the unit of work of the company's settings actor (src/actors/settings.ts).
import { iso, newId } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import {
  configuredFields,
  definitionOf,
  definitions,
  mergeCredentials,
  type SettingsInput,
  type SettingsKind,
  type SettingsName,
} from "../../../domain/providers/catalog.ts";
import type { Sealer } from "../../crypto/envelope.ts";
import type { Storage } from "../types.ts";
import { AuditLog, type AuditActor } from "./audit.ts";
import type { RowOf } from "./row.ts";
import type { providerCredentials as providerCredentialsTable, providerSettings as providerSettingsTable } from "../../../../db/schema/providers.ts";
import type {
  EnableDecision,
  EnableOutcome,
  Planned,
  ProviderSettingsRepository,
  SaveDecision,
  SaveOutcome,
  SettingsState,
  TestRecord,
} from "../../../ports/provider-settings.ts";

type CompanyRow = Pick<RowOf<typeof providerSettingsTable>, "id" | "enabled" | "enabled_changed_at">;

/** `last_test_result` is text in the table; only these two values are written. */
type EnvRow = Pick<
  RowOf<typeof providerCredentialsTable>,
  "credentials_sealed" | "configured_fields" | "notes" | "last_tested_at" | "last_error" | "created_at" | "updated_at"
> & { last_test_result: "success" | "error" | null };

const ENTITY: Record<SettingsKind, string> = { provider: "Provider", integration: "Integration" };
const ID_PREFIX: Record<SettingsKind, string> = { provider: "prv", integration: "int" };

/** The associated data that binds sealed credentials to their company, environment and name. */
export const credentialsAad = (companyId: string, env: Environment, name: SettingsName) => `settings:${companyId}:${env}:${name}`;

export class ProviderSettings implements ProviderSettingsRepository {
  private readonly audit: AuditLog;

  constructor(
    private readonly s: Storage,
    private readonly secrets: Sealer,
  ) {
    this.audit = new AuditLog(s);
  }

  private companyRow(companyId: string, name: SettingsName): CompanyRow | undefined {
    return (this.s.stmt("SELECT id, enabled, enabled_changed_at FROM provider_settings WHERE company_id = ? AND name = ?").get(companyId, name) ?? undefined) as
      | CompanyRow
      | undefined;
  }

  private envRow(companyId: string, env: Environment, name: SettingsName): EnvRow | undefined {
    return (this.s.stmt("SELECT * FROM provider_credentials WHERE company_id = ? AND environment = ? AND name = ?").get(companyId, env, name) ?? undefined) as
      | EnvRow
      | undefined;
  }

  private state(name: SettingsName, env: Environment, c: CompanyRow | undefined, e: EnvRow | undefined): SettingsState {
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

  private read(companyId: string, env: Environment, name: SettingsName): SettingsState {
    return this.state(name, env, this.companyRow(companyId, name), this.envRow(companyId, env, name));
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

  /**
   * Part 2 PUT, decided: credentials for the key's environment only; an empty value keeps the saved one; notes null
   * clears, absent keeps. `apply` writes the save and its audit entry inside the caller's unit of work (the settings
   * actor's, src/actors/settings.ts; or `save`'s own transaction); the plan is read and applied under one writer, so two
   * saves never lose each other's fields. Throws UnreadableError when the saved values were sealed under another key.
   */
  planSave(companyId: string, env: Environment, name: SettingsName, input: SettingsInput, by: AuditActor, now: number): Promise<Planned<SaveDecision>> {
    return this.s.run(() => this.decideSave(companyId, env, name, input, by, now));
  }

  private decideSave(companyId: string, env: Environment, name: SettingsName, input: SettingsInput, by: AuditActor, now: number): Planned<SaveDecision> {
    const def = definitionOf(name);
    const aad = credentialsAad(companyId, env, name);
    const existing = this.envRow(companyId, env, name);
    const saved = existing ? this.secrets.openJson<Record<string, string>>(existing.credentials_sealed, aad) : null;
    const merged = mergeCredentials(def, input.credentials, saved, now);
    if (!merged.ok) return { outcome: merged, apply: async () => {} };
    const at = iso(now);
    const known = this.companyRow(companyId, name);
    const id = known?.id ?? newId(ID_PREFIX[def.kind], now);
    const sealed = this.secrets.sealJson(merged.values, aad);
    const fields = JSON.stringify(configuredFields(def, merged.values));
    const notes = input.notes === undefined ? (existing?.notes ?? null) : input.notes;
    const sentFields = Object.keys(input.credentials);
    const apply = () => this.s.run(() => {
      if (!known)
        this.s
          .stmt("INSERT INTO provider_settings (id, company_id, name, enabled, enabled_changed_at, created_at, updated_at) VALUES (?, ?, ?, 0, NULL, ?, ?)")
          .run(id, companyId, name, at, at);
      if (existing)
        this.s
          .stmt("UPDATE provider_credentials SET credentials_sealed = ?, configured_fields = ?, notes = ?, updated_at = ? WHERE company_id = ? AND environment = ? AND name = ?")
          .run(sealed, fields, notes, at, companyId, env, name);
      else
        this.s
          .stmt(
            "INSERT INTO provider_credentials (company_id, environment, name, credentials_sealed, configured_fields, notes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
          )
          .run(companyId, env, name, sealed, fields, notes, at, at);
      this.audit.append(
        {
          companyId,
          environment: env,
          actor: by,
          action: `${def.kind}.${existing ? "updated" : "created"}`,
          entityType: ENTITY[def.kind],
          entityId: name,
          detail: { id, fields: sentFields, ...(input.notes === undefined ? {} : { notes: input.notes === null ? "cleared" : "set" }) },
        },
        now,
      );
    });
    return { outcome: { ok: true, created: !existing, fields: sentFields }, apply };
  }

  /** `planSave` applied in one transaction of its own, with the state after it. */
  save(companyId: string, env: Environment, name: SettingsName, input: SettingsInput, by: AuditActor, now: number): Promise<SaveOutcome> {
    return this.s.transaction(async (): Promise<SaveOutcome> => {
      const p = await this.planSave(companyId, env, name, input, by, now);
      if (!p.outcome.ok) return p.outcome;
      await p.apply();
      return { ...p.outcome, state: await this.get(companyId, env, name) };
    });
  }

  /**
   * Part 2 PATCH, decided: the one switch for both environments. Credentials must be saved in `env` (the key's, always
   * live) first. A PATCH that changes nothing writes nothing; `apply` writes a change and its audit entry.
   */
  planEnabled(companyId: string, env: Environment, name: SettingsName, enabled: boolean, by: AuditActor, now: number): Promise<Planned<EnableDecision>> {
    return this.s.run(() => this.decideEnabled(companyId, env, name, enabled, by, now));
  }

  private decideEnabled(companyId: string, env: Environment, name: SettingsName, enabled: boolean, by: AuditActor, now: number): Planned<EnableDecision> {
    const def = definitionOf(name);
    if (!this.envRow(companyId, env, name)) return { outcome: { ok: false, code: "NOT_CONFIGURED" }, apply: async () => {} };
    const company = this.companyRow(companyId, name)!;
    const changed = (company.enabled === 1) !== enabled;
    const apply = () => this.s.run(() => {
      if (!changed) return;
      const at = iso(now);
      this.s.stmt("UPDATE provider_settings SET enabled = ?, enabled_changed_at = ?, updated_at = ? WHERE id = ?").run(enabled ? 1 : 0, at, at, company.id);
      this.audit.append(
        { companyId, environment: env, actor: by, action: `${def.kind}.${enabled ? "enabled" : "disabled"}`, entityType: ENTITY[def.kind], entityId: name, detail: { id: company.id } },
        now,
      );
    });
    return { outcome: { ok: true, changed }, apply };
  }

  /** `planEnabled` applied in one transaction of its own, with the state after it. */
  setEnabled(companyId: string, env: Environment, name: SettingsName, enabled: boolean, by: AuditActor, now: number): Promise<EnableOutcome> {
    return this.s.transaction(async (): Promise<EnableOutcome> => {
      const p = await this.planEnabled(companyId, env, name, enabled, by, now);
      if (!p.outcome.ok) return p.outcome;
      await p.apply();
      return { ...p.outcome, state: await this.get(companyId, env, name) };
    });
  }

  /**
   * A connection test's result for the environment, decided: false when nothing is saved there (anymore); `apply`
   * stores it and its audit entry.
   */
  planTest(companyId: string, env: Environment, name: SettingsName, result: TestRecord, by: AuditActor, now: number): Promise<Planned<boolean>> {
    return this.s.run(() => this.decideTest(companyId, env, name, result, by, now));
  }

  private decideTest(companyId: string, env: Environment, name: SettingsName, result: TestRecord, by: AuditActor, now: number): Planned<boolean> {
    const def = definitionOf(name);
    if (!this.envRow(companyId, env, name)) return { outcome: false, apply: async () => {} };
    const at = iso(now);
    const outcome = result.success ? "success" : "error";
    const error = result.success ? null : (result.error ?? null);
    const apply = () => this.s.run(() => {
      this.s
        .stmt("UPDATE provider_credentials SET last_tested_at = ?, last_test_result = ?, last_error = ? WHERE company_id = ? AND environment = ? AND name = ?")
        .run(at, outcome, error, companyId, env, name);
      this.audit.append(
        {
          companyId,
          environment: env,
          actor: by,
          action: `${def.kind}.tested`,
          entityType: ENTITY[def.kind],
          entityId: name,
          detail: { id: this.companyRow(companyId, name)?.id ?? null, result: outcome, ...(error ? { error } : {}) },
        },
        now,
      );
    });
    return { outcome: true, apply };
  }

}
