// The server on PostgreSQL, end to end: `bun src/main.ts serve` with CARAVAN_DATABASE_URL on a fresh database of the
// test cluster, on a free loopback port. Health, the default company, an API key made with the CLI, a customer and a
// transfer created and read back over HTTP, and the rows where they belong: in PostgreSQL, no SQLite file made. The
// password of the URL appears nowhere the operator or a client can see.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { expectError, expectOk, ISO_MS } from "../support/api.ts";
import { startPgServer, type PgServer } from "../support/pg-server.ts";
import { databaseOf } from "../support/postgres-faults.ts";
import { startPostgres } from "../support/postgres.ts";
import { runCli } from "../support/server.ts";
import { tempDir } from "../support/tmp.ts";
import { smallTransfer } from "../support/transfers.ts";

// A server, a PostgreSQL server and CLI processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

let S: PgServer;
let owner: { key: string; memberEmail: string };

/** One statement on the server's database (or `url`'s), from a connection of the test's own. */
async function rows(text: string, params: string[] = [], url = S.databaseUrl): Promise<Record<string, unknown>[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return [...(await sql.unsafe(text, params))];
  } finally {
    await sql.end({ timeout: 5 });
  }
}

test("before any server: `caravan migrate` on a fresh database applies the schema and seeds the default company", async () => {
  const pg = await startPostgres();
  const url = await pg.createDatabase();
  const r = await runCli(["migrate"], { CARAVAN_DB: join(tempDir(), "caravan.db"), CARAVAN_DATABASE_URL: url });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(await rows("SELECT slug, status FROM companies", [], url)).toEqual([{ slug: "default", status: "active" }]);
});

describe("the server on PostgreSQL", () => {
  beforeAll(async () => {
    S = await startPgServer();
  }, 120_000);

  afterAll(async () => {
    if (S) expect(await S.stop()).toBe(0);
  });

  test("it listens, naming PostgreSQL at host:port/db and never the password; /healthz answers 200 {status: ok}", async () => {
    expect(S.server.url).toStartWith("http://127.0.0.1:");
    expect(S.server.output()).toContain(`(database PostgreSQL at 127.0.0.1:${S.pg.port}/${databaseOf(S.databaseUrl)})`);
    const r = await fetch(`${S.server.url}/healthz`);
    const text = await r.text();
    expect(r.status).toBe(200);
    expect(JSON.parse(text)).toEqual({ status: "ok" });
    expect(text).not.toContain(S.pg.password);
    // The data is in PostgreSQL: CARAVAN_DB names only where the key files are.
    expect(existsSync(S.env.CARAVAN_DB)).toBe(false);
    expect((await rows("SELECT count(*)::int AS n FROM caravan_migrations"))[0].n).toBeGreaterThan(0);
  });

  test("the default company is there (the seed migration), and the CLI makes a member and an API key on PostgreSQL", async () => {
    expect(await rows("SELECT slug FROM companies")).toEqual([{ slug: "default" }]);
    owner = await S.newKey("owner");
    expect(owner.key).toMatch(/^crv_test_/);
    expectError(await S.call("/api/v2/me"), 401, "MISSING_KEY");
    const me = await S.call("/api/v2/me", { key: owner.key });
    expectOk(me);
    expect(me.body.data.company).toEqual({ slug: "default" });
    expect(me.body.data.environment).toBe("test");
    expect((await rows("SELECT count(*)::int AS n FROM api_keys"))[0].n).toBe(1);
  });

  test("a customer and a transfer created over HTTP, read back, and stored in PostgreSQL", async () => {
    const c = await S.call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Originator" } });
    expectOk(c, 201);
    const customerId = c.body.data.id as string;
    const back = await S.call(`/api/v2/customers/${customerId}/overview`, { key: owner.key });
    expectOk(back);
    expect(back.body.data.customer).toMatchObject({ id: customerId, name: "Originator" });

    const t = await S.call("/api/v2/transfers", { method: "POST", key: owner.key, json: smallTransfer(customerId) });
    expectOk(t, 201);
    const transferId = t.body.data.id as string;
    expect(t.body.data.amount).toBe("0.001");
    const read = await S.call(`/api/v2/transfers/${transferId}`, { key: owner.key });
    expectOk(read);
    expect(read.body.data).toMatchObject({ id: transferId, asset: "ETH", amount: "0.001", network: "ethereum", direction: "outgoing" });
    expect(read.body.data.createdAt).toMatch(ISO_MS);
    const list = await S.call("/api/v2/transfers", { key: owner.key });
    expectOk(list);
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(transferId);

    expect(await rows("SELECT id FROM customers WHERE id = $1", [customerId])).toEqual([{ id: customerId }]);
    expect(await rows("SELECT id, asset FROM transfers WHERE id = $1", [transferId])).toEqual([{ id: transferId, asset: "ETH" }]);
  });

  test("the password is in no output of the server", () => {
    expect(S.server.output()).not.toContain(S.pg.password);
    expect(S.server.output()).not.toContain(encodeURIComponent(S.pg.password));
  });
});
