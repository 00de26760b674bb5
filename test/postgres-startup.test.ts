// Choosing PostgreSQL with CARAVAN_DATABASE_URL, and the faults an operator meets before the server serves: a database
// that cannot be reached (one line naming host and port, exit 1), a refused password, a URL that is not PostgreSQL's,
// the master key of another deployment, `caravan backup` (SQLite's) asked of PostgreSQL; and the password of the URL
// never in any of those lines nor in `caravan --version`. Real processes (`bun src/main.ts`), the real test cluster
// (test/support/postgres.ts). The session's own recovery (the cluster stopped and started again, the backends cut) is
// here too: it is what the running server stands on (test/e2e/postgres-faults.test.ts drives it through HTTP).
import { test, expect, describe, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { existsSync, readFileSync } from "node:fs";
import postgres from "postgres";
import { tempDir } from "./support/tmp.ts";
import { repoRoot, runCli, TEST_SERVER_ENV } from "./support/server.ts";
import { startPostgres, type PostgresServer } from "./support/postgres.ts";
import { databaseOf, startCluster, stopCluster, terminateBackends } from "./support/postgres-faults.ts";
import { openPostgres, type PgSession } from "../src/adapters/storage/postgres/index.ts";
import { StorageUnavailableError } from "../src/ports/store.ts";

// Child processes and a PostgreSQL server on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const PASSWORD = "s3cret-Pa55word-never-printed";

/** One line on stderr, exit 1, no stack frame, no password; answers the line. */
function oneLine(r: { code: number; stdout: string; stderr: string }, secret: string): string {
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split("\n");
  expect(lines.length).toBe(1);
  expect(lines[0]).toMatch(/^caravan: /);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stdout + r.stderr).not.toContain(secret);
  expect(r.stdout + r.stderr).not.toContain(encodeURIComponent(secret));
  return lines[0];
}

