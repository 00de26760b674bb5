// Storage.read runs a function's reads in one read transaction (one snapshot, one WAL read lock), and
// Storage.dataVersion reads PRAGMA data_version at most once per synchronous turn (issue 19: fewer lock round trips
// per request). What must hold: inside read() another connection's commit is not seen until it returns; nested in a
// transaction it just runs; data_version moves when another connection commits, from the next turn.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

let storage: Storage;
let other: Storage;
const nextTurn = () => new Promise((r) => setTimeout(r, 0));

beforeAll(async () => {
  const file = join(tempDir(), "read.db");
  storage = await openStorage(file, { migrate: false });
  other = await openStorage(file, { migrate: false });
  storage.client.exec("CREATE TABLE t (n INTEGER)");
});

afterAll(() => {
  other.close();
  storage.close();
});

const count = () => (storage.stmt("SELECT count(*) AS n FROM t").get() as { n: number }).n;

test("read() sees one snapshot: another connection's commit shows only after it returns", () => {
  const seen = storage.read(() => {
    const before = count();
    other.stmt("INSERT INTO t (n) VALUES (1)").run();
    return [before, count()];
  });
  expect(seen[1]).toBe(seen[0]);
  expect(count()).toBe(seen[0] + 1);
  // Without read(), each statement has its own snapshot.
  const before = count();
  other.stmt("INSERT INTO t (n) VALUES (2)").run();
  expect(count()).toBe(before + 1);
});

test("read() inside a transaction runs in it; a throw inside read() ends the read transaction", () => {
  const n = count();
  storage.tx(() => {
    storage.stmt("INSERT INTO t (n) VALUES (3)").run();
    expect(storage.read(() => count())).toBe(n + 1);
  });
  expect(count()).toBe(n + 1);
  expect(() => storage.read(() => { throw new Error("boom"); })).toThrow("boom");
  // No transaction is left open: a write transaction starts and commits.
  storage.tx(() => storage.stmt("INSERT INTO t (n) VALUES (4)").run());
  other.stmt("INSERT INTO t (n) VALUES (5)").run();
  expect(count()).toBe(n + 3);
});

test("dataVersion() moves when another connection commits, read once per synchronous turn", async () => {
  await nextTurn();
  const v0 = storage.dataVersion();
  storage.stmt("INSERT INTO t (n) VALUES (6)").run(); // this connection's own commit does not move it
  await nextTurn();
  expect(storage.dataVersion()).toBe(v0);
  other.stmt("INSERT INTO t (n) VALUES (7)").run();
  expect(storage.dataVersion()).toBe(v0); // same turn: the value read at its start
  await nextTurn();
  expect(storage.dataVersion()).not.toBe(v0);
});
