// tell with a due time: one-shot timers that fire no earlier than due and within a second after.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("due-time messages fire no earlier than due and within a second after", async () => {
  const storage = await openStorage(join(dir, "timers.db"));
  const runtime = new ActorRuntime(storage);
  const fired: { due: number; at: number }[] = [];
  await runtime
    .register<null, { due: number }>({
      kind: "timer",
      initialState: () => null,
      handle: (ctx, msg) => void fired.push({ due: msg.due, at: ctx.now }),
    })
    .start();
  const base = Date.now();
  const delays = [50, 300, 120, 700, 10, 450, 900, 200];
  await Promise.all(
    delays.map((d, i) => {
      const due = base + d;
      return runtime.tell(`timer:${i % 3}`, { due }, { dueAt: due });
    }),
  );
  // Until every one has fired (a hang guard, the test's timeout): a fixed wait of 1.5 s for a last due time of 0.9 s
  // would fail a message 0.7 s late on a loaded machine, which the rule below allows.
  while (fired.length < delays.length) await Bun.sleep(10);
  await runtime.idle();
  expect(fired.length).toBe(delays.length);
  for (const f of fired) {
    expect(f.at).toBeGreaterThanOrEqual(f.due);
    expect(f.at - f.due).toBeLessThan(1000);
  }
  await runtime.stop();
  storage.close();
});

test("a due-time message survives a restart and fires after it", async () => {
  const path = join(dir, "restart.db");
  let storage = await openStorage(path);
  let runtime = new ActorRuntime(storage);
  const kind = (sink: number[]) => ({
    kind: "timer",
    initialState: () => null,
    handle: (ctx: { now: number }) => void sink.push(ctx.now),
  });
  await runtime.register(kind([])).start();
  const due = Date.now() + 400;
  await runtime.tell("timer:a", {}, { dueAt: due });
  await runtime.stop();
  storage.close();

  storage = await openStorage(path);
  runtime = new ActorRuntime(storage);
  const fired: number[] = [];
  await runtime.register(kind(fired)).start();
  // Until it has fired (a hang guard, the test's timeout), not a fixed 0.9 s: reopening the database on a loaded
  // machine may take longer than the 0.4 s left.
  while (fired.length === 0) await Bun.sleep(10);
  await runtime.idle();
  expect(fired.length).toBe(1);
  expect(fired[0]).toBeGreaterThanOrEqual(due);
  await runtime.stop();
  storage.close();
});

test("a sweep registered with a cron expression runs periodically", async () => {
  const storage = await openStorage(":memory:");
  const runtime = new ActorRuntime(storage);
  await runtime.start();
  let runs = 0;
  runtime.sweep("tick", "* * * * * *", () => void runs++);
  // Two runs, however long the machine takes to schedule them (a hang guard, the test's timeout; a fixed 2.3 s was
  // an assumption about load).
  while (runs < 2) await Bun.sleep(10);
  expect(runs).toBeGreaterThanOrEqual(2);
  await runtime.stop();
  const after = runs;
  await new Promise((r) => setTimeout(r, 1100));
  expect(runs).toBe(after); // stopped sweeps do not run
  storage.close();
});
