// The sandbox peers' own HTTP listener: a counterparty is a separate party, so it does not borrow Caravan's server adapter.
// Loopback only (a simulated provider must never be reachable from another machine); Bun.serve, or Deno.serve under Deno.

export interface ServeOptions {
  /** A loopback host: `127.0.0.1` (the default), another `127.x.y.z`, `::1` or `localhost`. */
  hostname?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
}

export interface SandboxServer {
  readonly hostname: string;
  readonly port: number;
  /** Stops accepting connections and waits for requests in flight. */
  stop(): Promise<void>;
}

export type FetchHandler = (req: Request) => Response | Promise<Response>;

/** Peers bound anywhere but loopback are refused outright: the sandbox is for this machine only. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || hostname === "[::1]" || /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(hostname);
}

/** Largest body a peer reads at all; each peer checks its own protocol's limit while handling the request. */
const MAX_BODY = 4 * 1024 * 1024;

/** Same shape as the service's `listen(fetch, { hostname, port })`, so a peer switches with one import line. */
export async function listen(fetch: FetchHandler, opts: ServeOptions = {}): Promise<SandboxServer> {
  const hostname = opts.hostname ?? "127.0.0.1";
  const port = opts.port ?? 0;
  if (!isLoopbackHost(hostname)) throw new Error(`sandbox peers listen on loopback only, not ${hostname}`);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`invalid port ${port}`);
  const g = globalThis as { Bun?: any; Deno?: any };
  if (g.Bun) {
    const server = g.Bun.serve({ hostname, port, fetch, maxRequestBodySize: MAX_BODY, idleTimeout: 60 });
    return {
      hostname,
      port: server.port as number,
      stop: async () => {
        await server.stop(false);
      },
    };
  }
  if (g.Deno) {
    const ready = Promise.withResolvers<number>();
    const server = g.Deno.serve({ hostname, port, onListen: (addr: { port: number }) => ready.resolve(addr.port) }, fetch);
    const bound = await ready.promise;
    return {
      hostname,
      port: bound,
      stop: async () => {
        await server.shutdown();
      },
    };
  }
  throw new Error("no HTTP server available: run under Bun or Deno");
}
