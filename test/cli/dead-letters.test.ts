// `caravan dead-letters list|replay`: an operator sees the messages parked after their last attempt (never their
// sealed body) and puts one back in its actor's mailbox, where the runtime handles it as a new message.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ActorDeadLetterError } from "../../src/actors/types.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { tempDir } from "../support/tmp.ts";
import { runCli } from "../support/server.ts";

// Child processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("dead letters are listed without their body, replayed into their actor's mailbox, and handled once the fault is gone", async () => {
  const db = join(dir, "dead-letters.db");
  const sealer = new Sealer(crypto.getRandomValues(new Uint8Array(32)));
  let fixed = false;
  const handled: unknown[] = [];
  const start = async () => {
    const storage = await openStorage(db);
    const runtime = new ActorRuntime(storage, { maxAttempts: 2, backoffMs: () => 5, pollMs: 20, sealer });
    runtime.register({
      kind: "t",
      initialState: () => ({}),
      handle(ctx, msg: { secret: string }) {
        if (!fixed) throw new Error("cannot digest it");
        handled.push(msg);
        ctx.reply("ok");
      },
    });
    await runtime.start();
    return { storage, runtime };
  };
  let { storage, runtime } = await start();
  await expect(runtime.ask("t:a", { secret: "Jane van Dyke" })).rejects.toBeInstanceOf(ActorDeadLetterError);
  await runtime.tell("t:b", { secret: "John Doe" });
  await runtime.idle();
  while ((storage.client.prepare("SELECT count(*) AS n FROM actor_dead_letters").get() as { n: number }).n < 2) await Bun.sleep(10);
  await runtime.stop();
  storage.close();

  const env = { CARAVAN_DB: db };
  const list = await runCli(["dead-letters", "list", "--json"], env);
  expect(list.code).toBe(0);
  const rows = JSON.parse(list.stdout.trim().split("\n").at(-1)!);
  expect(rows.map((r: any) => [r.actor, r.attempts, r.lastError])).toEqual([
    ["t:a", 2, "Error: cannot digest it"],
    ["t:b", 2, "Error: cannot digest it"],
  ]);
  for (const r of rows) expect(r.diedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(list.stdout).not.toContain("Jane");
  const text = await runCli(["dead-letters", "list", "--actor", "t:b"], env);
  expect(text.stdout).toContain("t:b  2 attempts");
  expect(text.stdout).not.toContain("t:a");

  const missing = await runCli(["dead-letters", "replay", "--id", "999999"], env);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("no dead letter with id 999999");

  // The fault is fixed (a new version, say); the server runs again and the operator replays one of them.
  fixed = true;
  ({ storage, runtime } = await start());
  const replay = await runCli(["dead-letters", "replay", "--id", String(rows[0].id), "--json"], env);
  expect(replay.code).toBe(0);
  expect(JSON.parse(replay.stdout.trim()).replayed.map((r: any) => r.id)).toEqual([rows[0].id]);
  while (handled.length < 1) await Bun.sleep(10);
  expect(handled).toEqual([{ secret: "Jane van Dyke" }]);
  const left = await runCli(["dead-letters", "list", "--json"], env);
  expect(JSON.parse(left.stdout.trim()).map((r: any) => r.actor)).toEqual(["t:b"]);
  const all = await runCli(["dead-letters", "replay", "--all"], env);
  expect(all.stdout).toContain("Replayed 1 dead letter");
  while (handled.length < 2) await Bun.sleep(10);
  expect(handled[1]).toEqual({ secret: "John Doe" });
  expect((await runCli(["dead-letters", "list"], env)).stdout).toContain("No dead letters.");
  await runtime.stop();
  storage.close();
});
