// The actor runtime itself on PostgreSQL: an ActorRuntime built over a PostgreSQL session's runtime store (the engine's
// mailbox), as the service builds it over SQLite. Asks answered, tells group-committed with their events and sealed
// state, messages left pending by a stop (or put in the mailbox by another process, as the CLI does) handled exactly
// once after a restart, and another session's inserts picked up while the runtime runs. Real PostgreSQL
// (test/support/postgres.ts), real sealing.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { openPostgres, createPgRepositories, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { startPostgres } from "../support/postgres.ts";

// A hang guard on a shared 2-core machine, not a timing assertion.
setDefaultTimeout(120_000);

const COMPANY = "cmp_pg_runtime";
const HOUR = 3_600_000;

interface Tally {
  seen: number[];
}

/** Counts what it is told: each message's number once in its state, an event per message, the tally as the reply. */
const tally: ActorKind<Tally, { i: number }> = {
  kind: "tally",
  initialState: () => ({ seen: [] }),
  handle(ctx, msg) {
    ctx.state.seen.push(msg.i);
    ctx.emit({ companyId: COMPANY, environment: "test", type: "tally.counted", entityType: "tally", entityId: ctx.id, data: { i: msg.i, owner: "Ola Nordmann", note: "counted by the tally actor, on PostgreSQL" } });
    ctx.reply({ seen: ctx.state.seen });
  },
};

/** Passes each message on to a tally (a handler's outgoing message commits with its acknowledgement). */
const relay: ActorKind<null, { to: string; i: number }> = {
  kind: "relay",
  initialState: () => null,
  handle(ctx, msg) {
    ctx.tell(`tally:${msg.to}`, { i: msg.i });
    ctx.reply("passed");
  },
};

let url: string;
const key = randomBytes(32);
let offset = 0;
const clock = () => Date.now() + offset;
const open: PgSession[] = [];

async function session(): Promise<PgSession> {
  const s = await openPostgres(url, { readers: 2 });
  open.push(s);
  return s;
}

function runtime(s: PgSession, o: { compactEvents?: boolean } = {}): ActorRuntime {
  return new ActorRuntime(s, { clock, sealer: new Sealer(key), pollMs: 50, compactEvents: o.compactEvents }).register(tally).register(relay);
}

const stateOf = async (r: ActorRuntime, id: string) => ((await r.ask(`tally:${id}`, { i: -1 })) as Tally).seen.filter((i) => i !== -1);

beforeAll(async () => {
  url = await (await startPostgres()).createDatabase();
});

afterAll(async () => {
  for (const s of open) await s.close();
});

test("asks are answered, tells commit with their events and sealed state, a relay's messages arrive", async () => {
  const s = await session();
  const r = runtime(s);
  await r.start();
  expect(await r.ask("tally:a", { i: 1 })).toEqual({ seen: [1] });
  expect(await r.ask("tally:a", { i: 2 })).toEqual({ seen: [1, 2] });
  // Many at once: group commits of several units each.
  await Promise.all(Array.from({ length: 40 }, (_, k) => r.tell(`tally:${k % 4}`, { i: 100 + k })));
  expect(await r.ask("relay:x", { to: "b", i: 7 })).toBe("passed");
  await r.idle();
  for (let k = 0; k < 4; k++) expect((await stateOf(r, String(k))).sort()).toEqual(Array.from({ length: 10 }, (_, j) => 100 + k + 4 * j).sort());
  expect(await stateOf(r, "b")).toEqual([7]);
  await r.stop();

  // The mailbox is empty; the state is sealed at rest.
  const rt = s.runtimeStore();
  expect(await rt.pendingAfter(0, 100)).toEqual([]);
  const stored = await s.read<{ state: string }>("SELECT state FROM actor_state WHERE address = 'tally:a'");
  expect(stored[0]!.state.startsWith("v1:")).toBe(true);
  expect(JSON.parse(new Sealer(key).open(stored[0]!.state, "state:tally:a"))).toEqual({ seen: [1, 2] });

  // One event per message handled, in seq order, their data as written.
  const events = createPgRepositories(s, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock }).events;
  const page = await events.tenantPage(COMPANY, "test", 0, await events.newestSeq(), 1000);
  const counted = page.map((e) => JSON.parse(e.dataJson) as { i: number }).filter((d) => d.i !== -1);
  expect(counted.length).toBe(2 + 40 + 1);
  expect(page.map((e) => e.seq)).toEqual([...page.map((e) => e.seq)].sort((x, y) => x - y));
  expect(new Set(page.map((e) => e.seq)).size).toBe(page.length);
});

