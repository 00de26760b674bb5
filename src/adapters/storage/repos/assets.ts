// The company's asset policy: explicit enable/disable rows per environment over the catalog's defaults, audited.
import { iso } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import { AuditLog, type AuditActor } from "./audit.ts";

export interface AssetPolicyRow {
  company_id: string;
  environment: Environment;
  asset_id: string;
  enabled: number;
  updated_at: string;
}

export interface PolicyChange {
  assetId: string;
  environment: Environment;
  enabled: boolean;
  /** The explicit setting before this change; null when the catalog default applied. */
  previous: boolean | null;
  updatedAt: string;
}

export class AssetPolicy {
  private readonly audit: AuditLog;
  constructor(
    private readonly s: Storage,
    private readonly clock: () => number,
  ) {
    this.audit = new AuditLog(s);
  }

  /** Only the explicit rows: asset ID → enabled. */
  overrides(companyId: string, env: Environment): Map<string, boolean> {
    const rows = this.s.stmt("SELECT asset_id, enabled FROM asset_policies WHERE company_id = ? AND environment = ?").all(companyId, env) as unknown as Pick<AssetPolicyRow, "asset_id" | "enabled">[];
    return new Map(rows.map((r) => [r.asset_id, r.enabled === 1]));
  }

  /** Every given asset's state: an explicit row overrides the asset's `defaultEnabled`. One query per call. */
  enabledMap(companyId: string, env: Environment, assets: readonly { id: string; defaultEnabled: boolean }[]): Map<string, boolean> {
    const explicit = this.overrides(companyId, env);
    return new Map(assets.map((a) => [a.id, explicit.get(a.id) ?? a.defaultEnabled]));
  }

  isEnabled(companyId: string, env: Environment, assetId: string, defaultEnabled: boolean): boolean {
    const row = this.s.stmt("SELECT enabled FROM asset_policies WHERE company_id = ? AND environment = ? AND asset_id = ?").get(companyId, env, assetId) as { enabled: number } | null | undefined;
    return row ? row.enabled === 1 : defaultEnabled;
  }

  /** Writes the row and its audit entry in one transaction. The caller checks that the asset is in the catalog. */
  set(companyId: string, env: Environment, assetId: string, enabled: boolean, actor: AuditActor): PolicyChange {
    const now = this.clock();
    return this.s.tx(() => {
      const before = this.s.stmt("SELECT enabled FROM asset_policies WHERE company_id = ? AND environment = ? AND asset_id = ?").get(companyId, env, assetId) as { enabled: number } | null | undefined;
      this.s
        .stmt(
          "INSERT INTO asset_policies (company_id, environment, asset_id, enabled, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (company_id, environment, asset_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
        )
        .run(companyId, env, assetId, enabled ? 1 : 0, iso(now));
      const previous = before ? before.enabled === 1 : null;
      this.audit.record(
        { companyId, environment: env, actor, action: enabled ? "asset.enabled" : "asset.disabled", entityType: "Asset", entityId: assetId, detail: { enabled, previous } },
        now,
      );
      return { assetId, environment: env, enabled, previous, updatedAt: iso(now) };
    });
  }
}
