// Faults of the test cluster (./postgres.ts) for the tests of a server that loses its database: the server process
// stopped and started again on the same port and data, or every connection to one database cut from an admin
// connection. The cluster is this test process's own, so stopping it touches no other test file's data.
import { join } from "node:path";
import { createServer, connect, type Socket } from "node:net";
import postgres from "postgres";
import { owned, type PostgresServer } from "./postgres.ts";

function pgCtl(pg: PostgresServer, args: string[]): void {
  const r = Bun.spawnSync(owned([join(pg.bin, "pg_ctl"), "-D", join(pg.dir, "data"), ...args]), { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`pg_ctl ${args.join(" ")} failed (exit ${r.exitCode}): ${r.stderr.toString().trim() || r.stdout.toString().trim()}`);
}

/** Stops the cluster's server (fast shutdown: sessions are told 57P01 and closed); its data and port stay. */
export function stopCluster(pg: PostgresServer): void {
  pgCtl(pg, ["-m", "fast", "-w", "stop"]);
}

/** Starts the cluster's server again after `stopCluster` (same data directory, same port). */
export function startCluster(pg: PostgresServer): void {
  pgCtl(pg, ["-l", join(pg.dir, "log"), "-w", "-t", "60", "start"]);
}

/** Ends every session connected to `database` (pg_terminate_backend from an admin connection); answers how many. */
export async function terminateBackends(pg: PostgresServer, database: string): Promise<number> {
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin.unsafe("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [database]);
    return rows.filter((r) => r.ok).length;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** The database name of a URL from `createDatabase`. */
export const databaseOf = (url: string) => new URL(url).pathname.slice(1);

/**
 * A TCP proxy in front of the server whose connections can be frozen: left open, nothing forwarded either way (what
 * a network partition looks like to both ends). Answers the database URL through it.
 */
export async function freezableProxy(target: string): Promise<{ url: string; freeze(): void; connections(): number; close(): void }> {
  const t = new URL(target);
  const pairs: [Socket, Socket][] = [];
  let opened = 0;
  const server = createServer((c) => {
    opened++;
    const up = connect(Number(t.port), t.hostname);
    c.pipe(up);
    up.pipe(c);
    pairs.push([c, up]);
    const end = () => (c.destroy(), up.destroy());
    for (const s of [c, up]) s.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const via = new URL(target);
  via.hostname = "127.0.0.1";
  via.port = String((server.address() as { port: number }).port);
  return {
    url: via.toString(),
    freeze() {
      for (const [c, up] of pairs.splice(0)) {
        c.unpipe(up);
        up.unpipe(c);
        c.pause();
        up.pause();
      }
    },
    connections: () => opened,
    close() {
      server.close();
    },
  };
}

/**
 * A TCP proxy in front of the server that can be cut: every connection through it reset at once and the port closed,
 * so new connections are refused (what a node whose link to the database went down sees), until `restore()` listens
 * on the same port again. Only the process that connects through it loses the database; others reach it directly.
 */
export async function cuttableProxy(target: string): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const t = new URL(target);
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((c) => {
    const up = connect(Number(t.port), t.hostname);
    c.pipe(up);
    up.pipe(c);
    const pair: [Socket, Socket] = [c, up];
    pairs.add(pair);
    const end = () => (pairs.delete(pair), c.destroy(), up.destroy());
    for (const s of pair) s.on("error", end).on("close", end);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => (server.off("error", reject), resolve())));
  await listen(0);
  const port = (server.address() as { port: number }).port;
  const via = new URL(target);
  via.hostname = "127.0.0.1";
  via.port = String(port);
  const cut = () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const [c, up] of [...pairs]) (c.resetAndDestroy(), up.destroy());
    pairs.clear();
    return closed;
  };
  return {
    url: via.toString(),
    cut: () => (server.listening ? cut() : Promise.resolve()),
    restore: () => (server.listening ? Promise.resolve() : listen(port)),
    close: () => (server.listening ? cut() : Promise.resolve()),
  };
}
