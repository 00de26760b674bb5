// Worker entry: checkpoints the database's WAL off the server's thread (see ./checkpointer.ts). Its own connection
// to the file runs `PRAGMA wal_checkpoint(PASSIVE)` periodically (every 100 ms by default): PASSIVE copies committed
// frames into the database file without taking the writer lock and never waits for a reader, so the server's commits
// never wait for it. It never writes a row.
import { existsSync } from "node:fs";
import { openClient, type SqlClient, type SqlStatement } from "./index.ts";

/** From the checkpointer: start on a file, or close the connection and answer `closed`. */
export type ToWorker =
  | { type: "start"; path: string; intervalMs: number; busyTimeoutMs: number }
  | { type: "stop" };

/** To the checkpointer. `checkpoint` is posted after a tick whose passes copied frames (tests and diagnostics). */
export type FromWorker =
  | { type: "ready" }
  | { type: "checkpoint"; passes: number }
  | { type: "failed"; error: string }
  | { type: "closed" };

const post = (m: FromWorker): void => (self as unknown as { postMessage(m: FromWorker): void }).postMessage(m);
const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

let client: SqlClient | null = null;
let pragma: SqlStatement | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
let stopping = false;
/** Passes that copied frames, and the count last posted. */
let passes = 0;
let reported = 0;
/** The last pass's answer: the same answer again means nothing new was committed since. */
let last = { log: -1, checkpointed: -1 };

/**
 * bun:sqlite finishes closing a connection only once its statements are finalized (until then the connection
 * stays open, and the server's close would not be the last one); node:sqlite finalizes them on close.
 */
function finalize(s: SqlStatement | null): void {
  try {
    (s as { finalize?: () => void } | null)?.finalize?.();
  } catch {
    // already finalized
  }
}

function close(): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  finalize(pragma);
  pragma = null;
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
  timer = setTimeout(() => tick(intervalMs), intervalMs);
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
    const q = c.prepare("PRAGMA journal_mode");
    const mode = q.get() as { journal_mode?: string } | undefined;
    finalize(q);
    if (mode?.journal_mode !== "wal") throw new Error(`journal_mode is ${mode?.journal_mode}, not wal`);
    pragma = c.prepare("PRAGMA wal_checkpoint(PASSIVE)");
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
