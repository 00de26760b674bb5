// The operator console against two nodes of one service: two `caravan serve` processes on one PostgreSQL database
// (./support/pg-server.ts, then a second server with the first's environment and another CARAVAN_NODE_ID), the
// screening_c and provider_b sandboxes, and `caravan console --url <node b>,<node a>` in a real terminal (tmux), as
// test/console-postgres-e2e.test.ts drives it on one node. A transfer created on node a appears live in the console
// talking to node b, and moves there live when its case is resolved on node a; when node b is killed the console goes
// on with node a, and what is created there still appears. The appearance is bounded by 10 s: the console's safety-net
// poll while its stream is live is 30 s, so only the event stream (node b reading node a's events) shows it in time.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { hasTmux, terminal } from "../support/tmux.ts";
import { startPgServer, type PgServer } from "../support/pg-server.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient } from "../support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { startScreeningCSandbox, type ScreeningCSandbox } from "../../src/sandbox/screening_c/index.ts";
import { JANE, VIKTOR } from "../support/persons.ts";
import { ORIGIN_ADDR, postHeldTransfer, setUpHeldScene, VIKTOR_ADDR } from "../support/console-scene.ts";
import { shardOf } from "../../src/ports/cluster.ts";
import postgres from "postgres";

// Two servers, a PostgreSQL cluster, sandboxes and a terminal on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const { tmux, press, until, openConsole } = terminal("caravan-console-nodes");
let A: PgServer;
let B: ChildServer;
let callB: ReturnType<typeof apiClient>["call"];
let peer: ProviderBPeer;
let vc: ScreeningCSandbox;
let owner: { key: string; memberEmail: string };
let customerId: string;
let heldId: string;
let sql: ReturnType<typeof postgres>;
const seed = randomSeedBase64();
/** Whether the screen names the node at `url` (host:port, not a longer port that begins with it). */
const names = (s: string, url: string) => new RegExp(`${url.replace("http://", "").replace(/\./g, "\\.")}(?!\\d)`).test(s);

/** The open case linked to transfer `id`, once the case's actor has opened it (asked of node `call`'s server). */
async function caseOf(call: typeof callB, id: string): Promise<{ id: string }> {
  for (;;) {
    const cases = await call("/api/v2/cases?status=open&hasTransfer=true", { key: owner.key });
    const c = (cases.body.data as { id: string; transferIds: string[] }[]).find((x) => x.transferIds.includes(id));
    if (c) return c;
    await Bun.sleep(50);
  }
}

/** The node holding the lease of the shard of transfer `id`'s actor. */
async function holderOf(id: string): Promise<string | null> {
  const [r] = await sql`SELECT node_id FROM shard_leases WHERE shard = ${shardOf(`transfer:${id}`)} AND expires_at > ${Date.now()}`;
  return (r?.node_id as string | undefined) ?? null;
}

/**
 * A held transfer created on node a whose actor node a holds, so that node b learns of it only through the event
 * stream across nodes (an actor node b held would tell b's stream itself). One whose actor node b holds is let go
 * (its case approved, it leaves held) and another is made.
 */
async function heldOnNodeA(amount: string): Promise<string> {
  for (;;) {
    const id = await postHeldTransfer(A.call, owner.key, customerId, amount);
    if ((await holderOf(id)) === "node-a") return id;
    while ((await transferState(id)) !== "held") await Bun.sleep(50);
    const c = await caseOf(A.call, id);
    expect((await A.call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner.key, json: { resolution: "approved", resolutionNote: "on node b's shard" } })).status).toBe(200);
    while ((await transferState(id)) === "held") await Bun.sleep(50);
  }
}

async function transferState(id: string): Promise<string> {
  const r = await A.call(`/api/v2/transfers/${id}`, { key: owner.key });
  expect(r.status).toBe(200);
  return r.body.data.state;
}

beforeAll(async () => {
  if (!hasTmux) throw new Error("tmux is required for the console's end-to-end test (Debian package tmux; .ci/run installs it)");
  vc = await startScreeningCSandbox();
  peer = await startProviderBPeer({
    vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { viktor: [VIKTOR] }, wallets: [{ address: VIKTOR_ADDR, customer: "viktor" }] }],
  });
  A = await startPgServer({
    CARAVAN_NODE_ID: "node-a",
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    CARAVAN_SCREENING_C_URLS: `eu=${vc.url},us=${vc.url},apac=${vc.url}`,
  });
  // The second node: the same database, key files and settings, another node ID, its own port.
  B = await startServer({ ...A.env, CARAVAN_NODE_ID: "node-b" });
  callB = apiClient(A.env.CARAVAN_DB!, () => B.url).call;
  sql = postgres(A.databaseUrl, { max: 1, onnotice: () => {} });
  // Both nodes hold shards (the second takes its share within two ticks of its join).
  for (;;) {
    const held = (await sql`SELECT node_id, count(*)::int AS n FROM shard_leases WHERE expires_at > ${Date.now()} GROUP BY node_id`).map((r) => r.node_id);
    if (held.includes("node-a") && held.includes("node-b")) break;
    await Bun.sleep(100);
  }
  owner = await A.newKey("owner");
  const live = (await A.newKey("owner", "live")).key;
  await A.cli("companies", "profile", "--slug", "default", "--country", "NL");
  ({ customerId } = await setUpHeldScene({ call: A.call, owner: owner.key, live, serverUrl: A.server.url, peer, seed, entityId: "CARAVAN-NODES" }));
});

