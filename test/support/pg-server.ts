// The real server on PostgreSQL for end-to-end tests: a fresh database on the test cluster (./postgres.ts), the key
// files in a temporary CARAVAN_DB directory, `bun src/main.ts serve` with CARAVAN_DATABASE_URL on a free loopback
// port (./server.ts), and the CLI run as a real process against the same database.
import { join } from "node:path";
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { runCli, startServer, type ChildServer } from "./server.ts";
import { startPostgres, type PostgresServer } from "./postgres.ts";
import { apiClient } from "./api.ts";

export interface PgServer {
  readonly pg: PostgresServer;
  /** The database's URL (password included: never print it). */
  readonly databaseUrl: string;
  /** CARAVAN_DB (where the key files are) and CARAVAN_DATABASE_URL: the environment of the server and the CLI. */
  readonly env: Record<string, string>;
  readonly server: ChildServer;
  /** JSON calls to the server (./api.ts). */
  readonly call: ReturnType<typeof apiClient>["call"];
  /** A CLI command against the same database, as a real process; its stdout, or a throw with its stderr. */
  cli(...args: string[]): Promise<string>;
  /** `members create` then `keys create --json` for a new member of `role` in `environment`. */
  newKey(role: string, environment?: "test" | "live"): Promise<{ key: string; id: string; memberId: string; memberEmail: string }>;
  stop(): Promise<number>;
}

/** The servers' key directories, kept while the test file runs (a server may be stopped and started again on one). */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export async function startPgServer(extra: Record<string, string> = {}): Promise<PgServer> {
  const pg = await startPostgres();
  const databaseUrl = await pg.createDatabase();
  // Its own directory, removed after the test file (the afterAll below, registered when this module is imported):
  // tempDir() registers its afterAll when called, and from a beforeAll hook that one ran before the tests using the
  // server (the key files were gone, and the CLI made a new master key the server does not have).
  const dir = mkdtempSync(join(tmpdir(), "caravan-pg-server-"));
  dirs.push(dir);
  const env = { CARAVAN_DB: join(dir, "caravan.db"), CARAVAN_DATABASE_URL: databaseUrl, ...extra };
  const server = await startServer(env);
  const { call } = apiClient(env.CARAVAN_DB, () => server.url);
  const cli = async (...args: string[]) => {
    const r = await runCli(args, env);
    if (r.code !== 0) throw new Error(`caravan ${args.join(" ")} failed (exit ${r.code}): ${r.stderr}`);
    return r.stdout.trim();
  };
  return {
    pg,
    databaseUrl,
    env,
    server,
    call,
    cli,
    async newKey(role, environment = "test") {
      const email = `${role.replace(/_/g, "-")}-${crypto.randomUUID().slice(0, 8)}@members.test`;
      await cli("members", "create", "--email", email, "--role", role, "--json");
      return JSON.parse((await cli("keys", "create", "--env", environment, "--member", email, "--json")).split("\n").at(-1)!);
    },
    stop: () => server.stop("SIGTERM"),
  };
}
