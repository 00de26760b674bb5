// PostgreSQL's nested units of work (PgSession.transaction inside a transaction: a savepoint). A statement that fails
// inside one, caught by the caller, undoes only that savepoint's writes: the outer transaction goes on and commits.
// The actor runtime's group commit relies on it (one unit's unique violation must spare the others in the batch).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { openPostgres, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { startPostgres } from "../support/postgres.ts";

setDefaultTimeout(60_000);

let session: PgSession;
beforeAll(async () => {
  session = await openPostgres(await (await startPostgres()).createDatabase(), { readers: 1 });
});
afterAll(async () => {
  await session?.close();
});

const put = (key: string, value: string) => session.q("INSERT INTO database_meta (key, value) VALUES ($1, $2)", [key, value]);
const value = async (key: string) => (await session.read<{ value: string }>("SELECT value FROM database_meta WHERE key = $1", [key]))[0]?.value;

test("a unique violation caught inside a savepoint spares the outer transaction: its other writes and the ones after commit", async () => {
  await put("sp-taken", "first");
  const caught: string[] = [];
  await session.transaction(async () => {
    await put("sp-before", "1");
    try {
      await session.transaction(async () => {
        await put("sp-inside", "undone");
        await put("sp-taken", "second"); // the primary key refuses it
      });
    } catch (e) {
      caught.push(e instanceof Error ? e.message : String(e));
    }
    await session.transaction(() => put("sp-next", "2"));
    await put("sp-after", "3");
  });
  expect(caught).toEqual([expect.stringContaining("duplicate key")]);
  expect(await value("sp-before")).toBe("1");
  expect(await value("sp-inside")).toBeUndefined();
  expect(await value("sp-taken")).toBe("first");
  expect(await value("sp-next")).toBe("2");
  expect(await value("sp-after")).toBe("3");
});

test("a failure not caught still rolls the whole transaction back", async () => {
  await expect(
    session.transaction(async () => {
      await put("sp-lost", "x");
      await session.transaction(() => put("sp-taken", "again"));
    }),
  ).rejects.toThrow(/duplicate key/);
  expect(await value("sp-lost")).toBeUndefined();
});