afterAll(async () => {
  if (!hasTmux) return;
  try {
    tmux("kill-server");
  } catch {
    /* no session left */
  }
  await sql?.end({ timeout: 5 });
  await B?.stop("SIGKILL");
  if (A) expect(await A.stop()).toBe(0);
  await Promise.all([peer?.stop(), vc?.stop()]);
});

describe("caravan console with two nodes (--url <node b>,<node a>)", () => {
  test("both nodes are ready; the console talks to node b, its stream live", async () => {
    for (const url of [A.server.url, B.url]) expect((await fetch(`${url}/healthz`)).status).toBe(200);
    openConsole("officer", `${B.url},${A.server.url}`, owner.key);
    const s = await until("officer", (s) => s.includes(owner.memberEmail.slice(0, 20)) && s.includes("live"));
    expect(names(s, B.url)).toBe(true);
    expect(names(s, A.server.url)).toBe(false);
  });

  test("node b's event stream carries the events of a transfer created on node a", async () => {
    const abort = new AbortController();
    const res = await fetch(`${B.url}/api/v2/events/stream`, { headers: { accept: "text/event-stream", "x-api-key": owner.key }, signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    // The stream's first frame (retry and the `connected` comment) is written before the create.
    let text = dec.decode((await reader.read()).value);
    expect(text).toContain(": connected");
    const id = await heldOnNodeA("0.9");
    const created = () => text.split("\n\n").find((b) => b.includes("event: transfer.created") && b.includes(`"id":"${id}"`));
    while (!created()) text += dec.decode((await reader.read()).value, { stream: true });
    abort.abort();
    expect(JSON.parse(/^data: (.*)$/m.exec(created()!)![1]!).data.id).toBe(id);
    for (let i = 0; i < 300 && (await transferState(id)) !== "held"; i++) await Bun.sleep(20);
    // Its case resolved on node b through the API: it leaves held (the next test starts from an empty held list).
    const c = await caseOf(callB, id);
    expect((await callB(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner.key, json: { resolution: "approved", resolutionNote: "cleared" } })).status).toBe(200);
    for (let i = 0; i < 300 && (await transferState(id)) === "held"; i++) await Bun.sleep(20);
    expect(await transferState(id)).not.toBe("held");
  });

  test("a transfer created on node a, its actor on node a, appears on node b's console within 10 s (pushed by the stream, not the 30 s poll)", async () => {
    await press("officer", "2");
    await until("officer", (s) => s.includes("no held transfers"));
    heldId = await heldOnNodeA("1");
    const s = await until("officer", (s) => s.includes(heldId.slice(-8)), 10_000);
    expect(s.split("\n").find((l) => l.includes(heldId.slice(-8)))).toMatch(/1 ETH held\s+Viktor Krasnov/);
    expect(await transferState(heldId)).toBe("held");
  });

  test("its case resolved on node a: node b's console shows it leave held within 10 s", async () => {
    const c = await caseOf(A.call, heldId);
    const r = await A.call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner.key, json: { resolution: "approved", resolutionNote: "cleared on node a" } });
    expect(r.status).toBe(200);
    await until("officer", (s) => s.includes("no held transfers"), 10_000);
    expect(await transferState(heldId)).not.toBe("held");
  });

  test("node b killed: the console goes on with node a (named on the status line, stream live) and shows what is created there", async () => {
    expect(await B.stop("SIGKILL")).not.toBe(0);
    const moved = await until("officer", (s) => names(s, A.server.url) && s.includes("live"), 30_000);
    expect(names(moved, B.url)).toBe(false);
    // Sent as a client does while a node's actors wait for the takeover: a 503 is sent again with the same key.
    const key = crypto.randomUUID();
    let next = "";
    for (;;) {
      const r = await A.call("/api/v2/transfers", {
        method: "POST",
        key: owner.key,
        headers: { "Idempotency-Key": key },
        json: { asset: "ETH", amount: "1.1", network: "ethereum", originatorCustomerId: customerId, originatorAddress: ORIGIN_ADDR, beneficiaryAddress: VIKTOR_ADDR, originator: { originatorPersons: [JANE] }, beneficiary: { beneficiaryPersons: [VIKTOR] } },
      });
      if (r.status === 200 || r.status === 202) {
        next = r.body.data.id;
        break;
      }
      expect(r.status).toBe(503);
    }
    // Its actor may be in a shard the killed node held: it is held once node a has taken that shard (the lease time).
    while ((await transferState(next)) !== "held") await Bun.sleep(50);
    const s = await until("officer", (s) => s.includes(next.slice(-8)), 10_000);
    expect(s).toMatch(/1\.1 ETH held\s+Viktor Krasnov/);
  });
});
