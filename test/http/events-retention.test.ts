// Event retention (CARAVAN_EVENTS_RETENTION) end to end: a real server on loopback, real transfers, a real webhook
// receiver on 127.0.0.2. Rows are backdated in the database to say "older than the window" (the sweep runs every
// second in tests). Checks: delivered events older than the window go, as a whole prefix of the sequence; done
// deliveries older than the window go, a pending one stays; the subscription's counts stay; a stream resume point
// before what is kept is refused (400 INVALID_QUERY), one at the edge resumes; a bad setting stops the start.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { withDb } from "../support/db.ts";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { eventIdsFor } from "../support/event-ids.ts";
import { apiClient, expectError } from "../support/api.ts";
import { parseEventsRetention } from "../../src/domain/webhooks.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "retention.db");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let owner: { key: string };

const receiver = Bun.serve({
  hostname: "127.0.0.2",
  port: 0,
  fetch: (req) => (new URL(req.url).pathname === "/failing" ? new Response("no", { status: 500 }) : new Response("ok")),
});

const sql = <T>(fn: (d: Database) => T): T => withDb(db, fn);

async function waitFor<T>(fn: () => T | undefined | null | false, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const OLD = "2020-01-01T00:00:00.000Z";

beforeAll(async () => {
  const m = await runCli(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  owner = await newKey("--env", "test", "--role", "owner");
  S = await startServer({
    CARAVAN_DB: db,
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2",
    CARAVAN_EVENTS_RETENTION: "1h",
    // The failing subscription's delivery stays pending for an hour after its first attempt.
    CARAVAN_WEBHOOK_RETRY_MS: "3600000,3600000",
    CARAVAN_WEBHOOK_AUTO_DISABLE: "off",
  });
}, 120_000);

afterAll(async () => {
  await S?.stop();
  void receiver.stop(true);
});

describe("events retention", () => {
  test("the setting: whole numbers with s, m, h or d, or off; 30 days when unset; anything else stops the start", async () => {
    expect(parseEventsRetention(undefined)).toBe(30 * 86_400_000);
    expect(parseEventsRetention("30d")).toBe(30 * 86_400_000);
    expect(parseEventsRetention("12h")).toBe(12 * 3_600_000);
    expect(parseEventsRetention("90s")).toBe(90_000);
    expect(parseEventsRetention("off")).toBeNull();
    for (const bad of ["0d", "1.5d", "-1d", "10", "1w", "d"]) expect(() => parseEventsRetention(bad)).toThrow(/CARAVAN_EVENTS_RETENTION/);
    const bad = await startServer({ CARAVAN_DB: join(dir, "bad.db"), CARAVAN_EVENTS_RETENTION: "forever" }).then(
      async (s) => {
        await s.stop();
        return "started";
      },
      (e: Error) => e.message,
    );
    expect(bad).toContain("CARAVAN_EVENTS_RETENTION");
  });

  test("delivered events and done deliveries older than the window go as a prefix; pending ones and counts stay; resume before them is refused", async () => {
    const sub = await call("/api/v2/webhooks", { method: "POST", key: owner.key, json: { name: "All", url: `http://127.0.0.2:${receiver.port}/ok`, events: ["*"] } });
    expect(sub.status).toBe(201);
    const failing = await call("/api/v2/webhooks", { method: "POST", key: owner.key, json: { name: "Failing", url: `http://127.0.0.2:${receiver.port}/failing`, events: ["transfer.created"] } });
    expect(failing.status).toBe(201);
    const okId: string = sub.body.data.webhook.id;
    const failingId: string = failing.body.data.webhook.id;
    const cus = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Originator" } });
    expect(cus.status).toBe(201);
    const transfers: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call("/api/v2/transfers", {
        method: "POST",
        key: owner.key,
        json: {
          asset: "ETH",
          amount: "0.001",
          network: "ethereum",
          originatorCustomerId: cus.body.data.id,
          beneficiaryAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
          originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
        },
      });
      if (r.status !== 201) throw new Error(`transfer create: ${r.status} ${r.text}`);
      transfers.push(r.body.data.id);
    }
    // Every transfer: transfer.created and transfer.completed; "All" gets 8 deliveries (sent), "Failing" 4 (pending:
    // the first failed once and waits an hour for its retry, the others wait behind it in order).
    await waitFor(
      () => sql((d) => (d.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'sent'").get(okId) as { n: number }).n === 8),
      "8 sent deliveries",
    );
    await waitFor(
      () => {
        const r = sql((d) => d.prepare("SELECT count(*) AS n, sum(attempts) AS a FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'").get(failingId) as { n: number; a: number | null });
        return r.n === 4 && r.a === 1;
      },
      "4 pending deliveries, the first after one attempt (the rest wait behind it)",
    );
    const events = sql((d) => d.prepare("SELECT seq, entity_id FROM events WHERE entity_id IN (?, ?, ?, ?) ORDER BY seq").all(...transfers) as { seq: number; entity_id: string }[]);
    expect(events.length).toBe(8);
    const countBefore = (await call(`/api/v2/webhooks/${okId}`, { key: owner.key })).body.deliveryCount;
    expect(countBefore).toBe(8);

    // Everything up to the third transfer's events is older than the window, except the second transfer's
    // transfer.completed: pruning stops there (a prefix), so only the first transfer's events and what came before go.
    const third = events.filter((e) => e.entity_id === transfers[2]).at(-1)!.seq;
    const young = events.filter((e) => e.entity_id === transfers[1]).at(-1)!.seq;
    sql((d) => {
      d.prepare("UPDATE events SET created_at = ? WHERE seq <= ? AND seq != ?").run(OLD, third, young);
      d.prepare("UPDATE webhook_deliveries SET created_at = ?, updated_at = ? WHERE event_seq <= ?").run(OLD, OLD, third);
    });
    const pruned = await waitFor(
      () => sql((d) => (d.prepare("SELECT value FROM database_meta WHERE key = 'events_pruned_through'").get() as { value: string } | undefined)?.value),
      "the retention sweep",
    );
    expect(Number(pruned)).toBe(young - 1);
    const left = sql((d) => (d.prepare("SELECT seq FROM events WHERE seq <= ? ORDER BY seq").all(third) as { seq: number }[]).map((r) => r.seq));
    expect(left[0]).toBe(young);
    expect(left).toEqual(events.filter((e) => e.seq >= young && e.seq <= third).map((e) => e.seq));

    // Deliveries: the sent ones of the old events (all up to the third transfer's, the young event's included: the
    // delivery itself is old) go; the failing subscription's pending ones stay, however old.
    await waitFor(
      () => sql((d) => (d.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?").get(okId) as { n: number }).n === 2),
      "old sent deliveries pruned",
    );
    const kept = sql((d) => d.prepare("SELECT event_seq, status FROM webhook_deliveries WHERE webhook_id = ? ORDER BY event_seq").all(okId) as { event_seq: number; status: string }[]);
    expect(kept.map((k) => k.event_seq)).toEqual(events.filter((e) => e.entity_id === transfers[3]).map((e) => e.seq));
    const pending = sql((d) => d.prepare("SELECT status, created_at FROM webhook_deliveries WHERE webhook_id = ?").all(failingId) as { status: string; created_at: string }[]);
    expect(pending.length).toBe(4);
    expect(pending.every((p) => p.status === "pending")).toBe(true);
    expect(pending.filter((p) => p.created_at === OLD).length).toBe(3);
    // Each listed delivery names its subject from its event's row; a pending delivery whose event is gone names none
    // (the payload, which still holds the transfer, is not read for it).
    const rowsOf = sql((d) => d.prepare("SELECT id, event_seq FROM webhook_deliveries WHERE webhook_id = ?").all(failingId) as { id: string; event_seq: number }[]);
    const listed = (await call(`/api/v2/webhooks/${failingId}/deliveries?limit=200`, { key: owner.key })).body.data as { id: string; subject: unknown }[];
    expect(listed.length).toBe(4);
    for (const l of listed) {
      const seq = rowsOf.find((x) => x.id === l.id)!.event_seq;
      const entity = events.find((e) => e.seq === seq)!.entity_id;
      expect(l.subject).toEqual(seq < young ? null : { type: "transfer", id: entity });
    }
    expect(listed.filter((l) => l.subject === null).length).toBeGreaterThan(0);
    expect(listed.filter((l) => l.subject !== null).length).toBeGreaterThan(0);
    // The subscription's counts are history, not a count of the rows kept.
    expect((await call(`/api/v2/webhooks/${okId}`, { key: owner.key })).body.deliveryCount).toBe(8);

    // The stream: a resume point before what is kept is refused (it would skip events), by header or query; the edge resumes.
    const companyId = sql((d) => (d.prepare("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id);
    const ev = eventIdsFor(db, companyId, "test");
    const before = await call("/api/v2/events/stream", { key: owner.key, headers: { "last-event-id": ev.idOf(young - 2) } });
    expectError(before, 400, "INVALID_QUERY");
    expect(before.body.details.issues[0].path).toBe("Last-Event-ID");
    const whole = await call("/api/v2/events/stream?lastEventId=0", { key: owner.key });
    expectError(whole, 400, "INVALID_QUERY");
    expect(whole.body.details.issues[0].path).toBe("lastEventId");
    const abort = new AbortController();
    const edge = await fetch(`${S.url}/api/v2/events/stream`, { headers: { "x-api-key": owner.key, "last-event-id": ev.idOf(young - 1) }, signal: abort.signal });
    expect(edge.status).toBe(200);
    // The first event it replays is the oldest one kept.
    const reader = (edge.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!/\nid: \S+\n/.test(`\n${text}`)) text += new TextDecoder().decode((await reader.read()).value);
    expect(ev.seqOf(/(?:^|\n)id: (\S+)\n/.exec(text)![1])).toBe(young);
    abort.abort();
  });
});
