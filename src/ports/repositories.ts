// Every resource's port, one instance each: what the composition root builds over an engine and hands out, each part
// receiving the `Pick<Repositories, …>` it uses. Written against the ports only; the SQLite engine's
// `createRepositories` satisfies it, and so does any other engine's.
import type { AssetPolicyRepository } from "./assets.ts";
import type { AuditRepository } from "./audit.ts";
import type { AuditTreeRepository } from "./audit-tree.ts";
import type { CaseRepository } from "./cases.ts";
import type { CustomerOverviewRepository } from "./customer-overview.ts";
import type { CustomerRepository } from "./customers.ts";
import type { EventRepository } from "./events.ts";
import type { FxValuationRepository } from "./fx-valuations.ts";
import type { ProofRepository } from "./proofs.ts";
import type { ProviderARepository, ProviderBRequestRepository, ProviderDRepository, ProviderERepository } from "./provider-stores.ts";
import type { ProviderSettingsRepository } from "./provider-settings.ts";
import type { ReportRepository } from "./reports.ts";
import type { RuleRepository } from "./rules.ts";
import type { TenancyRepository } from "./tenancy.ts";
import type { ThresholdRepository } from "./thresholds.ts";
import type { TransferRepository } from "./transfers.ts";
import type { VaspRepository } from "./vasps.ts";
import type { WalletRepository } from "./wallets.ts";
import type { WebhookRepository } from "./webhooks.ts";

/** Every resource's repository, one instance each. */
export interface Repositories {
  readonly assets: AssetPolicyRepository;
  readonly audit: AuditRepository;
  readonly auditTrees: AuditTreeRepository;
  readonly cases: CaseRepository;
  readonly customerOverview: CustomerOverviewRepository;
  readonly customers: CustomerRepository;
  readonly events: EventRepository;
  readonly fxValuations: FxValuationRepository;
  readonly proofs: ProofRepository;
  readonly providerA: ProviderARepository;
  readonly providerBRequests: ProviderBRequestRepository;
  readonly providerE: ProviderERepository;
  readonly providerD: ProviderDRepository;
  readonly providerSettings: ProviderSettingsRepository;
  readonly reports: ReportRepository;
  readonly rules: RuleRepository;
  readonly tenancy: TenancyRepository;
  readonly thresholds: ThresholdRepository;
  readonly transfers: TransferRepository;
  readonly vasps: VaspRepository;
  readonly wallets: WalletRepository;
  readonly webhooks: WebhookRepository;
}
