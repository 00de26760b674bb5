// A sandbox market-data peer: a real HTTP server speaking CoinGecko's simple/price, with controllable delay and failures.
import { listen, type SandboxServer } from "./serve.ts";

/** `500`: HTTP 500 with a JSON error; `garbage`: 200 with an HTML page; `redirect`: 302 to another host. */
export type FxPeerFailure = "500" | "garbage" | "redirect";

export interface FxPeerOptions {
  /** CoinGecko ID → currency → rate. Strings are written into the JSON verbatim (so exact digits survive); numbers via String(). */
  rates?: Record<string, Record<string, string | number>>;
  /** last_updated_at of the initial rates (ISO or Date); default: now. */
  asOf?: string | Date;
  /** Delay before every answer, in ms. */
  delayMs?: number;
  fail?: FxPeerFailure | null;
  hostname?: string;
  port?: number;
}

export interface FxPeerRequest {
  path: string;
  query: Record<string, string>;
  /** The API key header sent, if any: its name and value. */
  apiKey: { header: string; value: string } | null;
}

export interface FxPeer {
  /** Base URL to configure (`CARAVAN_FX_URL`): `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: FxPeerRequest[];
  setRate(id: string, currency: string, rate: string | number, asOf?: string | Date): void;
  removeRate(id: string, currency?: string): void;
  setDelay(ms: number): void;
  setFail(mode: FxPeerFailure | null): void;
  stop(): Promise<void>;
}

/** A JSON number, so that the peer itself never writes invalid JSON (the `garbage` mode is for that). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

interface Entry {
  text: string;
  /** Unix seconds. */
  updatedAt: number;
}

const seconds = (at: string | Date | undefined): number => {
  const ms = at === undefined ? Date.now() : typeof at === "string" ? Date.parse(at) : at.getTime();
  if (Number.isNaN(ms)) throw new RangeError(`not a date: ${String(at)}`);
  return Math.floor(ms / 1000);
};

export async function startFxPeer(opts: FxPeerOptions = {}): Promise<FxPeer> {
  const table = new Map<string, Map<string, Entry>>();
  let delayMs = opts.delayMs ?? 0;
  let fail: FxPeerFailure | null = opts.fail ?? null;
  const requests: FxPeerRequest[] = [];
  // Pending delays, released on stop() so that stopping never waits out a long delay.
  const sleepers = new Set<() => void>();

  const setRate = (id: string, currency: string, rate: string | number, asOf?: string | Date) => {
    const text = typeof rate === "number" ? String(rate) : rate;
    if (!JSON_NUMBER.test(text)) throw new RangeError(`rate must be a JSON number, got ${JSON.stringify(text)}`);
    let quotes = table.get(id);
    if (!quotes) table.set(id, (quotes = new Map()));
    quotes.set(currency.toLowerCase(), { text, updatedAt: seconds(asOf) });
  };
  for (const [id, quotes] of Object.entries(opts.rates ?? {})) {
    for (const [cur, rate] of Object.entries(quotes)) setRate(id, cur, rate, opts.asOf);
  }

  // Not tied to req.signal: Deno.serve aborts that signal after every answer (its legacy behaviour, with a warning).
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });

  const json = (status: number, body: string, headers: Record<string, string> = {}) =>
    new Response(body, { status, headers: { "content-type": "application/json", ...headers } });

  const price = (q: URLSearchParams): Response => {
    const ids = (q.get("ids") ?? "").split(",").filter(Boolean);
    const curs = (q.get("vs_currencies") ?? "").toLowerCase().split(",").filter(Boolean);
    if (ids.length === 0) return json(400, '{"error":"Missing parameter ids"}');
    if (curs.length === 0) return json(400, '{"error":"Missing parameter vs_currencies"}');
    const withTime = q.get("include_last_updated_at") === "true";
    // Written by hand so that rates go out as the exact digits they were set with.
    const parts: string[] = [];
    for (const id of ids) {
      const quotes = table.get(id);
      if (!quotes) continue; // CoinGecko leaves unknown IDs out
      const fields: string[] = [];
      let updatedAt = 0;
      for (const cur of curs) {
        const e = quotes.get(cur);
        if (!e) continue;
        fields.push(`${JSON.stringify(cur)}:${e.text}`);
        updatedAt = Math.max(updatedAt, e.updatedAt);
      }
      if (withTime && fields.length) fields.push(`"last_updated_at":${updatedAt}`);
      parts.push(`${JSON.stringify(id)}:{${fields.join(",")}}`);
    }
    return json(200, `{${parts.join(",")}}`);
  };

  const handler = async (req: Request): Promise<Response> => {
    const u = new URL(req.url);
    const demo = req.headers.get("x-cg-demo-api-key");
    const pro = req.headers.get("x-cg-pro-api-key");
    requests.push({
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      apiKey: pro !== null ? { header: "x-cg-pro-api-key", value: pro } : demo !== null ? { header: "x-cg-demo-api-key", value: demo } : null,
    });
    if (delayMs > 0) await sleep(delayMs);
    if (fail === "500") return json(500, '{"status":{"error_code":500,"error_message":"sandbox: internal error"}}');
    if (fail === "garbage") return new Response("<html><body>502 Bad Gateway</body></html>", { status: 200, headers: { "content-type": "text/html" } });
    if (fail === "redirect") return new Response(null, { status: 302, headers: { location: `http://127.0.0.2:9${u.pathname}${u.search}` } });
    if (req.method !== "GET") return json(405, '{"error":"method not allowed"}');
    if (u.pathname.endsWith("/api/v3/ping")) return json(200, '{"gecko_says":"(V3) To the Moon!"}');
    if (u.pathname.endsWith("/api/v3/simple/price")) return price(u.searchParams);
    return json(404, '{"error":"Not Found"}');
  };

  const hostname = opts.hostname ?? "127.0.0.1";
  const server: SandboxServer = await listen(handler, { hostname, port: opts.port ?? 0 });
  return {
    url: `http://${hostname}:${server.port}`,
    requests,
    setRate,
    removeRate(id, currency) {
      if (currency === undefined) table.delete(id);
      else table.get(id)?.delete(currency.toLowerCase());
    },
    setDelay(ms) {
      delayMs = ms;
    },
    setFail(mode) {
      fail = mode;
    },
    async stop() {
      for (const wake of [...sleepers]) wake();
      await server.stop();
    },
  };
}
