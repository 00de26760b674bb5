// The one outbound HTTP client of every provider adapter: SSRF guard, pinned address, no redirects, 15 s (Part 3).
import { netPolicyFromEnv, safeFetch, type NetPolicy } from "../net/index.ts";

export const PROVIDER_TIMEOUT_MS = 15_000;

export type OutboundFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: Uint8Array | string; signal?: AbortSignal; clientTls?: { cert: string; key: string; ca: string } },
) => Promise<Response>;

/** A fetch-shaped function over `safeFetch` with the providers' policy (CARAVAN_ALLOW_PRIVATE_TARGETS for the sandbox). */
export function providerFetch(env: Record<string, string | undefined>, timeoutMs = PROVIDER_TIMEOUT_MS): OutboundFetch {
  const policy: NetPolicy = netPolicyFromEnv(env, timeoutMs);
  return (url, init) => safeFetch(url, { method: init.method, headers: init.headers, body: init.body, signal: init.signal, clientTls: init.clientTls }, policy);
}
