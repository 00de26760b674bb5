// Live rates over HTTP in CoinGecko's protocol: GET <base>/api/v3/simple/price?ids=…&vs_currencies=…&include_last_updated_at=true.
import { jsonTooDeep, MAX_JSON_DEPTH, readBodyCapped } from "../net/read.ts";
import { toRate } from "./decimal.ts";
import { FxTimeout, FxUnavailable, type Rate, type RateAsset, type RateSource } from "./types.ts";

export const DEFAULT_TIMEOUT_MS = 3000;
/** A price answer for a handful of IDs is a few hundred bytes; anything far larger is not one. */
const MAX_BODY_BYTES = 256 * 1024;
/** CoinGecko IDs are lower-case slugs; anything else could smuggle a `,` or `&` into the query. */
const MARKET_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const CURRENCY = /^[a-z]{2,10}$/;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export interface HttpRateSourceOptions {
  /** Origin plus optional path prefix: `https://api.coingecko.com`, `https://pro-api.coingecko.com/api/v3`, `http://127.0.0.1:4100`. */
  baseUrl: string;
  apiKey?: string;
  /** Header that carries `apiKey`. Default: `x-cg-pro-api-key` on a `pro-api.` host, else `x-cg-demo-api-key`. */
  apiKeyHeader?: string;
  /** Default 3000 ms: request and body together. */
  timeoutMs?: number;
}

/** The endpoint URL for a base URL, or a message saying what is wrong with it. */
export function priceEndpoint(baseUrl: string, withApiKey: boolean): URL | string {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return `not a URL: ${JSON.stringify(baseUrl)}`;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return `must be http(s), got ${u.protocol}`;
  if (u.username || u.password) return "must not carry credentials (use CARAVAN_FX_API_KEY)";
  if (u.search || u.hash) return "must not have a query or fragment";
  // The API key is a bearer credential: never send it in clear text beyond this machine.
  if (withApiKey && u.protocol === "http:" && !LOOPBACK.has(u.hostname)) return "must be https when an API key is set (http only on loopback)";
  const path = u.pathname.replace(/\/+$/, "");
  u.pathname = (path.endsWith("/api/v3") ? path : `${path}/api/v3`) + "/simple/price";
  return u;
}

/** A JSON number kept as the text it was written as, so 0.30000000000000004 or 67187.123456789012345 stay exact. */
class RawNumber {
  constructor(readonly text: string) {}
}

/**
 * JSON.parse with every number replaced by its source text. The reviver's third argument (`context.source`,
 * TC39 "JSON.parse source text access") exists in Bun and Deno; where it does not, String(n) is the shortest
 * text of the double, exact for every rate a double can carry, and toRate() still refuses exponent output.
 */
function parseExact(text: string): unknown {
  if (jsonTooDeep(text)) throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === "number" ? new RawNumber(context?.source ?? String(value)) : value,
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof RawNumber);

export class HttpRateSource implements RateSource {
  readonly name: string;
  readonly timeoutMs: number;
  private readonly endpoint: URL;
  private readonly headers: Record<string, string>;

  constructor(opts: HttpRateSourceOptions) {
    const endpoint = priceEndpoint(opts.baseUrl, !!opts.apiKey);
    if (typeof endpoint === "string") throw new RangeError(`fx base URL ${endpoint}`);
    this.endpoint = endpoint;
    this.name = `http:${endpoint.origin}`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.headers = { accept: "application/json" };
    if (opts.apiKey) {
      const header = opts.apiKeyHeader ?? (endpoint.hostname.startsWith("pro-api.") ? "x-cg-pro-api-key" : "x-cg-demo-api-key");
      this.headers[header] = opts.apiKey;
    }
  }

