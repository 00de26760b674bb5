// Resolves an outbound URL's host and decides whether it may be reached: the SSRF guard. The caller connects to the address checked here.
import { lookup } from "node:dns/promises";
import { AllowList, isIpLiteral, refusedBecause } from "./addresses.ts";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Host name → addresses. The default is the system resolver (`node:dns` lookup, all addresses: works in Bun and Deno). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface TargetPolicy {
  /** Exceptions (CARAVAN_ALLOW_PRIVATE_TARGETS); the only hosts that may be private or plain http. */
  allow: AllowList;
  resolve?: Resolver;
}

/** A URL that may be reached, and the one address the request must connect to. */
export interface Target {
  url: URL;
  /** Without IPv6 brackets, lower case. */
  hostname: string;
  address: string;
  family: 4 | 6;
  port: number;
}

/** The URL may not be reached; `message` says why in words fit for an API answer or a delivery's lastError. */
export class TargetRefused extends Error {
  override name = "TargetRefused";
}

export function parseOutboundUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = input instanceof URL ? new URL(input.href) : new URL(input);
  } catch {
    throw new TargetRefused("not a valid absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new TargetRefused(`the scheme must be https, not ${url.protocol.replace(/:$/, "")}`);
  if (url.username || url.password) throw new TargetRefused("the URL must not carry credentials");
  if (!url.hostname) throw new TargetRefused("the URL has no host");
  return url;
}

/**
 * Resolves the host and checks every address it has: one private address among public ones is enough to refuse,
 * as the connection could otherwise be steered to it. Exceptions: hosts and ranges of the allow list; only they may use http.
 */
export async function checkTarget(input: string | URL, policy: TargetPolicy, signal?: AbortSignal): Promise<Target> {
  const url = parseOutboundUrl(input);
  const hostname = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const namedException = policy.allow.hasHost(hostname);
  let addresses: ResolvedAddress[];
  if (isIpLiteral(hostname)) {
    addresses = [{ address: hostname, family: hostname.includes(":") ? 6 : 4 }];
  } else {
    try {
      addresses = await withSignal((policy.resolve ?? systemResolver)(hostname), signal);
    } catch (e) {
      if (signal?.aborted) throw e;
      const code = (e as { code?: string }).code;
      throw new TargetRefused(`the host ${hostname} does not resolve${code ? ` (${code})` : ""}`);
    }
    if (addresses.length === 0) throw new TargetRefused(`the host ${hostname} does not resolve`);
  }
  for (const a of addresses) {
    if (namedException || policy.allow.hasAddress(a.address)) continue;
    const why = refusedBecause(a.address);
    if (why) throw new TargetRefused(hostname === a.address ? `${a.address} is ${why}` : `the host ${hostname} resolves to ${a.address}, ${why}`);
  }
  const exception = namedException || addresses.every((a) => policy.allow.hasAddress(a.address));
  if (url.protocol === "http:" && !exception) throw new TargetRefused("the scheme must be https");
  const chosen = addresses[0];
  return { url, hostname, address: chosen.address, family: chosen.family, port };
}

function withSignal<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}
