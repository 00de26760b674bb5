// docs/operations.md "Running several nodes", followed as written on loopback: the page's shell lines start three
// `caravan serve` processes on a throwaway PostgreSQL database (its URL and key directory in place of the page's, free
// ports in place of 8081–8083), its SQL queries read the node registry and the shard leases, its HAProxy
// configuration runs in front of them (skipped, saying so, where no haproxy binary is installed), and what the page
// says each failure costs is checked: a node killed has its shards taken by the others within the lease time plus a
// tick while the load balancer keeps answering; it is refused until its row lapsed and then comes back; the key files'
// refusals say what the page says; a clean stop empties the registry.
import { test, expect, describe, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createConnection } from "node:net";
import postgres from "postgres";
import { repoRoot, runCli } from "../support/server.ts";
import { tempDir } from "../support/tmp.ts";
import { startPostgres } from "../support/postgres.ts";
import { STREAM_DEFAULTS } from "../../src/domain/events.ts";

// Servers, a PostgreSQL cluster and a load balancer as child processes on a shared machine; the takeover waits out a
// real lease (15 s, as the page sets it). A hang guard, not a timing assertion.
setDefaultTimeout(180_000);

const page = readFileSync(join(repoRoot, "docs/operations.md"), "utf8");
const section = (() => {
  const start = page.indexOf("\n## Running several nodes\n");
  if (start < 0) throw new Error('docs/operations.md has no "## Running several nodes" section');
  const end = page.indexOf("\n## ", start + 5);
  return page.slice(start, end < 0 ? undefined : end);
})();

/** The section's fenced blocks in `lang`. */
function blocks(lang: string): string[] {
  return [...section.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]!);
}

const shell = blocks("sh").find((b) => b.includes("caravan serve &"));
if (!shell) throw new Error("the section has no shell block that starts `caravan serve &`");
const lines = shell.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter((l) => l !== "");
/** `export NAME=value` lines: what every node is given. */
const shared: Record<string, string> = {};
for (const l of lines) {
  const m = /^export ([A-Z_]+)=(.*)$/.exec(l);
  if (m) shared[m[1]!] = m[2]!.replace(/^'(.*)'$/, "$1");
}
/** `A=1 B=2 caravan serve &` lines, in order: each node's own settings. */
const serveLines = lines.filter((l) => /\bcaravan serve &$/.test(l));
const own = serveLines.map((l) => Object.fromEntries([...l.split("caravan serve")[0]!.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
/** The HAProxy configuration and the SQL queries are `text` blocks (the docs test runs only shell blocks). */
const haproxyConfig = blocks("text").find((b) => b.includes("\nbackend nodes\n"));
const [registrySql, unheldSql, epochSql] = blocks("text").filter((b) => b.startsWith("SELECT "));

const hasHaproxy = Bun.spawnSync(["sh", "-c", "command -v haproxy"]).exitCode === 0;
if (!hasHaproxy) console.warn("operations-nodes: no haproxy binary (Debian package haproxy; scripts/test.sh installs it): the load balancer's tests are skipped");

async function freePort(): Promise<number> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = s.port as number;
  await s.stop(true);
  return port;
}

interface Node {
  id: string;
  port: number;
  proc: ReturnType<typeof Bun.spawn>;
  out: () => string;
  exited: Promise<number>;
}

/** Every directory of the test (made here: tempDir's removal is registered where it is called). */
const base = tempDir();
let url = "";
let keyDir = "";
let dbPath = "";
/** The page's port → the test's free port (8080: the load balancer; 8081…: the nodes). */
const ports = new Map<string, number>();
const nodes = new Map<string, Node>();
let sql: ReturnType<typeof postgres>;
let haproxy: ReturnType<typeof Bun.spawn> | null = null;
let lbUrl = "";
let statsSocket = "";
let apiKey = "";
let haproxyOut = "";
const haproxyWhy = () => `haproxy (exit ${haproxy?.exitCode}): ${haproxyOut}; show stat: ${lastStat}`;
let lastStat = "";

/** The environment the page gives: the shared exports (with the test's database and key directory), then `extra`. */
function nodeEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  // Nothing of the test process's own engine settings: the page's lines say everything.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("CARAVAN_") && k !== "PORT" && k !== "HOST") env[k] = v;
  return { ...env, ...shared, CARAVAN_DATABASE_URL: url, CARAVAN_DB: dbPath, ...extra };
}

/** `caravan serve` (from source) with a page line's settings, its port mapped; resolves once it listens or exits. */
async function serve(settings: Record<string, string>, env: Record<string, string> = nodeEnv({})): Promise<Node> {
  const port = settings.PORT ? ports.get(settings.PORT)! : await freePort();
  const proc = Bun.spawn(["bun", "src/main.ts", "serve"], { cwd: repoRoot, env: { ...env, ...settings, PORT: String(port) }, stdout: "pipe", stderr: "pipe" });
  let text = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s) text += new TextDecoder().decode(c);
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  const node: Node = { id: settings.CARAVAN_NODE_ID ?? "", port, proc, out: () => text, exited: proc.exited };
  let done = false;
  void proc.exited.then(() => (done = true));
  while (!done && !/listening on http:\/\/\S+/.test(text)) await Bun.sleep(20);
  return node;
}

