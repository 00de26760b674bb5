// The sandbox network's own HTTP listener: Bun's server on loopback only (the sandbox is a separate party and shares
// no code with the service it talks to).
export interface Served {
  readonly port: number;
  stop(): Promise<void>;
}

export function serveLoopback(fetch: (req: Request) => Promise<Response>, port = 0): Served {
  // A held ("hang") request is released at stop; the idle timeout stays above the service's 15-second timeout.
  const server = Bun.serve({ hostname: "127.0.0.1", port, fetch, idleTimeout: 60 });
  return {
    port: server.port as number,
    stop: async () => {
      await server.stop(false);
    },
  };
}
