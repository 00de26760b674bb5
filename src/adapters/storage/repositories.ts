// The storage boundary: one repository per resource, created once by the composition root (src/services.ts) and
// handed to the routes, callbacks, commands and actor kinds that need them. Each `…Repository` type is what another
// storage backend implements to stand in for it (docs/architecture.md#the-storage-boundary): a port written by hand in
// the domain's terms (src/ports/) where one exists, else, until its port is written, the public surface of the SQLite
// class beside it. Nothing outside src/adapters/storage writes SQL or opens a driver.
import type { Sealer } from "../crypto/envelope.ts";
import type { Storage } from "./types.ts";
import { AssetPolicy } from "./repos/assets.ts";
import { AuditLog } from "./repos/audit.ts";
import { AuditTrees } from "./repos/audit-tree.ts";
import { Cases } from "./repos/cases.ts";
import { CustomerOverview } from "./repos/customer-overview.ts";
import { Customers } from "./repos/customers.ts";
import { EventLog } from "./repos/events.ts";
import { FxValuations } from "./repos/fx-valuations.ts";
import { Proofs } from "./repos/proofs.ts";
import { ProviderAStore } from "./repos/provider-a-store.ts";
import { ProviderBRequests } from "./repos/provider-b-requests.ts";
import { ProviderEStore } from "./repos/provider-e-store.ts";
import { ProviderDStore } from "./repos/provider-d-store.ts";
import { ProviderSettings } from "./repos/provider-settings.ts";
import { Reports } from "./repos/reports.ts";
import { Rules } from "./repos/rules.ts";
import { Tenancy } from "./repos/tenancy.ts";
import { Thresholds } from "./repos/thresholds.ts";
import { Transfers } from "./repos/transfers.ts";
import { VaspDirectory } from "./repos/vasps.ts";
import { Wallets } from "./repos/wallets.ts";
import { Webhooks } from "./repos/webhooks.ts";
import type { AuditRepository } from "../../ports/audit.ts";
import type { CaseRepository } from "../../ports/cases.ts";
import type { ReportRepository } from "../../ports/reports.ts";
import type { AuditTreeRepository } from "../../ports/audit-tree.ts";
import type { RuleRepository } from "../../ports/rules.ts";
import type { ThresholdRepository } from "../../ports/thresholds.ts";
import type { EventRepository } from "../../ports/events.ts";
import type { WebhookRepository } from "../../ports/webhooks.ts";
import type { CustomerRepository } from "../../ports/customers.ts";
import type { CustomerOverviewRepository } from "../../ports/customer-overview.ts";
import type { ProofRepository } from "../../ports/proofs.ts";
import type { WalletRepository } from "../../ports/wallets.ts";
import type { TransferRepository } from "../../ports/transfers.ts";
import type { AssetPolicyRepository } from "../../ports/assets.ts";
import type { FxValuationRepository } from "../../ports/fx-valuations.ts";
import type { VaspRepository } from "../../ports/vasps.ts";
import type { ProviderSettingsRepository } from "../../ports/provider-settings.ts";
import type { ProviderARepository, ProviderBRequestRepository, ProviderDRepository, ProviderERepository } from "../../ports/provider-stores.ts";
import type { TenancyRepository } from "../../ports/tenancy.ts";

// Ports written by hand in the domain's terms (src/ports/): the engine's classes implement them.
export type { AuditRepository } from "../../ports/audit.ts";
export type { CaseRepository } from "../../ports/cases.ts";
export type { ReportRepository } from "../../ports/reports.ts";
export type { AuditTreeRepository } from "../../ports/audit-tree.ts";
export type { RuleRepository } from "../../ports/rules.ts";
export type { ThresholdRepository } from "../../ports/thresholds.ts";
export type { EventRepository } from "../../ports/events.ts";
export type { WebhookRepository } from "../../ports/webhooks.ts";
export type { CustomerRepository } from "../../ports/customers.ts";
export type { CustomerOverviewRepository } from "../../ports/customer-overview.ts";
export type { ProofRepository } from "../../ports/proofs.ts";
export type { WalletRepository } from "../../ports/wallets.ts";
export type { TransferRepository } from "../../ports/transfers.ts";
/** The public members of a repository class: the interface a backend implements (private fields are not part of it). */
type Surface<T> = { [K in keyof T]: T[K] };

export type { AssetPolicyRepository } from "../../ports/assets.ts";
export type { FxValuationRepository } from "../../ports/fx-valuations.ts";
export type { VaspRepository } from "../../ports/vasps.ts";
export type { ProviderSettingsRepository } from "../../ports/provider-settings.ts";
export type { ProviderARepository, ProviderBRequestRepository, ProviderDRepository, ProviderERepository } from "../../ports/provider-stores.ts";

export type { TenancyRepository } from "../../ports/tenancy.ts";


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

/** What some repositories need besides the database: the sealers for personal data and secrets, and the clock. */
export interface RepositoryKeys {
  /** Seals personal data (report subjects). */
  readonly pii: Sealer;
  /** Seals credentials (provider and integration settings). */
  readonly secrets: Sealer;
  readonly clock: () => number;
  /** The configuration the audit trees read (CARAVAN_AUDIT_ORIGIN). */
  readonly env?: Record<string, string | undefined>;
}

/** The SQLite repositories over one open database. The composition root and each CLI command call this once. */
export function createRepositories(storage: Storage, keys: RepositoryKeys) {
  return {
    assets: new AssetPolicy(storage, keys.clock),
    audit: new AuditLog(storage),
    auditTrees: new AuditTrees(storage, keys.env ?? {}),
    cases: new Cases(storage),
    customerOverview: new CustomerOverview(storage),
    customers: new Customers(storage),
    events: new EventLog(storage),
    fxValuations: new FxValuations(storage),
    proofs: new Proofs(storage),
    providerA: new ProviderAStore(storage),
    providerBRequests: new ProviderBRequests(storage),
    providerE: new ProviderEStore(storage),
    providerD: new ProviderDStore(storage),
    providerSettings: new ProviderSettings(storage, keys.secrets),
    reports: new Reports(storage, keys.pii),
    rules: new Rules(storage),
    tenancy: new Tenancy(storage, keys.clock),
    thresholds: new Thresholds(storage),
    transfers: new Transfers(storage),
    vasps: new VaspDirectory(storage),
    wallets: new Wallets(storage),
    webhooks: new Webhooks(storage),
  } satisfies Repositories;
}

/** The SQLite implementation's own types (the composition root keeps them; everything else sees `Repositories`). */
export type SqliteRepositories = ReturnType<typeof createRepositories>;

/** One unit of work over the database: a write transaction, or a read snapshot. Routes get this, never the driver. */
export type Transactions = Pick<Storage, "tx" | "read">;
