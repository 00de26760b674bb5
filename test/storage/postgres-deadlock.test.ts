// Two processes' transactions that lock the same rows in opposite orders (two nodes' commits on one database):
// PostgreSQL breaks the deadlock by rolling one back (40P01), and the session runs that one again from the start,
// so both commit and the caller never sees the conflict. Two sessions stand for two nodes.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { openPostgres, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { isConflict } from "../../src/adapters/storage/postgres/session.ts";
import { startPostgres } from "../support/postgres.ts";

// A hang guard (PostgreSQL finds a deadlock after its deadlock_timeout, 1 s), not a timing assertion.
setDefaultTimeout(60_000);

let a: PgSession;
let b: PgSession;

beforeAll(async () => {
  const url = await (await startPostgres()).createDatabase();
  a = await openPostgres(url, { readers: 1 });
  b = await openPostgres(url, { readers: 1 });
  await a.exec("CREATE TABLE deadlock_test (k text PRIMARY KEY, v integer NOT NULL); INSERT INTO deadlock_test VALUES ('x', 0), ('y', 0)");
});

afterAll(async () => {
  await a?.close();
  await b?.close();
});

/** A promise and its resolver. */
function signal(): { done: Promise<void>; fire(): void } {
  let fire!: () => void;
  const done = new Promise<void>((r) => (fire = r));
  return { done, fire };
}

test("a deadlock between two sessions' transactions: the victim is run again whole, both commit, neither caller sees it", async () => {
  const aHolds = signal();
  const bHolds = signal();
  const runs = { a: 0, b: 0 };
  const bump = (s: PgSession, k: string) => s.q("UPDATE deadlock_test SET v = v + 1 WHERE k = $1", [k]);
  const first = a.transaction(async () => {
    runs.a++;
    await bump(a, "x");
    aHolds.fire();
    await bHolds.done;
    await bump(a, "y"); // waits for b, which waits for a: one of the two is rolled back
  });
  const second = b.transaction(async () => {
    runs.b++;
    await bump(b, "y");
    bHolds.fire();
    await aHolds.done;
    await bump(b, "x");
  });
  await Promise.all([first, second]);
  expect(runs.a + runs.b).toBe(3); // the victim ran twice, the other once
  expect(await a.q("SELECT k, v FROM deadlock_test ORDER BY k")).toEqual([
    { k: "x", v: 2 },
    { k: "y", v: 2 },
  ]);
});

test("only PostgreSQL's conflict codes are run again: a constraint's refusal is the caller's at once", async () => {
  let runs = 0;
  const refused = await a
    .transaction(async () => {
      runs++;
      await a.q("INSERT INTO deadlock_test VALUES ('x', 9)");
    })
    .catch((e: unknown) => e);
  expect(runs).toBe(1);
  expect(isConflict(refused)).toBe(false);
  expect(isConflict({ code: "40P01", severity: "ERROR" })).toBe(true);
  expect(isConflict({ code: "40001", severity: "ERROR" })).toBe(true);
  expect(isConflict({ code: "40P01" })).toBe(false); // not a server's error (no severity)
});
