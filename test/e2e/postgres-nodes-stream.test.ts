// The live event stream with two nodes on one PostgreSQL database, as real processes (`caravan serve` twice, the same
// CARAVAN_DATABASE_URL and master key file, two node IDs): a client on either node receives every event of its
// company and environment in commit order, whichever node committed it, at once rather than at the next poll (the
// poll is set to its maximum, 60 s: only the wake-up on the events hint can deliver within the 20 s each wait is
// given); the same event has the same ID on both nodes; a resume by Last-Event-ID on one node after reading on the
// other gets exactly the rest; and the caps of open streams count both nodes' streams. Transfers are created on node
// A; where their events commit (A, or B once actors are placed) does not matter to what is checked.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import postgres from "postgres";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { startPgServer, type PgServer } from "../support/pg-server.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { SseStream } from "../support/sse-client.ts";
import { eventIdsFor, type TenantEventIds } from "../support/event-ids.ts";
import { streamAccess } from "../../src/domain/events.ts";

// Servers as child processes on a shared machine: a hang guard, not a timing assertion (the bounded waits below say why).
setDefaultTimeout(180_000);

/** The wait for an event on a stream: a third of the poll interval, so a delivery within it came from a wake-up. */
const WAKE_BOUND_MS = 20_000;
const CAPS = { CARAVAN_STREAM_MAX_PER_KEY: "2", CARAVAN_STREAM_MAX_PER_ENVIRONMENT: "3", CARAVAN_STREAM_MAX_PER_COMPANY: "4" };
const SETTINGS = { CARAVAN_STREAM_POLL_MS: "60000", ...CAPS };

/** The key files' directory (CARAVAN_DB's), made at the file's level so that it lasts until the file's end. */
const dir = tempDir();
let A: PgServer;
let B: ChildServer;
let sql: ReturnType<typeof postgres>;
let companyId: string;
let ids: TenantEventIds;
let customer: string;
const streams: SseStream[] = [];

beforeAll(async () => {
  A = await startPgServer({ CARAVAN_DB: join(dir, "caravan.db"), CARAVAN_NODE_ID: "node-a", ...SETTINGS });
  B = await startServer({ ...A.env, CARAVAN_NODE_ID: "node-b", ...SETTINGS });
  sql = postgres(A.databaseUrl, { max: 1, onnotice: () => {} });
  companyId = (await sql`SELECT id FROM companies WHERE slug = 'default'`)[0]!.id;
  // Both nodes read the one master key file beside CARAVAN_DB (the same for both): the IDs a test computes are both nodes'.
  ids = eventIdsFor(A.env.CARAVAN_DB, companyId, "test");
  const owner = await A.newKey("owner");
  const c = await A.call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Stream Originator" } });
  customer = c.body.data.id;
});

afterAll(async () => {
  for (const s of streams) s.close();
  await sql?.end();
  await B?.stop().catch(() => 0);
  await A?.stop().catch(() => 0);
});

async function open(server: { url: string }, key: { key: string }, o: { lastEventId?: string } = {}): Promise<SseStream> {
  const s = await SseStream.open(server.url, key, o);
  streams.push(s);
  return s;
}

