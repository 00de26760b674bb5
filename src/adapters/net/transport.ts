// Sends one HTTP request to the address the SSRF guard checked (no second DNS lookup: no rebinding window).
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import type { Target } from "./target.ts";

export interface OutboundRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal: AbortSignal;
  /** Extra trusted CA certificates (PEM), for tests with their own TLS receiver. */
  ca?: string;
  /** Mutual TLS (provider_d): the client certificate and key presented, and the only CAs the server may chain to. */
  clientTls?: { cert: string; key: string; ca: string };
}

export type Transport = (target: Target, req: OutboundRequest) => Promise<Response>;

const hostIsIp = (t: Target) => t.hostname === t.address;

/**
 * Bun: fetch to `https://<address>` with the Host header and the TLS server name (SNI, and the name the
 * certificate must carry) set to the URL's host name. Plain http (allow-listed hosts only) also goes to the address.
 */
export const fetchTransport: Transport = (target, req) => {
  const pinned = new URL(target.url.href);
  pinned.hostname = target.family === 6 ? `[${target.address}]` : target.address;
  pinned.hash = "";
  const tls: Record<string, unknown> = {};
  if (!hostIsIp(target)) tls.servername = target.hostname;
  if (req.ca) tls.ca = req.ca;
  if (req.clientTls) Object.assign(tls, { cert: req.clientTls.cert, key: req.clientTls.key, ca: req.clientTls.ca });
  return fetch(pinned, {
    method: req.method,
    headers: { ...req.headers, host: target.url.host },
    body: req.body,
    redirect: "manual",
    signal: req.signal,
    tls,
  } as RequestInit);
};

/**
 * Deno (whose fetch cannot pin an address and keep the certificate check on the host name): node:http(s) with a
 * `lookup` that answers only the checked address; the TLS server name and certificate check stay the URL's host name.
 * Also runs under Bun (the tests exercise it there).
 */
export const nodeTransport: Transport = (target, req) =>
  new Promise<Response>((resolve, reject) => {
    const secure = target.url.protocol === "https:";
    const options: https.RequestOptions = {
      host: target.hostname,
      port: target.port,
      path: target.url.pathname + target.url.search,
      method: req.method,
      headers: { ...req.headers, host: target.url.host },
      agent: false,
      lookup: ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
        if (opts?.all) cb(null, [{ address: target.address, family: target.family }]);
        else cb(null, target.address, target.family);
      }) as never,
    };
    if (secure && !hostIsIp(target)) options.servername = target.hostname;
    if (secure && req.ca) options.ca = req.ca;
    if (secure && req.clientTls) Object.assign(options, { cert: req.clientTls.cert, key: req.clientTls.key, ca: req.clientTls.ca });
    const request = (secure ? https : http).request(options, (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) {
        if (Array.isArray(v)) for (const x of v) headers.append(k, x);
        else if (v !== undefined) headers.set(k, String(v));
      }
      const status = res.statusCode ?? 502;
      const body = status === 204 || status === 304 ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
      resolve(new Response(body, { status: status < 200 || status > 599 ? 502 : status, headers }));
    });
    const abort = () => request.destroy(req.signal.reason instanceof Error ? req.signal.reason : new Error("aborted"));
    if (req.signal.aborted) return abort();
    req.signal.addEventListener("abort", abort, { once: true });
    request.on("error", reject);
    request.on("close", () => req.signal.removeEventListener("abort", abort));
    request.end(req.body);
  });

export const defaultTransport: Transport = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined" ? fetchTransport : nodeTransport;
