// Shutdown: stop takes no new messages, lets in-flight handlers finish and commit, keeps the rest durable.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("stop waits for the in-flight handler to commit; unstarted messages stay queued for the next start", async () => {
  const path = join(dir, "shutdown.db");
  const storage = await openStorage(path);
  const runtime = new ActorRuntime(storage, { concurrency: 1 });
  let started = 0;
  await runtime
    .register<{ n: number }, null>({
      kind: "slow",
      initialState: () => ({ n: 0 }),
      async handle(ctx) {
        started++;
        await new Promise((r) => setTimeout(r, 300));
        ctx.state.n++;
      },
    })
    .start();
  await runtime.tell("slow:a", null);
  await runtime.tell("slow:b", null);
  // Until the first handler runs (a hang guard, the test's timeout; a fixed 50 ms was an assumption about load).
  while (started === 0) await new Promise((r) => setTimeout(r, 5));
  expect(started).toBe(1);
  await runtime.stop();
  expect(started).toBe(1); // nothing new began after stop
  const a = storage.client.prepare("SELECT state FROM actor_state WHERE address = 'slow:a'").get() as { state: string };
  expect(JSON.parse(a.state)).toEqual({ n: 1 }); // the in-flight one committed
  const left = storage.client.prepare("SELECT actor FROM actor_messages").all();
  expect(left).toEqual([{ actor: "slow:b" }]);
  storage.close();
});
