// events.data stored compactly (deflate-raw with a preset dictionary behind a marker byte): the encoding itself, and,
// over real HTTP against the real server, that what readers get is byte for byte what the plain TEXT rows written
// before gave: the webhook body, the event stream's `data:` line, for the same event stored either way.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { Database } from "bun:sqlite";
import { withDb } from "../support/db.ts";
import { tempDir } from "../support/tmp.ts";
import { eventIdsFor } from "../support/event-ids.ts";
import { readEventStream, type SseMessage } from "../support/sse.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { decodeEventData, encodeEventData, EVENT_DATA_V1 } from "../../src/adapters/storage/event-data.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const snapshot = JSON.stringify({
  id: "trf_01jq7m3z8k9x2v4b6n8p0r2t4w",
  externalId: null,
  direction: "outgoing",
  state: "completed",
  amount: "0.01",
  asset: "ETH",
  network: "ethereum",
  originatingVaspId: "vasp_01jq7m3z8k9x2v4b6n8p0r2t4w",
  originatingVaspName: "Caravan Test VASP",
  beneficiaryVaspId: "pending",
  beneficiaryVaspName: null,
  complianceStatus: "completed",
  originatorStatus: "not_required",
  beneficiaryStatus: "not_required",
  createdAt: "2026-11-27T14:56:50.628Z",
  updatedAt: "2026-11-27T14:56:50.629Z",
});

describe("the encoding", () => {
  test("a JSON document is stored as a marker byte and a deflate stream, at under a third of its size, and reads back to the same text", () => {
    const stored = encodeEventData(snapshot);
    expect(stored).toBeInstanceOf(Uint8Array);
    const bytes = stored as Uint8Array;
    expect(bytes[0]).toBe(EVENT_DATA_V1);
    expect(bytes.length).toBeLessThan(snapshot.length / 3);
    expect(decodeEventData(bytes)).toBe(snapshot);
    // Non-ASCII text survives (UTF-8 both ways).
    const named = JSON.stringify({ name: "Zoë Ångström 東京", note: "x".repeat(60) });
    expect(decodeEventData(encodeEventData(named))).toBe(named);
  });

  test("rows written before (TEXT) read as they are; short documents stay TEXT", () => {
    expect(decodeEventData(snapshot)).toBe(snapshot);
    expect(encodeEventData('{"i":1}')).toBe('{"i":1}');
  });

  test("a stream written without the dictionary (as Deno's node:zlib writes raw deflate) reads the same", () => {
    const plain = deflateRawSync(new TextEncoder().encode(snapshot));
    const stored = new Uint8Array(1 + plain.length);
    stored[0] = EVENT_DATA_V1;
    stored.set(plain, 1);
    expect(decodeEventData(stored)).toBe(snapshot);
  });

  test("values cross between runtimes: written under Deno (no dictionary) read under Bun, written under Bun read under Deno", () => {
    expect(Bun.which("deno")).not.toBeNull(); // .ci/run installs deno from the npm registry
    const fixture = join(import.meta.dir, "..", "fixtures", "event-data-deno.ts");
    const deno = (...args: string[]) => {
      const r = Bun.spawnSync(["deno", "run", "-A", fixture, ...args], { stdout: "pipe", stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`deno: ${r.stderr.toString()}`);
      return r.stdout.toString().trim();
    };
    const fromDeno = Buffer.from(deno("encode", snapshot), "hex");
    expect(fromDeno[0]).toBe(EVENT_DATA_V1);
    expect(decodeEventData(new Uint8Array(fromDeno))).toBe(snapshot);
    const fromBun = encodeEventData(snapshot) as Uint8Array;
    expect(deno("decode", Buffer.from(fromBun).toString("hex"))).toBe(snapshot);
  });

  test("an unknown marker is refused, not misread", () => {
    expect(() => decodeEventData(new Uint8Array([0x02, 1, 2, 3]))).toThrow();
    expect(() => decodeEventData(new Uint8Array([]))).toThrow();
  });
});

const dir = tempDir();
const db = join(dir, "compact.db");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let owner: { key: string; id: string };
let customer: string;

const hits: string[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.2",
  port: 0,
  async fetch(req) {
    hits.push(await req.text());
    return new Response("ok");
  },
});

