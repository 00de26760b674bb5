// The CLI's entry: the one CLI file that opens the store and names the engine (a composition root, as src/services.ts
// is the server's). It opens the database the configuration names (SQLite at CARAVAN_DB, or PostgreSQL when
// CARAVAN_DATABASE_URL is set: ../adapters/storage/engine.ts), builds what a command receives (./context.ts: the
// repositories, the entry to the actor runtime, the runtime's store), runs the command and closes the store. The
// program (src/main.ts) and the in-process test runner (test/support/cli.ts) both run commands through it.
import process from "node:process";
import { StorageError, type Storage } from "../adapters/storage/index.ts";
import { engineSettingsFromEnv, openEngine, sqliteEngine, type Engine } from "../adapters/storage/engine.ts";
import { backupDatabase } from "../adapters/storage/backup.ts";
import type { Backup } from "../ports/backup.ts";
import type { MigrateTo } from "../ports/migrate-to.ts";
import { CLI_COMMANDS } from "./commands.ts";
import { CommandError } from "./usage.ts";
import type { CliCommand, CliContext, CliKeys } from "./context.ts";
import type { Repositories } from "../ports/repositories.ts";
import { loadMasterKey, type MasterKey } from "../adapters/crypto/master-key.ts";
import { Sealer } from "../adapters/crypto/envelope.ts";
import type { CliCustomerMsg, CliRuntime, CliRuntimeDeps } from "./runtime.ts";
import type { RuntimeHost } from "../ports/runtime-store.ts";
import type { Outcome } from "../actors/outcome.ts";
import { ActorRuntime } from "../actors/runtime.ts";
import { caseActor, caseAddress } from "../actors/case.ts";
import { rulesActor, rulesAddress, type RuleMsg } from "../actors/rules.ts";
import { reportsActor, reportsAddress, type ReportMsg } from "../actors/reports.ts";
import { companiesAddress, tenancyActor, tenancyAddress, type TenancyMsg } from "../actors/tenancy.ts";
import { customerActor } from "../actors/customer.ts";
import { ActorTimeoutError } from "../actors/types.ts";
import { ShardFencedError, shardOf } from "../ports/cluster.ts";
import { randomBytes } from "node:crypto";

type Env = Record<string, string | undefined>;
/** What a command needs of an open engine: one opened here, or a running server's (`services.engine`, the demo's). */
type CliEngine = Pick<Engine, "kind" | "where" | "store" | "repositories"> & Partial<Pick<Engine, "cluster" | "replies" | "wakeups">>;
type Out = (line: string) => void;

/** Whether `name` is a command that works on the database (run with `runDatabaseCommand`). */
export function isDatabaseCommand(name: string | undefined): name is string {
  return name !== undefined && Object.hasOwn(CLI_COMMANDS, name);
}

/**
 * What a command receives over the open store: a SQLite database (tests hand theirs), an engine opened here, or a
 * running server's (`services.engine`: the demo, on either engine). `path` is where the key files are found: the
 * SQLite file, or CARAVAN_DB's place on PostgreSQL.
 */
export function cliContext(open: Storage | CliEngine, path = "path" in open ? open.path : "./data/caravan.db"): CliContext {
  const engine: CliEngine = "kind" in open ? open : sqliteEngine(open);
  return {
    path,
    where: engine.where,
    store: engine.store,
    repositories: (clock, keys) => cliRepositories(engine, path, clock, keys),
    runtime: (deps) =>
      cliRuntime(engine.store, deps, engine.kind === "postgres" && engine.cluster && engine.replies ? { cluster: engine.cluster, replies: engine.replies, wakeups: engine.wakeups ?? null } : undefined),
    runtimeStore: () => engine.store.runtimeStore(),
  };
}

/** Opens the configured database (migrating it), runs the command `name` on it, and closes it. */
export async function runDatabaseCommand(name: string, argv: string[], out: Out, env: Env = process.env): Promise<void> {
  const load = Object.hasOwn(CLI_COMMANDS, name) ? CLI_COMMANDS[name] : undefined;
  if (!load) throw new Error(`${name} is not a database command`);
  const run: CliCommand = await load();
  const settings = engineSettingsFromEnv(env);
  const engine = await openEngine(settings);
  try {
    await run(cliContext(engine, settings.dbPath), argv, out);
  } finally {
    await engine.close();
  }
}

/** `caravan backup`'s engine half: a checked copy of the configured database (no store is opened for the command). */
export function configuredBackup(env: Env = process.env): Backup {
  const { dbPath, busyTimeoutMs, databaseUrl } = engineSettingsFromEnv(env);
  if (databaseUrl) return async ({ to }) => (await import("../adapters/storage/postgres/backup.ts")).backupPostgres({ url: databaseUrl, to, env });
  return ({ to }) => backupDatabase({ dbPath, to, busyTimeoutMs });
}

/** `caravan migrate-to`'s engine half: the configured SQLite database copied into an empty PostgreSQL database. */
export function configuredMigrateTo(env: Env = process.env): MigrateTo {
  const { dbPath, busyTimeoutMs } = engineSettingsFromEnv(env);
  return async ({ url }) => {
    const { migrateToPostgres } = await import("../adapters/storage/postgres/copy.ts");
    return migrateToPostgres({ dbPath, url, masterKey: loadMasterKey(dbPath, env), busyTimeoutMs });
  };
}

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

/**
 * The repositories a command works with: the same storage boundary the server builds once (src/services.ts), over
 * the database the command opened. The master key is read on first use, so commands that seal and open nothing
 * (assets) never touch it.
 */
