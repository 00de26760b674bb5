// The SQLite engine's connection gate (src/adapters/storage/gate.ts): one connection, many asynchronous callers. A unit
// of work holds the connection across its awaits; calls from other flows wait, in order, and never see or join what it
// has not committed.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { tempDir } from "../support/tmp.ts";
import { settledValue, thenNow } from "../../src/ports/settled.ts";

let s: Storage;
beforeAll(async () => {
  s = await openStorage(join(tempDir(), "gate.db"));
  s.client.exec("CREATE TABLE probe (n INTEGER NOT NULL)");
});
afterAll(() => s.close());

const count = () => (s.stmt("SELECT count(*) AS n FROM probe").get() as { n: number }).n;
const insert = (n: number) => s.run(() => void s.stmt("INSERT INTO probe (n) VALUES (?)").run(n));
const tick = () => new Promise((r) => setTimeout(r, 1));

test("a read from another flow waits for an open transaction and never sees its uncommitted rows", async () => {
  const before = count();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tx = s.transaction(async () => {
    await insert(1);
    await gate; // the unit stays open across a real wait (a test's, never the network's)
    await insert(2);
  });
  await tick();
  const seen = s.run(count); // another flow: queued behind the unit
  let answered: number | undefined;
  void seen.then((n) => (answered = n));
  await tick();
  expect(answered).toBeUndefined();
  release();
  await tx;
  expect(await seen).toBe(before + 2); // after the commit, both rows
});

test("a failed transaction leaves nothing, and a waiting call runs after its rollback", async () => {
  const before = count();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tx = s.transaction(async () => {
    await insert(3);
    await gate;
    throw new Error("refused");
  });
  await tick();
  const seen = s.run(count);
  release();
  await expect(tx).rejects.toThrow("refused");
  expect(await seen).toBe(before);
});

test("waiting calls are served in order, each handed the connection as the one before lets go: nothing slips in", async () => {
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const first = s.transaction(async () => {
    order.push("first:begin");
    await gate;
    order.push("first:end");
  });
  await tick();
  const read = s.run(() => order.push("read"));
  const second = s.transaction(async () => {
    order.push("second:begin");
    await insert(4); // inside its own unit: goes straight through
    order.push("second:end");
  });
  const late = s.run(() => order.push("late"));
  release();
  await Promise.all([first, read, second, late]);
  expect(order).toEqual(["first:begin", "first:end", "read", "second:begin", "second:end", "late"]);
});

test("a synchronous transaction started by another flow while a unit holds the connection is refused, not joined", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tx = s.transaction(async () => {
    await gate;
  });
  await tick();
  expect(() => s.tx(() => s.stmt("INSERT INTO probe (n) VALUES (5)").run())).toThrow("another unit of work holds the connection");
  release();
  await tx;
});

test("a read turn waits for an open unit of work and reads what it committed, never what it has not", async () => {
  const before = count();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tx = s.transaction(async () => {
    await insert(6);
    await gate;
  });
  await tick();
  const turn = s.readTurn(() => count()); // queued behind the unit: a promise, not the uncommitted count
  expect(turn).toBeInstanceOf(Promise);
  release();
  await tx;
  expect(await turn).toBe(before + 1);
  expect(s.readTurn(() => count())).toBe(before + 1); // nothing held: answered at once, synchronously
});

test("a call that runs at once answers a promise carrying its value; one that had to wait carries none, and both resolve alike", async () => {
  const now = s.run(() => count());
  expect(settledValue(now)).toEqual({ value: count() });
  let release!: () => void;
  const unit = s.transaction(() => new Promise<void>((r) => (release = r)));
  const waited = s.run(() => count());
  expect(settledValue(waited)).toBeUndefined();
  release();
  await unit;
  expect(await waited).toBe(await now);
  // thenNow: the function runs in the same turn on a carried value, after the promise otherwise.
  let ran = false;
  const out = thenNow(s.run(() => 41), (v) => ((ran = true), v + 1));
  expect(ran).toBe(true);
  expect(out).toBe(42);
  const later = thenNow(Promise.resolve(1), (v) => v + 1);
  expect(later).toBeInstanceOf(Promise);
  expect(await later).toBe(2);
  // A failure is a rejection as before, never a carried value.
  const failed = s.run(() => {
    throw new Error("no such table");
  });
  expect(settledValue(failed)).toBeUndefined();
  await expect(failed).rejects.toThrow("no such table");
});
