// What the Bun server adapter records of each request it hands on: that Bun.serve sends its answer (a pushed body is
// then a direct stream, ./push-stream.ts), and the server, whose idle timeout a long answer lifts (below).

/** A Bun server as its requests' idle timeouts are set: the server and the idle timeout it was started with. */
export interface RequestTimeouts {
  server: { timeout(request: Request, seconds: number): void };
  idleSeconds: number;
}

/** Seconds a connection may send and receive nothing before Bun.serve closes it (a client that stopped reading). */
export const IDLE_TIMEOUT_SECONDS = 60;

const servedByBun = new WeakMap<Request, RequestTimeouts>();

/** Called by the Bun server adapter for each request it hands on (`timeouts`: one object per server). */
export function markServedByBun(request: Request, timeouts: RequestTimeouts): void {
  servedByBun.set(request, timeouts);
}

/** Whether Bun.serve received this request (false under Deno, or for a request handled in process). */
export function isServedByBun(request: Request | undefined): boolean {
  return request !== undefined && servedByBun.has(request);
}

/**
 * Computes an answer that may take longer than the idle timeout (a PDF drawn on a busy machine) with the connection's
 * idle timeout lifted, and gives it back before the answer is handed to the server, so a client that then stops
 * reading is still cut. Why: Bun.serve closes a connection that has sent nothing for the idle timeout even while its
 * answer is being computed, and an HTTP client that sees a connection close before any answer may send an idempotent
 * request again on a new one (Bun's fetch does). That second request then meets the first one's work still under way:
 * for a report with Chinese, Japanese or Korean text, the renderer's busy refusal (503). Deno's server has no idle
 * timeout on a request being answered, so there is nothing to lift.
 */
export async function withoutIdleTimeout<T>(request: Request, work: () => Promise<T>): Promise<T> {
  const t = servedByBun.get(request);
  if (t === undefined) return work();
  t.server.timeout(request, 0);
  try {
    return await work();
  } finally {
    try {
      t.server.timeout(request, t.idleSeconds);
    } catch {
      /* the connection is gone: nothing to time out */
    }
  }
}
