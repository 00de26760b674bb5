// A response body the application pushes bytes into (the live event stream): Bun's direct stream when Bun.serve
// sends it (each write goes to the connection's buffer: no queue, no enqueue per chunk, no per-chunk promise), the
// standard byte-counted ReadableStream everywhere else (Deno's server, a reader in the same process).
import { isServedByBun } from "./served.ts";

/** Where the application writes; `desiredSize` is the room left below the buffer bound (negative: over it). */
export interface PushSink {
  write(chunk: Uint8Array): void;
  /** `bufferBytes` minus the bytes written that the connection has not taken yet. */
  readonly desiredSize: number;
  close(): void;
  /** Ends the stream with an error (the connection is cut). */
  fail(error: Error): void;
}

export interface PushSource {
  /** Called once, at once: the sink may be written to before the server starts sending. */
  start(sink: PushSink): void;
  /** The connection has taken bytes and there is room again: write more if there is more (a resume's backlog). */
  pull(): void | Promise<void>;
  /** The connection went away. */
  cancel(): void;
}

/**
 * A body for `source`, holding at most about `bufferBytes` not yet taken by the connection before it counts as behind.
 * Direct when `request` came through Bun.serve; standard otherwise (Deno, or a request handled in process).
 */
export function pushStream(source: PushSource, bufferBytes: number, request?: Request): ReadableStream<Uint8Array> {
  if (!isServedByBun(request)) return standardStream(source, bufferBytes);
  const stream = directStream(source, bufferBytes);
  directStreams.add(stream);
  return stream;
}

const directStreams = new WeakSet<ReadableStream<Uint8Array>>();

/** Whether `pushStream` made this body a direct stream (for tests and logs). */
export function isDirectStream(stream: ReadableStream<Uint8Array>): boolean {
  return directStreams.has(stream);
}

function standardStream(source: PushSource, bufferBytes: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.start({
          write: (chunk) => controller.enqueue(chunk),
          get desiredSize() {
            return controller.desiredSize ?? 0;
          },
          close: () => controller.close(),
          fail: (e) => controller.error(e),
        });
      },
      pull: () => source.pull(),
      // The connection went away (Bun and Deno cancel the body). request.signal is not used: Deno warns that it also aborts after a successful response.
      cancel: () => source.cancel(),
    },
    // The queue counts bytes: over `bufferBytes` not yet taken by the connection, the client has fallen behind.
    { highWaterMark: bufferBytes, size: (chunk) => chunk?.byteLength ?? 0 },
  );
}

/** Bun's direct controller (bun-types names it ReadableStreamDirectController). */
interface DirectController {
  write(data: Uint8Array): number | Promise<number>;
  flush(): number | Promise<number>;
  close(error?: Error): void;
}

/**
 * Bun.serve calls `pull` once and sends what is written while its promise is pending. A write the connection cannot
 * take at once returns a promise that settles when it has: the bytes of unsettled writes are what is not yet taken.
 */
function directStream(source: PushSource, bufferBytes: number): ReadableStream<Uint8Array> {
  let ctl: DirectController | null = null;
  /** Written before the server started sending (the `connected` comment): handed over in `pull`. */
  let early: Uint8Array[] = [];
  let waiting = 0;
  let ended = false;
  let settle: { resolve(): void } | null = null;
  let endWith: Error | null | undefined;
  let pulling = false;
  /** Writes made so far (a pull that wrote nothing is not repeated). */
  let written = 0;

  const again = () => {
    if (ended || pulling || waiting > bufferBytes / 2) return;
    pulling = true;
    const before = written;
    const done = () => {
      pulling = false;
      // A standard stream pulls again while there is room; so does this one, as long as the source gives something.
      if (written !== before && !ended && waiting <= bufferBytes / 2) setTimeout(again, 0);
    };
    try {
      const r = source.pull();
      if (r instanceof Promise) r.then(done, done);
      else done();
    } catch {
      done();
    }
  };

  const send = (chunk: Uint8Array) => {
    written++;
    const r = ctl!.write(chunk);
    if (r instanceof Promise) {
      waiting += chunk.byteLength;
      r.then(
        () => {
          waiting -= chunk.byteLength;
          again();
        },
        () => {
          waiting -= chunk.byteLength;
        },
      );
    }
    void ctl!.flush();
  };

  const finish = (error: Error | null) => {
    if (ended) return;
    ended = true;
    if (!ctl) {
      endWith = error;
      return;
    }
    try {
      if (error) ctl.close(error);
      else ctl.close();
    } catch {
      // already closed
    }
    // The error went to the connection with close(error); the pull promise itself ends quietly (a rejection there
    // would surface as an unhandled error of the process).
    settle?.resolve();
  };

  source.start({
    write(chunk) {
      if (ended) return;
      if (ctl) send(chunk);
      else {
        early.push(chunk);
        waiting += chunk.byteLength;
      }
    },
    get desiredSize() {
      return bufferBytes - waiting;
    },
    close: () => finish(null),
    fail: (e) => finish(e),
  });

  return new ReadableStream<Uint8Array>({
    type: "direct",
    pull(controller: DirectController) {
      ctl = controller;
      const pending = new Promise<void>((resolve) => (settle = { resolve }));
      const first = early;
      early = [];
      for (const chunk of first) {
        waiting -= chunk.byteLength;
        send(chunk);
      }
      if (endWith !== undefined) {
        ended = false;
        finish(endWith);
      } else again();
      return pending;
    },
    cancel() {
      ended = true;
      settle?.resolve();
      source.cancel();
    },
  } as unknown as UnderlyingDefaultSource<Uint8Array>);
}
