// The PostgreSQL engine's session: the driver (postgres.js, which runs under Bun, Deno and Node alike) behind the same
// units of work the SQLite engine gives (src/ports/store.ts). The repositories of this engine
// (src/adapters/storage/postgres/repos/) run their SQL through `q` and `read`; a call made inside `transaction` or
// `snapshot` (in the same asynchronous flow, followed with AsyncLocalStorage) runs on that unit's connection, as the
// SQLite engine's connection gate does for its one connection.
//
// Two pools, as SQLite in WAL mode has one writer and many readers:
// - the writer: one connection. Every transaction, and every statement `q` runs outside one, goes through it in
//   order, so writes are serialized exactly as on SQLite (a read-then-write inside a transaction sees no concurrent
//   writer of this process). postgres.js queues a statement while a transaction holds the connection, which is the
//   gate's "a call from elsewhere waits for the unit".
// - the readers (`readers` connections, default 4): `read` outside a unit, and `snapshot` (REPEATABLE READ, READ ONLY),
//   so reads do not queue behind writes.
//
// After a connection fault (the server stopped, a backend terminated, a reset) the pool that met it is replaced by a
// new one, and the old one is ended at once (what was queued on it fails as the same fault, once). Not reusing it is
// deliberate: postgres.js 3.4.9 keeps a write it had buffered when its socket closed, and its flush timer cancelled
// but not cleared, so a reconnection of that connection never sends its startup message and each attempt ends in
// CONNECT_TIMEOUT (a statement queued meanwhile waits for it). A new pool has connections with none of that state.
// With `statementTimeoutMs` (the server's and the CLI's sessions, src/adapters/storage/engine.ts) every statement of
// Caravan's is bounded twice: by PostgreSQL's statement_timeout (a lock wait, a runaway query: 57014, a store fault)
// and by a deadline of the session's own (that plus the connect timeout and a margin) that also covers a connection
// gone silent without closing; a statement past it is answered as a fault and its pool replaced. Migrations lift the
// server's timeout for their own transactions (./migrate.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import { StorageError, StorageUnavailableError, type Store } from "../../../ports/store.ts";
import type { RuntimeStore, RuntimeHost } from "../../../ports/runtime-store.ts";
import { StorageHealth } from "../faults.ts";
import { pgFault, describePgError } from "./faults.ts";

/** A value a statement takes as a parameter. */
export type PgParam = string | number | bigint | boolean | null | Uint8Array | readonly string[] | readonly number[];
export type PgRow = Record<string, unknown>;

type Sql = postgres.Sql<Record<string, never>>;
type Tx = postgres.TransactionSql<Record<string, never>>;

interface Unit {
  readonly sql: Tx;
  readonly kind: "write" | "read";
  depth: number;
}

export interface PgOptions {
  /** Reader connections (default 4). */
  readonly readers?: number;
  /** How long a connection attempt may take, seconds (default 10). */
  readonly connectTimeoutSeconds?: number;
  readonly healthSettleMs?: number;
  /** PostgreSQL's statement_timeout for the session's connections, ms, and the session's own deadline derived from it (default: none). */
  readonly statementTimeoutMs?: number;
  /**
   * PostgreSQL's idle_in_transaction_session_timeout for the session's connections, ms (default: none): a transaction
   * of this process left open that long (its connection gone silent mid-commit, a partition) is ended by the server,
   * and the locks it held (a fence's lease rows, the mailbox's numbering lock) with it.
   */
  readonly idleInTransactionTimeoutMs?: number;
  /** postgres.js debug hook: every statement the session sends (the statement-count test). */
  readonly onStatement?: (text: string) => void;
}

/** The PostgreSQL engine's store: the ports' units of work, plus the statements the engine's repositories use. */
export interface PgSession extends RuntimeHost {
  /** Where it is connected, password masked: for messages. */
  readonly displayUrl: string;
  readonly health: StorageHealth;
  /** Runs one statement (`$1`… parameters): on the unit's connection inside one, else on the writer. */
  q<T = PgRow>(text: string, params?: readonly PgParam[]): Promise<T[]>;
  /** Runs one write statement as `q` does; answers how many rows it changed. */
  run(text: string, params?: readonly PgParam[]): Promise<number>;
  /** The first row of `q`, or undefined. */
  one<T = PgRow>(text: string, params?: readonly PgParam[]): Promise<T | undefined>;
  /** A read: on the unit's connection inside one, else on a reader (it may not see a write still in a transaction). */
  read<T = PgRow>(text: string, params?: readonly PgParam[]): Promise<T[]>;
  /** Several statements in one text, no parameters (migrations, DDL): on the writer, or the unit's connection. */
  exec(text: string): Promise<void>;
  /** Whether the caller is inside a transaction or a snapshot of this session. */
  inUnit(): boolean;
  /** Sets the runtime store factory (the engine's mailbox; src/adapters/storage/postgres/index.ts does). */
  useRuntimeStore(make: (o: { compactEvents?: boolean }) => RuntimeStore): void;
  close(): Promise<void>;
}

