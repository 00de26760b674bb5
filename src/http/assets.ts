// GET /api/v2/assets (Part 1, Assets): the catalog with each asset's enabled state in the key's environment.
import { Type } from "@sinclair/typebox";
import { searchAssets, type Catalog, type CatalogAsset } from "../domain/assets/catalog.ts";
import { SUPPORTED_NETWORKS } from "../domain/networks/index.ts";
import type { AssetPolicyRepository } from "../ports/assets.ts";
import { ok, type ApiKit } from "./kit.ts";
import { q, type QueryParam } from "./query.ts";

/** Assets page by offset (Part 1 Conventions), the one list that does: the catalog is a fixed, small snapshot. */
const offset: QueryParam<number> & { default: number } = {
  schema: Type.Integer({ minimum: 0, default: 0, description: "Matching assets to skip" }),
  default: 0,
  parse(raw) {
    if (!/^\d{1,15}$/.test(raw)) return { error: "must be a whole number, 0 or more" };
    return { value: Number(raw) };
  },
};

export function presentAsset(a: CatalogAsset, enabled: boolean) {
  return {
    id: a.id,
    name: a.name,
    network: a.network,
    chainId: a.chainId,
    assetReference: a.assetReference,
    decimals: a.decimals,
    sourceNetwork: a.sourceNetwork,
    aliases: a.aliases,
    marketDataIds: a.marketDataIds,
    enabled,
  };
}

export function assetRoutes(kit: ApiKit, deps: { policy: AssetPolicyRepository; catalog: Catalog }) {
  const { policy, catalog } = deps;
  return kit.group("/api/v2/assets", (r) =>
    r.get(
      "/",
      {
        summary: "The asset catalog with each asset's enabled state in the key's environment (disabled assets are listed too)",
        access: { scope: "transfers:read", permission: "transfers:view" },
        tags: ["assets"],
        query: {
          q: q.string(200),
          network: q.enumOf(SUPPORTED_NETWORKS),
          assetId: q.string(200),
          limit: q.limit(200),
          offset,
        },
      },
      async ({ auth, query }) => {
        const matching = searchAssets(catalog.assets, { q: query.q, network: query.network, assetId: query.assetId });
        const slice = matching.slice(query.offset, query.offset + query.limit);
        // Read afresh on every request: a policy change shows on the next answer (never cached).
        const enabled = await policy.enabledMap(auth.company.id, auth.environment, slice);
        return ok(
          slice.map((a) => presentAsset(a, enabled.get(a.id) ?? a.defaultEnabled)),
          {
            storage: "local_snapshot",
            fetchedAt: catalog.fetchedAt,
            sourceSha256: catalog.sourceSha256,
            sourceEntryCount: catalog.sourceEntryCount,
            assetCount: catalog.assetCount,
            networkCount: catalog.networkCount,
            coverage: "reference_only",
            total: matching.length,
            limit: query.limit,
            offset: query.offset,
          },
        );
      },
    ),
  );
}
