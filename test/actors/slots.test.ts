// Issue 19 (bench/screening.ts finding): handlers that wait on another kind's actor must not starve that kind.
// Each actor kind has its own pool of `concurrency` slots, so a small bound and many waiting handlers still leave
// the asked kind slots to answer with.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("handlers of one kind asking another kind, more of them than the concurrency bound, all get their answers", async () => {
  const storage = await openStorage(join(dir, "slots.db"));
  storage.client.exec("CREATE TABLE answered (actor TEXT NOT NULL, permit INTEGER NOT NULL)");
  const runtime = new ActorRuntime(storage, { concurrency: 2, maxAttempts: 1 });
  // The service actor (a connection's `permit`): an asynchronous handler, holding its kind's slot while it awaits.
  let permits = 0;
  const service: ActorKind<Record<string, never>, { type: "permit" }> = {
    kind: "service",
    initialState: () => ({}),
    async handle(ctx) {
      await Promise.resolve();
      ctx.reply(++permits);
    },
  };
  // The waiter (a transfer): holds its slot while it waits for the service's answer.
  const waiter: ActorKind<Record<string, never>, { go: true }> = {
    kind: "waiter",
    initialState: () => ({}),
    async handle(ctx) {
      const permit = await runtime.ask<number>("service:one", { type: "permit" }, { timeoutMs: 5_000 });
      ctx.write(() => storage.stmt("INSERT INTO answered (actor, permit) VALUES (?, ?)").run(ctx.address, permit));
    },
  };
  await runtime.register(service).register(waiter).start();
  // Ten waiters at once against a bound of 2: with one pool for every kind the two running waiters hold both slots,
  // the service's messages get none, every ask times out and each waiter ends as a dead letter.
  await Promise.all(Array.from({ length: 10 }, (_, i) => runtime.tell(`waiter:${i}`, { go: true })));
  await runtime.idle();
  const rows = storage.client.prepare("SELECT actor, permit FROM answered ORDER BY permit").all() as { actor: string; permit: number }[];
  expect(rows.length).toBe(10);
  expect(rows.map((r) => r.permit)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(storage.client.prepare("SELECT count(*) AS c FROM actor_dead_letters").get()).toEqual({ c: 0 });
  expect(runtime.failures).toBe(0);
  await runtime.stop();
  storage.close();
});

test("each kind still runs at most `concurrency` handlers at once", async () => {
  const storage = await openStorage(join(dir, "bound.db"));
  const runtime = new ActorRuntime(storage, { concurrency: 3 });
  const peak = new Map<string, number>();
  const now = new Map<string, number>();
  const gate: { open?: () => void; opened: Promise<void> } = { opened: Promise.resolve() };
  gate.opened = new Promise<void>((r) => (gate.open = r));
  const kind = (name: string): ActorKind<Record<string, never>, unknown> => ({
    kind: name,
    initialState: () => ({}),
    async handle() {
      now.set(name, (now.get(name) ?? 0) + 1);
      peak.set(name, Math.max(peak.get(name) ?? 0, now.get(name)!));
      await gate.opened;
      now.set(name, now.get(name)! - 1);
    },
  });
  await runtime.register(kind("a")).register(kind("b")).start();
  await Promise.all(Array.from({ length: 8 }, (_, i) => Promise.all([runtime.tell(`a:${i}`, {}), runtime.tell(`b:${i}`, {})])));
  // Let the runtime start what it may, then release everything.
  while ((now.get("a") ?? 0) + (now.get("b") ?? 0) < 6) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50)); // nothing more may start while both pools are full
  expect(runtime.stats().inflight).toBe(6);
  gate.open!();
  await runtime.idle();
  expect(peak.get("a")).toBe(3);
  expect(peak.get("b")).toBe(3);
  expect(runtime.processed).toBe(16);
  await runtime.stop();
  storage.close();
});
