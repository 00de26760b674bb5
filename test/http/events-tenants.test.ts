// Event IDs of the live stream tell a company nothing of the other tenants: two companies share one event sequence in
// the database, yet each sees its own IDs (the seq enciphered under its company's and environment's key). Company B
// can neither read A's activity from the gaps between its IDs nor find the newest event of all tenants by probing
// Last-Event-ID (every ID it did not receive is refused alike), while its own resume stays exact.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError } from "../support/api.ts";
import { readEventStream, type SseMessage } from "../support/sse.ts";

// A server on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "tenants.db");
const DOMAIN = "caravan.test";
const { cli, newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
const A = { host: `acme.${DOMAIN}`, key: "", customer: "" };
const B = { host: `beta.${DOMAIN}`, key: "", customer: "" };

interface Message {
  id: string;
  event: string;
  data: any;
}

/** Opens a stream and reads messages until `done` holds over them (a hang guard only). */
async function read(who: typeof A, done: (m: Message[]) => boolean, lastEventId?: string): Promise<Message[]> {
  const headers: Record<string, string> = { "x-api-key": who.key, host: who.host };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  const complete = (read: SseMessage[]): Message[] =>
    read.flatMap((m) => (m.id !== undefined && m.event !== undefined && m.data !== undefined ? [{ id: m.id, event: m.event, data: JSON.parse(m.data) }] : []));
  return complete(await readEventStream(`${S.url}/api/v2/events/stream`, headers, (read) => done(complete(read))));
}

const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
async function create(who: typeof A): Promise<string> {
  const r = await call("/api/v2/transfers", {
    method: "POST",
    key: who.key,
    host: who.host,
    headers: { "Idempotency-Key": `t-${hex(6)}` },
    json: {
      asset: "ETH",
      amount: "0.001",
      network: "ethereum",
      originatorCustomerId: who.customer,
      beneficiaryAddress: `0x${hex(20)}`,
      originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
    },
  });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.data.id;
}

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  await cli("companies", "create", "--slug", "acme");
  await cli("companies", "create", "--slug", "beta");
  A.key = (await newKey("--env", "test", "--role", "owner", "--company", "acme")).key;
  B.key = (await newKey("--env", "test", "--role", "owner", "--company", "beta")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_APP_DOMAIN: DOMAIN, CARAVAN_STREAM_POLL_MS: "100", CARAVAN_RATE_LIMITS: "company=1000000/60" });
  for (const who of [A, B]) {
    const c = await call("/api/v2/customers", { method: "POST", key: who.key, host: who.host, json: { name: "Tenant Originator" } });
    if (c.status !== 201) throw new Error(c.text);
    who.customer = c.body.data.id;
  }
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

test("two companies: B's event IDs show nothing of A's activity, B cannot probe for the newest event, and B's resume stays exact", async () => {
  // B, then 40 transfers of A, then B again: in the shared sequence B's two transfers are 80 events apart.
  const b1 = await create(B);
  for (let i = 0; i < 40; i++) await create(A);
  const b2 = await create(B);
  const bAll = await read(B, (m) => m.some((x) => x.data.data.id === b2 && x.event === "transfer.completed"), "0");
  expect(bAll.map((m) => [m.data.data.id, m.event])).toEqual([
    [b1, "transfer.created"],
    [b1, "transfer.completed"],
    [b2, "transfer.created"],
    [b2, "transfer.completed"],
  ]);
  // The IDs are opaque: no number to subtract, nothing that orders or counts the other tenant's events.
  for (const m of bAll) expect(m.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(new Set(bAll.map((m) => m.id)).size).toBe(4);

  // A's IDs are its own: none of them opens B's stream, and B's do not open A's.
  const aSome = await read(A, (m) => m.length >= 4, "0");
  for (const m of aSome.slice(0, 4)) {
    const r = await call("/api/v2/events/stream", { key: B.key, host: B.host, headers: { "last-event-id": m.id } });
    expectError(r, 400, "INVALID_QUERY");
    expect(r.body.details.issues[0].path).toBe("Last-Event-ID");
  }
  const cross = await call("/api/v2/events/stream", { key: A.key, host: A.host, headers: { "last-event-id": bAll[0].id } });
  expectError(cross, 400, "INVALID_QUERY");

  // Probing: every resume point B did not receive is refused with the same words, whatever it would stand for, so a
  // binary search learns nothing (a number is no event ID; an altered ID of B's is none either).
  const altered = bAll[1].id.slice(0, 21) + (bAll[1].id[21] === "A" ? "B" : "A");
  const probes = ["1", "2", "1000000", "999999999999999", altered, "A".repeat(22)];
  const answers = await Promise.all(probes.map((p) => call("/api/v2/events/stream", { key: B.key, host: B.host, headers: { "last-event-id": p } })));
  for (const r of answers) expectError(r, 400, "INVALID_QUERY");
  expect(new Set(answers.slice(0, 4).map((r) => r.body.error)).size).toBe(1);
  expect(new Set(answers.slice(4).map((r) => r.body.error)).size).toBe(1);
  for (const r of answers) expect(r.body.error).not.toMatch(/\d{2,}/);

  // B's own resume is exact: after each of its IDs comes the next of its events, nothing lost, nothing repeated.
  for (let i = 0; i < bAll.length - 1; i++) {
    const rest = await read(B, (m) => m.length >= bAll.length - 1 - i, bAll[i].id);
    expect(rest.slice(0, bAll.length - 1 - i).map((m) => m.id)).toEqual(bAll.slice(i + 1).map((m) => m.id));
  }
});
