// The company's asset policy: explicit enable/disable rows per environment over the catalog's defaults, audited.
import { iso } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import { AuditLog, type AuditActor } from "./audit.ts";
import { changedElsewhere } from "./thresholds.ts";
import type { RowOf } from "./row.ts";
import type { assetPolicies as assetPoliciesTable } from "../../../../db/schema/assets.ts";
import type { AssetPolicyRepository, PolicyChange } from "../../../ports/assets.ts";

export type { AssetPolicyRepository, PolicyChange } from "../../../ports/assets.ts";

type AssetPolicyRow = RowOf<typeof assetPoliciesTable>;

/**
 * The explicit rows of each company and environment, cached for `isEnabled` (every create asks), shared by every
 * AssetPolicy over the same storage: `set` drops its key in its transaction, a commit by another connection (the CLI
 * `assets` command in another process) changes `PRAGMA data_version`, which empties the cache. Bounded: at most
 * POLICY_CACHE keys, the least recently used leave first.
 */
const POLICY_CACHE = 1024;
interface PolicyCache {
  dataVersion: number;
  byKey: Map<string, ReadonlyMap<string, boolean>>;
}
const policyCaches = new WeakMap<object, PolicyCache>();

export class AssetPolicy implements AssetPolicyRepository {
  private readonly audit: AuditLog;
  private readonly cache: PolicyCache;
  constructor(
    private readonly s: Storage,
    private readonly clock: () => number,
  ) {
    this.audit = new AuditLog(s);
    let c = policyCaches.get(s);
    if (!c) policyCaches.set(s, (c = { dataVersion: -1, byKey: new Map() }));
    this.cache = c;
  }

  /** Only the explicit rows: asset ID → enabled. */
  overrides(companyId: string, env: Environment): Promise<Map<string, boolean>> {
    return this.s.run(() => this.explicit(companyId, env));
  }

  private explicit(companyId: string, env: Environment): Map<string, boolean> {
    const rows = this.s.stmt("SELECT asset_id, enabled FROM asset_policies WHERE company_id = ? AND environment = ?").all(companyId, env) as unknown as Pick<AssetPolicyRow, "asset_id" | "enabled">[];
    return new Map(rows.map((r) => [r.asset_id, r.enabled === 1]));
  }

  /** Every given asset's state: an explicit row overrides the asset's `defaultEnabled`. One query per call. */
  async enabledMap(companyId: string, env: Environment, assets: readonly { id: string; defaultEnabled: boolean }[]): Promise<Map<string, boolean>> {
    const explicit = await this.overrides(companyId, env);
    return new Map(assets.map((a) => [a.id, explicit.get(a.id) ?? a.defaultEnabled]));
  }

  isEnabled(companyId: string, env: Environment, assetId: string, defaultEnabled: boolean): Promise<boolean> {
    return this.s.run(() => this.cachedIsEnabled(companyId, env, assetId, defaultEnabled));
  }

  private cachedIsEnabled(companyId: string, env: Environment, assetId: string, defaultEnabled: boolean): boolean {
    const c = this.cache;
    if (changedElsewhere(this.s, c)) c.byKey.clear();
    const key = `${companyId}:${env}`;
    let explicit = c.byKey.get(key);
    if (explicit) {
      c.byKey.delete(key);
      c.byKey.set(key, explicit);
    } else {
      explicit = this.explicit(companyId, env);
      c.byKey.set(key, explicit);
      if (c.byKey.size > POLICY_CACHE) c.byKey.delete(c.byKey.keys().next().value!);
    }
    return explicit.get(assetId) ?? defaultEnabled;
  }

  /** Writes the row and its audit entry in one transaction. The caller checks that the asset is in the catalog. */
  set(companyId: string, env: Environment, assetId: string, enabled: boolean, actor: AuditActor): Promise<PolicyChange> {
    const now = this.clock();
    return this.s.transaction(async () => {
      const before = this.s.stmt("SELECT enabled FROM asset_policies WHERE company_id = ? AND environment = ? AND asset_id = ?").get(companyId, env, assetId) as { enabled: number } | null | undefined;
      this.s
        .stmt(
          "INSERT INTO asset_policies (company_id, environment, asset_id, enabled, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (company_id, environment, asset_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
        )
        .run(companyId, env, assetId, enabled ? 1 : 0, iso(now));
      this.cache.byKey.delete(`${companyId}:${env}`);
      const previous = before ? before.enabled === 1 : null;
      this.audit.append(
        { companyId, environment: env, actor, action: enabled ? "asset.enabled" : "asset.disabled", entityType: "Asset", entityId: assetId, detail: { enabled, previous } },
        now,
      );
      return { assetId, environment: env, enabled, previous, updatedAt: iso(now) };
    });
  }
}
