// Idle actors are passivated: touching 100,000 distinct actors does not keep 100,000 in memory.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("memory stays bounded: 100,000 distinct actors touched, at most maxResident kept", async () => {
  const storage = await openStorage(join(dir, "passivate.db"));
  const runtime = new ActorRuntime(storage, { maxResident: 2000 });
  let peak = 0;
  await runtime
    .register<{ n: number }, null>({
      kind: "p",
      initialState: () => ({ n: 0 }),
      handle(ctx) {
        ctx.state.n++;
        peak = Math.max(peak, runtime.stats().resident);
      },
    })
    .start();
  const total = 100_000;
  for (let start = 0; start < total; start += 10_000) {
    await Promise.all(Array.from({ length: 10_000 }, (_, i) => runtime.tell(`p:${start + i}`, null)));
  }
  await runtime.idle();
  expect(runtime.stats().processed).toBe(total);
  expect(peak).toBeLessThanOrEqual(2000);
  expect(runtime.stats().resident).toBeLessThanOrEqual(2000);
  expect(runtime.stats().queued).toBe(0);
  // Passivated actors come back with their state.
  await runtime.tell("p:7", null);
  await runtime.idle();
  const row = storage.client.prepare("SELECT state FROM actor_state WHERE address = 'p:7'").get() as { state: string };
  expect(JSON.parse(row.state)).toEqual({ n: 2 });
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_state").get()).toEqual({ n: total });
  await runtime.stop();
  storage.close();
}, 120_000);
