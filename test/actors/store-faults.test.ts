// Faults of the store (here a real SQLITE_FULL: the database may not grow past its page count) are told apart from
// faults of a message: the storage transaction keeps SQLite's own error (SQLite has already rolled back), the runtime
// counts no attempt for it, waits a growing back-off, logs one line per class per interval, answers an ask at once,
// and handles the message when the store takes writes again; nothing is dead-lettered for it.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { StorageUnavailableError, storeFault } from "../../src/adapters/storage/faults.ts";
import { FaultLog, storeBackoffMs } from "../../src/adapters/fault-log.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { tempDir } from "../support/tmp.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
let n = 0;

async function fileStorage(settleMs = 0): Promise<Storage> {
  const storage = await openStorage(join(dir, `faults-${n++}.db`), { healthSettleMs: settleMs });
  storage.client.exec("CREATE TABLE IF NOT EXISTS blobs (b BLOB)");
  return storage;
}

/** The file may not grow: the next write that needs a page fails with SQLITE_FULL ("database or disk is full"). */
function fill(storage: Storage): void {
  const pages = (storage.client.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
  storage.client.exec(`PRAGMA max_page_count = ${pages}`);
}
const unfill = (storage: Storage) => storage.client.exec("PRAGMA max_page_count = 1073741823");
const bigWrite = (s: Storage) => void s.stmt("INSERT INTO blobs (b) VALUES (randomblob(200000))").run();

test("a transaction on a full store throws SQLite's SQLITE_FULL, not the rollback's 'no transaction is active', and marks the store unavailable", async () => {
  const storage = await fileStorage();
  fill(storage);
  let error: unknown;
  try {
    storage.tx(() => bigWrite(storage));
  } catch (e) {
    error = e;
  }
  expect(String(error)).toContain("database or disk is full");
  expect(String(error)).not.toContain("no transaction is active");
  expect(storeFault(error)).toEqual({ class: "SQLITE_FULL", cause: "database or disk is full" });
  expect(storage.health.unavailable?.class).toBe("SQLITE_FULL");
  // Nested: the savepoint is gone with the transaction SQLite rolled back; the first error still comes out.
  let nested: unknown;
  try {
    storage.tx(() => storage.tx(() => bigWrite(storage)));
  } catch (e) {
    nested = e;
  }
  expect(String(nested)).toContain("database or disk is full");
  // The connection is not left inside a transaction, and the store is usable once it may grow again.
  expect(await storage.probeWrite(Date.now())).toBe(true); // a one-row write fits in the pages there are
  unfill(storage);
  storage.tx(() => bigWrite(storage));
  expect(storage.health.unavailable).toBeNull();
  storage.close();
});

test("a commit that succeeds marks the store available only once no fault has been met for the settle time", async () => {
  const storage = await fileStorage(60_000);
  fill(storage);
  expect(() => storage.tx(() => bigWrite(storage))).toThrow(/disk is full/);
  // A small write still fits (a nearly full disk): it does not vouch for the next one.
  expect(await storage.probeWrite(Date.now())).toBe(true);
  expect(storage.health.unavailable?.class).toBe("SQLITE_FULL");
  storage.close();
});

test("a store fault is not the message's: no attempt counted, never buried, handled once the store takes writes, one log line", async () => {
  // Small writes (a probe) still fit while the big one does not: the store counts as unavailable all along.
  const storage = await fileStorage(3_600_000);
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const runtime = new ActorRuntime(storage, {
    maxAttempts: 3,
    backoffMs: () => 5,
    storeBackoffMs: () => 5,
    faultLogIntervalMs: 3_600_000,
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
  });
  let tries = 0;
  let handled = 0;
  runtime.register({
    kind: "w",
    initialState: () => ({}),
    handle(ctx) {
      tries++;
      ctx.write(() => bigWrite(storage));
      ctx.write(() => void handled++);
    },
  });
  await runtime.start();
  fill(storage);
  await runtime.tell("w:1", { x: 1 });
  // Far more tries than the three attempts that bury a failing message.
  while (tries < 12) await Bun.sleep(5);
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_dead_letters").get()).toEqual({ n: 0 });
  const row = storage.client.prepare("SELECT attempts FROM actor_messages WHERE actor = 'w:1'").get() as { attempts: number };
  expect(row.attempts).toBe(0);
  unfill(storage);
  while (storage.client.prepare("SELECT count(*) AS n FROM actor_messages WHERE actor = 'w:1'").get()!.n !== 0) await Bun.sleep(5);
  await runtime.idle();
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_dead_letters").get()).toEqual({ n: 0 });
  expect(storage.client.prepare("SELECT count(*) AS n FROM blobs").get()).toEqual({ n: 1 });
  const faults = logs.filter((l) => l.msg === "storage fault");
  expect(faults.length).toBe(1);
  expect(faults[0].fields).toMatchObject({ class: "SQLITE_FULL", cause: "database or disk is full", actor: "w:1", count: 1 });
  expect(logs.filter((l) => l.msg === "actor handler failed; will retry" || l.msg === "actor message parked as dead" || l.msg === "actor runtime fault")).toEqual([]);
  await runtime.stop();
  storage.close();
});

test("an ask the store cannot take is refused at once with StorageUnavailableError saying nothing was recorded", async () => {
  const storage = await fileStorage();
  const runtime = new ActorRuntime(storage, { maxAttempts: 3, backoffMs: () => 5, storeBackoffMs: () => 5 });
  runtime.register({
    kind: "w",
    initialState: () => ({}),
    handle(ctx) {
      ctx.write(() => bigWrite(storage));
      ctx.reply("done");
    },
  });
  await runtime.start();
  fill(storage);
  const refused = await runtime.ask("w:1", {}, { timeoutMs: 30_000 }).catch((e) => e);
  expect(refused).toBeInstanceOf(StorageUnavailableError);
  expect((refused as StorageUnavailableError).queued).toBe(false);
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_messages").get()).toEqual({ n: 0 });
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_dead_letters").get()).toEqual({ n: 0 });
  unfill(storage);
  expect(await runtime.ask("w:1", {})).toBe("done");
  await runtime.stop();
  storage.close();
});

test("store faults are told from faults of the work; the back-off grows, is capped and jittered; one log line per class per interval", () => {
  expect(storeFault(Object.assign(new Error("database or disk is full"), { name: "SQLiteError", code: "SQLITE_FULL", errno: 13 }))?.class).toBe("SQLITE_FULL");
  expect(storeFault(Object.assign(new Error("disk I/O error"), { name: "SQLiteError", code: "SQLITE_IOERR_WRITE", errno: 778 }))?.class).toBe("SQLITE_IOERR");
  expect(storeFault(Object.assign(new Error("database or disk is full"), { code: "ERR_SQLITE_ERROR", errcode: 13 }))?.class).toBe("SQLITE_FULL");
  expect(storeFault(Object.assign(new Error("UNIQUE constraint failed: t.x"), { name: "SQLiteError", code: "SQLITE_CONSTRAINT_UNIQUE", errno: 2067 }))).toBeNull();
  expect(storeFault(Object.assign(new Error("EACCES: permission denied"), { code: "EACCES", errno: -13 }))).toBeNull();
  expect(storeFault(new Error("boom"))).toBeNull();
  expect(storeFault(new Error("wrapped", { cause: Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }) }))?.class).toBe("SQLITE_FULL");

  const mid = () => 0.5;
  expect([1, 2, 3, 4, 5, 6, 7, 8].map((k) => storeBackoffMs(k, 250, 5_000, mid))).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  expect(storeBackoffMs(3, 250, 5_000, () => 0)).toBe(800);
  expect(storeBackoffMs(3, 250, 5_000, () => 0.999999)).toBe(1200);

  let now = 0;
  const lines: Record<string, unknown>[] = [];
  const log = new FaultLog((_l, msg, f) => lines.push({ msg, ...f }), () => now, 10_000);
  for (let i = 0; i < 1000; i++) {
    log.record("error", "storage fault", "SQLITE_FULL", { i });
    now += 25; // 40 a second for 25 s
  }
  log.record("error", "storage fault", "SQLITE_IOERR", {});
  expect(lines.map((l) => [l.class, l.count])).toEqual([
    ["SQLITE_FULL", 1],
    ["SQLITE_FULL", 400],
    ["SQLITE_FULL", 400],
    ["SQLITE_IOERR", 1],
  ]);
});
