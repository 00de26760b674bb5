// The actor runtime's store on PostgreSQL (the twin of ../../repos/mailbox.ts). Written by the runtime-store work.
import type { RuntimeStore } from "../../../../ports/runtime-store.ts";
import type { PgSession } from "../session.ts";

export function createPgMailbox(db: PgSession, o: { compactEvents?: boolean } = {}): RuntimeStore {
  void db;
  void o;
  return new Proxy({} as RuntimeStore, {
    get: (_t, prop) => (typeof prop === "string" && prop !== "then" ? () => Promise.reject(new Error(`PostgreSQL: the runtime store is not implemented (${prop})`)) : undefined),
  });
}
