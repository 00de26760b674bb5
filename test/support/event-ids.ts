// The live stream's event IDs as a test reads them: the server's EventIds under the master key beside the test
// database (the key file a test server creates on its first start), so a test can compare a stream's IDs with the
// table's seqs and resume from a seq it read there.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MasterKey, parseMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { EventIds } from "../../src/adapters/crypto/event-ids.ts";

export interface TenantEventIds {
  /** The ID the tenant's stream shows for this seq. */
  idOf(seq: number): string;
  /** The seq of an ID of the tenant's stream; throws for anything else (the test then fails with it). */
  seqOf(id: string): number;
}

export function eventIdsFor(db: string, companyId: string, environment: "test" | "live"): TenantEventIds {
  const key = MasterKey.fromBytes(parseMasterKey(readFileSync(join(dirname(db), "master.key"), "utf8"))).derive("event-ids");
  const ids = new EventIds(key);
  return {
    idOf: (seq) => ids.encode(companyId, environment, seq),
    seqOf: (id) => {
      const seq = ids.decode(companyId, environment, id);
      if (seq === null) throw new Error(`${id} is not an event ID of ${companyId} ${environment}`);
      return seq;
    },
  };
}