test("after a restart, what was pending is handled once: due-time messages, tells sent while stopped, another process's inserts", async () => {
  let s = await session();
  let r = runtime(s);
  await r.start();
  const due = clock() + HOUR;
  const later = await Promise.all([201, 202, 203].map((i) => r.tell("tally:later", { i }, { dueAt: due })));
  expect(await r.ask("tally:later", { i: 200 })).toEqual({ seen: [200] });
  await r.stop();
  // Durable while stopped: handled after the next start.
  await r.tell("tally:later", { i: 204 });
  // Another process (the CLI on the same database): a runtime that never starts, on a session of its own.
  const other = runtime(await session());
  await other.tell("tally:later", { i: 205 });
  const pending = await s.runtimeStore().pendingAfter(0, 100);
  expect(pending.map((m) => m.id)).toEqual(expect.arrayContaining(later));
  expect(pending.length).toBe(5);
  // Their bodies sealed at rest.
  expect((await s.read<{ body: string }>("SELECT body FROM actor_messages")).every((m) => m.body.startsWith("v1:"))).toBe(true);
  await s.close();

  // The restart: a new session and runtime, an hour and more later (the due time has passed), events written compactly.
  offset = 2 * HOUR;
  s = await session();
  r = runtime(s, { compactEvents: true });
  await r.start();
  await r.idle();
  expect((await stateOf(r, "later")).sort()).toEqual([200, 201, 202, 203, 204, 205]);
  expect(await s.runtimeStore().pendingAfter(0, 100)).toEqual([]);

  // While it runs, another session's insert is picked up by the poll and handled once.
  await other.tell("tally:later", { i: 206 });
  for (;;) {
    const seen = await stateOf(r, "later");
    if (seen.includes(206)) {
      expect(seen.sort()).toEqual([200, 201, 202, 203, 204, 205, 206]);
      break;
    }
    await Bun.sleep(20);
  }
  await r.idle();
  expect(await s.runtimeStore().pendingAfter(0, 100)).toEqual([]);

  // Every message's event once, the compact ones read back as the JSON written.
  const events = createPgRepositories(s, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock }).events;
  const mine = (await events.after(0, 10_000)).filter((e) => e.type === "tally.counted").map((e) => JSON.parse(e.dataJson) as { i: number; owner: string });
  expect(mine.filter((d) => d.i >= 200).map((d) => d.i).sort()).toEqual([200, 201, 202, 203, 204, 205, 206]);
  expect(mine.every((d) => d.owner === "Ola Nordmann")).toBe(true);
  const packed = await s.read<{ n: number }>("SELECT count(*) AS n FROM events WHERE get_byte(data, 0) = 1");
  expect(packed[0]!.n).toBeGreaterThan(0);
  await r.stop();
});

test("two processes inserting at once: the second waits for the first to commit, so numbers ascend in commit order", async () => {
  const a = await session();
  const b = await session();
  const watch = await session();
  for (const [what, insert] of [
    ["message", (s: PgSession) => s.runtimeStore().insert("tally:order", "{}", clock(), null, clock())],
    [
      "event",
      (s: PgSession) =>
        s.runtimeStore().insertEvent(`evt_order_${Math.random()}`, { companyId: COMPANY, environment: "test", type: "tally.ordered", entityType: "tally", entityId: "order", data: {} }, new Date(clock()).toISOString()),
    ],
  ] as const) {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let first = 0;
    let inserted!: () => void;
    const hasInserted = new Promise<void>((r) => (inserted = r));
    const firstDone = a.transaction(async () => {
      first = await insert(a);
      inserted();
      await held;
    });
    await hasInserted;
    let secondDone = false;
    const second = b.transaction(() => insert(b)).then((n) => ((secondDone = true), n));
    // Until the second is seen waiting on the lock (a hang guard: the test's timeout), it must not have finished.
    for (;;) {
      const [w] = await watch.read<{ n: number }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
      if (w!.n > 0) break;
      expect({ what, secondDone }).toEqual({ what, secondDone: false });
      await Bun.sleep(10);
    }
    expect(secondDone).toBe(false);
    release();
    await firstDone;
    expect(await second).toBeGreaterThan(first);
  }
});
