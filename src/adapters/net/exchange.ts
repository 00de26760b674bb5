// The one JSON-over-HTTP exchange of every provider and screening vendor: one request through the caller's outbound
// fetch (the SSRF-guarded one in the service), one timeout over connection, answer and body, redirects never
// followed, the answer read under a byte cap and decoded by the shared depth-limited JSON reader. Its failures are
// one small vocabulary; each adapter maps it to its own codes in a few lines.
import { SafeFetchError } from "./index.ts";
import { decodeJsonLimited, readBodyCapped } from "./read.ts";

/** `fetch`-shaped: the service passes its SSRF-guarded client; tests may pass the runtime's. */
export type ExchangeFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: Uint8Array | string; signal?: AbortSignal; redirect?: "manual"; clientTls?: { cert: string; key: string; ca: string } },
) => Promise<Response>;

/**
 * Why an exchange gave no usable answer:
 * - `timeout`: nothing (or not all of the answer) within the time allowed;
 * - `network`: no connection, the connection broke, or the answer could not be read;
 * - `refused`: the address is not one the service may call (the SSRF guard);
 * - `redirect`: a 3xx answer (never followed). Every provider and vendor maps it as it maps `network` (a transport
 *   failure: provider_a, provider_b and provider_e `TRANSPORT_ERROR`, the screening vendors `NETWORK_ERROR`), never as
 *   the provider's own answer: what answered is not the provider's API at that address;
 * - `http`: a non-2xx answer (`body` is its JSON when the caller asked for error bodies and it was JSON);
 * - `too_large`: a 2xx answer over the byte cap;
 * - `not_json`: a 2xx answer that is not UTF-8 JSON within the nesting limit (an empty one included, unless allowed).
 */
export type ExchangeFailure = "timeout" | "network" | "refused" | "redirect" | "http" | "too_large" | "not_json";

export type Exchanged =
  | { ok: true; status: number; body: unknown; text: string }
  | { ok: false; failure: ExchangeFailure; status?: number; body?: unknown };

export interface ExchangeRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** JSON values are serialised; bytes and text are sent as they are. */
  json?: unknown;
  body?: Uint8Array | string;
  /** The whole exchange (connection, answer and body); none when the fetch carries its own. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The largest answer read, in bytes. */
  maxBytes: number;
  /** Read a non-2xx answer's JSON (capped like any answer) for the adapter's error mapping; otherwise it is discarded unread. */
  errorBody?: boolean;
  /** A 2xx answer with no body is `body: undefined` instead of `not_json`. */
  allowEmpty?: boolean;
  /** Mutual TLS (provider_d): our certificate and key, and the CAs the server must chain to. */
  clientTls?: { cert: string; key: string; ca: string };
}

export async function exchange(fetch: ExchangeFetch, req: ExchangeRequest): Promise<Exchanged> {
  const timeout = req.timeoutMs !== undefined ? AbortSignal.timeout(req.timeoutMs) : undefined;
  const signal = timeout && req.signal ? AbortSignal.any([timeout, req.signal]) : (timeout ?? req.signal);
  const aborted = () => !!signal?.aborted;
  const headers: Record<string, string> = { accept: "application/json", ...req.headers };
  let body = req.body;
  if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers["content-type"] ??= "application/json";
  }
  let res: Response;
  try {
    res = await fetch(req.url, { method: req.method, headers, ...(body === undefined ? {} : { body }), ...(signal ? { signal } : {}), redirect: "manual", ...(req.clientTls ? { clientTls: req.clientTls } : {}) });
  } catch (e) {
    if (e instanceof SafeFetchError) return { ok: false, failure: e.kind === "redirect" ? "redirect" : e.kind, ...(e.status ? { status: e.status } : {}) };
    return { ok: false, failure: aborted() ? "timeout" : "network" };
  }
  const discard = () => res.body?.cancel().catch(() => {});
  // Under "manual" Bun and Deno hand back the 3xx itself; a browser-style fetch an opaque redirect (status 0).
  if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
    await discard();
    return { ok: false, failure: "redirect", status: res.status || 302 };
  }
  const success = res.status >= 200 && res.status <= 299;
  if (!success && !req.errorBody) {
    await discard();
    return { ok: false, failure: "http", status: res.status };
  }
  let bytes: Uint8Array | null;
  try {
    bytes = await readBodyCapped(res, req.maxBytes);
  } catch {
    return { ok: false, failure: aborted() ? "timeout" : "network", status: res.status };
  }
  if (!success) {
    const parsed = bytes && bytes.byteLength > 0 ? decodeJsonLimited(bytes) : null;
    return { ok: false, failure: "http", status: res.status, ...(parsed?.ok ? { body: parsed.value } : {}) };
  }
  if (bytes === null) {
    await discard();
    return { ok: false, failure: "too_large", status: res.status };
  }
  if (bytes.byteLength === 0 && req.allowEmpty) return { ok: true, status: res.status, body: undefined, text: "" };
  const parsed = decodeJsonLimited(bytes);
  return parsed.ok ? { ok: true, status: res.status, body: parsed.value, text: parsed.text! } : { ok: false, failure: "not_json", status: res.status };
}
