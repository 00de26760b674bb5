// Worker entry: checkpoints the database's WAL off the server's thread (see ./checkpointer.ts). Its own connection
// to the file runs `PRAGMA wal_checkpoint(PASSIVE)` periodically (every 100 ms by default): PASSIVE copies committed
// frames into the database file without taking the writer lock and never waits for a reader, so the server's commits
// never wait for it. It writes no row of the main file.
//
// The same connection fills the transfer search index (search-index.ts): the search file is attached, and each tick
// indexes what the main file's queue holds after the index's mark, in transactions that write only the search file.
import { existsSync } from "node:fs";
import { openClient, type SqlClient, type SqlStatement } from "./index.ts";
import { attachSearch, indexBatch, type SearchConnection } from "./search-index.ts";
import { finalize, runOnce, statementCache, type StatementCache } from "./statements.ts";

/** From the checkpointer: start on a file, or close the connection and answer `closed`. */
export type ToWorker =
  | { type: "start"; path: string; intervalMs: number; busyTimeoutMs: number; search: string | null }
  | { type: "stop" };

/** To the checkpointer. `checkpoint` is posted after a tick whose passes copied frames (tests and diagnostics). */
export type FromWorker =
  | { type: "ready" }
  | { type: "checkpoint"; passes: number }
  | { type: "failed"; error: string }
  /** The search index could not be filled here: the server's thread indexes instead (the checkpoints go on). */
  | { type: "search-failed"; error: string }
  | { type: "closed" };

const post = (m: FromWorker): void => (self as unknown as { postMessage(m: FromWorker): void }).postMessage(m);
const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

let client: SqlClient | null = null;
let pragma: SqlStatement | null = null;
/** The search index's connection (this one, with the search file attached); null when not indexing here. */
let search: (SearchConnection & StatementCache) | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
let stopping = false;
/** Passes that copied frames, and the count last posted. */
let passes = 0;
let reported = 0;
/** The last pass's answer: the same answer again means nothing new was committed since. */
let last = { log: -1, checkpointed: -1 };

function close(): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  finalize(pragma);
  pragma = null;
  search?.finalizeAll();
  search = null;
  const c = client;
  client = null;
  try {
    c?.close();
  } catch {
    // closing a failed connection: nothing more to release
  }
}

function fail(e: unknown): void {
  close();
  post({ type: "failed", error: describe(e) });
}

/** Back-to-back passes at most per tick while the server keeps appending frames (see tick). */
const PASSES = 4;

function tick(intervalMs: number): void {
  timer = null;
  if (stopping || !pragma) return;
  try {
    // The WAL restarts from its beginning (instead of growing) only when the server's connection begins a write
    // while every frame is copied: under a steady stream of commits one pass rarely ends caught up, so a pass that
    // found new frames is followed at once by another (each shorter than the last), a few at most per tick.
    for (let i = 0; i < PASSES; i++) {
      // log: frames in the WAL; checkpointed: how many of them are copied into the database file now.
      const r = pragma.get() as { busy: number; log: number; checkpointed: number } | undefined;
      if (!r || r.checkpointed <= 0 || (r.log === last.log && r.checkpointed === last.checkpointed)) break;
      last = { log: r.log, checkpointed: r.checkpointed };
      passes++;
    }
    if (passes !== reported) post({ type: "checkpoint", passes: (reported = passes) });
  } catch (e) {
    // A lock held by another process's checkpoint or recovery is transient; anything else (file gone, I/O error)
    // ends the worker and the server falls back to checkpointing on its own connection.
    if (!/busy|locked/i.test(describe(e))) return fail(e);
  }
  index();
  timer = setTimeout(() => tick(intervalMs), intervalMs);
}

/** Batches of the search index's queue per transaction, and how long one tick may index before it yields. */
const SEARCH_BATCH = 1000;
const SEARCH_BUDGET_MS = 50;

/** Indexes what is queued, a bounded time per tick. A lock is waited for next tick; any other fault hands it over. */
function index(): void {
  if (!search) return;
  const until = performance.now() + SEARCH_BUDGET_MS;
  try {
    while (indexBatch(search, SEARCH_BATCH) === SEARCH_BATCH && performance.now() < until);
  } catch (e) {
    if (/busy|locked/i.test(describe(e))) return;
    search.finalizeAll();
    search = null;
    post({ type: "search-failed", error: describe(e) });
  }
}

async function start(m: Extract<ToWorker, { type: "start" }>): Promise<void> {
  try {
    // A missing file is a fault, not a database to create: opening it would make a new, empty one.
    if (!existsSync(m.path)) throw new Error(`database file ${m.path} does not exist`);
    const c = await openClient(m.path);
    client = c;
    if (stopping) return close();
    c.exec(`PRAGMA busy_timeout = ${m.busyTimeoutMs}`);
    // The file is in WAL mode already (the server's connection set it; the mode is stored in the file): check, not set.
    const mode = runOnce(c, "PRAGMA journal_mode", (q) => q.get()) as { journal_mode?: string } | undefined;
    if (mode?.journal_mode !== "wal") throw new Error(`journal_mode is ${mode?.journal_mode}, not wal`);
    pragma = c.prepare("PRAGMA wal_checkpoint(PASSIVE)");
    if (m.search !== null) {
      try {
        attachSearch(c, m.search);
        search = { ...statementCache(c), exec: (sql) => c.exec(sql) };
      } catch (e) {
        post({ type: "search-failed", error: describe(e) });
      }
    }
    post({ type: "ready" });
    timer = setTimeout(() => tick(m.intervalMs), m.intervalMs);
  } catch (e) {
    fail(e);
  }
}

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  if (m.type === "start") void start(m);
  else if (m.type === "stop") {
    stopping = true;
    close();
    post({ type: "closed" });
  }
};
