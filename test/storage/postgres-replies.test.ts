// Answers to asks that crossed nodes, on PostgreSQL: the replies store (src/ports/replies.ts, actor_replies) and two
// placed runtimes on one database, each its own session (as two processes), asking each other's actors. Clocks are the
// tests' own: leases lapse when a test moves a node's clock. The asker finds its answers by polling (pollMs 20): the
// NOTIFY trigger is held separately, by listening for it.
import { test, expect, setDefaultTimeout, afterAll, describe } from "bun:test";
import postgres from "postgres";
import { openPostgres, PgClusterStore, PgReplyStore, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ClusterNode } from "../../src/actors/placement.ts";
import { ActorDeadLetterError, type ActorKind } from "../../src/actors/types.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { StorageUnavailableError } from "../../src/ports/store.ts";
import { ShardFencedError, shardOf } from "../../src/ports/cluster.ts";
import { startPostgres } from "../support/postgres.ts";
import { randomBytes } from "node:crypto";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(120_000);

const LEASE = 10_000;
const T0 = 1_800_000_000_000;
const KEY = randomBytes(32);

const sessions: PgSession[] = [];
const runtimes: ActorRuntime[] = [];
afterAll(async () => {
  for (const r of runtimes) await r.stop().catch(() => {});
  for (const s of sessions) await s.close().catch(() => {});
});

async function database(): Promise<string> {
  return (await startPostgres()).createDatabase();
}

async function session(url: string): Promise<PgSession> {
  const s = await openPostgres(url, { readers: 1 });
  sessions.push(s);
  return s;
}

describe("the replies store", () => {
  test("put, then take: once, the asker's rows only, oldest first, at most the limit; a second put of a token keeps the first", async () => {
    const db = await session(await database());
    const store = new PgReplyStore(db);
    await store.put({ token: "ask_2@node-a", node: "node-a", body: "two", errorClass: null, errorCode: null, createdAt: T0 + 2 });
    await store.put({ token: "ask_1@node-a", node: "node-a", body: "one", errorClass: null, errorCode: null, createdAt: T0 + 1 });
    await store.put({ token: "ask_3@node-b", node: "node-b", body: "three", errorClass: "ActorDeadLetterError", errorCode: null, createdAt: T0 + 3 });
    await store.put({ token: "ask_4@node-a", node: "node-a", body: "four", errorClass: "StorageUnavailableError", errorCode: "PG_TIMEOUT", createdAt: T0 + 4 });
    await store.put({ token: "ask_1@node-a", node: "node-a", body: "again", errorClass: "Error", errorCode: null, createdAt: T0 + 5 });

    expect(await store.take("node-a", 2)).toEqual([
      { token: "ask_1@node-a", node: "node-a", body: "one", errorClass: null, errorCode: null, createdAt: T0 + 1 },
      { token: "ask_2@node-a", node: "node-a", body: "two", errorClass: null, errorCode: null, createdAt: T0 + 2 },
    ]);
    expect(await store.take("node-a", 10)).toEqual([{ token: "ask_4@node-a", node: "node-a", body: "four", errorClass: "StorageUnavailableError", errorCode: "PG_TIMEOUT", createdAt: T0 + 4 }]);
    expect(await store.take("node-a", 10)).toEqual([]);
    expect((await store.take("node-b", 10)).map((r) => [r.token, r.errorClass])).toEqual([["ask_3@node-b", "ActorDeadLetterError"]]);
  });

  test("a put inside a unit of work that rolls back leaves nothing; sweep removes what is older than its bound", async () => {
    const db = await session(await database());
    const store = new PgReplyStore(db);
    await db
      .transaction(async () => {
        await store.put({ token: "ask_x@node-a", node: "node-a", body: "x", errorClass: null, errorCode: null, createdAt: T0 });
        throw new Error("the acknowledgement failed");
      })
      .catch(() => {});
    expect(await store.take("node-a", 10)).toEqual([]);
    for (const [i, at] of [T0, T0 + 10, T0 + 20].entries()) await store.put({ token: `ask_${i}@node-a`, node: "node-a", body: "b", errorClass: null, errorCode: null, createdAt: at });
    expect(await store.sweep(T0 + 20)).toBe(2);
    expect((await store.take("node-a", 10)).map((r) => r.token)).toEqual(["ask_2@node-a"]);
  });

  test("a committed answer notifies caravan_replies with the asking node; a rolled-back one notifies nothing", async () => {
    const url = await database();
    const db = await session(url);
    const store = new PgReplyStore(db);
    const heard: string[] = [];
    const listener = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await listener.listen("caravan_replies", (payload) => void heard.push(payload));
      await db
        .transaction(async () => {
          await store.put({ token: "ask_r@node-z", node: "node-z", body: "r", errorClass: null, errorCode: null, createdAt: T0 });
          throw new Error("rolled back");
        })
        .catch(() => {});
      await store.put({ token: "ask_c@node-b", node: "node-b", body: "c", errorClass: null, errorCode: null, createdAt: T0 });
      // A marker after both: once it is heard, whatever the two commits sent has been delivered (notices keep commit order).
      await db.q("SELECT pg_notify('caravan_replies', 'marker')");
      while (!heard.includes("marker")) await Bun.sleep(10);
      expect(heard).toEqual(["node-b", "marker"]);
    } finally {
      await listener.end({ timeout: 5 });
    }
  });
});

