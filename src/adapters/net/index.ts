// The one outbound HTTP client for caller-supplied URLs (webhooks, provider endpoints): SSRF guard, pinned address, no redirects, timeout.
import { AllowList } from "./addresses.ts";
import { checkTarget, TargetRefused, type Resolver, type TargetPolicy } from "./target.ts";
import { defaultTransport, type Transport } from "./transport.ts";

export { AllowList, refusedBecause } from "./addresses.ts";
export { checkTarget, parseOutboundUrl, systemResolver, TargetRefused, type Resolver, type Target } from "./target.ts";
export { fetchTransport, nodeTransport, type Transport } from "./transport.ts";

export interface NetPolicy extends TargetPolicy {
  /** The whole exchange: resolution, connection, answer and reading its body. */
  timeoutMs: number;
  resolve?: Resolver;
  transport?: Transport;
  /** Extra trusted CA certificates (PEM), for tests. */
  ca?: string;
}

export type SafeFetchFailure = "refused" | "redirect" | "timeout" | "network";

export class SafeFetchError extends Error {
  override name = "SafeFetchError";
  constructor(
    readonly kind: SafeFetchFailure,
    message: string,
    /** The HTTP status of a refused redirect. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface SafeRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Mutual TLS: our certificate and key, and the CAs the server's certificate must chain to (instead of the system's). */
  clientTls?: { cert: string; key: string; ca: string };
}

/** The policy from the environment: CARAVAN_ALLOW_PRIVATE_TARGETS (throws RangeError on an unreadable entry). */
export function netPolicyFromEnv(env: Record<string, string | undefined>, timeoutMs: number): NetPolicy {
  return { allow: AllowList.parse(env.CARAVAN_ALLOW_PRIVATE_TARGETS), timeoutMs };
}

/**
 * Checks the URL (public https only, every resolved address public, unless an exception), then connects to the
 * checked address. A 3xx answer is a failure (redirects could lead anywhere). The answer's body is the caller's to
 * read (or cancel) and stays under the timeout.
 */
export async function safeFetch(url: string | URL, init: SafeRequestInit, policy: NetPolicy): Promise<Response> {
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const fail = (e: unknown): never => {
    if (e instanceof SafeFetchError) throw e;
    if (e instanceof TargetRefused) throw new SafeFetchError("refused", e.message, undefined, { cause: e });
    if (timeout.aborted) throw new SafeFetchError("timeout", `no answer within ${policy.timeoutMs} ms`, undefined, { cause: e });
    if (init.signal?.aborted) throw init.signal.reason;
    throw new SafeFetchError("network", `connection failed: ${describe(e)}`, undefined, { cause: e });
  };
  try {
    const target = await checkTarget(url, policy, signal);
    const res = await (policy.transport ?? defaultTransport)(target, {
      method: init.method ?? "GET",
      headers: init.headers ?? {},
      body: init.body,
      signal,
      ca: policy.ca,
      clientTls: init.clientTls,
    });
    // Under "manual" Bun and Deno give the 3xx itself; a browser-style fetch gives an opaque redirect (status 0).
    if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
      await res.body?.cancel().catch(() => {});
      throw new SafeFetchError("redirect", `answered a redirect (HTTP ${res.status}); redirects are not followed`, res.status);
    }
    return res;
  } catch (e) {
    return fail(e);
  }
}

function describe(e: unknown): string {
  const err = e as { code?: string; message?: string };
  // Runtime messages may quote the URL, whose path can hold a receiver's token: never repeat it.
  const msg = (err?.message ?? String(e)).split("\n")[0].replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"']+/gi, "<url>").slice(0, 200);
  return err?.code && !msg.includes(err.code) ? `${err.code}: ${msg}` : msg;
}