/** `url` with its password masked, for anything printed. */
export function maskDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    return u.toString();
  } catch {
    return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+:)[^@]*@/, "$1***@");
  }
}

/** Where the URL points, for a line that must never carry the password: `host:port/db`. */
export function databaseTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || "localhost"}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "(an unreadable database URL)";
  }
}

/** int8 (bigint: times in ms, sequence numbers) as a JavaScript number, as SQLite's INTEGER reads. */
const INT8 = { to: 20, from: [20], parse: (x: string) => Number(x), serialize: (x: number | bigint | string) => String(x) };

function connect(url: string, max: number, o: PgOptions): Sql {
  return postgres(url, {
    max,
    connect_timeout: o.connectTimeoutSeconds ?? 10,
    idle_timeout: 0,
    onnotice: () => {},
    prepare: true,
    connection: {
      application_name: "caravan",
      ...(o.statementTimeoutMs ? { statement_timeout: o.statementTimeoutMs } : {}),
      ...(o.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: o.idleInTransactionTimeoutMs } : {}),
    },
    types: { int8: INT8 } as never,
    debug: o.onStatement ? (_c: number, text: string) => o.onStatement!(text) : undefined,
  }) as unknown as Sql;
}

/** A pool of postgres.js connections that a connection fault replaces with a new one (see the header). */
interface Pool {
  readonly current: Sql;
  /** Ends `failed` at once and opens a new pool in its place, unless it was replaced already. */
  replace(failed: Sql): void;
  /** How many times it was replaced (the tests). */
  readonly replaced: number;
}

function pool(open: () => Sql): Pool {
  let current = open();
  let replaced = 0;
  return {
    get current() {
      return current;
    },
    get replaced() {
      return replaced;
    },
    replace(failed) {
      if (failed !== current) return;
      current = open();
      replaced++;
      failed.end({ timeout: 0 }).catch(() => {});
    },
  };
}

/**
 * A session over `url`. Connects lazily (postgres.js opens a connection on the first statement); `openPostgres`
 * (./index.ts) checks the server and migrates before handing it out.
 */
