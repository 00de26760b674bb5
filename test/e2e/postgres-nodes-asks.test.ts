// Two `caravan serve` processes on one PostgreSQL database, each holding half of the shards: every request that asks
// an actor, sent to the node that does NOT hold the actor, answers exactly as the same request sent to the holder
// (status and body, identifiers and times aside); a repeat of an Idempotency-Key on the other node answers the same;
// a transfer's events are the same, in the same order; the CLI's commands are handled by a running node (its answer
// comes back as a row for the CLI), with a clear message when no node answers, and here when no node runs. The nodes
// poll their mailbox once a minute, longer than an ask waits: what crosses nodes is found through the wake-up hints.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startPostgres } from "../support/postgres.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, type Answer } from "../support/api.ts";
import { shardOf } from "../../src/ports/cluster.ts";
import { smallTransfer } from "../support/transfers.ts";

// Servers as child processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(180_000);

let dir: string;
let env: Record<string, string>;
let sql: postgres.Sql;
const nodes: Record<"node-a" | "node-b", ChildServer> = {} as never;
let owner: { key: string };

type NodeId = keyof typeof nodes;
const other = (n: NodeId): NodeId => (n === "node-a" ? "node-b" : "node-a");
const client = (n: NodeId) => apiClient(env.CARAVAN_DB, () => nodes[n].url).call;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(args, env);
}

/** The node holding the actor's shard now (its lease row). */
async function holder(address: string): Promise<NodeId> {
  const [row] = await sql<{ node_id: NodeId }[]>`SELECT node_id FROM shard_leases WHERE shard = ${shardOf(address)} AND expires_at > ${Date.now()}`;
  if (!row) throw new Error(`no node holds ${address}`);
  return row.node_id;
}

/** The answer with what differs between two equivalent requests made the same: identifiers, times, numbers drawn. */
function normal(a: Answer): { status: number; body: unknown } {
  const walk = (x: unknown, key = ""): unknown => {
    if (Array.isArray(x)) return x.map((v) => walk(v));
    if (x !== null && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v, k)]));
    if (["caseNumber", "externalId", "idempotencyKey", "requestId"].includes(key)) return "<drawn>";
    if (typeof x === "string") return x.replace(/\b[a-z]{2,4}_[0-9a-z]{26}\b/g, "<id>").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<time>");
    return x;
  };
  return { status: a.status, body: walk(a.body) };
}

/** The answer without its envelope's time (a repeat is answered at another moment). */
const timeless = (a: Answer) => ({ status: a.status, body: { ...a.body, meta: { ...a.body.meta, timestamp: "<time>" } } });

