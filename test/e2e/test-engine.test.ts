// The end-to-end helpers on the engine CARAVAN_TEST_ENGINE names (test/support/test-engine.ts): on `postgres`, a
// CARAVAN_DB path stands for one database on the test cluster, the same for the server, the in-process CLI, the CLI as
// a process and the test's own reads (sqlRows); nothing is written to a SQLite file at that path.
import { test, expect, describe, afterAll, setDefaultTimeout } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectOk } from "../support/api.ts";
import { sqlRows } from "../support/db.ts";
import { testEngine, testDatabaseNow, withTestEngine } from "../support/test-engine.ts";

setDefaultTimeout(60_000);

/** `fn` with CARAVAN_TEST_ENGINE set to `engine`, restored after (files share a worker process). */
async function onEngine<T>(engine: string | undefined, fn: () => Promise<T>): Promise<T> {
  const was = process.env.CARAVAN_TEST_ENGINE;
  if (engine === undefined) delete process.env.CARAVAN_TEST_ENGINE;
  else process.env.CARAVAN_TEST_ENGINE = engine;
  try {
    return await fn();
  } finally {
    if (was === undefined) delete process.env.CARAVAN_TEST_ENGINE;
    else process.env.CARAVAN_TEST_ENGINE = was;
  }
}

describe("CARAVAN_TEST_ENGINE", () => {
  test("sqlite unless told; postgres; one engine only, a name it does not know is an error", () => {
    expect(testEngine(undefined)).toBe("sqlite");
    expect(testEngine(" ")).toBe("sqlite");
    expect(testEngine(" Postgres ")).toBe("postgres");
    expect(testEngine("sqlite")).toBe("sqlite");
    expect(() => testEngine("sqlite,postgres")).toThrow(/not one engine \(known: sqlite, postgres\)/);
    expect(() => testEngine("mysql")).toThrow(/"mysql" is not one engine/);
  });

  test("on sqlite the environment is handed on as it is", async () => {
    const env = { CARAVAN_DB: join(tempDir(), "x.db") };
    expect(await onEngine(undefined, () => withTestEngine(env))).toEqual(env);
    expect(await onEngine("sqlite", () => withTestEngine(env))).toEqual(env);
  });

  test("on postgres: one database per CARAVAN_DB path, the same on every use; a URL already given is kept", async () => {
    const dir = tempDir();
    const a = await onEngine("postgres", () => withTestEngine({ CARAVAN_DB: join(dir, "a.db"), X: "1" }));
    const again = await onEngine("postgres", () => withTestEngine({ CARAVAN_DB: join(dir, "sub/../a.db") }));
    const b = await onEngine("postgres", () => withTestEngine({ CARAVAN_DB: join(dir, "b.db") }));
    expect(a).toMatchObject({ CARAVAN_DB: join(dir, "a.db"), X: "1" });
    expect(a.CARAVAN_DATABASE_URL).toMatch(/^postgres:\/\/caravan:[^@]+@127\.0\.0\.1:\d+\/t_[0-9a-f]{12}$/);
    expect(again.CARAVAN_DATABASE_URL).toBe(a.CARAVAN_DATABASE_URL!);
    expect(b.CARAVAN_DATABASE_URL).not.toBe(a.CARAVAN_DATABASE_URL!);
    const given = { CARAVAN_DB: join(dir, "c.db"), CARAVAN_DATABASE_URL: "postgres://u:p@127.0.0.1:1/other" };
    expect(await onEngine("postgres", () => withTestEngine(given))).toEqual(given);
    // Without a CARAVAN_DB there is no path to stand for.
    expect(await onEngine("postgres", () => withTestEngine({ X: "1" }))).toEqual({ X: "1" });
  });
});

describe("a file's server and CLI on postgres", () => {
  let S: ChildServer | undefined;
  afterAll(async () => {
    await S?.stop();
  });

  test("the server, the in-process CLI, the CLI process and sqlRows meet in one PostgreSQL database; no SQLite file is made", async () => {
    const db = join(tempDir(), "engine.db");
    const { newKey, call, cli } = apiClient(db, () => S!.url);
    await onEngine("postgres", async () => {
      S = await startServer({ CARAVAN_DB: db });
      // A key made by the in-process CLI after the server started: the server finds it in the same database.
      const made = await newKey("--env", "test", "--role", "owner");
      const me = await call("/api/v2/me", { key: made.key });
      expectOk(me);
      expect(me.body.data.member.email).toBe(made.memberEmail);
      // The CLI as a real process lists it too.
      const listed = await runCli(["keys", "list", "--json"], { CARAVAN_DB: db });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(made.id);
      expect(await cli("members", "list", "--json")).toContain(made.memberEmail);
      // The test's own reads: sqlRows goes to the same database (psql), a change included.
      expect(sqlRows(db, "SELECT count(*) AS n FROM api_keys WHERE id = ?", made.id)).toEqual([{ n: 1 }]);
      sqlRows(db, "UPDATE api_keys SET hint = ? WHERE id = ?", "it's hint", made.id);
      expect(sqlRows(db, "SELECT hint FROM api_keys WHERE id = ?", made.id)).toEqual([{ hint: "it's hint" }]);
      // And it is PostgreSQL: the database the path stands for holds the member, with a query of PostgreSQL's own.
      const target = testDatabaseNow(db)!;
      const sql = postgres(target.url, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql`SELECT email, pg_typeof(created_at)::text AS t FROM members WHERE email = ${made.memberEmail}`;
        expect(rows.length).toBe(1);
      } finally {
        await sql.end({ timeout: 5 });
      }
    });
    expect(existsSync(db)).toBe(false);
  });
});
