// The engines the storage contract suite runs against: each opens a fresh, migrated store and answers its ports. A new
// engine (PostgreSQL, say) adds one entry here; the suites themselves name no engine.
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { openStorage } from "../../../src/adapters/storage/index.ts";
import { createRepositories, type Repositories } from "../../../src/adapters/storage/repositories.ts";
import { Sealer } from "../../../src/adapters/crypto/envelope.ts";
import { tempDir } from "../../support/tmp.ts";
import type { Store } from "../../../src/ports/store.ts";
import type { RuntimeStore } from "../../../src/ports/runtime-store.ts";
import { openPostgres, createPgRepositories, watchChanges } from "../../../src/adapters/storage/postgres/index.ts";
import { startPostgres } from "../../support/postgres.ts";
import { testEngines } from "../../support/engines.ts";

/** A store opened for one suite: its ports and how to close it. */
export interface OpenedStore {
  readonly repositories: Repositories;
  /** The store's units of work (a transaction around port calls). */
  readonly store: Store;
  /** The actor runtime's store over the same engine, as the runtime opens it. */
  readonly runtime: RuntimeStore;
  /** Another runtime store over the engine, with its options (events written compactly). */
  runtimeStore(o?: { compactEvents?: boolean }): RuntimeStore;
  /** A company that exists in the store (the default company every migrated store has). */
  readonly companyId: string;
  close(): Promise<void> | void;
}

export interface Engine {
  readonly name: string;
  open(clock: () => number): Promise<OpenedStore>;
}

async function sqlite(path: string, clock: () => number): Promise<OpenedStore> {
  const storage = await openStorage(path);
  const repositories = createRepositories(storage, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock });
  return {
    repositories,
    store: storage,
    runtime: storage.runtimeStore(),
    runtimeStore: (o) => storage.runtimeStore(o),
    companyId: (await repositories.tenancy.requireCompany("default")).id,
    close: () => storage.close(),
  };
}

/** A fresh database on the test process's PostgreSQL cluster (test/support/postgres.ts), migrated. */
async function pg(clock: () => number): Promise<OpenedStore> {
  const server = await startPostgres();
  const url = await server.createDatabase();
  const session = await openPostgres(url, { readers: 2 });
  // As the composition root does: the caches hear other connections' commits through the change notice.
  const notice = await watchChanges(session, url);
  const repositories = createPgRepositories(session, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock });
  return {
    repositories,
    store: session,
    runtime: session.runtimeStore(),
    runtimeStore: (o) => session.runtimeStore(o),
    companyId: (await session.read<{ id: string }>("SELECT id FROM companies WHERE slug = 'default'"))[0]!.id,
    close: async () => {
      await notice.close();
      await session.close();
    },
  };
}

export const SQLITE: readonly Engine[] = [
  { name: "SQLite file", open: (clock) => sqlite(join(tempDir(), `contract-${crypto.randomUUID()}.db`), clock) },
  { name: "SQLite :memory:", open: (clock) => sqlite(":memory:", clock) },
];
export const POSTGRES: readonly Engine[] = [{ name: "PostgreSQL", open: pg }];

/** The engines CARAVAN_TEST_ENGINES asks for (default SQLite's two forms). */
export const ENGINES: readonly Engine[] = testEngines().flatMap((e) => (e === "sqlite" ? SQLITE : POSTGRES));