  /**
   * One request for all of the asset's market-data IDs; the first ID (in the asset's order) quoted in `currency`
   * wins. An ID absent from the answer, a currency absent or null, or a zero price: no rate from that ID.
   */
  async rate(asset: RateAsset, currency: string, signal: AbortSignal): Promise<Rate | null> {
    const ids = asset.marketDataIds.filter((id) => MARKET_ID.test(id));
    const cur = currency.toLowerCase();
    if (ids.length === 0 || !CURRENCY.test(cur)) return null;
    const url = new URL(this.endpoint);
    url.searchParams.set("ids", ids.join(","));
    url.searchParams.set("vs_currencies", cur);
    url.searchParams.set("include_last_updated_at", "true");
    // Full precision: without it CoinGecko rounds prices of cheap coins to a few significant digits.
    url.searchParams.set("precision", "full");

    const timeout = AbortSignal.timeout(this.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    let text: string;
    try {
      const res = await fetch(url, { headers: this.headers, redirect: "manual", signal: both });
      // Node/Deno give the 3xx itself under "manual"; a browser-style fetch gives an opaque redirect (status 0).
      if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
        await discard(res);
        throw new FxUnavailable(`${this.name}: answered a redirect (${res.status}); redirects are not followed`, this.name, "redirect");
      }
      if (res.status !== 200) {
        await discard(res);
        throw new FxUnavailable(`${this.name}: answered HTTP ${res.status}`, this.name, "http_status");
      }
      text = await readCapped(res, MAX_BODY_BYTES, this.name);
    } catch (e) {
      throw this.failure(e, signal, timeout);
    }
    return this.read(text, ids, cur);
  }

  private failure(e: unknown, caller: AbortSignal, timeout: AbortSignal): unknown {
    if (e instanceof FxUnavailable || e instanceof FxTimeout) return e;
    if (timeout.aborted || (caller.aborted && isTimeoutReason(caller.reason))) {
      return new FxTimeout(`${this.name}: no answer within ${this.timeoutMs} ms`, this.name, { cause: e });
    }
    // The caller gave up for its own reason (not a timeout): not a source failure, pass its reason on.
    if (caller.aborted) return caller.reason;
    const msg = e instanceof Error ? e.message : String(e);
    return new FxUnavailable(`${this.name}: unreachable (${msg})`, this.name, "unreachable", { cause: e });
  }

  private read(text: string, ids: string[], cur: string): Rate | null {
    const bad = (why: string) => new FxUnavailable(`${this.name}: malformed answer: ${why}`, this.name, "malformed");
    let body: unknown;
    try {
      body = parseExact(text);
    } catch {
      throw bad("not JSON");
    }
    if (!isObject(body)) throw bad("not a JSON object");
    for (const id of ids) {
      if (!Object.hasOwn(body, id)) continue;
      const entry = body[id];
      if (!isObject(entry)) throw bad(`${id} is not an object`);
      const price = Object.hasOwn(entry, cur) ? entry[cur] : undefined;
      if (price === undefined || price === null) continue;
      if (!(price instanceof RawNumber)) throw bad(`${id}.${cur} is not a number`);
      const rate = toRate(price.text);
      if (rate === "zero") continue; // CoinGecko answers 0 for coins without a market: no price, not a free coin
      if (rate === null) throw bad(`${id}.${cur} is not a positive decimal (${price.text})`);
      const at = entry.last_updated_at;
      // The rate is recorded with its own time; a rate without one cannot be dated, so it is not used.
      if (!(at instanceof RawNumber) || !/^[1-9]\d{0,11}$/.test(at.text)) throw bad(`${id}.last_updated_at is not a positive whole number of seconds`);
      return { rate, asOf: new Date(Number(at.text) * 1000).toISOString() };
    }
    // CoinGecko-style error bodies ({"error": …}, {"status": {"error_message": …}}) sometimes come with 200.
    if (Object.hasOwn(body, "error") || Object.hasOwn(body, "status")) throw bad("an error object instead of prices");
    return null;
  }
}

function isTimeoutReason(r: unknown): boolean {
  return typeof r === "object" && r !== null && (r as { name?: unknown }).name === "TimeoutError";
}

async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    /* the connection is being dropped anyway */
  }
}

/** The body as text, refusing more than `max` bytes without buffering them. */
async function readCapped(res: Response, max: number, source: string): Promise<string> {
  const all = await readBodyCapped(res, max);
  if (all === null) throw new FxUnavailable(`${source}: malformed answer: body over ${max} bytes`, source, "malformed");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(all);
  } catch {
    throw new FxUnavailable(`${source}: malformed answer: not UTF-8`, source, "malformed");
  }
}
