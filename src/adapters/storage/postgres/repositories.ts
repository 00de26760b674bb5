// The PostgreSQL engine's repositories: one per resource, each implementing its port of src/ports/ over the session
// (./session.ts), the twins of the SQLite engine's (../repositories.ts). The storage contract suite
// (test/storage/contract/) holds both engines to the same ports.
import type { Repositories } from "../../../ports/repositories.ts";
import type { RepositoryKeys } from "../repositories.ts";
import type { PgSession } from "./session.ts";
import { PgAssetPolicy } from "./repos/assets.ts";
import { PgCustomers } from "./repos/customers.ts";
import { PgFxValuations } from "./repos/fx-valuations.ts";
import { PgVaspDirectory } from "./repos/vasps.ts";
import { PgWallets } from "./repos/wallets.ts";

/** A resource whose PostgreSQL repository is not written yet: any call says so (never a silent answer). */
function missing<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_t, prop) => (typeof prop === "string" && prop !== "then" ? () => Promise.reject(new Error(`PostgreSQL: the ${name} repository is not implemented (${prop})`)) : undefined),
  });
}

/** The PostgreSQL repositories over one session. */
export function createPgRepositories(db: PgSession, keys: RepositoryKeys): Repositories {
  void keys;
  return {
    assets: new PgAssetPolicy(db, keys.clock),
    audit: missing("audit"),
    auditTrees: missing("auditTrees"),
    cases: missing("cases"),
    customerOverview: missing("customerOverview"),
    customers: new PgCustomers(db),
    events: missing("events"),
    fxValuations: new PgFxValuations(db),
    proofs: missing("proofs"),
    providerA: missing("providerA"),
    providerBRequests: missing("providerBRequests"),
    providerE: missing("providerE"),
    providerD: missing("providerD"),
    providerSettings: missing("providerSettings"),
    reports: missing("reports"),
    rules: missing("rules"),
    tenancy: missing("tenancy"),
    thresholds: missing("thresholds"),
    transfers: missing("transfers"),
    vasps: new PgVaspDirectory(db),
    wallets: new PgWallets(db),
    webhooks: missing("webhooks"),
  };
}
