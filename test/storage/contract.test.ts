// The storage contract suite: one suite per port (test/storage/contract/), written against the ports only, run against
// every engine CARAVAN_TEST_ENGINES names (test/storage/contract/engines.ts): a SQLite file and SQLite :memory:, and
// PostgreSQL.
import { describe } from "bun:test";
import { ENGINES } from "./contract/engines.ts";
import { testEngines } from "../support/engines.ts";
import { startPostgres } from "../support/postgres.ts";
import { thresholdContract } from "./contract/thresholds.ts";
import { ruleContract } from "./contract/rules.ts";
import { webhookContract } from "./contract/webhooks.ts";
import { eventContract } from "./contract/events.ts";
import { customerContract } from "./contract/customers.ts";
import { walletContract } from "./contract/wallets.ts";
import { proofContract } from "./contract/proofs.ts";
import { transferContract } from "./contract/transfers.ts";
import { caseContract } from "./contract/cases.ts";
import { reportContract } from "./contract/reports.ts";
import { auditContract } from "./contract/audit.ts";
import { assetContract } from "./contract/assets.ts";
import { providerStoreContract } from "./contract/provider-stores.ts";
import { providerSettingsContract } from "./contract/provider-settings.ts";
import { tenancyContract } from "./contract/tenancy.ts";
import { runtimeStoreContract } from "./contract/runtime-store.ts";
import { fxValuationContract } from "./contract/fx-valuations.ts";
import { vaspContract } from "./contract/vasps.ts";
import { customerOverviewContract } from "./contract/customer-overview.ts";
import { auditTreeContract } from "./contract/audit-tree.ts";

// The cluster starts once, before the suites (initdb and a start can outlast a hook's timeout on a busy machine).
if (testEngines().includes("postgres")) await startPostgres();

for (const engine of ENGINES) {
  describe(engine.name, () => {
    thresholdContract(engine);
    ruleContract(engine);
    webhookContract(engine);
    eventContract(engine);
    customerContract(engine);
    walletContract(engine);
    proofContract(engine);
    transferContract(engine);
    caseContract(engine);
    reportContract(engine);
    auditContract(engine);
    assetContract(engine);
    providerStoreContract(engine);
    providerSettingsContract(engine);
    tenancyContract(engine);
    runtimeStoreContract(engine);
    fxValuationContract(engine);
    vaspContract(engine);
    customerOverviewContract(engine);
    auditTreeContract(engine);
  });
}
