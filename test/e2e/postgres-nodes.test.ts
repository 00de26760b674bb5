// Several `caravan serve` on one PostgreSQL database, as real processes: each registers as a node before it serves;
// a second process with a live node's CARAVAN_NODE_ID says why and exits; a clean stop frees the ID at once.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import postgres from "postgres";
import { startPgServer, type PgServer } from "../support/pg-server.ts";
import { startServer, type ChildServer } from "../support/server.ts";

// Servers as child processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const running: (PgServer | ChildServer)[] = [];
afterAll(async () => {
  for (const s of running) await s.stop().catch(() => 0);
});

/** `serve` with `env` until it listens or exits: its exit code (null: it listened, then was stopped) and its output. */
async function startOnce(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  try {
    const s = await startServer(env, { timeoutMs: 60_000 });
    running.push(s);
    return { code: null, output: s.output() };
  } catch (e) {
    return { code: 1, output: String(e) };
  }
}

test("two nodes with one CARAVAN_NODE_ID: the second says why and does not serve; another ID serves; a clean stop frees the ID", async () => {
  const first = await startPgServer({ CARAVAN_NODE_ID: "node-1" });
  running.push(first);
  expect((await fetch(`${first.server.url}/healthz`)).status).toBe(200);
  const sql = postgres(first.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    expect((await sql`SELECT node_id FROM cluster_nodes ORDER BY node_id`).map((r) => r.node_id)).toEqual(["node-1"]);

    const twin = await startOnce({ ...first.env, CARAVAN_NODE_ID: "node-1" });
    expect(twin.code).not.toBeNull();
    expect(twin.output).toContain("node node-1 is already running on this database");
    expect(twin.output).not.toContain(first.databaseUrl);
    expect((await fetch(`${first.server.url}/healthz`)).status).toBe(200); // the one running is untouched

    const other = await startOnce({ ...first.env, CARAVAN_NODE_ID: "node-2" });
    expect(other.code).toBeNull();
    expect((await sql`SELECT node_id FROM cluster_nodes ORDER BY node_id`).map((r) => r.node_id)).toEqual(["node-1", "node-2"]);

    expect(await first.stop()).toBe(0);
    expect((await sql`SELECT node_id FROM cluster_nodes ORDER BY node_id`).map((r) => r.node_id)).toEqual(["node-2"]);
    expect((await sql`SELECT count(*)::int AS n FROM shard_leases WHERE node_id = 'node-1'`)[0]!.n).toBe(0);
    const again = await startOnce({ ...first.env, CARAVAN_NODE_ID: "node-1" });
    expect(again.code).toBeNull();
  } finally {
    await sql.end();
  }
});