export function createPgSession(url: string, o: PgOptions = {}): PgSession {
  const writer = pool(() => connect(url, 1, o));
  const readers = pool(() => connect(url, Math.max(1, o.readers ?? 4), o));
  /** The session's own bound on one statement or one transaction (none without statementTimeoutMs). */
  const deadlineMs = o.statementTimeoutMs ? o.statementTimeoutMs + (o.connectTimeoutSeconds ?? 10) * 1000 + 5000 : 0;
  const flow = new AsyncLocalStorage<Unit>();
  const health = new StorageHealth(Date.now, o.healthSettleMs);
  let makeRuntime: ((o: { compactEvents?: boolean }) => RuntimeStore) | undefined;
  let closed = false;

  /** A statement's failure: a store fault marks the store unavailable and is thrown as StorageUnavailableError. */
  function failed(e: unknown): never {
    const fault = pgFault(e);
    if (fault) {
      health.failed(fault);
      throw new StorageUnavailableError(fault);
    }
    throw e;
  }

  /**
   * Runs `work` on `inUnit` (a unit's connection), else on the current connections of `p`: outside a unit, a
   * connection fault replaces `p`'s connections, and so does the session's deadline passing (inside one, the fault
   * leaves the unit and its `top` replaces the pool the unit ran on).
   */
  async function guarded<R>(p: Pool, work: (sql: Sql) => Promise<R>, inUnit?: Tx): Promise<R> {
    if (inUnit) return once(p, work, inUnit);
    // A whole transaction (or a statement on its own) that PostgreSQL chose as a deadlock's victim, or refused as a
    // serialization failure, was rolled back whole: it is run again, from the start, a few times. Two nodes' commits
    // can lock the same rows in different orders (the mailbox's numbering lock, a company's counter row); one node's
    // single writer never meets another of its own.
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(p, work);
      } catch (e) {
        if (attempt >= CONFLICT_TRIES || !isConflict(e)) throw e;
        await new Promise((r) => setTimeout(r, attempt * (5 + Math.random() * 20)));
      }
    }
  }

  async function once<R>(p: Pool, work: (sql: Sql) => Promise<R>, inUnit?: Tx): Promise<R> {
    if (closed) throw new StorageUnavailableError({ class: "PG_CLOSED", cause: "the database session is closed" });
    const sql = p.current;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const running = work((inUnit ?? sql) as Sql);
      if (!deadlineMs) return await running;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StorageUnavailableError({ class: "PG_TIMEOUT", cause: `no answer from the database within ${deadlineMs} ms`, uncertain: true })), deadlineMs);
      });
      running.catch(() => {}); // once late, its own failure (the replaced pool's) is nobody's
      return await Promise.race([running, late]);
    } catch (e) {
      const fault = e instanceof StorageUnavailableError ? e.fault : pgFault(e);
      if (fault && !inUnit && (fault.class === "PG_CONNECTION" || fault.class === "PG_TIMEOUT")) p.replace(sql);
      if (e instanceof StorageUnavailableError) {
        health.failed(e.fault);
        throw e;
      }
      return failed(e);
    } finally {
      clearTimeout(timer);
    }
  }

  async function statement<T>(outside: Pool, text: string, params: readonly PgParam[] | undefined): Promise<T[]> {
    const unit = flow.getStore();
    return guarded(outside, async (on) => (await on.unsafe(text, params as never[] | undefined)) as unknown as T[], unit?.sql);
  }

  async function top<T>(p: Pool, mode: string, kind: Unit["kind"], fn: () => Promise<T>): Promise<T> {
    const out = await guarded(p, async (sql) => (await sql.begin(mode, (tx) => flow.run({ sql: tx as unknown as Tx, kind, depth: 0 }, fn))) as T);
    if (kind === "write") health.succeeded();
    return out;
  }

  const session: PgSession = {
    displayUrl: maskDatabaseUrl(url),
    health,
    q: (text, params) => statement(writer, text, params),
    async run(text, params) {
      const unit = flow.getStore();
      return guarded(writer, async (on) => (await on.unsafe(text, params as never[] | undefined)).count, unit?.sql);
    },
    async one(text, params) {
      return (await session.q(text, params))[0] as never;
    },
    read: (text, params) => statement(readers, text, params),
    async exec(text) {
      // Migrations and DDL: no deadline of the session's (a migration may take as long as it takes).
      const on = flow.getStore()?.sql ?? writer.current;
      try {
        await on.unsafe(text).simple();
      } catch (e) {
        const fault = pgFault(e);
        if (fault?.class === "PG_CONNECTION" && !flow.getStore()) writer.replace(on as Sql);
        failed(e);
      }
    },
    inUnit: () => flow.getStore() !== undefined,
    transaction<T>(fn: () => Promise<T>): Promise<T> {
      const unit = flow.getStore();
      if (unit) {
        if (unit.kind === "read") return Promise.reject(new Error("a transaction was started inside a read snapshot"));
        // A nested unit: a savepoint (a failure inside undoes only its own writes). Its statements go through the
        // savepoint's own handle: postgres.js fails a transaction whose handle saw any statement fail, even one the
        // caller caught, so a unit failing inside a savepoint would otherwise fail the whole outer transaction too.
        return unit.sql.savepoint((sp) => flow.run({ sql: sp as unknown as Tx, kind: unit.kind, depth: unit.depth + 1 }, fn)) as Promise<T>;
      }
      return top(writer, "read write", "write", fn);
    },
    snapshot<T>(fn: () => Promise<T>): Promise<T> {
      if (flow.getStore()) return fn();
      return top(readers, "isolation level repeatable read read only", "read", fn);
    },
    readTurn: (fn) => fn(),
    faultOf: (e) => (e instanceof StorageUnavailableError ? e.fault : pgFault(e)),
    async probeWrite(now: number): Promise<boolean> {
      try {
        await session.transaction(() =>
          session.q("INSERT INTO database_meta (key, value) VALUES ('write_probe', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [new Date(now).toISOString()]),
        );
        return true;
      } catch (e) {
        if (!session.faultOf(e)) throw e;
        return false;
      }
    },
    async ping() {
      await guarded(readers, (sql) => sql.unsafe("SELECT 1"));
    },
    runtimeStore(o = {}) {
      if (!makeRuntime) throw new Error("the PostgreSQL engine's runtime store is not set up");
      return makeRuntime(o);
    },
    useRuntimeStore(make) {
      makeRuntime = make;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([writer.current.end({ timeout: 5 }), readers.current.end({ timeout: 5 })]);
    },
  };
  return session;
}

/** How many times a transaction rolled back by a conflict (deadlock, serialization failure) is run in all. */
const CONFLICT_TRIES = 4;

/** Whether `e` (or what it wraps) is PostgreSQL rolling a transaction back to break a conflict: 40P01 or 40001. */
export function isConflict(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && typeof x === "object" && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if ((code === "40P01" || code === "40001") && ("severity" in x || "severity_local" in x)) return true;
  }
  return false;
}

/** Connects once to tell the operator, in one line naming where (never the password), why the database is unusable. */
export async function checkReachable(session: PgSession, url: string): Promise<void> {
  try {
    await session.read("SELECT 1");
  } catch (e) {
    const cause = e instanceof StorageUnavailableError ? e.fault.cause : describePgError(e);
    throw new StorageError(`PostgreSQL at ${databaseTarget(url)} cannot be reached: ${cause}`);
  }
}

export type { Store };