/** A client program (psql, pg_dump, pg_restore) run to completion; throws with its stderr. */
function run(cmd: string[]): void {
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd[0]} failed (exit ${r.exitCode}): ${r.stderr.toString()}`);
}

/** Runs f until it succeeds; each failure must be a store fault (the connection still being replaced). */
async function untilOk(f: () => Promise<unknown>): Promise<void> {
  for (;;) {
    try {
      await f();
      return;
    } catch (e) {
      expect(e).toBeInstanceOf(StorageUnavailableError);
      await Bun.sleep(50);
    }
  }
}

/** A loopback port where nothing listens (bound, then released). */
function closedPort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/**
 * `serve` until it listens or exits (whichever first), then stopped: one start, for what a start leaves in the
 * database. Answers its exit code (null when it was listening) and its output.
 */
async function startOnce(env: Record<string, string>): Promise<{ listening: boolean; output: string }> {
  const proc = Bun.spawn(["bun", join(repoRoot, "src/main.ts"), "serve"], {
    cwd: repoRoot,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", CARAVAN_LOG: "warn", ...TEST_SERVER_ENV, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s) out += new TextDecoder().decode(c);
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (!exited && !out.includes("listening on")) await Bun.sleep(20);
  const listening = out.includes("listening on");
  proc.kill("SIGTERM");
  await proc.exited;
  return { listening, output: out };
}

describe("before the server serves", () => {
  test("a database that cannot be reached: one line naming host and port (never the password), exit 1; migrate says the same", async () => {
    const port = closedPort();
    const url = `postgres://caravan:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/caravan`;
    const env = { CARAVAN_DB: join(dir, "unreachable", "caravan.db"), CARAVAN_DATABASE_URL: url, PORT: "0" };
    const line = oneLine(await runCli(["serve"], env), PASSWORD);
    expect(line).toStartWith(`caravan: PostgreSQL at 127.0.0.1:${port}/caravan cannot be reached: `);
    expect(line).toMatch(/ECONNREFUSED|refused/i);
    const migrate = oneLine(await runCli(["migrate"], env), PASSWORD);
    expect(migrate).toStartWith(`caravan: PostgreSQL at 127.0.0.1:${port}/caravan cannot be reached: `);
  });

  test("a URL that is not PostgreSQL's: one line, the URL's password not in it", async () => {
    const line = oneLine(await runCli(["serve"], { CARAVAN_DB: join(dir, "scheme", "caravan.db"), CARAVAN_DATABASE_URL: `mysql://caravan:${PASSWORD}@127.0.0.1:3306/caravan`, PORT: "0" }), PASSWORD);
    expect(line).toBe("caravan: CARAVAN_DATABASE_URL must be a postgres:// (or postgresql://) URL; leave it unset for SQLite at CARAVAN_DB");
  });

  test("caravan --version on PostgreSQL names the engine and its schema, never the URL", async () => {
    const journal = JSON.parse(readFileSync(join(repoRoot, "db/migrations-pg/meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
    const url = `postgres://caravan:${encodeURIComponent(PASSWORD)}@db.internal:5432/caravan`;
    const r = await runCli(["--version"], { CARAVAN_DATABASE_URL: url });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^caravan \\S+ \\(schema ${journal.entries.at(-1)!.tag}, postgresql, bun \\S+, source\\)$`));
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stdout + r.stderr).not.toContain("db.internal");
  });
});

describe("on the test cluster", () => {
  let pg: PostgresServer;
  beforeAll(async () => {
    pg = await startPostgres();
  });

  test("a refused password: one line naming host and port, neither password in it", async () => {
    const url = (await pg.createDatabase()).replace(`:${encodeURIComponent(pg.password)}@`, `:${encodeURIComponent(PASSWORD)}@`);
    const r = await runCli(["serve"], { CARAVAN_DB: join(dir, "refused", "caravan.db"), CARAVAN_DATABASE_URL: url, PORT: "0" });
    const line = oneLine(r, PASSWORD);
    expect(line).toContain(`PostgreSQL at 127.0.0.1:${pg.port}/${databaseOf(url)} cannot be reached: `);
    expect(line).toContain("password authentication failed");
    expect(r.stderr).not.toContain(pg.password);
  });

  test("migrate applies every PostgreSQL migration and exits 0; a second run changes nothing; no SQLite file is made", async () => {
    const url = await pg.createDatabase();
    const db = join(dir, "migrate-pg", "caravan.db");
    const env = { CARAVAN_DB: db, CARAVAN_DATABASE_URL: url };
    const first = await runCli(["migrate"], env);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(`caravan: migrations applied to PostgreSQL at 127.0.0.1:${pg.port}/${databaseOf(url)}`);
    expect((await runCli(["migrate"], env)).code).toBe(0);
    const journal = JSON.parse(readFileSync(join(repoRoot, "db/migrations-pg/meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const tags = (await sql.unsafe("SELECT tag FROM caravan_migrations ORDER BY tag")).map((r) => r.tag);
      expect(tags).toEqual(journal.entries.map((e) => e.tag).sort());
    } finally {
      await sql.end({ timeout: 5 });
    }
    expect(existsSync(db)).toBe(false);
  });

  test("the master key is checked against database_meta on PostgreSQL: another key is refused with one line", async () => {
    const url = await pg.createDatabase();
    const db = join(dir, "keyed-pg", "caravan.db");
    const first = "cd".repeat(32);
    await startOnce({ CARAVAN_DB: db, CARAVAN_DATABASE_URL: url, CARAVAN_MASTER_KEY: first });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      expect((await sql.unsafe("SELECT key FROM database_meta WHERE key = 'master_key_check'")).length).toBe(1);
    } finally {
      await sql.end({ timeout: 5 });
    }
    const r = await runCli(["serve"], { CARAVAN_DB: db, CARAVAN_DATABASE_URL: url, CARAVAN_MASTER_KEY: "ab".repeat(32), PORT: "0" });
    const line = oneLine(r, pg.password);
    expect(line).toBe(
      `caravan: the master key from CARAVAN_MASTER_KEY is not the key that sealed PostgreSQL at 127.0.0.1:${pg.port}/${databaseOf(url)}: use the original key (the CARAVAN_MASTER_KEY it was started with)`,
    );
  });

  test("caravan backup on PostgreSQL: the real program writes a checked pg_dump archive and never prints the password", async () => {
    const url = await pg.createDatabase();
    const env = { CARAVAN_DB: join(dir, "backup-pg", "caravan.db"), CARAVAN_DATABASE_URL: url };
    expect((await runCli(["migrate"], env)).code).toBe(0);
    const to = join(dir, "backup-pg.dump");
    const r = await runCli(["backup", "--to", to, "--json"], env);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(pg.password);
    const res = JSON.parse(r.stdout.trim());
    expect(res).toMatchObject({ file: to, integrity: "ok" });
    expect(res.migrations).toBeGreaterThan(0);
    expect(existsSync(to)).toBe(true);
  });

  test("docs/operations.md as written: a role owning a C-collation database, migrate as that role, pg_dump, pg_restore into a new one", async () => {
    const psql = (url: string, sql: string) => run([join(pg.bin, "psql"), "-v", "ON_ERROR_STOP=1", "-X", "-q", "-d", url, "-c", sql]);
    const role = `caravan_${Math.random().toString(36).slice(2, 8)}`;
    const password = "change-me";
    psql(pg.url, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    psql(pg.url, `CREATE DATABASE ${role} OWNER ${role} TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`);
    const url = `postgres://${role}:${password}@127.0.0.1:${pg.port}/${role}`;
    const env = { CARAVAN_DB: join(dir, "docs-pg", "caravan.db"), CARAVAN_DATABASE_URL: url };
    const m = await runCli(["migrate"], env);
    expect(m.stderr).toBe("");
    expect(m.code).toBe(0);
    const dump = join(dir, "docs-pg.dump");
    run([join(pg.bin, "pg_dump"), "--format=custom", `--file=${dump}`, url]);
    psql(pg.url, `CREATE DATABASE ${role}_restored OWNER ${role} TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`);
    const restored = `postgres://${role}:${password}@127.0.0.1:${pg.port}/${role}_restored`;
    run([join(pg.bin, "pg_restore"), "--no-owner", "--exit-on-error", `--dbname=${restored}`, dump]);
    const again = await runCli(["migrate"], { ...env, CARAVAN_DATABASE_URL: restored });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    const sql = postgres(restored, { max: 1, onnotice: () => {} });
    try {
      expect([...(await sql.unsafe("SELECT slug FROM companies"))] as Record<string, unknown>[]).toEqual([{ slug: "default" }]);
      expect((await sql.unsafe("SELECT count(*)::int AS n FROM caravan_migrations"))[0].n).toBe(JSON.parse(readFileSync(join(repoRoot, "db/migrations-pg/meta/_journal.json"), "utf8")).entries.length);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  test("a database of another collation is refused at start with the CREATE DATABASE line to use", async () => {
    const name = `t_coll_${Math.random().toString(36).slice(2, 8)}`;
    run([join(pg.bin, "psql"), "-v", "ON_ERROR_STOP=1", "-X", "-q", "-d", pg.url, "-c", `CREATE DATABASE ${name} TEMPLATE template0 LOCALE 'C.UTF-8' ENCODING 'UTF8'`]);
    const url = pg.url.replace(/\/postgres$/, `/${name}`);
    const line = oneLine(await runCli(["serve"], { CARAVAN_DB: join(dir, "coll", "caravan.db"), CARAVAN_DATABASE_URL: url, PORT: "0" }), pg.password);
    expect(line).toContain(`PostgreSQL database at 127.0.0.1:${pg.port}/${name} has collation C.UTF-8`);
    expect(line).toContain("TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'");
  });

  describe("the session recovers by itself", () => {
    let url: string;
    let s: PgSession;
    beforeAll(async () => {
      url = await pg.createDatabase();
      s = await openPostgres(url);
    });
    afterAll(async () => {
      await s?.close();
    });

    test("backends cut with pg_terminate_backend: the next statements reconnect, no new session needed", async () => {
      await s.q("SELECT 1");
      await s.read("SELECT 1");
      expect(await terminateBackends(pg, databaseOf(url))).toBeGreaterThan(0);
      // Statements may meet the dying connections (store faults: 503 for a request) until the driver has opened new
      // ones; anything else is a failure. The test's time-out is the hang guard.
      await untilOk(() => s.q("SELECT 1"));
      await untilOk(() => s.ping!());
      // The health turns ok again once a write succeeds after the faults have settled.
      while (s.health.unavailable) {
        expect(await s.probeWrite(Date.now())).toBe(true);
        if (s.health.unavailable) await Bun.sleep(100);
      }
    });

    test("the server stopped: a store fault (PG_CONNECTION) marks the health, without the password; started again: writes succeed", async () => {
      expect(s.health.unavailable).toBeNull();
      stopCluster(pg);
      try {
        const e = await s.ping!().then(
          () => null,
          (x: unknown) => x,
        );
        expect(e).toBeInstanceOf(StorageUnavailableError);
        expect((e as StorageUnavailableError).fault.class).toBe("PG_CONNECTION");
        expect((e as Error).message).not.toContain(pg.password);
        expect(s.health.unavailable?.class).toBe("PG_CONNECTION");
        expect(await s.probeWrite(Date.now())).toBe(false);
      } finally {
        startCluster(pg);
      }
      // Nothing reopens the session: its next statements reconnect (store faults until the driver has).
      await untilOk(async () => {
        if (!(await s.probeWrite(Date.now()))) throw new StorageUnavailableError({ class: "PG_CONNECTION", cause: "probe" });
      });
      await untilOk(() => s.ping!());
    });
  });
});
