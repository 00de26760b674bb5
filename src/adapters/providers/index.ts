// The provider registry of the service: settings (enabled, credentials per environment) plus the adapters that exist.
import type { Environment } from "../../domain/types.ts";
import type { Protocol } from "../../domain/transfers.ts";
import { PROVIDERS } from "../../domain/providers/catalog.ts";
import { decodeTravelAddress, looksLikeTravelAddress } from "../../domain/provider_d/travel-address.ts";

/** A chain address can start like a Travel Address (a base58 `ta…`): only one that decodes, checksum and all, is one. */
const isTravelAddress = (text: string) => looksLikeTravelAddress(text) && decodeTravelAddress(text).ok;
import type { ProviderSettingsRepository } from "../../ports/provider-settings.ts";
import type { Capability, ProviderRegistry, SweepName, TransferCandidate } from "./registry.ts";
import type { AdapterContext, DirectoryRead, ProviderAdapter } from "./types.ts";
import type { OutboundFetch } from "./outbound.ts";

export class SettingsRegistry implements ProviderRegistry {
  private readonly byPriority: Protocol[];

  constructor(
    private readonly settings: ProviderSettingsRepository,
    private readonly adapters: Partial<Record<Protocol, ProviderAdapter>>,
    private readonly outbound: OutboundFetch,
    /** Asks the provider connection's actor for its directory (absent: adapters read it themselves). */
    private readonly directoryOf?: (companyId: string, env: Environment, name: Protocol, refresh?: boolean) => Promise<DirectoryRead>,
    /** Asks the provider connection's actor how long to wait before an outbound call (its rate). */
    private readonly permit?: (companyId: string, env: Environment, name: Protocol) => Promise<{ waitMs: number }>,
  ) {
    this.byPriority = [...PROVIDERS].sort((a, b) => a.priority - b.priority).map((p) => p.name);
  }

  async capabilities(companyId: string, env: Environment, t: TransferCandidate): Promise<Capability[]> {
    const out: Capability[] = [];
    for (const provider of this.byPriority) out.push(await this.capability(companyId, env, t, provider));
    return out;
  }

  private async capability(companyId: string, env: Environment, t: TransferCandidate, provider: Protocol): Promise<Capability> {
    if (!(await this.settings.enabled(companyId, provider))) return { provider, ok: false, reason: `${provider} is not enabled` };
    if (!(await this.settings.credentials(companyId, env, provider))) return { provider, ok: false, reason: `${provider} has no credentials for the ${env} environment` };
    const adapter = this.adapters[provider];
    // Adapters exist for provider_a, provider_b, provider_d and provider_e (wired in src/services.ts); provider_c
    // cannot send transfers yet (Part 3).
    if (!adapter) return { provider, ok: false, reason: `${provider} cannot send transfers yet` };
    // A Travel Address is no chain address: only provider_d (TRP) can carry it.
    if (provider !== "provider_d" && t.beneficiaryAddress !== undefined && isTravelAddress(t.beneficiaryAddress)) return { provider, ok: false, reason: "a Travel Address is carried by provider_d only" };
    const can = adapter.canCarry(t);
    return can.ok ? { provider, ok: true } : { provider, ok: false, reason: can.reason };
  }

  adapter(name: Protocol): ProviderAdapter | undefined {
    return this.adapters[name];
  }

  async context(companyId: string, env: Environment, name: Protocol, now: number): Promise<AdapterContext | null> {
    if (!(await this.settings.enabled(companyId, name))) return null;
    const credentials = await this.settings.credentials(companyId, env, name);
    if (!credentials) return null;
    const { directoryOf, permit, outbound } = this;
    // Every call an adapter makes waits for the connection's permit; the connection actor's own reads use
    // `outbound` directly (the context without `directory`, see ConnectionActor).
    const paced: OutboundFetch = permit
      ? async (url, init) => {
          const { waitMs } = await permit(companyId, env, name);
          if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
          return outbound(url, init);
        }
      : outbound;
    return {
      credentials,
      environment: env,
      fetch: paced as unknown as typeof fetch,
      now,
      directory: directoryOf ? (opts) => directoryOf(companyId, env, name, opts?.refresh) : undefined,
    };
  }

  /** The context the connection actor itself uses: the plain outbound client, no directory indirection. */
  async plainContext(companyId: string, env: Environment, name: Protocol, now: number): Promise<AdapterContext | null> {
    const c = await this.context(companyId, env, name, now);
    return c ? { credentials: c.credentials, environment: env, fetch: this.outbound as unknown as typeof fetch, now } : null;
  }

  displayName(name: Protocol): string {
    return PROVIDERS.find((p) => p.name === name)?.displayName ?? name;
  }

  sweep(_name: SweepName, _now: number): void {
    // Nothing to do here: the providers' periodic work (provider_a polling and stall, provider_e polling and expiry)
    // runs as the service's own sweeps over transfer rows (src/services.ts), each telling the transfer's actor.
  }
}
