// The asset policy port: which catalog assets a company's new transfers may use, per environment, as explicit
// switches over the catalog's defaults, each change audited. Asynchronous like every port (src/ports/store.ts). The
// SQLite engine implements it in storage's repos/assets.ts (with a cache for `isEnabled`, which every
// create asks), and the storage contract suite (test/storage/contract/) holds every engine to it.
import type { Environment } from "../domain/types.ts";
import type { AuditActor } from "./audit.ts";

/** One switch changed. */
export interface PolicyChange {
  assetId: string;
  environment: Environment;
  enabled: boolean;
  /** The explicit setting before this change; null when the catalog default applied. */
  previous: boolean | null;
  updatedAt: string;
}

export interface AssetPolicyRepository {
  /** Only the explicit switches: asset ID → enabled. */
  overrides(companyId: string, env: Environment): Promise<Map<string, boolean>>;
  /** Every given asset's state: an explicit switch overrides the asset's `defaultEnabled`. */
  enabledMap(companyId: string, env: Environment, assets: readonly { id: string; defaultEnabled: boolean }[]): Promise<Map<string, boolean>>;
  /** One asset's state (a change committed anywhere, another process included, shows on the next call). */
  isEnabled(companyId: string, env: Environment, assetId: string, defaultEnabled: boolean): Promise<boolean>;
  /** Writes the switch and its audit entry in one unit of work. The caller checks that the asset is in the catalog. */
  set(companyId: string, env: Environment, assetId: string, enabled: boolean, actor: AuditActor): Promise<PolicyChange>;
}
