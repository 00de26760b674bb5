// A sandbox screening_d (Crystal-style address risk): a real loopback HTTP server in the vendor's format, with faults.
//
// Vendor API: `POST /risk-check` and `GET /monitor/currency/list`, key in `X-Auth-Apikey` (a wrong or missing key:
// HTTP 401 with `meta.error_code` 3). Control API (loopback, no key; for `caravan sandbox`): `PUT /_sandbox/fault`
// with `{ route?: "risk-check" | "currency-list" | "*", fault: ScreeningDFault | null, times?: number }`,
// `DELETE /_sandbox/fault`, `GET /_sandbox/requests`. Tests use the same through `setFault()`.
import { listen } from "../serve.ts";
import { DEFAULT_RISKSCORE, HEX_BLOCKCHAINS, keyOf, RISKY_ADDRESSES, SANDBOX_CURRENCIES, type RiskyAddress } from "./addresses.ts";

export { DEFAULT_RISKSCORE, LOW_RISK_EXAMPLES, RISKY_ADDRESSES, SANDBOX_CURRENCIES, type RiskyAddress } from "./addresses.ts";

/** The key the sandbox accepts unless told otherwise. */
export const SANDBOX_SCREENING_D_KEY = "sandbox-screening-d-key";

/** The vendor's error codes as the sandbox uses them (`meta.error_code`). */
export const SANDBOX_ERRORS = { invalidRequest: 1, unsupportedBlockchain: 2, unauthorized: 3, internal: 5 } as const;

export type ScreeningDRoute = "risk-check" | "currency-list";

/**
 * A fault replaces the answer of a route after the key was checked:
 * - `status`: that HTTP status with the vendor's error body (5xx, 429, …);
 * - `slow`: the normal answer after `delayMs`; `hang`: no answer until `stop()`;
 * - `malformed`: 200 with a truncated JSON body;
 * - `oversized`: the normal answer padded (`data.padding`) to exactly `bytes` (default 2 MiB + 1), with a
 *   Content-Length or, with `chunked`, streamed without one;
 * - `errorCode`: 200 with `meta.error_code` = `code`;
 * - `wrongBlockchain`: the normal answer with `data.blockchains` replaced (default: one other blockchain);
 * - `mismatchedAddress`: `data.counterparty.address` replaced (default: the address with its last character changed;
 *   `null` leaves the address out, as an answer that does not name it);
 * - `riskscore`: the normal answer with `data.counterparty.riskscore` replaced (e.g. 42, on a 0-100 scale);
 * - `redirect`: 302 to another host.
 */
export type ScreeningDFault =
  | { kind: "status"; status: number }
  | { kind: "slow"; delayMs: number }
  | { kind: "hang" }
  | { kind: "malformed" }
  | { kind: "oversized"; bytes?: number; chunked?: boolean }
  | { kind: "errorCode"; code: number }
  | { kind: "wrongBlockchain"; blockchains?: unknown[] }
  | { kind: "mismatchedAddress"; address?: string | null }
  | { kind: "riskscore"; riskscore: unknown }
  | { kind: "redirect" };

export interface ScreeningDRequest {
  method: string;
  path: string;
  /** The `X-Auth-Apikey` header as received, or null. */
  apiKey: string | null;
  contentType: string | null;
  /** The JSON body as received (POST), or the raw text when it was not JSON. */
  body?: unknown;
  status: number;
  /** The JSON answered, for answers without a fault. */
  answer?: unknown;
  fault?: ScreeningDFault["kind"];
}

export interface ScreeningDSandboxOptions {
  hostname?: string;
  port?: number;
  /** Keys accepted (any environment); default [SANDBOX_SCREENING_D_KEY]. */
  apiKeys?: string[];
  /** More risky addresses, beside the embedded list. */
  addresses?: RiskyAddress[];
}

export interface ScreeningDSandbox {
  /** The vendor's base address: `http://127.0.0.1:<port>` (CARAVAN_SCREENING_D_URL). */
  readonly url: string;
  /** Every vendor call received, oldest first (control calls are not listed). */
  readonly requests: ScreeningDRequest[];
  /** Sets (or with null clears) the fault of a route, or of both with "*", for `times` answers (default: until cleared). */
  setFault(route: ScreeningDRoute | "*", fault: ScreeningDFault | null, times?: number): void;
  clearFaults(): void;
  addAddress(entry: RiskyAddress): void;
  stop(): Promise<void>;
}