const sql = <T>(fn: (d: Database) => T): T => withDb(db, fn);

/** The SSE messages of a stream opened after `lastEventId`, read until one with id `seq` arrived: raw `data:` text by id. */
async function streamData(lastEventId: number, seq: number): Promise<Map<number, string>> {
  const companyId = sql((d) => (d.prepare("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id);
  const ev = eventIdsFor(db, companyId, "test");
  const messages = (read: SseMessage[]) => read.filter((m): m is SseMessage & { id: string; data: string } => m.id !== undefined && m.data !== undefined);
  const read = await readEventStream(`${S.url}/api/v2/events/stream`, { "x-api-key": owner.key, "last-event-id": ev.idOf(lastEventId) }, (r) => messages(r).some((m) => ev.seqOf(m.id) === seq));
  return new Map(messages(read).map((m) => [ev.seqOf(m.id), m.data]));
}

beforeAll(async () => {
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  owner = await newKey("--env", "test", "--role", "owner");
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2", CARAVAN_STREAM_POLL_MS: "100", CARAVAN_EVENTS_COMPACT: "on" });
  const c = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Compact Originator" } });
  customer = c.body.data.id;
  const w = await call("/api/v2/webhooks", { method: "POST", key: owner.key, json: { name: "hook", url: `http://127.0.0.2:${receiver.port}/hook`, events: ["transfer.created"] } });
  expect(w.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await S?.stop();
  void receiver.stop(true);
});

describe("readers get the same bytes from a compact row as from a plain one", () => {
  test("webhook body, stream data line: stored compactly, then the same event rewritten as the plain TEXT it was before", async () => {
    const r = await call("/api/v2/transfers", {
      method: "POST",
      key: owner.key,
      json: {
        asset: "ETH",
        amount: "0.001",
        network: "ethereum",
        originatorCustomerId: customer,
        beneficiaryAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
      },
    });
    expect([201, 202]).toContain(r.status);
    const id = r.body.data.id as string;
    const row = sql((d) => d.prepare("SELECT seq, type, typeof(data) AS kind, data, created_at FROM events WHERE entity_id = ? AND type = 'transfer.created'").get(id) as { seq: number; type: string; kind: string; data: Uint8Array; created_at: string });
    // Stored compactly: a BLOB opening with the marker.
    expect(row.kind).toBe("blob");
    expect(row.data[0]).toBe(EVENT_DATA_V1);
    const json = decodeEventData(row.data);
    expect(JSON.parse(json).id).toBe(id);

    // The webhook delivery of this event (hang guard only).
    while (!hits.some((h) => h.includes(id))) await Bun.sleep(25);
    const webhookBody = hits.find((h) => h.includes(id))!;
    const compactLine = (await streamData(row.seq - 1, row.seq)).get(row.seq)!;
    // The body is {event, timestamp, data} with the stored JSON as data, and the stream line is the same body.
    expect(JSON.parse(webhookBody)).toEqual({ event: "transfer.created", timestamp: row.created_at, data: JSON.parse(json) });
    expect(compactLine).toBe(webhookBody);

    // The same event as the plain TEXT row the previous format wrote: the stream line is byte-identical.
    sql((d) => d.prepare("UPDATE events SET data = ? WHERE seq = ?").run(json, row.seq));
    expect(sql((d) => (d.prepare("SELECT typeof(data) AS kind FROM events WHERE seq = ?").get(row.seq) as { kind: string }).kind)).toBe("text");
    const plainLine = (await streamData(row.seq - 1, row.seq)).get(row.seq)!;
    expect(plainLine).toBe(compactLine);
  });
});
