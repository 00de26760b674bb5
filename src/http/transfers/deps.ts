// What the transfer routes are given by the composition root (src/http/app.ts).
import type { AppliedThreshold, Valuation } from "../../domain/transfers/create.ts";
import type { Catalog } from "../../domain/assets/catalog.ts";
import type { ActorRuntime } from "../../actors/runtime.ts";
import type { Sealer } from "../../adapters/crypto/envelope.ts";
import type { Repositories } from "../../ports/repositories.ts";
import type { AssetPolicyRepository } from "../../ports/assets.ts";
import type { ProviderRegistry } from "../../adapters/providers/registry.ts";
import type { ProviderSettingsRepository } from "../../ports/provider-settings.ts";
import type { ValuationRecord, ValueRequest } from "../../adapters/fx/pricing.ts";
import type { Logger } from "../../adapters/log.ts";

export interface TransferRouteDeps {
  repositories: Pick<Repositories, "transfers">;
  runtime: ActorRuntime;
  pii: Sealer;
  cursorKey: Uint8Array;
  catalog: Catalog;
  policy: AssetPolicyRepository;
  providers: ProviderRegistry;
  /** The providers' stable IDs (`prv_…`) for the list's `provider.id`. */
  providerSettings?: Pick<ProviderSettingsRepository, "id">;
  threshold(companyId: string, now: number): Promise<AppliedThreshold>;
  /** Values the amount in `currency`; throws TimeoutLike errors the route answers as 503 TIMEOUT. */
  price(p: { companyId: string; environment: "test" | "live"; assetId: string; amount: string; currency: string }): Promise<Valuation>;
  /**
   * When given (the service's Pricing), used instead of `price`: values without recording, and the valuation row is
   * written by the customer actor in the commit of the transfer that names it (one commit per create).
   */
  pricing?: { appraise(p: ValueRequest): Promise<{ valuation: Valuation; record: ValuationRecord }> };
  isPricingFailure(e: unknown): boolean;
  /** The service's log (a reused Idempotency-Key with another body is a warning). */
  log?: Logger;
}
