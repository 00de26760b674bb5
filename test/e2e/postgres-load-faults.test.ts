// The server on PostgreSQL losing its database in the middle of a bounded load of transfer creates, end to end (the
// real server on a free loopback port, the test cluster of test/support/postgres.ts): a few clients send creates,
// each with an Idempotency-Key of its own, recorded with the answer it got; the cluster's server is stopped once some
// creates were answered and started again once the clients met the outage. Then, read from the database:
// - every create answered 2xx exists exactly once (by its key, the transfer's external_id), with the ID it was
//   answered with;
// - a create answered 503 may or may not exist, never twice;
// - each transfer has the same events and audit entries as a create made in calm, each exactly once (a create that
//   was written is written whole, or not at all);
// - after recovery, sending each 503'd create again with its key answers 2xx and leaves exactly one transfer per key.
// Every answer during the load is 2xx or the store fault's 503 with Retry-After. Bounded (a fixed number of creates,
// each sent once during the load; bounded polls), no timing assertions.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import postgres from "postgres";
import { expectError, expectOk, type Answer } from "../support/api.ts";
import { startPgServer, type PgServer } from "../support/pg-server.ts";
import { startCluster, stopCluster } from "../support/postgres-faults.ts";
import { smallTransfer } from "../support/transfers.ts";

// A server, a PostgreSQL server stopped and started, a few hundred requests on a shared machine: a hang guard only.
setDefaultTimeout(300_000);

const CLIENTS = 4;
const PER_CLIENT = 50;
/** Answers to wait for before stopping the cluster, and 503s the clients must meet before it starts again. */
const ANSWERED_BEFORE_STOP = 40;
const FAULTS_BEFORE_START = 8;

let S: PgServer;
let owner: { key: string };
let customerId: string;

beforeAll(async () => {
  S = await startPgServer();
  owner = await S.newKey("owner");
  const c = await S.call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Originator" } });
  expectOk(c, 201);
  customerId = c.body.data.id;
}, 120_000);

afterAll(async () => {
  if (S) expect(await S.stop()).toBe(0);
});

const create = (key: string) => S.call("/api/v2/transfers", { method: "POST", key: owner.key, json: smallTransfer(customerId), headers: { "Idempotency-Key": key } });