interface Gate {
  wait: Promise<void>;
  open(): void;
  reached: Promise<void>;
  arrive(): void;
}

function gate(): Gate {
  let open!: () => void;
  let arrive!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (arrive = r));
  return { wait, open, reached, arrive };
}

type Msg = { n: number; answer?: "value" | "fail" | "none" };

/** One node: its session, clock, placement and runtime (answers through actor_replies, sealed), with the `log` kind. */
async function node(url: string, nodeId: string, handled: { node: string; actor: string; n: number }[], gates: Map<number, Gate> = new Map()) {
  const db = await session(url);
  const time = { now: T0 };
  const clock = () => time.now;
  const placement = new ClusterNode(new PgClusterStore(db), { nodeId, clock, leaseMs: LEASE, tickMs: 0 });
  const kind: ActorKind<{ seen: number[] }, Msg> = {
    kind: "log",
    initialState: () => ({ seen: [] }),
    async handle(ctx, msg) {
      handled.push({ node: nodeId, actor: ctx.address, n: msg.n });
      const g = gates.get(msg.n);
      if (g) {
        g.arrive();
        await g.wait;
      }
      if (msg.answer === "fail") throw new Error(`refused ${msg.n}`);
      ctx.state.seen.push(msg.n);
      if (msg.answer === "none") return;
      ctx.reply({
        ok: true,
        data: { n: msg.n, seen: [...ctx.state.seen], by: nodeId, at: new Date(T0), big: 12345678901234567890n, bytes: new Uint8Array([1, 2, 255]), gone: undefined, list: [1, undefined, null] },
      });
    },
  };
  const runtime = new ActorRuntime(db, {
    clock,
    placement,
    replies: new PgReplyStore(db),
    pollMs: 20,
    maxAttempts: 2,
    backoffMs: () => 1,
    sealer: new Sealer(KEY),
  });
  runtime.register(kind);
  runtimes.push(runtime);
  return { db, time, placement, runtime, nodeId };
}

type Node = Awaited<ReturnType<typeof node>>;

async function twoNodes(handled: { node: string; actor: string; n: number }[], gates?: Map<number, Gate>): Promise<[Node, Node, string]> {
  const url = await database();
  const a = await node(url, "node-a", handled, gates);
  const b = await node(url, "node-b", handled, gates);
  await a.placement.join();
  await b.placement.join();
  await a.placement.tick();
  await b.placement.tick();
  expect(a.placement.leases().length).toBe(32);
  expect(b.placement.leases().length).toBe(32);
  await a.runtime.start();
  await b.runtime.start();
  return [a, b, url];
}

/** An actor of `holder`'s shards. */
function actorOf(holder: Node, from = 0): string {
  for (let i = from; ; i++) if (holder.placement.owns(`log:${i}`)) return `log:${i}`;
}

/** The holder handles what was inserted (its poll would, later) until it is idle. */
async function handle(holder: Node): Promise<void> {
  await holder.runtime.noticeInserts();
  await holder.runtime.idle();
}

