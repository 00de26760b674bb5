// Part of the foundation: one message at a time per actor, in order; many actors at once.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("per-actor order holds for thousands of messages over hundreds of actors sent concurrently", async () => {
  const storage = await openStorage(join(dir, "order.db"));
  const runtime = new ActorRuntime(storage, { concurrency: 32 });
  let concurrentMax = 0;
  let running = 0;
  const busy = new Set<string>();
  const overlaps: string[] = [];
  const kind: ActorKind<{ seen: number[] }, { sender: number; n: number }> = {
    kind: "seq",
    initialState: () => ({ seen: [] }),
    async handle(ctx, msg) {
      if (busy.has(ctx.address)) overlaps.push(ctx.address);
      busy.add(ctx.address);
      running++;
      concurrentMax = Math.max(concurrentMax, running);
      if (msg.n % 7 === 0) await new Promise((r) => setTimeout(r, 0)); // yield mid-handler sometimes
      ctx.state.seen.push(msg.sender * 1_000_000 + msg.n);
      running--;
      busy.delete(ctx.address);
    },
  };
  await runtime.register(kind).start();

  const actors = 300;
  const senders = 10;
  const perSender = 20; // 300 actors × 10 senders × 20 = 60,000 messages
  await Promise.all(
    Array.from({ length: senders }, async (_, sender) => {
      for (let n = 0; n < perSender; n++) {
        await Promise.all(Array.from({ length: actors }, (_, a) => runtime.tell(`seq:${a}`, { sender, n })));
      }
    }),
  );
  await runtime.idle();

  expect(overlaps).toEqual([]);
  expect(concurrentMax).toBeGreaterThan(1);
  const rows = storage.client.prepare("SELECT address, state FROM actor_state").all() as { address: string; state: string }[];
  expect(rows.length).toBe(actors);
  for (const row of rows) {
    const seen: number[] = JSON.parse(row.state).seen;
    expect(seen.length).toBe(senders * perSender);
    // Each sender's messages arrive in the order that sender's tells committed.
    for (let s = 0; s < senders; s++) {
      const mine = seen.filter((v) => Math.floor(v / 1_000_000) === s).map((v) => v % 1_000_000);
      expect(mine).toEqual(Array.from({ length: perSender }, (_, i) => i));
    }
  }
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_messages").get()).toEqual({ n: 0 });
  await runtime.stop();
  storage.close();
});

test("messages to one actor are handled strictly in mailbox order, one at a time", async () => {
  const storage = await openStorage(":memory:");
  const runtime = new ActorRuntime(storage, { concurrency: 16 });
  const seen: number[] = [];
  let inside = 0;
  let maxInside = 0;
  await runtime
    .register<null, { i: number }>({
      kind: "one",
      initialState: () => null,
      async handle(_ctx, msg) {
        inside++;
        maxInside = Math.max(maxInside, inside);
        await new Promise((r) => setTimeout(r, msg.i % 3));
        seen.push(msg.i);
        inside--;
      },
    })
    .start();
  for (let i = 0; i < 200; i++) void runtime.tell("one:x", { i });
  await new Promise((r) => setTimeout(r, 10));
  await runtime.idle();
  expect(maxInside).toBe(1);
  expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i));
  await runtime.stop();
  storage.close();
});
