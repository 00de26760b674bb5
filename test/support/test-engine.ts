// The engine an end-to-end file runs on: CARAVAN_TEST_ENGINE, `sqlite` (the default) or `postgres`, one engine per run
// of a file. On `postgres`, every CARAVAN_DB path the file hands to the end-to-end helpers (startServer and runCli in
// ./server.ts, the in-process CLI in ./cli.ts and so apiClient in ./api.ts) is given a database of its own on the test
// process's PostgreSQL cluster (./postgres.ts), created on the path's first use and the same one afterwards: the server,
// a restarted server and the CLI calls on that path all meet in it, as they meet in the one SQLite file. CARAVAN_DB
// stays set (the key files are still looked for beside it). An environment that already names CARAVAN_DATABASE_URL
// (./pg-server.ts, a test of the engine choice itself) is left as it is.
//
// scripts/test.sh runs the files listed in test/postgres-e2e.txt once more this way (docs/operations.md).
import { resolve } from "node:path";
import { startPostgres } from "./postgres.ts";
import { TEST_ENGINE_NAMES, type TestEngineName } from "./engines.ts";

/** The engine CARAVAN_TEST_ENGINE asks this run of a file for; throws on a name it does not know. */
export function testEngine(value: string | undefined = process.env.CARAVAN_TEST_ENGINE): TestEngineName {
  const name = (value ?? "").trim().toLowerCase() || "sqlite";
  if (!(TEST_ENGINE_NAMES as readonly string[]).includes(name)) {
    throw new Error(`CARAVAN_TEST_ENGINE: ${JSON.stringify(value)} is not one engine (known: ${TEST_ENGINE_NAMES.join(", ")})`);
  }
  return name as TestEngineName;
}

/** CARAVAN_DB path (resolved) → its database's URL, for this test process. */
const databases = new Map<string, Promise<string>>();
/** The same, once made, with the cluster's binaries: for the synchronous reads of ./db.ts. */
const made = new Map<string, { bin: string; url: string }>();

/**
 * `env` as the end-to-end helpers hand it to the server or the CLI: on the PostgreSQL engine, with the
 * CARAVAN_DATABASE_URL of the database that stands for its CARAVAN_DB path (made on first use); otherwise unchanged.
 */
export async function withTestEngine(env: Record<string, string>): Promise<Record<string, string>> {
  if (testEngine() !== "postgres") return env;
  const path = env.CARAVAN_DB;
  if (!path || env.CARAVAN_DATABASE_URL !== undefined) return env;
  const key = resolve(path);
  let url = databases.get(key);
  if (!url) {
    url = startPostgres().then(async (pg) => {
      const u = await pg.createDatabase();
      made.set(key, { bin: pg.bin, url: u });
      return u;
    });
    databases.set(key, url);
    url.catch(() => databases.delete(key));
  }
  return { ...env, CARAVAN_DATABASE_URL: await url };
}

/** The database standing for a CARAVAN_DB path, if a helper has made one (PostgreSQL engine only); else undefined. */
export function testDatabaseNow(path: string): { bin: string; url: string } | undefined {
  return made.get(resolve(path));
}
