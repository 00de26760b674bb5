// A group commit applies its units in one transaction without savepoints; when one unit fails, the whole batch is
// applied again with a savepoint per unit, so the failing unit alone is refused and every other unit commits once:
// its rows, events and outgoing messages exactly once (nothing recorded twice by the second pass).
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { tempDir } from "../support/tmp.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("one failing unit in a batch: the others commit once each (rows, events, messages); the failing one is retried alone", async () => {
  const storage = await openStorage(join(dir, "group.db"));
  storage.client.exec("CREATE TABLE rows_written (actor TEXT NOT NULL, key TEXT UNIQUE)");
  storage.client.exec("INSERT INTO rows_written (actor, key) VALUES ('seed', 'taken')");
  const runtime = new ActorRuntime(storage, { concurrency: 64, maxAttempts: 5, backoffMs: () => 5 });
  const followUps: string[] = [];
  let attemptsOfTaken = 0;
  const handled = new Map<string, number>();
  const writer: ActorKind<{ n: number }, { key: string }> = {
    kind: "writer",
    initialState: () => ({ n: 0 }),
    handle(ctx, msg) {
      handled.set(ctx.address, (handled.get(ctx.address) ?? 0) + 1);
      ctx.state.n++;
      // The unit of "writer:3" is refused by the unique index on its first attempt (the seed row holds its key); its
      // retry writes another key and commits.
      const key = msg.key === "taken" && attemptsOfTaken++ > 0 ? "k3" : msg.key;
      ctx.write(() => storage.stmt("INSERT INTO rows_written (actor, key) VALUES (?, ?)").run(ctx.address, key));
      ctx.emit({ companyId: "cmp_t", environment: "test", type: "test.written", entityType: "row", entityId: ctx.address, data: { key } });
      ctx.tell(`follow:${ctx.id}`, { from: ctx.address });
    },
  };
  const follow: ActorKind<Record<string, never>, { from: string }> = {
    kind: "follow",
    initialState: () => ({}),
    handle(_ctx, msg) {
      followUps.push(msg.from);
    },
  };
  runtime.register(writer);
  runtime.register(follow);
  await runtime.start();
  // Ten tells in one turn: their handlers finish together and their commits share group commits.
  await Promise.all(Array.from({ length: 10 }, (_, i) => runtime.tell(`writer:${i}`, { key: i === 3 ? "taken" : `k${i}` })));
  // The retry waits out its back-off: wait (hang guard only) until every message is acknowledged.
  for (;;) {
    await runtime.idle();
    if ((storage.client.prepare("SELECT count(*) AS n FROM actor_messages").get() as { n: number }).n === 0) break;
    await Bun.sleep(10);
  }
  expect(attemptsOfTaken).toBe(2);
  // Only the refused unit ran again: the other nine committed from the same batch, each handled once.
  expect([...handled.entries()].sort()).toEqual(Array.from({ length: 10 }, (_, i) => [`writer:${i}`, i === 3 ? 2 : 1]));
  const rows = storage.client.prepare("SELECT actor, key FROM rows_written ORDER BY actor").all() as { actor: string; key: string }[];
  expect(rows.map((r) => r.actor)).toEqual(["seed", ...Array.from({ length: 10 }, (_, i) => `writer:${i}`)]);
  const events = storage.client.prepare("SELECT entity_id FROM events WHERE type = 'test.written' ORDER BY entity_id").all() as { entity_id: string }[];
  expect(events.map((e) => e.entity_id)).toEqual(Array.from({ length: 10 }, (_, i) => `writer:${i}`));
  expect(followUps.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `writer:${i}`));
  const states = storage.client.prepare("SELECT count(*) AS n FROM actor_state WHERE address LIKE 'writer:%'").get() as { n: number };
  expect(states.n).toBe(10);
  // Each writer handled its message once (state n = 1): the retried one's first attempt left no state.
  const ns = (storage.client.prepare("SELECT state FROM actor_state WHERE address LIKE 'writer:%'").all() as { state: string }[]).map((r) => JSON.parse(r.state).n);
  expect(ns).toEqual(Array(10).fill(1));
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_messages").get()).toEqual({ n: 0 });
  expect(storage.client.prepare("SELECT count(*) AS n FROM actor_dead_letters").get()).toEqual({ n: 0 });
  await runtime.stop();
  storage.close();
});
