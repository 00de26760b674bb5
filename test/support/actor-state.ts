// Actor state as a running server stored it: rows of actor_state, opened with the database's master key (states are
// sealed at rest under "state:<address>").
import { Database } from "bun:sqlite";
import { loadMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";

/** Every actor's state (address → parsed JSON), or only those whose address matches `like` (SQL LIKE). */
export function actorStates(dbPath: string, like = "%"): Map<string, any> {
  const sealer = new Sealer(loadMasterKey(dbPath, {}).derive("mailbox"));
  const d = new Database(dbPath, { readonly: true });
  try {
    const rows = d.query("SELECT address, state FROM actor_state WHERE address LIKE ?").all(like) as { address: string; state: string }[];
    return new Map(rows.map((r) => [r.address, JSON.parse(r.state.startsWith("v1:") ? sealer.open(r.state, `state:${r.address}`) : r.state)]));
  } finally {
    d.close();
  }
}

/** One actor's state, or null when it has none stored. */
export function actorState(dbPath: string, address: string): any {
  return actorStates(dbPath, address).get(address) ?? null;
}
