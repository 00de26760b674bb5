// Issue 19: an ask to an idle actor (its handler synchronous or awaiting the store) skips the mailbox row (its effects and the reply
// commit together); it never overtakes a message already on its way to the actor; a failing handler or commit is
// retried with back-off while the actor waits (nothing overtakes it), then answered or parked as dead, as before.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ActorDeadLetterError, type ActorKind } from "../../src/actors/types.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

/** A runtime whose mailbox inserts are counted (an inline ask makes none). */
/** The database of the test under way: the counter kind's writes go to it. */
let db: Storage;

async function setup(name: string, kind: ActorKind<any, any>, opts: { maxAttempts?: number } = {}) {
  const storage = await openStorage(join(dir, `${name}.db`));
  db = storage;
  storage.client.exec("CREATE TABLE applied (actor TEXT NOT NULL, n INTEGER NOT NULL)");
  const runtime = new ActorRuntime(storage, { concurrency: 8, maxAttempts: opts.maxAttempts ?? 3, backoffMs: () => 5 });
  const inserts = { n: 0 };
  const insert = runtime.mailbox.insert.bind(runtime.mailbox);
  runtime.mailbox.insert = (...a: Parameters<typeof insert>) => {
    inserts.n++;
    return insert(...a);
  };
  await runtime.register(kind).start();
  return { storage, runtime, inserts };
}

const counter: ActorKind<{ last: number }, { n: number; fail?: number }> = {
  kind: "counter",
  initialState: () => ({ last: 0 }),
  handle(ctx, msg) {
    if (msg.fail && ctx.state.last + 1 === msg.n && failures.get(`${ctx.address}:${msg.n}`)! < msg.fail) {
      failures.set(`${ctx.address}:${msg.n}`, failures.get(`${ctx.address}:${msg.n}`)! + 1);
      throw new Error(`planned failure of ${msg.n}`);
    }
    if (msg.n !== ctx.state.last + 1) throw new Error(`out of order: ${msg.n} after ${ctx.state.last}`);
    ctx.state.last = msg.n;
    ctx.write(() => db.stmt("INSERT INTO applied (actor, n) VALUES (?, ?)").run(ctx.address, msg.n));
    ctx.reply({ applied: msg.n });
  },
};
const failures = new Map<string, number>();

test("an ask to an idle actor is handled without a mailbox row; its writes, state and reply are committed", async () => {
  const { storage, runtime, inserts } = await setup("inline", counter);
  for (let n = 1; n <= 20; n++) expect(await runtime.ask("counter:a", { n })).toEqual({ applied: n });
  expect(inserts.n).toBe(0);
  expect(storage.client.prepare("SELECT count(*) AS c FROM applied WHERE actor = 'counter:a'").get()).toEqual({ c: 20 });
  expect(storage.client.prepare("SELECT count(*) AS c FROM actor_messages").get()).toEqual({ c: 0 });
  expect(JSON.parse((storage.client.prepare("SELECT state FROM actor_state WHERE address = 'counter:a'").get() as { state: string }).state)).toEqual({ last: 20 });
  await runtime.stop();
  storage.close();
});

test("an ask never overtakes tells sent before it that are not yet committed, nor messages queued for the actor", async () => {
  const { storage, runtime, inserts } = await setup("order", counter);
  const sent: Promise<unknown>[] = [];
  let n = 0;
  for (let round = 0; round < 50; round++) {
    // Tells (durable, still in the group commit) then an ask, without waiting in between.
    for (let i = 0; i < 3; i++) sent.push(runtime.tell("counter:b", { n: ++n }));
    sent.push(runtime.ask("counter:b", { n: ++n }));
  }
  const answers = await Promise.all(sent);
  expect(answers.filter((a) => typeof a === "object")).toEqual(Array.from({ length: 50 }, (_, i) => ({ applied: (i + 1) * 4 })));
  await runtime.idle();
  const applied = (storage.client.prepare("SELECT n FROM applied WHERE actor = 'counter:b' ORDER BY rowid").all() as { n: number }[]).map((r) => r.n);
  expect(applied).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  expect(inserts.n).toBeGreaterThanOrEqual(150); // the tells went through the mailbox
  await runtime.stop();
  storage.close();
});

