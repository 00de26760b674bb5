// Benchmark: /healthz latency while unauthenticated and authenticated callers send deeply nested JSON (the shapes that
// once stalled the server: a 32,000-deep array in 64 KB of customer metadata, 2 MB of nested arrays, a 250 KB deep
// callback body), against its latency idle, from the same run. A real server on loopback; bounded in count and time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const ATTACKERS = Number(process.env.BENCH_ATTACKERS ?? 4);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const root = join(import.meta.dir, "..");
const main = join(root, "src/main.ts");
const dir = mkdtempSync(join(tmpdir(), "caravan-bench-deep-"));
const db = join(dir, "deep.db");

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const SHAPES = {
  metadata: `{"name":"Deep","metadata":${nested(32_000)}}`, // 64 KB, to POST /api/v2/customers with a key
  twoMb: Array.from({ length: 37 }, () => nested(28_000)).join(""), // 2 MB, no key
  callback: nested(125_000), // 250 KB, under the callbacks' 256 KiB cap, no credentials
};

async function run(args: string[], env: Record<string, string>): Promise<string> {
  const p = Bun.spawn(["bun", main, ...args], { cwd: root, env: { ...process.env, CARAVAN_LOG: "warn", ...env }, stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  if ((await p.exited) !== 0) throw new Error(`${args.join(" ")} failed: ${await new Response(p.stderr).text()}`);
  return out;
}

async function startServer(env: Record<string, string>) {
  const proc = Bun.spawn(["bun", main, "serve"], { cwd: root, env: { ...process.env, PORT: "0", HOST: "127.0.0.1", CARAVAN_LOG: "warn", ...env }, stdout: "pipe", stderr: "ignore" });
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (url) return { url, stop: async () => (proc.kill("SIGTERM"), await proc.exited) };
  }
  proc.kill("SIGKILL");
  throw new Error(`server did not start: ${out}`);
}

function summary(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1] };
}

async function healthLatencies(url: string, n: number, until: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n && performance.now() < until; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    out.push(performance.now() - t);
    await Bun.sleep(5);
  }
  return out;
}

await run(["migrate"], { CARAVAN_DB: db });
const key = JSON.parse((await run(["keys", "create", "--env", "test", "--role", "owner", "--json"], { CARAVAN_DB: db })).trim().split("\n").at(-1)!).key as string;
const server = await startServer({ CARAVAN_DB: db, CARAVAN_RATE_LIMITS: "company=100000000/60", PROVIDER_B_ALLOWED_IPS: "127.0.0.1" });
const deadline = performance.now() + MAX_SECONDS * 1000;
try {
  // Warm up, then idle.
  await healthLatencies(server.url, 20, deadline);
  const idle = await healthLatencies(server.url, SAMPLES, deadline);

  // Under traffic: each attacker cycles through the shapes until the samples are taken (or the time is up).
  let stop = false;
  const statuses: Record<string, number> = {};
  let sent = 0;
  const targets: [string, string, Record<string, string>][] = [
    [`${server.url}/api/v2/customers`, SHAPES.metadata, { "x-api-key": key }],
    [`${server.url}/api/v2/customers`, SHAPES.twoMb, {}],
    [`${server.url}/api/system/trp/provider_a/test/not-a-provider`, SHAPES.callback, {}],
    [`${server.url}/api/system/trp/provider_e/test/not-a-provider/address-validation`, SHAPES.callback, {}],
    [`${server.url}/api/system/trp/provider_b/test/connections/not-a-provider/v1/beneficiary/transfer`, SHAPES.callback, {}],
  ];
  const attackers = Array.from({ length: ATTACKERS }, async (_, a) => {
    for (let i = a; !stop && performance.now() < deadline; i++) {
      const [url, body, headers] = targets[i % targets.length];
      try {
        const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
      sent++;
    }
  });
  await Bun.sleep(200);
  const busy = await healthLatencies(server.url, SAMPLES, deadline);
  stop = true;
  await Promise.all(attackers);

  const i = summary(idle);
  const b = summary(busy);
  const f = (x: number) => x.toFixed(2).padStart(8);
  console.log(`/healthz latency (ms), ${idle.length} idle and ${busy.length} loaded samples, ${ATTACKERS} callers sending deep bodies (${sent} sent; statuses ${JSON.stringify(statuses)})`);
  console.log(`             p50      p95      max`);
  console.log(`idle    ${f(i.p50)} ${f(i.p95)} ${f(i.max)}`);
  console.log(`loaded  ${f(b.p50)} ${f(b.p95)} ${f(b.max)}`);
  console.log(`ratio   ${f(b.p50 / i.p50)} ${f(b.p95 / i.p95)} ${f(b.max / i.max)}`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
