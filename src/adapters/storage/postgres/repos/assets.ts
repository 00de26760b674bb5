// The company's asset policy on PostgreSQL: the twin of ../../repos/assets.ts (explicit enable/disable rows per
// environment over the catalog's defaults, each change audited in the same unit). No cache for `isEnabled`: SQLite's
// is emptied by PRAGMA data_version, which PostgreSQL has no twin of, and the port wants a change committed by any
// process seen on the next call; the read is one primary-key lookup.
import { iso } from "../../../../domain/ids.ts";
import type { Environment } from "../../../../domain/types.ts";
import type { AuditActor } from "../../repos/audit.ts";
import { appendAudit } from "../rows.ts";
import type { AssetPolicyRepository, PolicyChange } from "../../../../ports/assets.ts";
import type { PgSession } from "../session.ts";

export class PgAssetPolicy implements AssetPolicyRepository {
  constructor(
    private readonly db: PgSession,
    private readonly clock: () => number,
  ) {}

  /** Only the explicit rows: asset ID → enabled. */
  async overrides(companyId: string, env: Environment): Promise<Map<string, boolean>> {
    const rows = await this.db.read<{ asset_id: string; enabled: number }>("SELECT asset_id, enabled FROM asset_policies WHERE company_id = $1 AND environment = $2", [companyId, env]);
    return new Map(rows.map((r) => [r.asset_id, r.enabled === 1]));
  }

  /** Every given asset's state: an explicit row overrides the asset's `defaultEnabled`. One query per call. */
  async enabledMap(companyId: string, env: Environment, assets: readonly { id: string; defaultEnabled: boolean }[]): Promise<Map<string, boolean>> {
    const explicit = await this.overrides(companyId, env);
    return new Map(assets.map((a) => [a.id, explicit.get(a.id) ?? a.defaultEnabled]));
  }

  async isEnabled(companyId: string, env: Environment, assetId: string, defaultEnabled: boolean): Promise<boolean> {
    const [r] = await this.db.read<{ enabled: number }>("SELECT enabled FROM asset_policies WHERE company_id = $1 AND environment = $2 AND asset_id = $3", [companyId, env, assetId]);
    return r ? r.enabled === 1 : defaultEnabled;
  }

  /** Writes the row and its audit entry in one transaction. The caller checks that the asset is in the catalog. */
  set(companyId: string, env: Environment, assetId: string, enabled: boolean, actor: AuditActor): Promise<PolicyChange> {
    const now = this.clock();
    return this.db.transaction(async () => {
      const [before] = await this.db.q<{ enabled: number }>(
        "SELECT enabled FROM asset_policies WHERE company_id = $1 AND environment = $2 AND asset_id = $3 FOR UPDATE",
        [companyId, env, assetId],
      );
      await this.db.q(
        "INSERT INTO asset_policies (company_id, environment, asset_id, enabled, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (company_id, environment, asset_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
        [companyId, env, assetId, enabled ? 1 : 0, iso(now)],
      );
      const previous = before ? before.enabled === 1 : null;
      await appendAudit(
        this.db,
        { companyId, environment: env, actor, action: enabled ? "asset.enabled" : "asset.disabled", entityType: "Asset", entityId: assetId, detail: { enabled, previous } },
        now,
      );
      return { assetId, environment: env, enabled, previous, updatedAt: iso(now) };
    });
  }
}
