// The repositories a CLI command works with: the same storage boundary the server builds once (src/services.ts),
// over the database the command opened. The master key is read on first use, so commands that seal and open nothing
// (assets) never touch it. Commands that go through the runtime entry (src/cli/runtime.ts: keys, members, companies,
// cases, rules, reports) read it there, for the actors' sealed state.
import process from "node:process";
import type { Storage } from "../adapters/storage/index.ts";
import { createRepositories, type SqliteRepositories } from "../adapters/storage/repositories.ts";
import { loadMasterKey } from "../adapters/crypto/master-key.ts";
import { Sealer } from "../adapters/crypto/envelope.ts";
import type { CliKeys } from "./context.ts";

/** A Sealer whose key is derived when it is first used. */
function lazySealer(make: () => Sealer): Sealer {
  let sealer: Sealer | undefined;
  return new Proxy({} as Sealer, {
    get(_, name) {
      sealer ??= make();
      const v = (sealer as unknown as Record<PropertyKey, unknown>)[name];
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(sealer) : v;
    },
  });
}

export type { CliKeys };

export function cliRepositories(storage: Storage, clock: () => number, keys: CliKeys = {}): SqliteRepositories {
  const subkey = (name: string) => () => new Sealer(loadMasterKey(storage.path, process.env).derive(name));
  return createRepositories(storage, { pii: lazySealer(keys.pii ?? subkey("pii")), secrets: lazySealer(keys.secrets ?? subkey("secrets")), clock, env: process.env });
}
