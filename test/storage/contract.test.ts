// The storage contract suite: one suite per port (test/storage/contract/), written against the ports only, run against
// every engine (test/storage/contract/engines.ts): today a SQLite file and SQLite :memory:.
import { describe } from "bun:test";
import { ENGINES } from "./contract/engines.ts";
import { thresholdContract } from "./contract/thresholds.ts";
import { ruleContract } from "./contract/rules.ts";
import { assetContract } from "./contract/assets.ts";
import { providerStoreContract } from "./contract/provider-stores.ts";
import { providerSettingsContract } from "./contract/provider-settings.ts";

for (const engine of ENGINES) {
  describe(engine.name, () => {
    thresholdContract(engine);
    ruleContract(engine);
    assetContract(engine);
    providerStoreContract(engine);
    providerSettingsContract(engine);
  });
}
