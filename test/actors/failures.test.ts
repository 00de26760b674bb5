// A throwing handler is retried with back-off, then parked as dead with its error; ask times out clearly.
import { test, expect, setDefaultTimeout } from "bun:test";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ActorDeadLetterError, ActorTimeoutError } from "../../src/actors/types.ts";
import { decodeEventData } from "../../src/adapters/storage/event-data.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

async function runtimeWith(handle: (ctx: any, msg: any) => void | Promise<void>, opts = {}) {
  const storage = await openStorage(":memory:");
  const runtime = new ActorRuntime(storage, { backoffMs: () => 20, maxAttempts: 3, ...opts });
  await runtime.register({ kind: "t", initialState: () => ({ n: 0 }), handle }).start();
  return { storage, runtime };
}

test("a handler that throws is retried, and its state change and sends are not kept from the failed attempt", async () => {
  let calls = 0;
  const { storage, runtime } = await runtimeWith((ctx, msg) => {
    ctx.state.n++;
    if (ctx.id === "other") return;
    ctx.tell("t:other", { x: 1 });
    calls++;
    if (msg.failTimes >= calls) throw new Error(`boom ${calls}`);
    ctx.reply(ctx.state.n);
  });
  const n = await runtime.ask("t:a", { failTimes: 2 });
  expect(calls).toBe(3);
  expect(n).toBe(1); // two failed attempts left no trace in state
  await runtime.idle();
  const other = storage.client.prepare("SELECT state FROM actor_state WHERE address = 't:other'").get() as { state: string };
  expect(JSON.parse(other.state).n).toBe(1); // one tell survived, from the successful attempt only
  await runtime.stop();
  storage.close();
});

test("after the bound, the message is parked as dead with its error, the ask fails, and later messages proceed", async () => {
  const { storage, runtime } = await runtimeWith((ctx, msg) => {
    if (msg.poison) throw new Error("cannot digest");
    ctx.state.n++;
    ctx.reply(ctx.state.n);
  });
  const poisoned = runtime.ask("t:a", { poison: true });
  const after = runtime.ask("t:a", {});
  await expect(poisoned).rejects.toBeInstanceOf(ActorDeadLetterError);
  await expect(poisoned).rejects.toThrow(/cannot digest/);
  expect(await after).toBe(1);
  const dead = storage.client.prepare("SELECT actor, attempts, last_error, body FROM actor_dead_letters").all();
  expect(dead).toEqual([{ actor: "t:a", attempts: 3, last_error: "Error: cannot digest", body: '{"poison":true}' }]);
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_messages").get()).toEqual({ n: 0 });
  await runtime.stop();
  storage.close();
});

test("the failing head message blocks the actor's later messages until it is retried (order is kept)", async () => {
  const seen: string[] = [];
  let failed = false;
  const { storage, runtime } = await runtimeWith((_ctx, msg) => {
    if (msg.id === "first" && !failed) {
      failed = true;
      throw new Error("transient");
    }
    seen.push(msg.id);
  });
  await runtime.tell("t:a", { id: "first" });
  await runtime.tell("t:a", { id: "second" });
  // Until both have run (a hang guard, the test's timeout): the retry is due 20 ms after the failure, and idle() does
  // not wait for a retry not yet due, so a fixed 100 ms was an assumption about load.
  while (seen.length < 2) await new Promise((r) => setTimeout(r, 10));
  await runtime.idle();
  expect(seen).toEqual(["first", "second"]);
  await runtime.stop();
  storage.close();
});

test("ask without a reply in time fails with a clear timeout error; the message stays durable", async () => {
  const { storage, runtime } = await runtimeWith(async () => {
    await new Promise((r) => setTimeout(r, 200));
  });
  const err = (await runtime.ask("t:slow", {}, { timeoutMs: 30 }).catch((e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(ActorTimeoutError);
  expect(err.message).toBe("ask to t:slow got no reply within 30 ms");
  await new Promise((r) => setTimeout(r, 250));
  await runtime.idle();
  expect(runtime.stats().processed).toBe(1);
  await runtime.stop();
  storage.close();
});

test("events emitted by a handler commit with its state and are numbered in order", async () => {
  const { storage, runtime } = await runtimeWith((ctx, msg) => {
    ctx.emit({ companyId: "c", environment: "test", type: "thing.happened", entityType: "thing", entityId: ctx.id, data: { i: msg.i } });
  });
  for (let i = 0; i < 5; i++) await runtime.tell(`t:${i % 2}`, { i });
  await runtime.idle();
  const rows = storage.client.prepare("SELECT seq, type, entity_id, data, created_at FROM events ORDER BY seq").all() as any[];
  expect(rows.map((r) => JSON.parse(decodeEventData(r.data)).i).sort()).toEqual([0, 1, 2, 3, 4]);
  expect(rows[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await runtime.stop();
  storage.close();
});

test("a checkpoint commits what was recorded so far; a replay of the message knows it (record, then send)", async () => {
  const seen: number[] = [];
  let firstRun = true;
  const { storage, runtime } = await runtimeWith(async (ctx) => {
    seen.push(ctx.checkpoints);
    if (ctx.checkpoints === 0) {
      ctx.state.n = 1;
      ctx.emit({ companyId: "c", environment: "test", type: "attempt.recorded", entityType: "t", entityId: ctx.id, data: {} });
      await ctx.checkpoint();
      if (firstRun) {
        firstRun = false;
        throw new Error("the process died while sending");
      }
    }
    ctx.state.n = ctx.state.n + 10;
  });
  await runtime.tell("t:a", {});
  // Until the replay has run (a hang guard, the test's timeout; the retry is due 20 ms after the failure).
  while (seen.length < 2) await new Promise((r) => setTimeout(r, 10));
  await runtime.idle();
  expect(seen).toEqual([0, 1]); // the replay saw the checkpoint
  const st = storage.client.prepare("SELECT state FROM actor_state WHERE address = 't:a'").get() as { state: string };
  expect(JSON.parse(st.state).n).toBe(11); // checkpointed state kept, then finished
  expect(storage.client.prepare("SELECT count(*) AS n FROM events WHERE type = 'attempt.recorded'").get()).toEqual({ n: 1 });
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_messages").get()).toEqual({ n: 0 });
  await runtime.stop();
  storage.close();
});
