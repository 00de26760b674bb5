// `caravan demo --nodes 2 --database-url postgres://…`: the demo on two nodes of one service, on a fresh database of
// the test cluster. The second node is a `caravan serve` process of its own on another loopback port; both are in the
// node registry while the demo runs and hold the shards between them; transfers are created on the first node and
// worked on the second (each line says which), and the round ends as on one node; at the end both nodes leave (the
// child exits 0, the registry is empty, no lease is held).
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import postgres from "postgres";
import { runDemo } from "../src/demo.ts";
import { startPostgres } from "./support/postgres.ts";

// Servers, a PostgreSQL cluster and a child process on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(240_000);

const root = join(import.meta.dir, "..");

async function rows(url: string, text: string): Promise<Record<string, unknown>[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return [...(await sql.unsafe(text))];
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("demo --nodes 2: two serve processes on one database, creates on the first, actions and cases on the second, the round's outcomes as on one node, both leave at the end", async () => {
  const pg = await startPostgres();
  const url = await pg.createDatabase();
  const lines: string[] = [];
  const demo = await runDemo({ port: 0, databaseUrl: url, nodes: 2, count: 1, intervalMs: 100, giveUpMs: 90_000, log: (l) => lines.push(l) });
  let childPid = 0;
  try {
    expect(demo.nodes.map((n) => n.id)).toEqual(["demo-1", "demo-2"]);
    const [a, b] = demo.nodes;
    expect(a.url).toBe(demo.service.url);
    expect(b.url).not.toBe(a.url);
    expect(a.pid).toBeNull();
    childPid = b.pid!;
    expect(childPid).not.toBe(process.pid);
    expect(alive(childPid)).toBe(true);

    // Both nodes are registered and both answer ready; between them they hold every shard.
    expect((await rows(url, "SELECT node_id FROM cluster_nodes ORDER BY node_id")).map((r) => r.node_id)).toEqual(["demo-1", "demo-2"]);
    for (const n of demo.nodes) expect((await fetch(`${n.url}/healthz`)).status).toBe(200);

    const summary = await demo.done;
    const text = lines.join("\n");
    // The same outcomes as on one node (test/demo-postgres.test.ts).
    expect(summary?.byState).toEqual({ completed: 11, accepted: 1, rejected: 3, failed: 1 });
    expect(summary?.transfers).toBe(16);
    expect(summary?.reports.length).toBe(1);
    expect(summary?.openCases.map((c) => c.type)).toEqual(["compliance_review"]);
    expect(lines.filter((l) => / failed: |gave up/.test(l))).toEqual([]);

    // The banner names both nodes and points the console at the second.
    expect(text).toContain(`Caravan demo running at ${a.url} and ${b.url} (2 nodes of one service)`);
    expect(text).toContain(`  nodes         demo-1 at ${a.url} (this process): creates; demo-2 at ${b.url} (process ${childPid}): actions, cases and reads`);
    expect(text).toMatch(new RegExp(`  console       bun run console -- --url ${b.url} --key crv_test_\\S+   \\(node demo-2: `));

    // Which node served what: each create on the first, each action and case on the second.
    const creates = lines.filter((l) => /^transfer trf_\S+ [\d.]+ ETH: /.test(l));
    expect(creates.length).toBe(12);
    for (const l of creates) expect(l).toEndWith(" [demo-1]");
    const actions = lines.filter((l) => /\(transaction reported to provider_b\)|\(settled at provider_a\)|\(signed txid sent to provider_e\)|over TRP\)/.test(l));
    expect(actions.length).toBeGreaterThanOrEqual(4);
    for (const l of actions) expect(l).toEndWith(" [demo-2]");
    const cases = lines.filter((l) => /^case CASE-\S+ → /.test(l));
    expect(cases.length).toBeGreaterThanOrEqual(4);
    for (const l of cases) expect(l).toEndWith(" [demo-2]");
    expect(a.served.creates).toBe(12);
    expect(a.served.actions ?? 0).toBe(0);
    expect(a.served.cases ?? 0).toBe(0);
    expect(b.served.creates ?? 0).toBe(0);
    expect(b.served.actions).toBeGreaterThanOrEqual(4);
    expect(b.served.cases).toBeGreaterThanOrEqual(4);
    expect(b.served.reads).toBeGreaterThan(0);
    expect(text).toContain(`  nodes:           demo-1 at ${a.url} served `);
    expect(text).toMatch(/; demo-2 at \S+ served .*actions \d+/);
  } finally {
    await demo.stop();
  }
  // Both nodes left: the child stopped cleanly, the registry is empty and no shard is held.
  expect(lines.join("\n")).toContain(`Node demo-2 (process ${childPid}) stopped: exit 0; node demo-1 (this process) stops now`);
  expect(alive(childPid)).toBe(false);
  expect(await rows(url, "SELECT node_id FROM cluster_nodes")).toEqual([]);
  expect((await rows(url, "SELECT count(*)::int AS n FROM shard_leases WHERE node_id IS NOT NULL"))[0].n).toBe(0);
});

test("demo: --nodes 2 needs --database-url, and --nodes takes 1 or 2, each refused in one line", () => {
  const run = (...args: string[]) => Bun.spawnSync(["bun", "src/main.ts", "demo", ...args], { cwd: root, env: { ...process.env, PORT: "0" } });
  const noUrl = run("--nodes", "2");
  expect(noUrl.stderr.toString().trim()).toBe("caravan: --nodes 2 needs --database-url postgres://…: the nodes of one service share one PostgreSQL database");
  expect(noUrl.exitCode).toBe(1);
  const three = run("--nodes", "3", "--database-url", "postgres://demo@127.0.0.1/demo");
  expect(three.stderr.toString().trim()).toBe("caravan: --nodes must be 1 or 2");
  expect(three.exitCode).toBe(1);
});
