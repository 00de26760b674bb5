// Benchmark (issue 18): 200 concurrent SSE clients on GET /api/v2/events/stream while transfers are created at full speed.
// Prints events/s delivered per client, commit-to-client p99 (event commit in the server to receipt in the client
// process) and the create rate with clients against the same create run without clients (target ratio >= 0.8).
// The creates come from a worker thread of the server's process; the SSE clients live in their own process.
// BENCH_CLIENTS (200), BENCH_SECONDS (5) per phase, BENCH_CONCURRENCY (32) creates in flight, BENCH_CUSTOMERS (8),
// BENCH_MAX_CREATES (100000) per phase. Loopback only.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort } from "node:worker_threads";

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const clock = () => performance.timeOrigin + performance.now();

interface CreateJob {
  url: string;
  key: string;
  bodies: string[];
  seconds: number;
  concurrency: number;
  max: number;
  prefix: string;
}

// ---- the create client (worker thread) ----
async function creates(job: CreateJob): Promise<{ count: number; seconds: number; error?: string }> {
  let n = 0;
  let done = 0;
  let error: string | undefined;
  const t0 = performance.now();
  const end = t0 + job.seconds * 1000;
  const headers = { "x-api-key": job.key, "content-type": "application/json" };
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (error === undefined && n < job.max && performance.now() < end) {
        const i = n++;
        const res = await fetch(`${job.url}/api/v2/transfers`, { method: "POST", headers: { ...headers, "idempotency-key": `${job.prefix}-${i}` }, body: job.bodies[i % job.bodies.length] });
        const text = await res.text();
        if (res.status !== 201) error ??= `create answered ${res.status}: ${text.slice(0, 300)}`;
        else done++;
      }
    }),
  );
  return { count: done, seconds: (performance.now() - t0) / 1000, error };
}

// ---- the SSE clients (child process): `--clients <url> <key> <n> <out>`; "stop" on stdin ends them ----
async function clients(url: string, key: string, count: number, out: string): Promise<void> {
  const stats = Array.from({ length: count }, () => ({ events: 0, reconnects: 0 }));
  /** Sampled receipts: each client records the seqs with seq % 10 === its index % 10 (a tenth of all pairs). */
  const receipts: number[] = [];
  let stopping = false;
  let opened = 0;
  let countingFrom = Infinity;
  const run = async (i: number) => {
    let last: string | null = null;
    let first = true;
    while (!stopping) {
      const headers: Record<string, string> = { "x-api-key": key };
      if (last !== null) headers["last-event-id"] = last;
      let res: Response;
      try {
        res = await fetch(`${url}/api/v2/events/stream`, { headers });
      } catch {
        await Bun.sleep(100);
        continue;
      }
      if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
      if (first) (first = false), opened++;
      else stats[i].reconnects++;
      const dec = new TextDecoder();
      let buf = "";
      try {
        for await (const chunk of res.body as ReadableStream<Uint8Array>) {
          const at = clock();
          buf += dec.decode(chunk, { stream: true });
          let k: number;
          while ((k = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, k);
            buf = buf.slice(k + 2);
            if (!block.startsWith("id: ")) continue;
            last = block.slice(4, block.indexOf("\n"));
            const seq = Number(last);
            if (at >= countingFrom) stats[i].events++;
            if (seq % 10 === i % 10) receipts.push(seq, at);
          }
          if (stopping) break;
        }
      } catch {
        // cut (a slow client) or stopping: reconnect with Last-Event-ID
      }
    }
  };
  const all = Array.from({ length: count }, (_, i) => run(i));
  while (opened < count) await Bun.sleep(20);
  console.log("ready");
  for await (const line of console) {
    if (line.startsWith("count")) countingFrom = clock();
    if (line === "stop") break;
  }
  const seconds = (clock() - countingFrom) / 1000;
  stopping = true;
  writeFileSync(out, JSON.stringify({ stats, receipts, seconds }));
  console.log("done");
  void all;
  process.exit(0);
}

if (!isMainThread) {
  parentPort!.on("message", async (job: CreateJob) => parentPort!.postMessage(await creates(job)));
} else if (process.argv[2] === "--clients") {
  await clients(process.argv[3], process.argv[4], Number(process.argv[5]), process.argv[6]);
} else {
  await main();
}

