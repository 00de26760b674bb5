// The order the live stream and the webhook dispatcher rely on, with several nodes on one PostgreSQL database: a
// reader that follows the events table by `seq > cursor` never passes over an event that commits later with a lower
// seq. Two sessions (each its own writer connection, as two nodes have) insert events in transactions that overlap;
// a third reads the tail meanwhile. Every way an event is numbered takes the sequence lock: an actor's event
// (PgMailbox.insertEvent) and an audit checkpoint's (PgAuditTrees.checkpoint). And the newest seq a stream starts
// from is a committed one, never a seq drawn by a transaction still open.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import postgres from "postgres";
import { openPostgres, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { createPgMailbox } from "../../src/adapters/storage/postgres/repos/mailbox.ts";
import { PgEventLog } from "../../src/adapters/storage/postgres/repos/events.ts";
import { PgAuditLog } from "../../src/adapters/storage/postgres/repos/audit.ts";
import { PgAuditTrees } from "../../src/adapters/storage/postgres/repos/audit-tree.ts";
import { newSigningKey } from "../../src/adapters/crypto/audit-key.ts";
import type { MailboxEvent } from "../../src/ports/runtime-store.ts";
import { startPostgres } from "../support/postgres.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(60_000);

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers) await c().catch(() => {});
});

async function session(url: string): Promise<PgSession> {
  const s = await openPostgres(url, { readers: 1 });
  closers.push(() => s.close());
  return s;
}

const event = (n: number): MailboxEvent => ({ companyId: "default", environment: "test", type: "transfer.held", entityType: "Transfer", entityId: `trf_${n}`, data: { n } });

function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** Resolves once `done` settled or a session of this database waits on a lock (the second writer queued behind the first). */
async function settledOrWaiting(url: string, done: Promise<unknown>): Promise<"settled" | "waiting"> {
  const monitor = postgres(url, { max: 1, onnotice: () => {} });
  let settled = false;
  void done.then(
    () => (settled = true),
    () => (settled = true),
  );
  try {
    for (;;) {
      if (settled) return "settled";
      const [r] = await monitor`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (r!.n > 0) return "waiting";
      await Bun.sleep(5);
    }
  } finally {
    await monitor.end();
  }
}

/**
 * Node 1 draws a seq and holds its transaction open; node 2 then numbers an event (`second`) and commits; the reader
 * reads the tail before node 1 commits and once more after both did, from the cursor it reached. Answers every seq
 * the reader saw and both seqs drawn.
 */
async function overlap(url: string, second: (s: PgSession) => Promise<number[]>) {
  const [one, two, reader] = [await session(url), await session(url), await session(url)];
  const tail = new PgEventLog(reader);
  const held = gate();
  const drawn = gate();
  let first = 0;
  const t1 = one.transaction(async () => {
    first = await createPgMailbox(one).insertEvent("evt_first", event(1), new Date().toISOString());
    drawn.open();
    await held.wait;
  });
  await drawn.wait;
  const t2 = second(two);
  const state = await settledOrWaiting(url, t2);
  const seen: number[] = [];
  let cursor = 0;
  for (const e of await tail.after(cursor, 100)) {
    seen.push(e.seq);
    cursor = e.seq;
  }
  held.open();
  await t1;
  const later = await t2;
  for (const e of await tail.after(cursor, 100)) seen.push(e.seq);
  return { state, seen, first, later };
}

test("an event numbered on one node while another node's lower-numbered event is uncommitted waits for it: a tail reader by seq > cursor misses neither", async () => {
  const url = await (await startPostgres()).createDatabase();
  const r = await overlap(url, (s) => s.transaction(async () => [await createPgMailbox(s).insertEvent("evt_second", event(2), new Date().toISOString())]));
  expect(r.seen).toEqual([r.first, ...r.later]);
  expect(r.later[0]!).toBeGreaterThan(r.first);
  expect(r.state).toBe("waiting"); // node 2's insert queued behind node 1's open transaction
});

test("an audit checkpoint's event takes the same turn: a checkpoint signed on one node while another node's event is uncommitted is not read before it", async () => {
  const url = await (await startPostgres()).createDatabase();
  // An audit entry in the default company's test log: a tree for the checkpoint to sign.
  const setup = await session(url);
  const key = newSigningKey();
  await new PgAuditTrees(setup).adoptKey(key, Date.now(), "the test");
  await new PgAuditLog(setup).record({ companyId: "default", environment: "test", actor: { type: "system" }, action: "pg.recorded", entityType: "Thing", entityId: "thing_1", detail: {} }, Date.now());
  const r = await overlap(url, async (s) => (await new PgAuditTrees(s).checkpoint(key, Date.now())).eventSeqs);
  expect(r.later.length).toBe(1);
  expect(r.seen).toEqual([r.first, ...r.later]);
  expect(r.later[0]!).toBeGreaterThan(r.first);
  expect(r.state).toBe("waiting");
});

test("the newest seq (where a stream without a resume point starts) is a committed one: a seq drawn by an open transaction is not counted, so its event is read once it commits", async () => {
  const url = await (await startPostgres()).createDatabase();
  const [writer, reader] = [await session(url), await session(url)];
  const tail = new PgEventLog(reader);
  const held = gate();
  const drawn = gate();
  let seq = 0;
  // The log is empty (a fresh database, or one retention pruned to nothing): nothing but the sequence knows of the draw.
  const t = writer.transaction(async () => {
    seq = await createPgMailbox(writer).insertEvent("evt_open", event(1), new Date().toISOString());
    drawn.open();
    await held.wait;
  });
  await drawn.wait;
  const start = await tail.newestSeq();
  held.open();
  await t;
  expect(start).toBe(0);
  expect((await tail.after(start, 10)).map((e) => e.seq)).toEqual([seq]);
});
