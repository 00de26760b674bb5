// Storage.read runs a function's reads in one read transaction (one snapshot, one WAL read lock), and
// Storage.dataVersion reads PRAGMA data_version only when the change beacon says some connection committed (or the
// value is older than its bound), so most requests take no read lock for it. What must hold: inside read() another
// connection's commit is not seen until it returns; nested in a transaction it just runs; data_version moves as soon
// as another connection's transaction commits, and a write that does not signal is seen within the bound.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { statSync } from "node:fs";
import { DATA_VERSION_BOUND_MS, openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { openBeacon } from "../../src/adapters/storage/change-beacon.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

let storage: Storage;
let other: Storage;

const file = join(tempDir(), "read.db");

beforeAll(async () => {
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

test("dataVersion() moves as soon as another connection's transaction commits (the change beacon), not for its own", () => {
  const v0 = storage.dataVersion();
  storage.tx(() => storage.stmt("INSERT INTO t (n) VALUES (6)").run()); // this connection's own commit does not move it
  expect(storage.dataVersion()).toBe(v0);
  other.tx(() => other.stmt("INSERT INTO t (n) VALUES (7)").run());
  const v1 = storage.dataVersion(); // the same synchronous turn: no waiting on anything
  expect(v1).not.toBe(v0);
  expect(storage.dataVersion()).toBe(v1);
});

test("a commit that does not signal (a tool writing the file directly) is seen once the bound has passed", async () => {
  const v0 = storage.dataVersion();
  const { Database } = await import("bun:sqlite");
  const tool = new Database(storage.path);
  try {
    tool.exec("PRAGMA busy_timeout = 5000");
    tool.prepare("INSERT INTO t (n) VALUES (8)").run();
  } finally {
    tool.close();
  }
  await Bun.sleep(DATA_VERSION_BOUND_MS + 20);
  expect(storage.dataVersion()).not.toBe(v0);
});

test("inside a read transaction dataVersion() is the snapshot's, and it does not hide a later change from the next read outside", () => {
  const outside = storage.dataVersion();
  const inside = storage.read(() => {
    count(); // the snapshot begins with the first read
    other.tx(() => other.stmt("INSERT INTO t (n) VALUES (9)").run());
    return storage.dataVersion();
  });
  expect(inside).toBe(outside); // the snapshot began before the other commit
  expect(storage.dataVersion()).not.toBe(outside);
});

test("the beacon file is private, and a process that cannot map it (Deno) signals through its descriptor", () => {
  const file = `${storage.path}-changes`;
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const reader = openBeacon(file, (p) => Bun.mmap(p, { shared: true }))!;
  const writer = openBeacon(file)!;
  try {
    expect(reader.mapped).toBe(true);
    expect(writer.mapped).toBe(false);
    reader.take();
    expect(reader.moved()).toBe(false);
    writer.signal();
    expect(reader.moved()).toBe(true);
    reader.take();
    expect(reader.moved()).toBe(false);
    expect(writer.moved()).toBe(true); // unmapped: never vouches, so its reader always reads data_version
  } finally {
    reader.close();
    writer.close();
  }
});
