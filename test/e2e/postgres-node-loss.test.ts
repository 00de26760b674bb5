// Two nodes of one service on one PostgreSQL database, one of which loses its database, end to end: two real services
// (startService, the real HTTP on loopback) on the test cluster, node B connected through a TCP proxy the test cuts
// (its connections reset, no new ones: B alone loses PostgreSQL, A reaches it directly), with a short lease
// (CARAVAN_LEASE_MS=2000), cut while creates taken by A are under way (some for actors in B's shards). While cut, B
// answers every request 503 SERVICE_UNAVAILABLE with Retry-After and /healthz
// storage_unavailable, also once its membership lapsed; A takes every shard and the leader lease, each at a new epoch,
// and serves. Restored, B takes shards again at new epochs only (never one it held before the cut), does not lead, and
// nothing it does commits twice: every create answered 2xx exists once, with one audit entry.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startService, type RunningService } from "../../src/services.ts";
import { SHARDS } from "../../src/ports/cluster.ts";
import { startPostgres } from "../support/postgres.ts";
import { cuttableProxy } from "../support/postgres-faults.ts";

// Two services, a lease that must lapse, reconnection on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(180_000);

const LEASE_MS = 2_000;

const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await Promise.resolve(fn()).catch(() => {});
});

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function call(s: RunningService, path: string, init: { method?: string; key?: string; json?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.key) headers["x-api-key"] = init.key;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${s.url}${path}`, { method: init.method ?? "GET", headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Waits for `cond` (bounded by the hang guard, never a timing assertion). */
async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await Bun.sleep(50);
}

function expectStoreFault(r: Answer): void {
  expect({ status: r.status, code: r.body?.code }).toEqual({ status: 503, code: "SERVICE_UNAVAILABLE" });
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
}

test("a node that loses PostgreSQL answers 503 and is not ready; the other takes its shards and the leader lease and serves; back, it uses no old epoch and nothing commits twice", async () => {
  const pg = await startPostgres();
  const url = await pg.createDatabase();
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  cleanup.push(() => admin.end({ timeout: 5 }));
  const proxy = await cuttableProxy(url);
  cleanup.push(() => proxy.close());
  const dir = mkdtempSync(join(tmpdir(), "caravan-node-loss-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const start = (nodeId: string, databaseUrl: string) =>
    startService({
      dbPath: join(dir, "caravan.db"), // where the master key file is: one key for both nodes
      databaseUrl,
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      sweepSchedule: () => "* * * * * *",
      actorPollMs: 100,
      env: { CARAVAN_NODE_ID: nodeId, CARAVAN_LEASE_MS: String(LEASE_MS) },
    });
  // B first: it leads and holds every shard until A joins and the two split them.
  const b = await start("node-b", proxy.url);
  cleanup.push(() => b.stop());
  cleanup.push(() => proxy.restore()); // a failure while cut: B stops with its database back
  const a = await start("node-a", url);
  cleanup.push(() => a.stop());

  const now = () => Date.now();
  const held = async (nodeId: string) =>
    (await admin<{ shard: number; epoch: number }[]>`SELECT shard, epoch FROM shard_leases WHERE node_id = ${nodeId} AND expires_at > ${now()} ORDER BY shard`).map((r) => ({ shard: r.shard, epoch: Number(r.epoch) }));
  const leader = async () => {
    const [r] = await admin<{ node_id: string | null; epoch: number; expires_at: number }[]>`SELECT node_id, epoch, expires_at FROM leader_lease WHERE name = 'leader'`;
    return r && Number(r.expires_at) > now() ? { nodeId: r.node_id, epoch: Number(r.epoch) } : null;
  };
  await until(async () => (await held("node-a")).length === SHARDS / 2 && (await held("node-b")).length === SHARDS / 2);
  expect((await leader())?.nodeId).toBe("node-b");

  const company = await a.tenancy.requireCompany("default");
  const member = await a.tenancy.createMember(company.id, "loss@example.com", "owner");
  const { key } = await a.tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" });
  const created: string[] = [];
  const createOn = async (s: RunningService, name: string) => {
    const r = await call(s, "/api/v2/customers", { method: "POST", key, json: { name } });
    if (r.status === 201) created.push(r.body.data.id);
    return r;
  };
  expect((await createOn(b, "Before the cut, on B")).status).toBe(201);
  expect((await createOn(a, "Before the cut, on A")).status).toBe(201);
  expect((await call(b, "/healthz")).status).toBe(200);
  const before = new Map((await held("node-b")).map((l) => [l.shard, l.epoch]));
  const leaderBefore = (await leader())!;

  // B's link to PostgreSQL goes down while creates taken by A are under way (about half of them for actors in B's
  // shards: B may be in the middle of their turns).
  const inFlight = Array.from({ length: 8 }, (_, i) => createOn(a, `In flight at the cut ${i}`));
  await Bun.sleep(0);
  const cutAt = now();
  await proxy.cut();
  expectStoreFault(await createOn(b, "While cut, on B"));
  const h = await call(b, "/healthz");
  expect({ status: h.status, body: h.body?.status }).toEqual({ status: 503, body: "storage_unavailable" });

  // A takes every shard and the leader lease once B's lapse, each at an epoch above the last.
  await until(async () => (await held("node-a")).length === SHARDS && (await leader())?.nodeId === "node-a");
  const takeoverMs = now() - cutAt;
  for (const l of await held("node-a")) if (before.has(l.shard)) expect(l.epoch).toBeGreaterThan(before.get(l.shard)!);
  expect((await leader())!.epoch).toBe(leaderBefore.epoch + 1);
  // B's membership has lapsed too by now: still the store fault's answers (not "starting", not COMPANY_NOT_READY).
  const [bRow] = await admin<{ expires_at: number }[]>`SELECT expires_at FROM cluster_nodes WHERE node_id = 'node-b'`;
  await until(() => now() > Number(bRow!.expires_at));
  expectStoreFault(await createOn(b, "While cut and lapsed, on B"));
  expectStoreFault(await call(b, `/api/v2/customers/${created[0]}/overview`, { key }));
  const lapsed = await call(b, "/healthz");
  expect({ status: lapsed.status, body: lapsed.body?.status }).toEqual({ status: 503, body: "storage_unavailable" });
  // Each create under way at the cut is answered: 201 (A, or B before the cut, handled it) or the store fault's 503.
  const answers = await Promise.all(inFlight);
  for (const r of answers) if (r.status !== 201) expectStoreFault(r);
  // A serves meanwhile, the actors of B's former shards included.
  for (let i = 0; i < 6; i++) expect((await createOn(a, `While B is cut, on A ${i}`)).status).toBe(201);
  for (const id of created) expect((await call(a, `/api/v2/customers/${id}/overview`, { key })).status).toBe(200);

  // B's link comes back: it is ready again by itself, takes shards again, at new epochs only, and does not lead.
  const restoredAt = now() - cutAt;
  await proxy.restore();
  await until(async () => (await call(b, "/healthz")).status === 200);
  const backMs = now() - cutAt;
  await until(async () => (await held("node-b")).length === SHARDS / 2 && (await held("node-a")).length === SHARDS / 2);
  for (const l of await held("node-b")) if (before.has(l.shard)) expect(l.epoch).toBeGreaterThan(before.get(l.shard)!);
  expect((await leader())?.nodeId).toBe("node-a");
  for (let i = 0; i < 6; i++) expect((await createOn(b, `After the cut, on B ${i}`)).status).toBe(201);
  for (const id of created) expect((await call(b, `/api/v2/customers/${id}/overview`, { key })).status).toBe(200);
  await Promise.all([a.runtime.idle(), b.runtime.idle()]);

  // Nothing twice: every create answered 201 exists once, with one audit entry of its creation; the two refused on B
  // never happened. Whatever B tried under an epoch it no longer held was refused by the fence, never committed.
  // (A create under way at the cut that was answered 503 may or may not exist, as after any lost connection.)
  const rows = (await admin<{ id: string }[]>`SELECT id FROM customers ORDER BY id`).map((r) => r.id);
  const unknown = answers.filter((r) => r.status !== 201).length;
  expect(created.filter((id) => !rows.includes(id))).toEqual([]);
  expect(rows.length - created.length).toBeLessThanOrEqual(unknown);
  const audits = await admin<{ entity_id: string; n: number }[]>`SELECT entity_id, count(*)::int AS n FROM audit_log WHERE action = 'customer.created' GROUP BY entity_id`;
  expect(audits.map((r) => [r.entity_id, r.n]).sort()).toEqual([...rows].sort().map((id) => [id, 1]));
  console.log(`node loss: creates under way at the cut: ${answers.filter((r) => r.status === 201).length} of ${answers.length} answered 201`);
  console.log(`node loss: A held B's shards and the leader lease ${takeoverMs} ms after the cut (lease ${LEASE_MS} ms); B ready ${backMs - restoredAt} ms after the restore; commits refused by the fence: B ${b.runtime.stats().fenced}, A ${a.runtime.stats().fenced}`);
  expect(a.runtime.stats().fenced).toBe(0);

  // Cut again, and B is stopped once its membership lapsed: the stop does not wait on the database it cannot reach.
  await proxy.cut();
  await until(async () => (await held("node-a")).length === SHARDS);
  const [again] = await admin<{ expires_at: number }[]>`SELECT expires_at FROM cluster_nodes WHERE node_id = 'node-b'`;
  await until(() => now() > Number(again!.expires_at));
  const stopAt = now();
  await b.stop();
  console.log(`node loss: B, its database cut, stopped in ${now() - stopAt} ms`);
  expect((await call(a, "/healthz")).status).toBe(200);
});
