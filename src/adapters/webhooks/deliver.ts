// One delivery attempt over the SSRF-guarded client, with the Part 2 headers; tracks attempts in flight for a clean shutdown.
import { safeFetch, SafeFetchError, type NetPolicy } from "../net/index.ts";
import { readBodyCapped } from "../net/read.ts";

export interface AttemptRequest {
  url: string;
  deliveryId: string;
  eventType: string;
  body: string;
  signature: string;
}

export interface AttemptOutcome {
  ok: boolean;
  httpStatus: number | null;
  /** Until the answer's status line and headers; null when no answer came. */
  responseTimeMs: number | null;
  error: string | null;
}

/** Enough of an answer's body to let the connection be reused; the rest is not read. */
const DRAIN_BYTES = 64 * 1024;

export class Deliverer {
  private readonly inflight = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(readonly policy: NetPolicy) {}

  /** Sends once and answers how it went; never throws. */
  attempt(r: AttemptRequest): Promise<AttemptOutcome> {
    const p = this.send(r);
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
    return p;
  }

  /** Keeps a promise (an attempt's report) in the set a shutdown waits for. */
  track(p: Promise<unknown>): void {
    this.inflight.add(p);
    void p.catch(() => {}).finally(() => this.inflight.delete(p));
  }

  /** False once shutdown began: the actors start no new attempt. */
  get accepting(): boolean {
    return !this.stopping;
  }

  /** Shutdown: no new attempts; waits for those in flight (each ends within the timeout) and their reports. */
  async drain(): Promise<void> {
    this.stopping = true;
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  get size(): number {
    return this.inflight.size;
  }

  private async send(r: AttemptRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    try {
      const res = await safeFetch(
        r.url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-webhook-signature": r.signature,
            "x-webhook-event": r.eventType,
            "x-webhook-delivery-id": r.deliveryId,
            "user-agent": "Caravan-Webhooks/1",
          },
          body: r.body,
        },
        this.policy,
      );
      const responseTimeMs = Math.round(performance.now() - started);
      await drainBody(res);
      const ok = res.status >= 200 && res.status < 300;
      return { ok, httpStatus: res.status, responseTimeMs, error: ok ? null : `the receiver answered HTTP ${res.status}` };
    } catch (e) {
      if (e instanceof SafeFetchError) {
        const error =
          e.kind === "refused" ? `destination refused: ${e.message}` : e.kind === "timeout" ? `timed out: ${e.message}` : e.message;
        return { ok: false, httpStatus: e.status ?? null, responseTimeMs: e.status ? Math.round(performance.now() - started) : null, error };
      }
      return { ok: false, httpStatus: null, responseTimeMs: null, error: `delivery failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
}

async function drainBody(res: Response): Promise<void> {
  try {
    // Read (at most DRAIN_BYTES) so the connection can be reused; a longer answer is left unread.
    if ((await readBodyCapped(res, DRAIN_BYTES)) === null) await res.body?.cancel();
  } catch {
    // The status is what counts; a body cut short or timed out after it changes nothing.
  }
}