test("a handler that throws on an inline ask is retried with back-off, before anything queued behind it, and answered", async () => {
  const { storage, runtime } = await setup("retry", counter);
  failures.set("counter:c:1", 0);
  const first = runtime.ask("counter:c", { n: 1, fail: 2 });
  // Sent while the first is failing: it must wait for it (its n would be out of order otherwise).
  const second = runtime.ask("counter:c", { n: 2 });
  expect(await first).toEqual({ applied: 1 });
  expect(await second).toEqual({ applied: 2 });
  expect(failures.get("counter:c:1")).toBe(2);
  expect(await runtime.ask("counter:c", { n: 3 })).toEqual({ applied: 3 });
  expect((storage.client.prepare("SELECT n FROM applied WHERE actor = 'counter:c' ORDER BY rowid").all() as { n: number }[]).map((r) => r.n)).toEqual([1, 2, 3]);
  expect(storage.client.prepare("SELECT count(*) AS c FROM actor_messages").get()).toEqual({ c: 0 });
  await runtime.stop();
  storage.close();
});

test("a handler that always throws ends as a dead letter and the ask is refused with ActorDeadLetterError", async () => {
  const { storage, runtime } = await setup("dead", counter, { maxAttempts: 2 });
  failures.set("counter:d:1", 0);
  await expect(runtime.ask("counter:d", { n: 1, fail: 100 })).rejects.toBeInstanceOf(ActorDeadLetterError);
  expect(storage.client.prepare("SELECT count(*) AS c FROM actor_dead_letters").get()).toEqual({ c: 1 });
  await runtime.stop();
  storage.close();
});

test("an ask to a kind with an async handler (one that awaits the store) is answered inline too: no mailbox row", async () => {
  const kind: ActorKind<null, { n: number }> = {
    kind: "slow",
    initialState: () => null,
    async handle(ctx, msg) {
      await Promise.resolve();
      ctx.reply(msg.n * 2);
    },
  };
  const { storage, runtime, inserts } = await setup("async", kind);
  expect(await runtime.ask("slow:x", { n: 21 })).toBe(42);
  expect(inserts.n).toBe(0);
  await runtime.stop();
  storage.close();
});

test("a commit refused by a unique index (two actors racing on one key) is retried, and the retry sees the winner", async () => {
  const kind: ActorKind<Record<string, never>, { key: string }> = {
    kind: "claimer",
    initialState: () => ({}),
    handle(ctx, msg) {
      const won = storage.stmt("SELECT actor FROM claims WHERE key = ?").get(msg.key) as { actor: string } | null;
      if (won) return ctx.reply({ winner: won.actor, mine: false });
      ctx.write(() => storage.stmt("INSERT INTO claims (key, actor) VALUES (?, ?)").run(msg.key, ctx.address));
      ctx.reply({ winner: ctx.address, mine: true });
    },
  };
  const { storage, runtime } = await setup("claims", kind);
  storage.client.exec("CREATE TABLE claims (key TEXT PRIMARY KEY, actor TEXT NOT NULL)");
  // Both handlers run before either commits: one commit is refused, then retried and answered with the winner.
  const answers = (await Promise.all(Array.from({ length: 6 }, (_, i) => runtime.ask(`claimer:${i}`, { key: "k" })))) as { winner: string; mine: boolean }[];
  const winners = new Set(answers.map((a) => a.winner));
  expect(winners.size).toBe(1);
  expect(answers.filter((a) => a.mine).length).toBe(1);
  expect(storage.client.prepare("SELECT count(*) AS c FROM actor_dead_letters").get()).toEqual({ c: 0 });
  await runtime.stop();
  storage.close();
});
