// A sandbox screening_c vendor (ComplyAdvantage-style name search): a real loopback HTTP server speaking the vendor's wire
// format, with an embedded fictional watch list, API-key checks, and switchable faults for tests and the demo.
import { listen } from "../serve.ts";
import { search, WATCHLIST, type WatchEntry } from "./watchlist.ts";

export { WATCHLIST, search, tokens, type WatchEntry, type HitType } from "./watchlist.ts";

/** The key the sandbox accepts unless told others. */
export const SANDBOX_API_KEY = "sandbox-screening-c-key";

/**
 * A fault replaces the answer of `POST /searches` and `GET /users` after the key was checked:
 * - `status`: that HTTP status with the vendor's failure body (`{code, status: "failure", message}`);
 * - `slow`: the normal answer after `delayMs` (default 11 s, past the 10 s timeout; released at once by `stop()`);
 * - `malformed`: 200 with a body that is not JSON;
 * - `invalid`: 200 JSON without the search/users shape (`status: "failure"`, no `content`);
 * - `incomplete`: a search answer whose `total_hits` is larger than the hits listed.
 */
export type ScreeningCFault =
  | { kind: "status"; status: number }
  | { kind: "slow"; delayMs?: number }
  | { kind: "malformed" }
  | { kind: "invalid" }
  | { kind: "incomplete" };

export interface ScreeningCRequest {
  method: string;
  path: string;
  /** The `Authorization` header as received. */
  authorization: string | null;
  /** The raw body text and its JSON, as received. */
  raw: string;
  body: unknown;
  status: number;
  fault?: ScreeningCFault["kind"];
}

export interface ScreeningCSandboxOptions {
  hostname?: string;
  port?: number;
  /** Accepted API keys; default [SANDBOX_API_KEY]. */
  apiKeys?: string[];
  watchlist?: readonly WatchEntry[];
  /** A label for the origin (for example the region it stands for); shown in `describe()`. */
  label?: string;
}

export interface ScreeningCSandbox {
  /** The vendor's base address, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly label: string;
  /** Every vendor request received (control API calls excluded), oldest first. */
  readonly requests: ScreeningCRequest[];
  /** Vendor requests being answered now, and the most at once since start (or `resetPeak()`). */
  readonly inFlight: number;
  readonly peakInFlight: number;
  resetPeak(): void;
  /** Sets (null clears) the fault for the next `times` vendor answers (default: until cleared). */
  setFault(fault: ScreeningCFault | null, times?: number): void;
  addApiKey(key: string): void;
  stop(): Promise<void>;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const failure = (status: number, message: string) => json(status, { code: status, status: "failure", message });
const REASON: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable" };
const vendorTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

/**
 * Control API (for a sandbox run as its own process, `caravan sandbox`): `PUT /_sandbox/fault` with a fault as JSON
 * (optionally `times`), `DELETE /_sandbox/fault` clears it; no key needed (loopback only).
 */
export async function startScreeningCSandbox(opts: ScreeningCSandboxOptions = {}): Promise<ScreeningCSandbox> {
  const keys = new Set(opts.apiKeys ?? [SANDBOX_API_KEY]);
  const list = opts.watchlist ?? WATCHLIST;
  const requests: ScreeningCRequest[] = [];
  let fault: { fault: ScreeningCFault; left: number } | null = null;
  let nextSearchId = 1000;
  const sleeping = new Set<() => void>();
  let inFlight = 0;
  let peakInFlight = 0;

  const takeFault = (): ScreeningCFault | null => {
    if (!fault) return null;
    const f = fault.fault;
    if (--fault.left <= 0) fault = null;
    return f;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleeping.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleeping.add(done);
    });