function cliRepositories(engine: CliEngine, path: string, clock: () => number, keys: CliKeys = {}): Repositories {
  const subkey = (name: string) => () => new Sealer(loadMasterKey(path, process.env).derive(name));
  return engine.repositories({ pii: lazySealer(keys.pii ?? subkey("pii")), secrets: lazySealer(keys.secrets ?? subkey("secrets")), clock, env: process.env });
}

/** How long the CLI waits for a running node to answer its command (CARAVAN_CLI_TIMEOUT_MS, default 30 s). */
function cliTimeoutMs(env: Env): number {
  const raw = env.CARAVAN_CLI_TIMEOUT_MS?.trim();
  const ms = raw ? Number(raw) : 30_000;
  if (!Number.isInteger(ms) || ms < 100) throw new CommandError(`CARAVAN_CLI_TIMEOUT_MS must be a whole number of milliseconds, at least 100, got "${raw}"`);
  return ms;
}

/**
 * The CLI's one entry to the actor runtime (./runtime.ts). A command is handled in this process through
 * `ActorRuntime.handleHere`: the kind's own handler, under the write lock, its unit of work committed in one
 * transaction; what it sends is left in the mailbox for the running server (or the next start). The master key is read
 * on the first command.
 *
 * On a PostgreSQL database that nodes serve (`nodes`: docs/architecture.md#several-nodes), a command must not commit
 * an actor's turn beside the node that holds the actor: while a node is live, the command is asked of the holder
 * through the mailbox (a message with a reply token naming this CLI, `ask_…@cli-<hex>`; the node's answer comes back as
 * a row), with a time-out that says what became of it. With no node live it is handled here, the actor's shard claimed
 * (its lease row locked) in the command's transaction, so a node starting meanwhile waits for that commit and then
 * reads the actor afresh; a node that took the shard first gets the command instead.
 */
export function cliRuntime(store: RuntimeHost, deps: CliRuntimeDeps, nodes?: Pick<Engine, "cluster"> & { replies: NonNullable<Engine["replies"]>; wakeups?: Engine["wakeups"] }): CliRuntime {
  let runtime: ActorRuntime | undefined;
  let asker: ActorRuntime | undefined;
  let master: MasterKey | undefined;
  const key = () => (master ??= deps.masterKey());
  const registered = new Set<string>();
  /** The runtime with `kind` registered, built on first use. */
  const withKind = (kind: string, make: () => Parameters<ActorRuntime["register"]>[0]): ActorRuntime => {
    runtime ??= new ActorRuntime(store, { clock: deps.clock, sealer: new Sealer(key().derive("mailbox")) });
    if (!registered.has(kind)) {
      runtime.register(make());
      registered.add(kind);
    }
    return runtime;
  };
  /** The command to `address`: here, or asked of the node holding the actor (see above). */
  const command = async <R>(here: ActorRuntime, address: string, msg: unknown): Promise<R> => {
    if (!nodes) return here.handleHere<R>(address, msg);
    const now = deps.clock();
    if ((await nodes.cluster.liveNodes(now)).length === 0) {
      try {
        return await here.handleHere<R>(address, msg, { claim: () => nodes.cluster.claimUnheld(shardOf(address), now) });
      } catch (e) {
        if (!(e instanceof ShardFencedError)) throw e; // a node took the actor's shard meanwhile: it gets the command
      }
    }
    const timeoutMs = cliTimeoutMs(process.env);
    asker ??= new ActorRuntime(store, {
      clock: deps.clock,
      sealer: new Sealer(key().derive("mailbox")),
      replies: nodes.replies,
      wakeups: nodes.wakeups ?? undefined,
      nodeId: `cli-${randomBytes(6).toString("hex")}`,
      pollMs: 100,
    });
    try {
      return await asker.ask<R>(address, msg, { timeoutMs });
    } catch (e) {
      if (!(e instanceof ActorTimeoutError)) throw e;
      const live = (await nodes.cluster.liveNodes(deps.clock())).map((n) => n.nodeId);
      throw new CommandError(
        `no node answered within ${timeoutMs} ms (${live.length ? `nodes registered: ${live.join(", ")}` : "no node is running now"}): the command is recorded and the node holding ${address} handles it when it runs; check the nodes' /healthz, then read the result before retrying`,
      );
    }
  };
  return {
    caseCommand: (caseId, msg) =>
      command<Outcome<Record<string, unknown>>>(withKind("case", () => caseActor({ repositories: deps.repositories, pii: new Sealer(key().derive("pii")), nameIndexKey: key().derive("name-index") })), caseAddress(caseId), msg),
    ruleCommand: <T>(msg: RuleMsg) => command<Outcome<T>>(withKind("rules", () => rulesActor({ repositories: deps.repositories })), rulesAddress(msg.companyId), msg),
    reportCommand: <T>(msg: ReportMsg) => command<Outcome<T>>(withKind("reports", () => reportsActor({ repositories: deps.repositories })), reportsAddress(msg.companyId, msg.environment), msg),
    tenancyCommand: <T>(msg: TenancyMsg) =>
      command<Outcome<T>>(withKind("tenancy", () => tenancyActor({ repositories: deps.repositories })), "companyId" in msg ? tenancyAddress(msg.companyId) : companiesAddress, msg),
    customerCommand: <T>(customerId: string, msg: CliCustomerMsg) =>
      command<Outcome<T>>(
        withKind("customer", () =>
          customerActor({
            repositories: deps.repositories,
            pii: new Sealer(key().derive("pii")),
            nameIndexKey: key().derive("name-index"),
            activeTransferIds: (companyId, env, id) => deps.repositories.transfers.activeForCustomer(companyId, env, id),
          }),
        ),
        `customer:${customerId}`,
        msg,
      ),
  };
}
