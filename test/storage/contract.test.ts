// The storage contract suite: one suite per port (test/storage/contract/), written against the ports only, run against
// every engine (test/storage/contract/engines.ts): today a SQLite file and SQLite :memory:.
import { describe } from "bun:test";
import { ENGINES } from "./contract/engines.ts";
import { thresholdContract } from "./contract/thresholds.ts";
import { ruleContract } from "./contract/rules.ts";
import { tenancyContract } from "./contract/tenancy.ts";

for (const engine of ENGINES) {
  describe(engine.name, () => {
    thresholdContract(engine);
    ruleContract(engine);
    tenancyContract(engine);
  });
}