describe("asks across nodes", () => {
  test("an ask of another node's actor gets the value a local ask gets (a Date, a bigint, bytes, undefined kept); its row is gone, sealed while it was there", async () => {
    const handled: { node: string; actor: string; n: number }[] = [];
    const [a, b, url] = await twoNodes(handled);
    const remote = actorOf(b);
    const local = actorOf(a);
    const seenRows: { token: string; body: string; node_id: string }[] = [];
    // What the holder wrote, kept by a trigger of the test's own before the asker takes it.
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE TABLE seen_replies (token text, node_id text, body text);
        CREATE FUNCTION keep_reply() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO seen_replies VALUES (NEW.token, NEW.node_id, NEW.body); RETURN NULL; END; $$;
        CREATE TRIGGER keep_reply AFTER INSERT ON actor_replies FOR EACH ROW EXECUTE FUNCTION keep_reply();`);
      const there = a.runtime.ask<{ ok: true; data: Record<string, unknown> }>(remote, { n: 1 }, { timeoutMs: 60_000 });
      await handle(b);
      const here = await a.runtime.ask<{ ok: true; data: Record<string, unknown> }>(local, { n: 1 }, { timeoutMs: 60_000 });
      const got = await there;
      expect(got).toEqual({ ...here, data: { ...here.data, by: "node-b" } });
      expect(got.data.at).toBeInstanceOf(Date);
      expect(typeof got.data.big).toBe("bigint");
      expect(got.data.bytes).toBeInstanceOf(Uint8Array);
      expect(Object.hasOwn(got.data, "gone")).toBe(true);
      expect(got.data.list).toEqual([1, undefined, null]);
      expect(handled.filter((h) => h.actor === remote)).toEqual([{ node: "node-b", actor: remote, n: 1 }]);
      seenRows.push(...(await admin<{ token: string; body: string; node_id: string }[]>`SELECT token, node_id, body FROM seen_replies`));
      expect(seenRows.length).toBe(1);
      expect(seenRows[0]!.token).toMatch(/^ask_[0-9a-z]{26}@node-a$/);
      expect(seenRows[0]!.node_id).toBe("node-a");
      expect(seenRows[0]!.body.startsWith("v1:")).toBe(true); // sealed
      expect(seenRows[0]!.body).not.toContain("node-b");
      expect((await admin`SELECT count(*)::int AS n FROM actor_replies`)[0]!.n).toBe(0);
      expect((await admin`SELECT count(*)::int AS n FROM actor_messages`)[0]!.n).toBe(0);
    } finally {
      await admin.end({ timeout: 5 });
    }
  });

  test("a handler that fails every attempt: the asker on the other node hears ActorDeadLetterError, as a local asker does", async () => {
    const handled: { node: string; actor: string; n: number }[] = [];
    const [a, b] = await twoNodes(handled);
    const there = a.runtime.ask(actorOf(b), { n: 5, answer: "fail" }, { timeoutMs: 60_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    await handle(b);
    while (b.runtime.stats().failures < 2) {
      b.time.now += 5; // past the retry's back-off
      await Bun.sleep(5);
    }
    const e = await there;
    expect(e).toBeInstanceOf(ActorDeadLetterError);
    expect((e as Error).message).toContain("refused 5");
    const asked = a.runtime.ask(actorOf(a), { n: 5, answer: "fail" }, { timeoutMs: 60_000 }).then(
      () => null,
      (x: unknown) => x,
    );
    let done = false;
    void asked.finally(() => (done = true));
    while (!done) {
      a.time.now += 5; // past each retry's back-off
      await Bun.sleep(5);
    }
    const local = await asked;
    expect(local).toBeInstanceOf(ActorDeadLetterError);
    expect((local as Error).message.replace(/log:\d+/, "log:N")).toBe((e as Error).message.replace(/log:\d+/, "log:N"));
  });

  test("asks and tells from both nodes to one actor: each handled once, in each sender's order, every ask answered with what it saw", async () => {
    const handled: { node: string; actor: string; n: number }[] = [];
    const [a, b] = await twoNodes(handled);
    const actor = actorOf(b);
    const answers: Promise<{ ok: true; data: { n: number; seen: number[] } }>[] = [];
    for (let k = 0; k < 20; k++) {
      const from = k % 2 ? a : b;
      if (k % 3 === 0) await from.runtime.tell(actor, { n: k, answer: "none" });
      else answers.push(from.runtime.ask(actor, { n: k }, { timeoutMs: 60_000 }));
      if (k % 5 === 4) await handle(b);
    }
    await handle(b);
    const got = await Promise.all(answers);
    const order = handled.filter((h) => h.actor === actor).map((h) => h.n);
    expect(new Set(handled.filter((h) => h.actor === actor).map((h) => h.node))).toEqual(new Set(["node-b"]));
    expect(order.toSorted((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, k) => k)); // each once
    for (const sender of [0, 1]) {
      const mine = order.filter((n) => n % 2 === sender);
      expect(mine).toEqual(mine.toSorted((x, y) => x - y)); // each sender's order
    }
    for (const r of got) expect(r.data.seen).toEqual(order.slice(0, order.indexOf(r.data.n) + 1));
    expect((await b.db.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_replies"))!.n).toBe(0);
  });

  test("the holder's turn is fenced mid-ask (its shard moved): the new holder handles the message and answers the same token, once", async () => {
    const handled: { node: string; actor: string; n: number }[] = [];
    const gates = new Map([[7, gate()]]);
    const [a, b] = await twoNodes(handled, gates);
    const actor = actorOf(b);
    let answers = 0;
    const there = a.runtime.ask<{ ok: true; data: { n: number; by: string } }>(actor, { n: 7 }, { timeoutMs: 60_000 }).then((r) => {
      answers++;
      return r;
    });
    const paused = gates.get(7)!;
    void b.runtime.noticeInserts();
    await paused.reached; // b's turn is under way
    gates.delete(7);
    // b pauses past its lease; a takes the lapsed shards over (b's heartbeat lapsed too: a is alone).
    a.time.now += LEASE + 1;
    await a.placement.tick();
    expect(a.placement.owns(actor)).toBe(true);
    await handle(a);
    const got = await there;
    expect(got.data).toMatchObject({ n: 7, by: "node-a" });
    // b's turn goes on and commits nothing (the lease row has another holder and epoch); no second answer comes.
    paused.open();
    await b.runtime.idle();
    expect(b.runtime.stats().fenced).toBeGreaterThan(0);
    expect(answers).toBe(1);
    expect(handled.filter((h) => h.actor === actor).map((h) => h.node)).toEqual(["node-b", "node-a"]);
    expect((await a.db.one<{ state: string }>("SELECT state FROM actor_state WHERE address = $1", [actor]))!.state.length).toBeGreaterThan(0);
    expect((await a.db.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_messages"))!.n).toBe(0);
    expect((await a.db.one<{ n: number }>("SELECT count(*)::int AS n FROM actor_replies"))!.n).toBe(0);
  });

  test("a store fault while the holder handles another node's ask: the asker hears StorageUnavailableError with its fault, as recorded", async () => {
    const handled: { node: string; actor: string; n: number }[] = [];
    const [a, b] = await twoNodes(handled);
    const faulty: ActorKind<unknown, Msg> = {
      kind: "faulty",
      initialState: () => null,
      handle() {
        throw new StorageUnavailableError({ class: "PG_LOST", cause: "the connection was lost", uncertain: true });
      },
    };
    a.runtime.register(faulty);
    b.runtime.register(faulty);
    let address = "";
    for (let i = 0; !address; i++) if (b.placement.owns(`faulty:${i}`)) address = `faulty:${i}`;
    const there = a.runtime.ask(address, { n: 1 }, { timeoutMs: 60_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    await handle(b);
    const e = await there;
    expect(e).toBeInstanceOf(StorageUnavailableError);
    expect((e as StorageUnavailableError).fault).toEqual({ class: "PG_LOST", cause: "the connection was lost", uncertain: true });
    expect((e as StorageUnavailableError).queued).toBe(true);
    await b.runtime.stop();
  });
});

describe("a command handled by a process that is no node (the CLI's handleHere with the shard claimed)", () => {
  test("refused while a node holds the actor's shard; with none it commits, and a node taking the shard meanwhile waits for that commit", async () => {
    const url = await database();
    const handled: { node: string; actor: string; n: number }[] = [];
    const a = await node(url, "node-a", handled);
    const cliSession = await session(url);
    const cluster = new PgClusterStore(cliSession);
    const gates = new Map<number, Gate>();
    const here = new ActorRuntime(cliSession, { clock: () => T0, sealer: new Sealer(KEY) });
    here.register({
      kind: "log",
      initialState: () => ({ seen: [] as number[] }),
      async handle(ctx, msg: Msg) {
        const g = gates.get(msg.n);
        if (g) {
          g.arrive();
          await g.wait;
        }
        (ctx.state as { seen: number[] }).seen.push(msg.n);
        ctx.reply({ ok: true, data: { n: msg.n, by: "cli" } });
      },
    });
    const actor = "log:cli";
    const claim = () => cluster.claimUnheld(shardOf(actor), T0);

    // No node yet: handled here.
    expect(await here.handleHere(actor, { n: 1 }, { claim })).toEqual({ ok: true, data: { n: 1, by: "cli" } });

    // A node joins while a command is under way here: its taking of the shard waits for the command's commit.
    const g = gate();
    gates.set(2, g);
    const command = here.handleHere(actor, { n: 2 }, { claim });
    await g.reached;
    let joined = false;
    const joining = a.placement.join().then(() => (joined = true));
    await Bun.sleep(200); // give the join its chance to overtake (it must not)
    expect(joined).toBe(false);
    g.open();
    expect(await command).toEqual({ ok: true, data: { n: 2, by: "cli" } });
    await joining;
    expect(a.placement.owns(actor)).toBe(true);

    // Now a node holds it: refused here, nothing written; the node handles the command (and sees both before it).
    await expect(here.handleHere(actor, { n: 3 }, { claim })).rejects.toBeInstanceOf(ShardFencedError);
    await a.runtime.start();
    const r = await a.runtime.ask<{ ok: true; data: { seen: number[] } }>(actor, { n: 3 }, { timeoutMs: 60_000 });
    expect(r.data.seen).toEqual([1, 2, 3]);
  });
});