  function searchAnswer(body: Record<string, unknown>, incomplete: boolean): Response {
    const term = body.search_term;
    const fuzziness = body.fuzziness ?? 0.5;
    const limit = body.limit ?? 100;
    const filters = (body.filters ?? {}) as Record<string, unknown>;
    if (typeof term !== "string" || term.trim() === "") return failure(400, "search_term is required");
    if (typeof fuzziness !== "number" || fuzziness < 0 || fuzziness > 1) return failure(400, "fuzziness must be a number from 0 to 1");
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 100) return failure(400, "limit must be from 1 to 100");
    const entityType = typeof filters.entity_type === "string" ? filters.entity_type : undefined;
    const matches = search(term, fuzziness, entityType, list);
    const hits = matches.slice(0, limit).map((m) => ({
      doc: {
        id: m.entry.id,
        entity_type: m.entry.entityType,
        name: m.entry.name,
        aka: m.entry.aka.map((name) => ({ name })),
        types: [...m.entry.types],
        sources: [...m.entry.sources],
        fields: [],
      },
      match_types: [m.exact ? "name_exact" : "name_fuzzy"],
      score: m.score,
      is_whitelisted: false,
    }));
    const total = incomplete ? matches.length + 3 : matches.length;
    const at = vendorTime(Date.now());
    return json(200, {
      code: 200,
      status: "success",
      content: {
        data: {
          id: nextSearchId++,
          ref: `sbx-${nextSearchId}`,
          searcher_id: 1,
          assignee_id: 1,
          filters: { entity_type: entityType ?? null, fuzziness, types: [] },
          match_status: hits.length ? "potential_match" : "no_match",
          risk_level: "unknown",
          search_term: term,
          submitted_term: term,
          total_hits: total,
          total_matches: total,
          total_blacklist_hits: 0,
          created_at: at,
          updated_at: at,
          tags: [],
          labels: [],
          limit,
          offset: 0,
          hits,
        },
      },
    });
  }

  async function vendor(req: Request, path: string, raw: string, record: ScreeningCRequest): Promise<Response> {
    const auth = req.headers.get("authorization") ?? "";
    const key = /^Token (.+)$/.exec(auth)?.[1];
    if (!key || !keys.has(key)) return failure(401, "Unauthorized: invalid API key");
    const route = `${req.method} ${path}`;
    if (route !== "POST /searches" && route !== "GET /users") return failure(404, "Not found");
    let body: Record<string, unknown> = {};
    if (route === "POST /searches") {
      if (!record.body || typeof record.body !== "object" || Array.isArray(record.body)) return failure(400, "The body must be a JSON object");
      body = record.body as Record<string, unknown>;
    }
    const f = takeFault();
    if (f) record.fault = f.kind;
    switch (f?.kind) {
      case "status":
        return failure(f.status, REASON[f.status] ?? "Error");
      case "slow":
        await sleep(f.delayMs ?? 11_000);
        break;
      case "malformed":
        return new Response("<html><body>Bad gateway</body></html>", { status: 200, headers: { "content-type": "text/html" } });
      case "invalid":
        return json(200, { code: 200, status: "failure", message: "Something else" });
    }
    if (route === "GET /users")
      return json(200, { code: 200, status: "success", content: { data: [{ id: 1, email: "officer@sandbox.invalid", name: "Sandbox Officer", phone: null, created_at: "2024-01-01 00:00:00" }] } });
    return searchAnswer(body, f?.kind === "incomplete");
  }

  async function control(req: Request, raw: string): Promise<Response> {
    if (req.method === "DELETE") {
      fault = null;
      return json(200, { fault: null });
    }
    if (req.method !== "PUT") return failure(405, "Method not allowed");
    try {
      const b = JSON.parse(raw) as ScreeningCFault & { times?: number };
      const { times, ...f } = b;
      if (!["status", "slow", "malformed", "invalid", "incomplete"].includes(f.kind)) return failure(400, "unknown fault kind");
      fault = { fault: f as ScreeningCFault, left: typeof times === "number" && times > 0 ? times : Infinity };
      return json(200, { fault: f, times: times ?? null });
    } catch {
      return failure(400, "The body must be JSON");
    }
  }

  const server = await listen(
    async (req) => {
      const path = new URL(req.url).pathname;
      const raw = await req.text();
      if (path === "/_sandbox/fault") return control(req, raw);
      let parsed: unknown = undefined;
      try {
        parsed = raw ? JSON.parse(raw) : undefined;
      } catch {
        parsed = undefined;
      }
      const record: ScreeningCRequest = { method: req.method, path, authorization: req.headers.get("authorization"), raw, body: parsed, status: 0 };
      requests.push(record);
      inFlight++;
      peakInFlight = Math.max(peakInFlight, inFlight);
      try {
        const res = await vendor(req, path, raw, record);
        record.status = res.status;
        return res;
      } finally {
        inFlight--;
      }
    },
    { hostname: opts.hostname ?? "127.0.0.1", port: opts.port ?? 0 },
  );

  return {
    url: `http://${opts.hostname ?? "127.0.0.1"}:${server.port}`,
    label: opts.label ?? "screening_c",
    requests,
    get inFlight() {
      return inFlight;
    },
    get peakInFlight() {
      return peakInFlight;
    },
    resetPeak() {
      peakInFlight = inFlight;
    },
    setFault(f, times) {
      fault = f ? { fault: f, left: times ?? Infinity } : null;
    },
    addApiKey(key) {
      keys.add(key);
    },
    async stop() {
      for (const wake of [...sleeping]) wake();
      await server.stop();
    },
  };
}
