// Listens for HTTP with the running runtime's server: Bun.serve under Bun, Deno.serve under Deno.
import { recordPeer } from "../net/client-address.ts";
import { recordPeerSocket } from "../net/client-cert.ts";
import { IDLE_TIMEOUT_SECONDS, markServedByBun } from "./served.ts";
export interface ListenOptions {
  hostname: string;
  port: number;
  /** Bun only: seconds a connection may send and receive nothing before it is closed (default 60). */
  idleTimeoutSeconds?: number;
}

export interface RunningServer {
  readonly hostname: string;
  readonly port: number;
  /** Stops accepting connections and waits for in-flight requests. */
  stop(): Promise<void>;
}

type FetchHandler = (req: Request) => Response | Promise<Response>;

export async function listen(fetch: FetchHandler, opts: ListenOptions): Promise<RunningServer> {
  const g = globalThis as { Bun?: any; Deno?: any };
  if (g.Bun) {
    // The socket address is looked up only when asked for (trusted-proxy rule, src/adapters/net/client-address.ts).
    const lookup = (req: Request) => server.requestIP(req)?.address ?? null;
    const idleSeconds = opts.idleTimeoutSeconds ?? IDLE_TIMEOUT_SECONDS;
    const server = g.Bun.serve({
      hostname: opts.hostname,
      port: opts.port,
      fetch: (req: Request) => {
        recordPeer(req, lookup);
        recordPeerSocket(req, () => {
          const ip = server.requestIP(req);
          return ip ? { address: ip.address, port: ip.port } : null;
        });
        // A pushed body (the event stream) for this request is written straight into the connection (push-stream.ts),
        // and a long answer can lift the connection's idle timeout while it is computed (served.ts).
        markServedByBun(req, timeouts);
        return fetch(req);
      },
      // The API checks its 64 KiB limit itself (Part 1, Limits) and provider callbacks theirs (provider_e: 2 MiB,
      // Part 3 Limits), counting while streaming; this only stops absurd uploads, above the largest of those.
      maxRequestBodySize: 4 * 1024 * 1024,
      // A long answer lifts it while it is computed (served.ts: withoutIdleTimeout).
      idleTimeout: idleSeconds,
    });
    const timeouts = { server, idleSeconds };
    return {
      hostname: opts.hostname,
      port: server.port as number,
      stop: async () => {
        await server.stop(false);
      },
    };
  }
  if (g.Deno) {
    let port = opts.port;
    const ready = Promise.withResolvers<void>();
    const server = g.Deno.serve(
      {
        hostname: opts.hostname,
        port: opts.port,
        onListen: (addr: { port: number }) => {
          port = addr.port;
          ready.resolve();
        },
      },
      (req: Request, info: { remoteAddr?: { hostname?: string; port?: number } }) => {
        const address = info?.remoteAddr?.hostname ?? null;
        recordPeer(req, () => address);
        const port = info?.remoteAddr?.port;
        recordPeerSocket(req, () => (address !== null && port !== undefined ? { address, port } : null));
        return fetch(req);
      },
    );
    await ready.promise;
    return {
      hostname: opts.hostname,
      get port() {
        return port;
      },
      stop: async () => {
        await server.shutdown();
      },
    };
  }
  throw new Error("no HTTP server available: run under Bun or Deno");
}