/** One statement on the server's database, from a connection of the test's own. */
async function rows<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  const sql = postgres(S.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    return [...(await sql.unsafe(text, params as never[]))] as T[];
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The store-fault answer: 503 SERVICE_UNAVAILABLE with Retry-After. */
function expectStoreFault(r: Answer): void {
  expectError(r, 503, "SERVICE_UNAVAILABLE");
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
}

/** Transfers by key: how many rows each key has, and their IDs. */
async function transfersByKey(keys: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(keys.map((k) => [k, []]));
  for (const r of await rows<{ external_id: string; id: string }>("SELECT external_id, id FROM transfers WHERE external_id = ANY($1::text[]) ORDER BY id", [keys]))
    out.get(r.external_id)!.push(r.id);
  return out;
}

/** What one transfer left besides its row: its event types and audit actions, each with how many times. */
async function traces(ids: string[]): Promise<Map<string, { events: Record<string, number>; audit: Record<string, number> }>> {
  const out = new Map(ids.map((id) => [id, { events: {} as Record<string, number>, audit: {} as Record<string, number> }]));
  for (const r of await rows<{ entity_id: string; type: string; n: number }>("SELECT entity_id, type, count(*)::int AS n FROM events WHERE entity_id = ANY($1::text[]) GROUP BY entity_id, type", [ids]))
    out.get(r.entity_id)!.events[r.type] = r.n;
  for (const r of await rows<{ entity_id: string; action: string; n: number }>("SELECT entity_id, action, count(*)::int AS n FROM audit_log WHERE entity_id = ANY($1::text[]) GROUP BY entity_id, action", [ids]))
    out.get(r.entity_id)!.audit[r.action] = r.n;
  return out;
}

test("the database stopped in the middle of a load of creates and started again: every create answered 2xx exists once, with its events and audit entries once", async () => {
  // A create in calm: what every transfer of the load must have left, once each.
  const calm = await create("calm-reference");
  expectOk(calm, 201);
  const reference = (await traces([calm.body.data.id])).get(calm.body.data.id)!;
  expect(Object.keys(reference.audit).length).toBeGreaterThan(0);
  expect(Object.values(reference.events).every((n) => n === 1) && Object.values(reference.audit).every((n) => n === 1)).toBe(true);

  const answers = new Map<string, Answer>();
  let faults = 0;
  const client = async (c: number) => {
    for (let i = 0; i < PER_CLIENT; i++) {
      const key = `load-${c}-${i}`;
      const r = await create(key);
      answers.set(key, r);
      if (r.status === 503) faults++;
      else await Bun.sleep(0);
    }
  };
  const outage = (async () => {
    while (answers.size < ANSWERED_BEFORE_STOP) await Bun.sleep(10);
    stopCluster(S.pg);
    try {
      // Bounded: each client meets the outage with its next creates, or runs out of them.
      while (faults < FAULTS_BEFORE_START && answers.size < CLIENTS * PER_CLIENT) await Bun.sleep(10);
    } finally {
      startCluster(S.pg);
    }
  })();
  await Promise.all([...Array.from({ length: CLIENTS }, (_, c) => client(c)), outage]);

  const keys = [...answers.keys()];
  expect(keys.length).toBe(CLIENTS * PER_CLIENT);
  const answered = keys.filter((k) => answers.get(k)!.status < 300);
  const refused = keys.filter((k) => answers.get(k)!.status === 503);
  for (const k of keys) {
    const r = answers.get(k)!;
    if (r.status === 503) expectStoreFault(r);
    else expectOk(r, 201);
  }
  // The load met the outage, and creates were answered before and after it.
  expect(refused.length).toBeGreaterThan(0);
  expect(answered.length).toBeGreaterThan(ANSWERED_BEFORE_STOP - CLIENTS);

  // From the database: a 2xx create exists once, under the ID it was answered with; a 503'd one at most once.
  const byKey = await transfersByKey(keys);
  for (const k of answered) expect({ k, ids: byKey.get(k) }).toEqual({ k, ids: [answers.get(k)!.body.data.id] });
  for (const k of refused) expect({ k, atMostOnce: byKey.get(k)!.length <= 1 }).toEqual({ k, atMostOnce: true });
  const writtenAnyway = refused.filter((k) => byKey.get(k)!.length === 1);

  // Every transfer that exists was written whole: the calm create's events and audit entries, once each.
  const existing = [...byKey.values()].flat();
  for (const [id, t] of await traces(existing)) expect({ id, ...t }).toEqual({ id, ...reference });

  // After recovery, each 503'd create sent again with its key: answered 2xx (200 when it had been written after
  // all, with that transfer; 201 when not), and one transfer per key.
  for (const k of refused) {
    let r = await create(k);
    for (let i = 0; i < 100 && r.status === 503; i++) {
      expectStoreFault(r); // the server may still be finding its way back to the database
      await Bun.sleep(100);
      r = await create(k);
    }
    if (writtenAnyway.includes(k)) {
      expectOk(r, 200);
      expect(r.body.meta.idempotent).toBe(true);
      expect(r.body.data.id).toBe(byKey.get(k)![0]);
    } else expectOk(r, 201);
  }
  const after = await transfersByKey(keys);
  for (const k of keys) expect({ k, n: after.get(k)!.length }).toEqual({ k, n: 1 });
  for (const [id, t] of await traces([...after.values()].flat())) expect({ id, ...t }).toEqual({ id, ...reference });
  console.log(`load: ${keys.length} creates, ${answered.length} answered 2xx, ${refused.length} answered 503 (${writtenAnyway.length} of them written), all ${keys.length} present once after the retries`);
});