/** The status, code and Retry-After of an open that must be refused (the body is read, the stream never kept). */
async function refusedOpen(server: { url: string }, key: { key: string }): Promise<{ status: number; code: string; retryAfter: string | null; message: string }> {
  const res = await fetch(`${server.url}/api/v2/events/stream`, { headers: { "x-api-key": key.key, accept: "text/event-stream" } });
  if (res.status === 200) {
    await res.body?.cancel();
    return { status: 200, code: "", retryAfter: null, message: "" };
  }
  const body = await res.json();
  return { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after"), message: body.error };
}

const ETH_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
async function createTransfer(key: { key: string }): Promise<string> {
  const r = await A.call("/api/v2/transfers", {
    method: "POST",
    key: key.key,
    json: {
      asset: "ETH",
      amount: "0.001",
      network: "ethereum",
      originatorCustomerId: customer,
      beneficiaryAddress: ETH_ADDR,
      originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
    },
  });
  if (r.status !== 201 && r.status !== 202) throw new Error(`transfer create: ${r.status} ${r.text}`);
  return r.body.data.id;
}

/** The seqs a stream of the default company's test environment (both grants) has to deliver after `after`, as the table holds them. */
async function streamable(after: number): Promise<number[]> {
  const rows = await sql`SELECT seq, type FROM events WHERE company_id = ${companyId} AND environment = 'test' AND seq > ${after} ORDER BY seq`;
  return rows.filter((r) => streamAccess(r.type) !== null).map((r) => Number(r.seq));
}
const newestSeq = async () => Number((await sql`SELECT coalesce(max(seq), 0)::bigint AS n FROM events`)[0]!.n);

/** Waits until the stream has delivered `seq`, for at most WAKE_BOUND_MS (the poll would take 60 s). */
async function delivered(s: SseStream, seq: number, where: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${where}: seq ${seq} not delivered within ${WAKE_BOUND_MS} ms (got ${s.messages.map((m) => ids.seqOf(m.id)).join(",")})`)), WAKE_BOUND_MS);
  });
  try {
    await Promise.race([s.until((x) => x.messages.some((m) => ids.seqOf(m.id) >= seq)), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits (hang guard only) until no stream row is registered any more: the streams closed before are released. */
async function released(): Promise<void> {
  while (Number((await sql`SELECT count(*)::int AS n FROM event_streams`)[0]!.n) > 0) await Bun.sleep(20);
}

test("a client on either node receives every event of transfers created on node A, in commit order, at once (not at the poll); the IDs are the same on both nodes", async () => {
  const key = await A.newKey("owner");
  const onA = await open(A.server, key);
  const onB = await open(B, key);
  const before = await newestSeq();
  for (let i = 0; i < 3; i++) await createTransfer(key);
  const expected = await streamable(before);
  expect(expected.length).toBeGreaterThanOrEqual(3);
  await delivered(onB, expected.at(-1)!, "node B");
  await delivered(onA, expected.at(-1)!, "node A");
  const seqs = (s: SseStream) => s.messages.map((m) => ids.seqOf(m.id)).filter((q) => q <= expected.at(-1)!);
  expect(seqs(onB)).toEqual(expected);
  expect(seqs(onA)).toEqual(expected);
  const idsUpTo = (s: SseStream) => s.messages.slice(0, expected.length).map((m) => m.id);
  expect(idsUpTo(onB)).toEqual(idsUpTo(onA));
  expect(onB.messages.filter((m) => m.event === "transfer.created").length).toBe(3);
  onA.close();
  onB.close();
});

test("resume by Last-Event-ID on node A after reading on node B: exactly the rest, nothing lost, nothing repeated", async () => {
  const key = await A.newKey("owner");
  const onB = await open(B, key);
  const start = await newestSeq();
  await createTransfer(key);
  await createTransfer(key);
  const firstPart = await streamable(start);
  await delivered(onB, firstPart.at(-1)!, "node B");
  const read = onB.messages.slice();
  onB.close();
  // While the client is away: more events.
  await createTransfer(key);
  await createTransfer(key);
  const onA = await open(A.server, key, { lastEventId: read.at(-1)!.id });
  const expected = await streamable(start);
  await delivered(onA, expected.at(-1)!, "node A (resumed)");
  const all = [...read, ...onA.messages].map((m) => ids.seqOf(m.id)).filter((q) => q <= expected.at(-1)!);
  expect(all).toEqual(expected);
  expect(ids.seqOf(onA.messages[0]!.id)).toBeGreaterThan(ids.seqOf(read.at(-1)!.id));
  onA.close();
});

test("the caps of open streams count both nodes' streams: per key, per company and environment, per company; a stream closed on one node frees its place on the other", async () => {
  await released();
  const [k1, k2, k3] = [await A.newKey("owner"), await A.newKey("owner"), await A.newKey("owner")];
  const [live1, live2] = [await A.newKey("owner", "live"), await A.newKey("owner", "live")];
  // Per key (2): one on each node, so neither node alone holds the key's two.
  await open(A.server, k1);
  await open(B, k1);
  const byKey = await refusedOpen(B, k1);
  expect(byKey).toEqual({ status: 429, code: "RATE_LIMITED", retryAfter: "5", message: "Too many open event streams: 2 streams are open for this API key (at most 2)" });
  // Per company and environment (3): B holds one of the test environment's three.
  await open(A.server, k2);
  const byEnvironment = await refusedOpen(B, k3);
  expect(byEnvironment).toEqual({
    status: 429,
    code: "RATE_LIMITED",
    retryAfter: "5",
    message: "Too many open event streams: 3 streams are open for this company's test environment (at most 3)",
  });
  // Per company (4, both environments): A holds two of the four.
  const liveOnB = await open(B, live1);
  const byCompany = await refusedOpen(A.server, live2);
  expect(byCompany).toEqual({ status: 429, code: "RATE_LIMITED", retryAfter: "5", message: "Too many open event streams: 4 streams are open for this company (at most 4)" });
  // The live stream on B ends: its place is free for an open on A once B has released it.
  liveOnB.close();
  while (Number((await sql`SELECT count(*)::int AS n FROM event_streams WHERE key_id = ${live1.id}`)[0]!.n) > 0) await Bun.sleep(20);
  const again = await open(A.server, live2);
  expect(again.res.status).toBe(200);
  expect(Number((await sql`SELECT count(*)::int AS n FROM event_streams`)[0]!.n)).toBe(4);
  expect((await sql`SELECT node_id, count(*)::int AS n FROM event_streams GROUP BY node_id ORDER BY node_id`).map((r) => [r.node_id, r.n])).toEqual([
    ["node-a", 3],
    ["node-b", 1],
  ]);
});