async function main(): Promise<void> {
  const { startService } = await import("../src/services.ts");
  const { Tenancy } = await import("../src/adapters/storage/repos/tenancy.ts");
  const { DEFAULT_RATE_LIMITS } = await import("../src/domain/ratelimit.ts");
  const num = (name: string, def: number, min: number) => {
    const v = Number(process.env[name] ?? def);
    if (!Number.isFinite(v) || v < min) throw new Error(`${name} must be a number >= ${min}`);
    return v;
  };
  const CLIENTS = Math.floor(num("BENCH_CLIENTS", 200, 1));
  const SECONDS = num("BENCH_SECONDS", 5, 0.5);
  const CONCURRENCY = Math.floor(num("BENCH_CONCURRENCY", 32, 1));
  const CUSTOMERS = Math.floor(num("BENCH_CUSTOMERS", 8, 1));
  const MAX = Math.floor(num("BENCH_MAX_CREATES", 100_000, 1));

  const dir = mkdtempSync(join(tmpdir(), "caravan-bench-stream-"));
  const worker = new Worker(fileURLToPath(import.meta.url));
  /** CPU ms of this (the server's) thread, from /proc (Linux; NaN elsewhere): steadier than rates on a shared machine. */
  const threadCpuMs = (): number => {
    try {
      const f = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
      const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      return NaN;
    }
  };
  const create = async (job: CreateJob) => {
    const cpu0 = threadCpuMs();
    const r = await new Promise<{ count: number; seconds: number }>((resolve, reject) => {
      worker.once("message", (r: { count: number; seconds: number; error?: string }) => (r.error ? reject(new Error(r.error)) : resolve(r)));
      worker.postMessage(job);
    });
    return { ...r, cpuUs: ((threadCpuMs() - cpu0) * 1000) / Math.max(1, r.count) };
  };
  const svc = await startService({
    dbPath: join(dir, "stream.db"),
    host: "127.0.0.1",
    port: 0,
    logLevel: "warn",
    env: { CARAVAN_STREAM_MAX_PER_COMPANY: String(Math.max(500, CLIENTS)) },
    rateLimits: { ...DEFAULT_RATE_LIMITS, company: { limit: 1_000_000_000, windowSeconds: 1 } },
  });
  let child: ReturnType<typeof Bun.spawn> | undefined;
  try {
    const tenancy = new Tenancy(svc.storage, Date.now);
    const company = tenancy.requireCompany("default");
    const member = tenancy.createMember(company.id, "bench@example.com", "owner");
    const { key } = tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" });
    const bodies: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const res = await fetch(`${svc.url}/api/v2/customers`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ name: `Jane Doe ${i}` }) });
      const id = ((await res.json()) as { data: { id: string } }).data.id;
      bodies.push(
        JSON.stringify({
          asset: "ETH", amount: "0.01", network: "ethereum", originatorCustomerId: id, beneficiaryAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
          originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } }] },
        }),
      );
    }
    const committedAt = new Map<number, number>();
    svc.runtime.onEvent((seq) => committedAt.set(seq, clock()));
    const job = (prefix: string): CreateJob => ({ url: svc.url, key, bodies, seconds: SECONDS, concurrency: CONCURRENCY, max: MAX, prefix });

    await create({ ...job("warm"), seconds: 3 });
    const without1 = await create(job("alone-1"));

    const out = join(dir, "receipts.json");
    child = Bun.spawn(["bun", fileURLToPath(import.meta.url), "--clients", svc.url, key, String(CLIENTS), out], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    const said = async (word: string) => {
      let text = "";
      while (!text.includes(word)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the client process ended: ${text}`);
        text += new TextDecoder().decode(value);
      }
    };
    await said("ready");
    const stdin = child.stdin as import("bun").FileSink;
    stdin.write("count\n");
    stdin.flush();
    const seqBefore = svc.storage.stmt("SELECT coalesce(max(seq), 0) AS n FROM events").get() as { n: number };
    const withClients = await create(job("with-clients"));
    const seqAfter = svc.storage.stmt("SELECT coalesce(max(seq), 0) AS n FROM events").get() as { n: number };
    await Bun.sleep(1000); // the last events reach the clients
    stdin.write("stop\n");
    stdin.flush();
    await said("done");
    await child.exited;
    child = undefined;
    const without2 = await create(job("alone-2"));

    const r = JSON.parse(readFileSync(out, "utf8")) as { stats: { events: number; reconnects: number }[]; receipts: number[]; seconds: number };
    const lat: number[] = [];
    for (let i = 0; i < r.receipts.length; i += 2) {
      const seq = r.receipts[i];
      if (seq <= seqBefore.n || seq > seqAfter.n) continue;
      const c = committedAt.get(seq);
      if (c !== undefined) lat.push(r.receipts[i + 1] - c);
    }
    lat.sort((a, b) => a - b);
    const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? NaN;
    const perClient = r.stats.map((s) => s.events / r.seconds).sort((a, b) => a - b);
    const rateAlone = (without1.count / without1.seconds + without2.count / without2.seconds) / 2;
    const rateWith = withClients.count / withClients.seconds;
    const events = seqAfter.n - seqBefore.n;
    const rule = "-".repeat(100);
    console.log(rule);
    console.log(`${CLIENTS} SSE clients (one process), creates from a worker thread with ${CONCURRENCY} in flight, ${SECONDS} s per phase`);
    console.log(`creates/s without clients: ${(without1.count / without1.seconds).toFixed(0)} before, ${(without2.count / without2.seconds).toFixed(0)} after (mean ${rateAlone.toFixed(0)})`);
    console.log(`creates/s with ${CLIENTS} clients: ${rateWith.toFixed(0)}  (${events} events committed, ${(events / withClients.seconds).toFixed(0)} events/s)`);
    console.log(`ratio creates/s with clients / without: ${(rateWith / rateAlone).toFixed(3)}  (target >= 0.8)`);
    const cpuAlone = (without1.cpuUs + without2.cpuUs) / 2;
    console.log(`server thread CPU per create: ${cpuAlone.toFixed(0)} µs without clients, ${withClients.cpuUs.toFixed(0)} µs with them (fan-out included); ratio without/with ${(cpuAlone / withClients.cpuUs).toFixed(3)}`);
    console.log(`events/s delivered per client over ${r.seconds.toFixed(1)} s: mean ${(perClient.reduce((a, b) => a + b, 0) / perClient.length).toFixed(0)}, min ${perClient[0].toFixed(0)}, max ${perClient.at(-1)!.toFixed(0)}; total ${(perClient.reduce((a, b) => a + b, 0)).toFixed(0)} messages/s`);
    console.log(`commit-to-client over ${lat.length} sampled receipts: p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${lat.at(-1)?.toFixed(1)} ms`);
    console.log(`reconnections after a slow-client cut: ${r.stats.reduce((a, s) => a + s.reconnects, 0)}`);
    console.log(rule);
  } finally {
    child?.kill();
    await svc.stop();
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  }
}
