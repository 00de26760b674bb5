// The SQLite engine's repositories: one per resource, each implementing its port of src/ports/, created once by a
// composition root (src/services.ts, the CLI's entry) and handed out as the ports (`Repositories`,
// src/ports/repositories.ts). Nothing outside src/adapters/storage writes SQL or opens a driver.
import type { Sealer } from "../crypto/envelope.ts";
import type { Storage } from "./types.ts";
import type { Repositories } from "../../ports/repositories.ts";

export type { Repositories } from "../../ports/repositories.ts";
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

