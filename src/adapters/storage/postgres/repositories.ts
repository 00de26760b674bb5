// The PostgreSQL engine's repositories: one per resource, each implementing its port of src/ports/ over the session
// (./session.ts), the twins of the SQLite engine's (../repositories.ts). The storage contract suite
// (test/storage/contract/) holds both engines to the same ports.
import type { Repositories } from "../../../ports/repositories.ts";
import type { RepositoryKeys } from "../repositories.ts";
import type { PgSession } from "./session.ts";
import { PgProviderAStore } from "./repos/provider-a-store.ts";
import { PgProviderBRequests } from "./repos/provider-b-requests.ts";
import { PgProviderDStore } from "./repos/provider-d-store.ts";
import { PgProviderEStore } from "./repos/provider-e-store.ts";
import { PgProviderSettings } from "./repos/provider-settings.ts";
import { PgRules } from "./repos/rules.ts";
import { PgThresholds } from "./repos/thresholds.ts";
import { PgEventLog } from "./repos/events.ts";
import { PgCustomerOverview } from "./repos/customer-overview.ts";
import { PgTransfers } from "./repos/transfers.ts";
import { PgProofs } from "./repos/proofs.ts";
import { PgReports } from "./repos/reports.ts";
import { PgAuditLog } from "./repos/audit.ts";
import { PgAuditTrees } from "./repos/audit-tree.ts";
import { PgCases } from "./repos/cases.ts";
import { PgTenancy } from "./repos/tenancy.ts";
import { PgVaspDirectory } from "./repos/vasps.ts";
import { PgWebhooks } from "./repos/webhooks.ts";
import { PgAssetPolicy } from "./repos/assets.ts";
import { PgCustomers } from "./repos/customers.ts";
import { PgFxValuations } from "./repos/fx-valuations.ts";
import { PgWallets } from "./repos/wallets.ts";

/** The PostgreSQL repositories over one session. */
export function createPgRepositories(db: PgSession, keys: RepositoryKeys): Repositories {
  const repositories: Repositories = {
    assets: new PgAssetPolicy(db, keys.clock),
    audit: new PgAuditLog(db),
    auditTrees: new PgAuditTrees(db, keys.env ?? {}),
    cases: new PgCases(db),
    customerOverview: new PgCustomerOverview(db),
    customers: new PgCustomers(db),
    events: new PgEventLog(db),
    fxValuations: new PgFxValuations(db),
    proofs: new PgProofs(db),
    providerA: new PgProviderAStore(db),
    providerBRequests: new PgProviderBRequests(db),
    providerD: new PgProviderDStore(db),
    providerE: new PgProviderEStore(db),
    providerSettings: new PgProviderSettings(db, keys.secrets),
    reports: new PgReports(db, keys.pii),
    rules: new PgRules(db),
    tenancy: new PgTenancy(db, keys.clock),
    thresholds: new PgThresholds(db, () => repositories.audit),
    transfers: new PgTransfers(db),
    vasps: new PgVaspDirectory(db),
    wallets: new PgWallets(db),
    webhooks: new PgWebhooks(db, () => repositories.audit),
  };
  return repositories;
}
