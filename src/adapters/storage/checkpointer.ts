// WAL checkpoints off the request thread (docs/performance.md "Checkpoints off the request thread").
// SQLite's default (`wal_autocheckpoint = 1000`) makes the connection that commits also copy the WAL into the
// database file and fsync it, every ~1000 frames, on the thread that serves requests. Here a worker thread with its
// own connection runs `PRAGMA wal_checkpoint(PASSIVE)` periodically instead, and the server's connection keeps a
// high `wal_autocheckpoint` only as a safety net. If the worker fails, the server's connection goes back to
// SQLite's default, so the WAL stays bounded either way.
import type { Logger } from "../log.ts";
import type { Storage } from "./types.ts";
import type { FromWorker, ToWorker } from "./checkpoint-worker.ts";

/** SQLite's own default: what the server's connection returns to when the worker is gone. */
export const DEFAULT_AUTOCHECKPOINT = 1000;

export interface CheckpointerOptions {
  /** How often the worker checkpoints (default 100 ms; measured against 50 and 200 in docs/performance.md). */
  intervalMs?: number;
  /** The server connection's `wal_autocheckpoint` while the worker runs (default 10000 pages, ~40 MiB of WAL). */
  safetyNetPages?: number;
  /** The worker connection's busy timeout (default 5000 ms). */
  busyTimeoutMs?: number;
  /** How long stop() waits for the worker to close its connection before terminating it (default 2000 ms). */
  stopTimeoutMs?: number;
  /** Told once if the worker fails (the service's logger). */
  log?: Logger;
}

export interface Checkpointer {
  /** Closes the worker's connection (bounded wait), then ends the worker. Call before storage.close(). */
  stop(): Promise<void>;
  /** Diagnostics: the worker's state and how many of its checkpoint passes copied frames (as last reported). */
  status(): { state: "starting" | "running" | "failed" | "stopped"; passes: number };
  /**
   * Whether the worker fills the transfer search index (search-index.ts): from its start until it fails or stops.
   * While not, the server's own sweep indexes.
   */
  indexesSearch(): boolean;
}

/**
 * The worker's module. From source (Bun, Deno): checkpoint-worker.ts beside this file. In a `bun build --compile`
 * executable it is an entry point of its own (`bun run build` lists it) kept at its checkout path under the
 * virtual root, as the PDF render worker (src/adapters/pdf/renderer.ts).
 */
function workerUrl(): string | URL {
  if (!import.meta.url.includes("/$bunfs/")) return new URL("./checkpoint-worker.ts", import.meta.url);
  return new URL("./src/adapters/storage/checkpoint-worker.ts", import.meta.url).pathname;
}

const stopped: Checkpointer = { stop: async () => {}, status: () => ({ state: "stopped", passes: 0 }), indexesSearch: () => false };

/** Starts the background checkpointer for a file database; in-memory databases have no WAL (a no-op handle). */
export function startCheckpointer(storage: Storage, opts: CheckpointerOptions = {}): Checkpointer {
  if (storage.path === ":memory:" || storage.path === "" || storage.path.startsWith("file:")) return stopped;
  const intervalMs = Math.max(10, Math.floor(opts.intervalMs ?? 100));
  const safetyNet = Math.max(DEFAULT_AUTOCHECKPOINT, Math.floor(opts.safetyNetPages ?? 10_000));
  const stopTimeoutMs = opts.stopTimeoutMs ?? 2000;
  let state: "starting" | "running" | "failed" | "stopped" = "starting";
  let passes = 0;
  let searching = storage.search?.file != null;
  let onClosed: (() => void) | null = null;

  const autocheckpoint = (pages: number): void => {
    try {
      storage.client.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
    } catch {
      // the server's connection is closed already: nothing left to checkpoint
    }
  };

  /** Once: log, end the worker, and let the server's connection checkpoint as SQLite does by default. */
  const fall = (reason: string): void => {
    if (state === "failed" || state === "stopped") return;
    state = "failed";
    autocheckpoint(DEFAULT_AUTOCHECKPOINT);
    opts.log?.("warn", "WAL checkpointer failed; the server's connection checkpoints itself", { reason });
    try { worker?.terminate(); } catch { /* already gone */ }
    onClosed?.();
  };

  let worker: Worker | null = null;
  try {
    worker = new Worker(workerUrl(), { type: "module" });
  } catch (e) {
    fall(e instanceof Error ? e.message : String(e));
    return { stop: async () => void (state = "stopped"), status: () => ({ state, passes }), indexesSearch: () => false };
  }
  // The checkpointer never keeps the process alive (Bun; Deno has no unref on workers).
  (worker as unknown as { unref?: () => void }).unref?.();
  worker.onmessage = (e: MessageEvent<FromWorker>) => {
    const m = e.data;
    if (m.type === "ready") {
      if (state === "starting") state = "running";
    } else if (m.type === "checkpoint") passes = m.passes;
    else if (m.type === "failed") fall(m.error);
    else if (m.type === "search-failed") {
      if (searching) opts.log?.("warn", "search index worker failed; the server's thread indexes", { reason: m.error });
      searching = false;
    }
    else if (m.type === "closed") onClosed?.();
  };
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault?.();
    fall(e.message || "worker error");
  };
  (worker as unknown as { onmessageerror: ((e: unknown) => void) | null }).onmessageerror = () => fall("unreadable message from worker");
  // The safety net is set before the worker's first checkpoint: from now on commits stop checkpointing every 1000.
  autocheckpoint(safetyNet);
  worker.postMessage({
    type: "start",
    path: storage.path,
    intervalMs,
    busyTimeoutMs: Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000)),
    search: searching ? storage.search!.file : null,
  } satisfies ToWorker);

  let stopping: Promise<void> | undefined;
  return {
    status: () => ({ state, passes }),
    indexesSearch: () => searching && (state === "starting" || state === "running"),
    stop() {
      stopping ??= (async () => {
        const w = worker!;
        if (state !== "failed") {
          // The worker closes its connection and answers; bounded, then it is ended regardless.
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, stopTimeoutMs);
            onClosed = () => {
              clearTimeout(t);
              resolve();
            };
            try {
              w.postMessage({ type: "stop" } satisfies ToWorker);
            } catch {
              resolve();
            }
          });
        }
        state = "stopped";
        onClosed = null;
        try { w.terminate(); } catch { /* already gone */ }
        // The server's connection is closed next (storage.close): the last connection checkpoints and removes the WAL.
        autocheckpoint(DEFAULT_AUTOCHECKPOINT);
      })();
      return stopping;
    },
  };
}