/** A customer whose actor the node holds. */
async function customerOf(n: NodeId): Promise<string> {
  for (;;) {
    const r = await client(n)("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "Jane Originator" } });
    expect(r.status).toBe(201);
    if ((await holder(`customer:${r.body.data.id}`)) === n) return r.body.data.id;
  }
}

/** The transfer once nothing more happens to it by itself (its actor is done with what the create set off). */
async function settled(id: string): Promise<{ state: string; events: string[] }> {
  let last = "";
  for (let same = 0; ; ) {
    const [t] = await sql<{ state: string }[]>`SELECT state FROM transfers WHERE id = ${id}`;
    const events = (await sql<{ type: string }[]>`SELECT type FROM events WHERE entity_id = ${id} ORDER BY seq`).map((e) => e.type);
    const [pending] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM actor_messages WHERE actor = ${`transfer:${id}`}`;
    const now = JSON.stringify([t!.state, events, pending!.n]);
    same = now === last && pending!.n === 0 ? same + 1 : 0;
    last = now;
    if (same >= 3) return { state: t!.state, events };
    await Bun.sleep(200);
  }
}

beforeAll(async () => {
  const pg = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), "caravan-nodes-asks-"));
  env = { CARAVAN_DB: join(dir, "caravan.db"), CARAVAN_DATABASE_URL: await pg.createDatabase(), CARAVAN_LEASE_MS: "6000" };
  sql = postgres(env.CARAVAN_DATABASE_URL, { max: 1, onnotice: () => {} });
  // A trigger of the test's own keeps who every answer row was for (the asker takes and deletes the rows).
  await runCli(["migrate"], env);
  await sql.unsafe(`CREATE TABLE seen_replies (node_id text, at timestamptz DEFAULT clock_timestamp());
    CREATE FUNCTION keep_reply() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO seen_replies (node_id) VALUES (NEW.node_id); RETURN NULL; END; $$;
    CREATE TRIGGER keep_reply AFTER INSERT ON actor_replies FOR EACH ROW EXECUTE FUNCTION keep_reply();`);
  // The runtime polls once a minute (an ask waits 15 s): a request for the other node's actor is handled because the holder is woken by
  // the mailbox hint, and its answer taken because the asker is woken by the replies hint (a lost hint would show as
  // a 503 after the ask's 15 s, not as a slow pass).
  const slow = { CARAVAN_ACTOR_POLL_MS: "60000" };
  nodes["node-a"] = await startServer({ ...env, ...slow, CARAVAN_NODE_ID: "node-a" }, { timeoutMs: 60_000 });
  nodes["node-b"] = await startServer({ ...env, ...slow, CARAVAN_NODE_ID: "node-b" }, { timeoutMs: 60_000 });
  // Each takes its share within a few ticks (a third of the lease time each).
  for (;;) {
    const shares = await sql<{ node_id: string; n: number }[]>`SELECT node_id, count(*)::int AS n FROM shard_leases WHERE expires_at > ${Date.now()} GROUP BY node_id ORDER BY node_id`;
    if (shares.length === 2 && shares.every((s) => s.n === 32)) break;
    await Bun.sleep(100);
  }
});

afterAll(async () => {
  for (const n of Object.values(nodes)) await n?.stop().catch(() => 0);
  await sql?.end({ timeout: 5 });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the CLI's commands with nodes running are handled by the node holding the actor: its answer is a row for the CLI", async () => {
  const email = `owner-${crypto.randomUUID().slice(0, 8)}@members.test`;
  const member = await cli("members", "create", "--email", email, "--role", "owner", "--json");
  expect(member.stderr).toBe("");
  expect(member.code).toBe(0);
  const key = await cli("keys", "create", "--env", "test", "--member", email, "--json");
  expect(key.code).toBe(0);
  owner = JSON.parse(key.stdout.trim().split("\n").at(-1)!);
  expect(owner.key).toMatch(/^crv_test_/);
  // Two commands, two answers written by a node for a CLI (`cli-<hex>`), none handled in the CLI's own process.
  const answered = await sql<{ node_id: string }[]>`SELECT node_id FROM seen_replies WHERE node_id NOT IN ('node-a', 'node-b')`;
  expect(answered.length).toBe(2);
  for (const r of answered) expect(r.node_id).toMatch(/^cli-[0-9a-f]{12}$/);
  expect(new Set(answered.map((r) => r.node_id)).size).toBe(2); // one CLI process each
  expect((await client("node-a")("/api/v2/me", { key: owner.key })).status).toBe(200);
  expect((await client("node-b")("/api/v2/me", { key: owner.key })).status).toBe(200);
});

test("a transfer create with an Idempotency-Key, sent to the node that does not hold the originator, answers as at the holder; a repeat on either node answers the same", async () => {
  const local = await customerOf("node-a");
  const remote = await customerOf("node-b");
  const here = await client("node-a")("/api/v2/transfers", { method: "POST", key: owner.key, json: smallTransfer(local), headers: { "idempotency-key": "asks-local-1" } });
  const there = await client("node-a")("/api/v2/transfers", { method: "POST", key: owner.key, json: smallTransfer(remote), headers: { "idempotency-key": "asks-remote-1" } });
  expect(here.status).toBe(201);
  expect(normal(there)).toEqual(normal(here));
  const before = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM seen_replies WHERE node_id = 'node-a'`;
  expect(before[0]!.n).toBeGreaterThan(0); // node-b answered node-a's ask with a row

  // A repeat is answered from the transfer the key created (200, meta.idempotent): the same on both nodes, and as a
  // repeat of the other key at its holder.
  const repeat = (n: NodeId, customer: string, key: string) => client(n)("/api/v2/transfers", { method: "POST", key: owner.key, json: smallTransfer(customer), headers: { "idempotency-key": key } });
  const againA = await repeat("node-a", remote, "asks-remote-1");
  const againB = await repeat("node-b", remote, "asks-remote-1");
  expect(againA.status).toBe(200);
  expect(againA.body.data.id).toBe(there.body.data.id);
  expect(timeless(againB)).toEqual(timeless(againA));
  expect(normal(againA)).toEqual(normal(await repeat("node-a", local, "asks-local-1")));
  expect((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM transfers WHERE external_id = 'asks-remote-1'`)[0]!.n).toBe(1);

  // The transfers' events: the same, in the same order, whichever node took the create.
  const a = await settled(here.body.data.id);
  const b = await settled(there.body.data.id);
  expect(b).toEqual(a);
  expect(a.events.length).toBeGreaterThan(0);
});

test("a PATCH action on a transfer (refused, then taken), sent to the node that does not hold it, answers as at the holder, and its Idempotency-Key repeat on the other node the same", async () => {
  const ids: Record<"here" | "there", string> = { here: "", there: "" };
  // Two transfers: one whose actor node-a holds, one node-b holds; both asked through node-a.
  for (let i = 0; !ids.here || !ids.there; i++) {
    const r = await client("node-a")("/api/v2/transfers", { method: "POST", key: owner.key, json: smallTransfer(await customerOf("node-a")), headers: { "idempotency-key": `asks-patch-${i}` } });
    expect(r.status).toBe(201);
    const slot = (await holder(`transfer:${r.body.data.id}`)) === "node-a" ? "here" : "there";
    if (!ids[slot]) ids[slot] = r.body.data.id;
  }
  const a = await settled(ids.here);
  const b = await settled(ids.there);
  expect(b.state).toBe(a.state);
  const action = { action: "retry", reason: "operator retry" };
  const here = await client("node-a")(`/api/v2/transfers/${ids.here}`, { method: "PATCH", key: owner.key, json: action, headers: { "idempotency-key": "asks-act-here" } });
  const there = await client("node-a")(`/api/v2/transfers/${ids.there}`, { method: "PATCH", key: owner.key, json: action, headers: { "idempotency-key": "asks-act-there" } });
  expect(normal(there)).toEqual(normal(here));
  const again = await client("node-b")(`/api/v2/transfers/${ids.there}`, { method: "PATCH", key: owner.key, json: action, headers: { "idempotency-key": "asks-act-there" } });
  expect(timeless(again)).toEqual(timeless(there));

  // Both held (set in the row, as test/http/transfers.test.ts does): the retry is taken, at the holder and across.
  for (const id of [ids.here, ids.there]) await sql`UPDATE transfers SET state = 'held', status = 'pending', ours_status = 'pending', completed_at = NULL WHERE id = ${id}`;
  const retry = { action: "retry", reason: "released by the officer" };
  const tookHere = await client("node-a")(`/api/v2/transfers/${ids.here}`, { method: "PATCH", key: owner.key, json: retry, headers: { "idempotency-key": "asks-retry-here" } });
  const tookThere = await client("node-a")(`/api/v2/transfers/${ids.there}`, { method: "PATCH", key: owner.key, json: retry, headers: { "idempotency-key": "asks-retry-there" } });
  expect(tookHere.status).toBe(200);
  expect(tookHere.body.meta).toMatchObject({ action: "retry", previousState: "held" });
  expect(normal(tookThere)).toEqual(normal(tookHere));
  // A repeat of a key whose action was taken is answered as such (meta.idempotent), the same across as at the holder.
  const retried = await client("node-b")(`/api/v2/transfers/${ids.there}`, { method: "PATCH", key: owner.key, json: retry, headers: { "idempotency-key": "asks-retry-there" } });
  const retriedHere = await client("node-a")(`/api/v2/transfers/${ids.here}`, { method: "PATCH", key: owner.key, json: retry, headers: { "idempotency-key": "asks-retry-here" } });
  expect(retried.body.data).toEqual(tookThere.body.data);
  expect(normal(retried)).toEqual(normal(retriedHere));
  expect(await settled(ids.there)).toEqual(await settled(ids.here));
});

test("a case resolved through the node that does not hold it answers as at the holder", async () => {
  const cases: Record<"here" | "there", string> = { here: "", there: "" };
  for (; !cases.here || !cases.there; ) {
    const r = await client("node-b")("/api/v2/cases", { method: "POST", key: owner.key, json: { title: "Structuring pattern", type: "manual_escalation" } });
    expect(r.status).toBe(201);
    const slot = (await holder(`case:${r.body.data.id}`)) === "node-b" ? "here" : "there";
    if (!cases[slot]) cases[slot] = r.body.data.id;
  }
  const resolve = { resolution: "approved", resolutionNote: "Documents fine" };
  const here = await client("node-b")(`/api/v2/cases/${cases.here}/resolve`, { method: "POST", key: owner.key, json: resolve });
  const there = await client("node-b")(`/api/v2/cases/${cases.there}/resolve`, { method: "POST", key: owner.key, json: resolve });
  expect(here.status).toBe(200);
  expect(normal(there)).toEqual(normal(here));
  // A refusal crosses as a refusal: resolving again.
  const refusedHere = await client("node-b")(`/api/v2/cases/${cases.here}/resolve`, { method: "POST", key: owner.key, json: resolve });
  const refusedThere = await client("node-b")(`/api/v2/cases/${cases.there}/resolve`, { method: "POST", key: owner.key, json: resolve });
  expect(refusedHere.status).toBeGreaterThanOrEqual(400);
  expect(normal(refusedThere)).toEqual(normal(refusedHere));
});

test("the CLI when no node answers says so and leaves the command recorded; with no node running it handles the command itself", async () => {
  // A node that is registered and holds the company's tenancy shard but answers nothing (a stand-in for a hung one).
  const [company] = await sql<{ id: string }[]>`SELECT id FROM companies WHERE slug = 'default'`;
  const address = `tenancy:${company!.id}`;
  for (const n of Object.values(nodes)) expect(await n.stop()).toBe(0);
  const far = Date.now() + 3_600_000;
  await sql`INSERT INTO cluster_nodes (node_id, incarnation, started_at, heartbeat_at, expires_at, address) VALUES ('ghost', 'x', ${Date.now()}, ${Date.now()}, ${far}, NULL)`;
  await sql`UPDATE shard_leases SET node_id = 'ghost', epoch = epoch + 1, expires_at = ${far} WHERE shard = ${shardOf(address)}`;
  const email = `ghosted-${crypto.randomUUID().slice(0, 8)}@members.test`;
  const r = await runCli(["members", "create", "--email", email, "--role", "analyst"], { ...env, CARAVAN_CLI_TIMEOUT_MS: "1500" });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("no node answered within 1500 ms (nodes registered: ghost)");
  expect(r.stderr).toContain("the command is recorded");
  expect((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM actor_messages WHERE actor = ${address}`)[0]!.n).toBe(1);
  await sql`DELETE FROM actor_messages WHERE actor = ${address}`;

  // No node at all: the CLI handles the command in its own process, the shard's lease row claimed meanwhile.
  await sql`DELETE FROM cluster_nodes WHERE node_id = 'ghost'`;
  await sql`UPDATE shard_leases SET node_id = NULL WHERE node_id = 'ghost'`;
  const rows = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM seen_replies`)[0]!.n;
  const alone = await runCli(["members", "create", "--email", email, "--role", "analyst", "--json"], env);
  expect(alone.stderr).toBe("");
  expect(alone.code).toBe(0);
  expect(JSON.parse(alone.stdout.trim().split("\n").at(-1)!).email).toBe(email);
  expect((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM seen_replies`)[0]!.n).toBe(rows); // no answer row: handled here
});