async function healthz(port: number): Promise<{ status: number; body: unknown }> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`);
    return { status: r.status, body: await r.json() };
  } catch {
    return { status: 0, body: null };
  }
}

/** Polls `probe` until `ok` holds and answers its value; after 90 s (a hang guard) throws with the last one and `why()`. */
async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, why: () => string = () => ""): Promise<T> {
  const deadline = Date.now() + 90_000;
  let v: T | undefined;
  while (Date.now() < deadline) {
    v = await probe();
    if (ok(v)) return v;
    await Bun.sleep(100);
  }
  throw new Error(`never reached; last: ${JSON.stringify(v)} ${why()}`);
}

type Registry = { node_id: string; address: string | null; alive: boolean; heartbeat_age_s: string; shards: number }[];
const registry = async (): Promise<Registry> => [...(await sql.unsafe(registrySql!))].map((r) => ({ ...(r as Record<string, unknown>), shards: Number(r.shards) })) as unknown as Registry;
const unheld = async (): Promise<number> => Number((await sql.unsafe(unheldSql!))[0]!.unheld);
const alive = (r: Registry) =>
  r
    .filter((n) => n.alive)
    .map((n) => [n.node_id, n.shards] as const)
    .sort();

/** One line of HAProxy's runtime API (the `stats socket` the test adds): its answer. */
function haproxyCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const c = createConnection(statsSocket, () => c.write(`${command}\n`));
    c.on("data", (d) => (out += d.toString()));
    c.on("end", () => resolve(out));
    c.on("error", reject);
  });
}

/** Each server of the backend `nodes` by its state as HAProxy sees it (UP, DOWN, …). */
async function backendStates(): Promise<Record<string, string>> {
  lastStat = await haproxyCommand("show stat").catch((e: unknown) => `(${String(e)})`);
  const csv = lastStat.split("\n");
  const head = csv[0]!.replace(/^# /, "").split(",");
  const [px, sv, st] = ["pxname", "svname", "status"].map((k) => head.indexOf(k));
  const out: Record<string, string> = {};
  for (const row of csv.slice(1)) {
    const f = row.split(",");
    if (f[px!] === "nodes" && f[sv!] !== "BACKEND" && f[sv!]) out[f[sv!]!] = f[st!]!.split(" ")[0]!;
  }
  return out;
}

beforeAll(async () => {
  const pg = await startPostgres();
  url = await pg.createDatabase();
  sql = postgres(url, { max: 1, onnotice: () => {} });
  keyDir = join(base, "var-lib-caravan");
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  dbPath = join(keyDir, "caravan.db");
  for (const p of ["8080", ...own.map((o) => o.PORT!)]) ports.set(p, await freePort());
});

afterAll(async () => {
  haproxy?.kill("SIGTERM");
  await haproxy?.exited;
  for (const n of nodes.values()) {
    n.proc.kill("SIGTERM");
    await n.exited;
  }
  await sql?.end({ timeout: 5 });
});

describe("docs/operations.md: Running several nodes, as written, on loopback", () => {
  test("the page's lines: every node given the same database, key directory and lease time, each its own port and node ID", () => {
    expect([haproxyConfig !== undefined, registrySql !== undefined, unheldSql !== undefined, epochSql !== undefined]).toEqual([true, true, true, true]);
    expect(Object.keys(shared).sort()).toEqual(["CARAVAN_DATABASE_URL", "CARAVAN_DB", "CARAVAN_LEASE_MS", "CARAVAN_TRUSTED_PROXIES"]);
    expect(serveLines.length).toBe(3);
    expect(own.map((o) => Object.keys(o).sort())).toEqual([0, 1, 2].map(() => ["CARAVAN_NODE_ID", "PORT"]));
    expect(new Set(own.map((o) => o.CARAVAN_NODE_ID)).size).toBe(3);
    expect(new Set(own.map((o) => o.PORT)).size).toBe(3);
    // The first node is waited for (it writes the key files) before the others start.
    const wait = lines.findIndex((l) => l.startsWith("until curl -sf http://127.0.0.1:" + own[0]!.PORT + "/healthz"));
    expect(wait).toBe(lines.indexOf(serveLines[0]!) + 1);
    expect(lines.indexOf(serveLines[1]!)).toBeGreaterThan(wait);
  });

  test("the first node starts on the empty database, answers ready and writes both key files (0600); then the other two", async () => {
    const first = await serve(own[0]!);
    nodes.set(first.id, first);
    expect(await until(() => healthz(first.port), (h) => h.status === 200)).toEqual({ status: 200, body: { status: "ok" } });
    for (const f of ["master.key", "audit-signing.key"]) {
      expect(existsSync(join(keyDir, f))).toBe(true);
      expect(statSync(join(keyDir, f)).mode & 0o777).toBe(0o600);
    }
    for (const o of own.slice(1)) {
      const n = await serve(o);
      nodes.set(n.id, n);
    }
    for (const n of nodes.values()) expect(await until(() => healthz(n.port), (h) => h.status !== 0)).toEqual({ status: 200, body: { status: "ok" } });
    for (const n of nodes.values()) expect(n.out()).toContain('"msg":"cluster node registered"');
  });

  test("the registry query: three nodes alive, the 64 shards spread with none above its fair share (22); no shard unheld; the epochs query answers", async () => {
    const ids = own.map((o) => o.CARAVAN_NODE_ID!);
    const r = await until(registry, (r) => alive(r).length === 3 && alive(r).every(([, s]) => s > 0 && s <= 22) && alive(r).reduce((a, [, s]) => a + s, 0) === 64);
    expect(r.map((n) => n.node_id)).toEqual(ids);
    expect(r.map((n) => n.address)).toEqual(own.map((o) => `127.0.0.1:${ports.get(o.PORT!)}`));
    // Each heartbeat is younger than a tick (a third of the lease) plus the query's own moment.
    for (const n of r) expect(Number(n.heartbeat_age_s)).toBeLessThanOrEqual(Number(shared.CARAVAN_LEASE_MS) / 3000 + 1);
    expect(await unheld()).toBe(0);
    const e = (await sql.unsafe(epochSql!))[0]!;
    expect(Number(e.takes)).toBeGreaterThanOrEqual(64);
    expect(Number(e.most_taken_shard)).toBeGreaterThanOrEqual(1);
    expect([...nodes.values()].some((n) => n.out().includes('"msg":"shards moved"'))).toBe(true);
  });

  test("the key files: a node without the master key file is refused in the page's words; one without the audit key serves and says it signs nothing", async () => {
    const bare = join(base, "bare");
    mkdirSync(bare, { recursive: true, mode: 0o700 });
    const refused = await serve({ CARAVAN_NODE_ID: "node-nokey" }, nodeEnv({ CARAVAN_DB: join(bare, "caravan.db") }));
    expect(await refused.exited).toBe(1);
    const where = `PostgreSQL at 127.0.0.1:${new URL(url).port}${new URL(url).pathname}`;
    expect(refused.out()).toContain(
      `the master key file ${join(bare, "master.key")} is missing, and the data in ${where} was sealed with a key: put the original master.key back there (or set CARAVAN_MASTER_KEY to it); a new key could not read the data`,
    );
    const half = join(base, "half");
    mkdirSync(half, { recursive: true, mode: 0o700 });
    copyFileSync(join(keyDir, "master.key"), join(half, "master.key"));
    const noAudit = await serve({ CARAVAN_NODE_ID: "node-noaudit" }, nodeEnv({ CARAVAN_DB: join(half, "caravan.db") }));
    expect(await until(() => healthz(noAudit.port), (h) => h.status !== 0)).toEqual({ status: 200, body: { status: "ok" } });
    expect(noAudit.out()).toContain(`audit signing key: the key file ${join(half, "audit-signing.key")} is missing, and ${where} lists audit signing key `);
    noAudit.proc.kill("SIGTERM");
    expect(await noAudit.exited).toBe(0);
    // A second process with a live node's ID says so and exits.
    const twin = await serve({ CARAVAN_NODE_ID: own[0]!.CARAVAN_NODE_ID! });
    expect(await twin.exited).toBe(1);
    expect(twin.out()).toContain(`node ${own[0]!.CARAVAN_NODE_ID} is already running on this database`);
    // The fourth node left cleanly: the three hold everything again.
    await until(registry, (r) => alive(r).length === 3 && alive(r).reduce((a, [, s]) => a + s, 0) === 64);
  });

  test.skipIf(!hasHaproxy)("HAProxy with the page's configuration: valid, every node UP by its /healthz check, the API and the event stream through it", async () => {
    expect(haproxyConfig).toBeDefined();
    // The page's timeouts keep a stream open across its heartbeat.
    const heartbeatS = STREAM_DEFAULTS.heartbeatMs / 1000;
    expect(section).toContain(`a heartbeat every ${heartbeatS} s (CARAVAN_STREAM_HEARTBEAT_MS)`);
    for (const t of ["client", "server"]) expect(Number(new RegExp(`timeout ${t} (\\d+)s`).exec(haproxyConfig!)?.[1])).toBeGreaterThan(heartbeatS);
    const dir = join(base, "haproxy");
    mkdirSync(dir);
    statsSocket = join(dir, "haproxy.sock");
    let cfg = haproxyConfig!;
    for (const [from, to] of ports) cfg = cfg.replaceAll(`127.0.0.1:${from}`, `127.0.0.1:${to}`);
    // The test's only addition: HAProxy's runtime API, to read what its health checks found.
    cfg = `global\n    stats socket ${statsSocket} level admin\n\n${cfg}`;
    const file = join(dir, "caravan.cfg");
    writeFileSync(file, cfg);
    const check = Bun.spawnSync(["haproxy", "-c", "-f", file]);
    expect({ code: check.exitCode, err: check.exitCode === 0 ? "" : check.stderr.toString() }).toEqual({ code: 0, err: "" });
    haproxy = Bun.spawn(["haproxy", "-db", "-f", file], { stdout: "ignore", stderr: "pipe" });
    void (async () => {
      for await (const c of haproxy!.stderr as ReadableStream<Uint8Array>) haproxyOut += new TextDecoder().decode(c);
    })();
    lbUrl = `http://127.0.0.1:${ports.get("8080")}`;
    const ids = own.map((o) => o.CARAVAN_NODE_ID!);
    const why = () => `haproxy (exit ${haproxy!.exitCode}): ${haproxyOut}\n${cfg}`;
    expect(await until(backendStates, (s) => ids.every((id) => s[id] === "UP"), why)).toEqual(Object.fromEntries(ids.map((id) => [id, "UP"])));
    expect(await until(() => fetch(`${lbUrl}/healthz`).then((r) => r.status, () => 0), (s) => s === 200, why)).toBe(200);

    const env = { CARAVAN_DATABASE_URL: url, CARAVAN_DB: dbPath };
    const email = `ops-${crypto.randomUUID().slice(0, 8)}@members.test`;
    expect((await runCli(["members", "create", "--email", email, "--role", "owner"], env)).code).toBe(0);
    const made = await runCli(["keys", "create", "--env", "test", "--member", email, "--json"], env);
    apiKey = JSON.parse(made.stdout.trim().split("\n").at(-1)!).key;
    for (let i = 0; i < 6; i++) expect((await fetch(`${lbUrl}/api/v2/me`, { headers: { "x-api-key": apiKey } })).status).toBe(200);
    const abort = new AbortController();
    const stream = await fetch(`${lbUrl}/api/v2/events/stream`, { headers: { accept: "text/event-stream", "x-api-key": apiKey }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    expect(new TextDecoder().decode((await stream.body!.getReader().read()).value)).toContain(": connected");
    abort.abort();
  });

  test("a node killed: refused again until its row lapsed; the others take its shards within the lease time plus a tick; the load balancer keeps answering", async () => {
    const victim = nodes.get(own[1]!.CARAVAN_NODE_ID!)!;
    const survivors = [...nodes.values()].filter((n) => n !== victim);
    const killedAt = Date.now();
    victim.proc.kill("SIGKILL");
    await victim.exited;
    nodes.delete(victim.id);
    // Through the load balancer, at once: a refused connection goes to another node.
    if (haproxy) for (let i = 0; i < 6; i++) expect((await fetch(`${lbUrl}/api/v2/me`, { headers: { "x-api-key": apiKey } })).status).toBe(200);
    // Started again at once with the same ID: its old row has not lapsed.
    const early = await serve(own[1]!);
    expect(await early.exited).toBe(1);
    expect(early.out()).toContain(`node ${victim.id} is already running on this database`);

    const r = await until(registry, (r) => alive(r).length === 2 && alive(r).reduce((a, [, s]) => a + s, 0) === 64);
    const tookMs = Date.now() - killedAt;
    const lease = Number(shared.CARAVAN_LEASE_MS);
    console.log(`operations-nodes: the killed node's shards were held again by the others ${tookMs} ms after the kill (lease ${lease} ms, tick ${Math.floor(lease / 3)} ms)`);
    expect(r.find((n) => n.node_id === victim.id)).toMatchObject({ alive: false, shards: 0 });
    expect(alive(r).map(([id]) => id)).toEqual(survivors.map((n) => n.id).sort());
    expect(await unheld()).toBe(0);
    for (const n of survivors) expect(await healthz(n.port)).toEqual({ status: 200, body: { status: "ok" } });
    expect(survivors.some((n) => /"msg":"shards moved".*"gained":[1-9]/.test(n.out()))).toBe(true);
    if (haproxy) {
      expect((await until(backendStates, (s) => s[victim.id] === "DOWN", haproxyWhy))[victim.id]).toBe("DOWN");
      for (let i = 0; i < 6; i++) expect((await fetch(`${lbUrl}/api/v2/me`, { headers: { "x-api-key": apiKey } })).status).toBe(200);
    }
  });

  test("started again with its ID once the row lapsed: it takes the row over, answers ready, gets shards back (and HAProxy brings it back UP)", async () => {
    const back = await serve(own[1]!);
    nodes.set(back.id, back);
    expect(await until(() => healthz(back.port), (h) => h.status !== 0)).toEqual({ status: 200, body: { status: "ok" } });
    await until(registry, (r) => alive(r).length === 3 && alive(r).every(([, s]) => s > 0) && alive(r).reduce((a, [, s]) => a + s, 0) === 64);
    if (haproxy) expect((await until(backendStates, (s) => s[back.id] === "UP", haproxyWhy))[back.id]).toBe("UP");
  });

  test("every node stopped with SIGTERM exits 0 and leaves: the registry is empty and no shard is held", async () => {
    for (const n of nodes.values()) n.proc.kill("SIGTERM");
    for (const n of nodes.values()) expect(await n.exited).toBe(0);
    nodes.clear();
    expect([...(await sql`SELECT node_id FROM cluster_nodes`)]).toEqual([]);
    expect(await unheld()).toBe(64);
  });
});