export const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const vendorError = (status: number, code: number, message: string) => json(status, { data: null, meta: { error_code: code, error_message: message, server_time: Math.floor(Date.now() / 1000) } });

/** The body text padded with `data.padding` to exactly `bytes` bytes (ASCII JSON), when it is shorter. */
function padded(body: { data: Record<string, unknown>; meta: unknown }, bytes: number): string {
  const base = JSON.stringify({ ...body, data: { ...body.data, padding: "" } });
  return JSON.stringify({ ...body, data: { ...body.data, padding: "x".repeat(Math.max(0, bytes - base.length)) } });
}

function streamed(text: string): Response {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 64 * 1024));
      at += 64 * 1024;
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "application/json" } });
}

export async function startScreeningDSandbox(opts: ScreeningDSandboxOptions = {}): Promise<ScreeningDSandbox> {
  const keys = new Set(opts.apiKeys ?? [SANDBOX_SCREENING_D_KEY]);
  const list = new Map<string, RiskyAddress>();
  const add = (e: RiskyAddress) => list.set(keyOf(e.blockchain, e.address), e);
  for (const e of [...RISKY_ADDRESSES, ...(opts.addresses ?? [])]) add(e);
  const known = new Set(SANDBOX_CURRENCIES.map((c) => c.currency));
  const requests: ScreeningDRequest[] = [];
  const faults = new Map<ScreeningDRoute | "*", { fault: ScreeningDFault; left: number }>();
  const hung = new Set<() => void>();
  let nextId = 1000;

  const setFault = (route: ScreeningDRoute | "*", fault: ScreeningDFault | null, times?: number) => {
    if (fault) faults.set(route, { fault, left: times ?? Infinity });
    else faults.delete(route);
  };
  const takeFault = (route: ScreeningDRoute): ScreeningDFault | null => {
    const key = faults.has(route) ? route : faults.has("*") ? "*" : null;
    if (!key) return null;
    const entry = faults.get(key)!;
    if (--entry.left <= 0) faults.delete(key);
    return entry.fault;
  };
  const wait = (ms: number | null) =>
    new Promise<void>((resolve) => {
      const release = () => {
        hung.delete(release);
        resolve();
      };
      hung.add(release);
      if (ms !== null) setTimeout(release, ms);
    });

  /** The vendor's risk-check answer for one address. */
  const riskAnswer = (address: string, blockchain: string, entityList: boolean) => {
    const listed = list.get(keyOf(blockchain, address));
    const counterparty: Record<string, unknown> = {
      address: HEX_BLOCKCHAINS.has(blockchain) ? address.toLowerCase() : address,
      riskscore: listed?.riskscore ?? DEFAULT_RISKSCORE,
      name: listed?.name ?? null,
      category: listed?.category ?? null,
    };
    const data: Record<string, unknown> = { id: nextId++, type: "address", blockchains: [blockchain], counterparty, created_at: Math.floor(Date.now() / 1000) };
    if (entityList) data.entity_list = listed ? [{ name: listed.name, category: listed.category, riskscore: listed.riskscore }] : [];
    return { data, meta: { error_code: 0, error_message: "", server_time: Math.floor(Date.now() / 1000) } };
  };

  // The normal answer is the vendor's JSON (`data` an object for risk-check, a list for the currency list).
  // deno-lint-ignore no-explicit-any
  const applyFault = async (fault: ScreeningDFault, normal: () => { data: any; meta: unknown }): Promise<Response> => {
    switch (fault.kind) {
      case "status":
        return vendorError(fault.status, SANDBOX_ERRORS.internal, "Internal server error");
      case "slow":
        await wait(fault.delayMs);
        return json(200, normal());
      case "hang":
        await wait(null);
        return vendorError(503, SANDBOX_ERRORS.internal, "Stopped");
      case "malformed":
        return new Response('{"data":{"blockchains":["eth"],"counterparty":{"riskscore":0.', { status: 200, headers: { "content-type": "application/json" } });
      case "oversized": {
        const text = padded(normal(), fault.bytes ?? MAX_RESPONSE_BYTES + 1);
        return fault.chunked ? streamed(text) : new Response(text, { status: 200, headers: { "content-type": "application/json" } });
      }
      case "errorCode":
        return json(200, { data: null, meta: { error_code: fault.code, error_message: "Sandbox error", server_time: Math.floor(Date.now() / 1000) } });
      case "wrongBlockchain": {
        const body = normal();
        const asked = (body.data.blockchains as string[] | undefined)?.[0];
        body.data.blockchains = fault.blockchains ?? [asked === "btc" ? "eth" : "btc"];
        return json(200, body);
      }
      case "mismatchedAddress": {
        const body = normal();
        const cp = body.data.counterparty as Record<string, unknown>;
        const was = String(cp.address);
        if (fault.address === null) delete cp.address;
        else cp.address = fault.address ?? was.slice(0, -1) + (was.endsWith("2") ? "3" : "2");
        return json(200, body);
      }
      case "riskscore": {
        const body = normal();
        (body.data.counterparty as Record<string, unknown>).riskscore = fault.riskscore;
        return json(200, body);
      }
      case "redirect":
        return new Response(null, { status: 302, headers: { location: "https://example.invalid/risk-check" } });
    }
  };

  const control = async (req: Request, path: string): Promise<Response> => {
    if (path === "/_sandbox/requests" && req.method === "GET") return json(200, { requests });
    if (path !== "/_sandbox/fault") return json(404, { error: "not found" });
    if (req.method === "DELETE") {
      faults.clear();
      return new Response(null, { status: 204 });
    }
    if (req.method !== "PUT") return json(405, { error: "use PUT or DELETE" });
    try {
      const b = (await req.json()) as { route?: ScreeningDRoute | "*"; fault: ScreeningDFault | null; times?: number };
      setFault(b.route ?? "*", b.fault ?? null, b.times);
      return json(200, { ok: true });
    } catch {
      return json(400, { error: "body must be { route?, fault, times? }" });
    }
  };

  const handle = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname.startsWith("/_sandbox/")) return control(req, url.pathname);
    const entry: ScreeningDRequest = { method: req.method, path: url.pathname, apiKey: req.headers.get("x-auth-apikey"), contentType: req.headers.get("content-type"), status: 0 };
    requests.push(entry);
    const finish = (res: Response) => ((entry.status = res.status), res);
    const route: ScreeningDRoute | null =
      req.method === "POST" && url.pathname === "/risk-check" ? "risk-check" : req.method === "GET" && url.pathname === "/monitor/currency/list" ? "currency-list" : null;
    if (!route) return finish(vendorError(404, SANDBOX_ERRORS.invalidRequest, "Not found"));
    if (!entry.apiKey || !keys.has(entry.apiKey)) return finish(vendorError(401, SANDBOX_ERRORS.unauthorized, "Invalid API key"));

    if (route === "currency-list") {
      const fault = takeFault(route);
      const normal = () => ({ data: SANDBOX_CURRENCIES.map((c) => ({ ...c })), meta: { error_code: 0, error_message: "", server_time: Math.floor(Date.now() / 1000) } });
      if (fault) {
        entry.fault = fault.kind;
        return finish(await applyFault(fault, normal));
      }
      entry.answer = normal();
      return finish(json(200, entry.answer));
    }

    const text = await req.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text);
      entry.body = body;
    } catch {
      entry.body = text;
      return finish(vendorError(400, SANDBOX_ERRORS.invalidRequest, "Body must be JSON"));
    }
    if (typeof body !== "object" || body === null || body.type !== "address" || typeof body.address !== "string" || !body.address || typeof body.blockchain !== "string") {
      return finish(vendorError(400, SANDBOX_ERRORS.invalidRequest, "type, address and blockchain are required"));
    }
    const address = body.address;
    const blockchain = body.blockchain.toLowerCase();
    const fault = takeFault(route);
    if (fault) {
      entry.fault = fault.kind;
      return finish(await applyFault(fault, () => riskAnswer(address, blockchain, body.entity_list === true)));
    }
    if (!known.has(blockchain)) return finish(json(200, { data: null, meta: { error_code: SANDBOX_ERRORS.unsupportedBlockchain, error_message: "Unsupported blockchain", server_time: Math.floor(Date.now() / 1000) } }));
    entry.answer = riskAnswer(address, blockchain, body.entity_list === true);
    return finish(json(200, entry.answer));
  };

  const server = await listen(handle, { hostname: opts.hostname ?? "127.0.0.1", port: opts.port ?? 0 });
  return {
    url: `http://${server.hostname}:${server.port}`,
    requests,
    setFault,
    clearFaults: () => faults.clear(),
    addAddress: add,
    stop: async () => {
      for (const release of [...hung]) release();
      await server.stop();
    },
  };
}
