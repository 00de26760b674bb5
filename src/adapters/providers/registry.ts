// Which Travel Rule providers can carry a transfer: the seam where provider adapters plug in.
import type { Environment } from "../../domain/types.ts";
import type { Protocol } from "../../domain/transfers.ts";
import type { AdapterContext, ProviderAdapter, TransferCandidate } from "./types.ts";

export type { TransferCandidate };

export type Capability = { provider: Protocol; ok: true } | { provider: Protocol; ok: false; reason: string };

export interface ProviderRegistry {
  /** Every provider of the company and environment with its verdict: enabled, has credentials, can carry it. */
  capabilities(companyId: string, env: Environment, t: TransferCandidate): Promise<Capability[]>;
  /** The adapter of a provider, when one exists. */
  adapter(name: Protocol): ProviderAdapter | undefined;
  /** Credentials and the outbound client for a call, or null without enabled credentials. */
  context(companyId: string, env: Environment, name: Protocol, now: number): Promise<AdapterContext | null>;
  /** Display name of a provider (for cascade attempts). */
  displayName(name: Protocol): string;
  /** Periodic work a provider needs (Part 3: polling, exchange stall, expiry); run by the croner sweeps. */
  sweep?(name: SweepName, now: number): void | Promise<void>;
}

export const SWEEPS = {
  /** provider_a: poll transfers unchanged for five minutes, once a minute. */
  "provider-polling": "0 * * * * *",
  /** provider_a: a transfer `exchanging` for 15 minutes fails. */
  "exchange-stall": "20 * * * * *",
  /** provider_e: a transfer open at its expiry is held. */
  "transfer-expiry": "40 * * * * *",
} as const;
export type SweepName = keyof typeof SWEEPS;

/** The registry while no provider adapter exists: every provider answers that it is not enabled. */
export const noProviders: ProviderRegistry = {
  adapter: () => undefined,
  context: async () => null,
  displayName: (name) => name,
  capabilities: async () =>
    (["provider_a", "provider_b", "provider_c", "provider_d", "provider_e"] as const).map((provider) => ({ provider, ok: false, reason: `${provider} is not enabled` })),
};
