// CLI for the company's asset policy (which catalog assets new transfers may use, per environment).
import { TenancyError } from "../ports/tenancy.ts";
import type { CliContext } from "./context.ts";
import { loadCatalog } from "../adapters/assets/catalog.ts";
import { searchAssets, type Catalog } from "../domain/assets/catalog.ts";
import { isSupportedNetwork } from "../domain/networks/index.ts";
import { ENVIRONMENTS, isEnvironment, type Environment } from "../domain/types.ts";
import { UsageError, parseOptions } from "./usage.ts";

type Out = (line: string) => void;

const USAGE =
  "usage: assets list [--env test|live] [--network <network>] | assets enable --id <assetId> --env test|live | assets disable --id <assetId> --env test|live  [--company <slug>] [--json]";

function args(argv: string[], options: Record<string, { type: "string" | "boolean" }>) {
  return parseOptions(argv, options, USAGE) as Record<string, string | boolean | undefined>;
}

function envOption(v: Record<string, string | boolean | undefined>, required: boolean): Environment | undefined {
  const env = v.env;
  if (env === undefined && !required) return undefined;
  if (typeof env !== "string" || !isEnvironment(env)) throw new UsageError(`--env must be test or live\n${USAGE}`);
  return env;
}

export async function runAssets(cli: CliContext, argv: string[], out: Out, clock: () => number = Date.now, catalog: Catalog = loadCatalog()): Promise<void> {
  const [sub, ...rest] = argv;
  const repositories = cli.repositories(clock);
  const tenancy = repositories.tenancy;
  const policy = repositories.assets;
  switch (sub) {
    case "list": {
      const v = args(rest, { env: { type: "string" }, network: { type: "string" } });
      const env = envOption(v, false);
      const network = typeof v.network === "string" ? v.network : undefined;
      if (network !== undefined && !isSupportedNetwork(network)) throw new UsageError(`--network "${network}" is not a supported network`);
      const company = await tenancy.requireCompany((v.company as string) ?? "default");
      const envs = env ? [env] : [...ENVIRONMENTS];
      const assets = searchAssets(catalog.assets, { network });
      const maps = new Map(await Promise.all(envs.map(async (e) => [e, await policy.enabledMap(company.id, e, assets)] as const)));
      const items = assets.map((a) => ({
        id: a.id,
        name: a.name,
        network: a.network,
        aliases: a.aliases,
        decimals: a.decimals,
        defaultEnabled: a.defaultEnabled,
        enabled: Object.fromEntries(envs.map((e) => [e, maps.get(e)!.get(a.id)!])) as Partial<Record<Environment, boolean>>,
      }));
      if (v.json) return out(JSON.stringify(items));
      for (const i of items) out(`${i.id}  ${i.network}  ${i.aliases.join(",")}  ${envs.map((e) => `${e}:${i.enabled[e] ? "on" : "off"}`).join(" ")}`);
      if (items.length === 0) out("no assets");
      return;
    }
    case "enable":
    case "disable": {
      const v = args(rest, { id: { type: "string" }, env: { type: "string" } });
      const id = v.id;
      if (typeof id !== "string" || id === "") throw new UsageError(`--id is required\n${USAGE}`);
      const env = envOption(v, true)!;
      const company = await tenancy.requireCompany((v.company as string) ?? "default");
      const asset = catalog.assets.find((a) => a.id === id);
      if (!asset) throw new TenancyError(`no asset with ID "${id}" in the catalog (IDs are chain-qualified, e.g. eip155:1/slip44:60; see "assets list")`);
      const change = await policy.set(company.id, env, asset.id, sub === "enable", { type: "system" });
      const result = { id: asset.id, name: asset.name, network: asset.network, aliases: asset.aliases, environment: env, enabled: change.enabled, company: company.slug, updatedAt: change.updatedAt };
      out(v.json ? JSON.stringify(result) : `Asset ${asset.id} (${asset.aliases[0]} on ${asset.network}) is ${change.enabled ? "enabled" : "disabled"} in ${env} for ${company.slug}`);
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
}
