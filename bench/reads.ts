// Benchmark: detail reads (GET /api/v2/transfers/:id) against a bare Bun.serve GET, in alternating rounds of one run.
// The service and the bare server share this process's main thread (so its CPU per answer is comparable); the HTTP
// client runs in a worker thread (this same file) with the same concurrency for both. Each round measures bare, then
// reads; the round's ratio is reads/s ÷ bare answers/s, and the median of the rounds is the figure. Beside it, the
// server thread's CPU per answer (µs, from /proc: the steady figure when other processes compete for the cores).
//
// BENCH_SECONDS (1) per phase, BENCH_ROUNDS (3), BENCH_WARMUP_SECONDS (1), BENCH_CONCURRENCY (32), BENCH_TRANSFERS
// (2000) stored transfers read in turn, BENCH_MAX_REQUESTS (500000) per phase. Loopback only.
// Run alone: `bun bench/reads.ts`; `bench/all.ts` calls `benchReads` through its last line (`bench-result {...}`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort } from "node:worker_threads";

interface Job {
  base: string;
  headers: Record<string, string>;
  paths: string[];
  seconds: number;
  max: number;
  concurrency: number;
}

// ---- the client (worker thread): GETs in a closed loop, every answer checked for 200 and read whole ----
async function runJob(job: Job): Promise<{ count: number; seconds: number; error?: string }> {
  let started = 0;
  let done = 0;
  let error: string | undefined;
  const t0 = performance.now();
  const end = t0 + job.seconds * 1000;
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (error === undefined && started < job.max && performance.now() < end) {
        const path = job.paths[started++ % job.paths.length];
        const res = await fetch(job.base + path, { headers: job.headers });
        const body = await res.arrayBuffer();
        if (res.status !== 200) error ??= `GET ${path} answered ${res.status}: ${new TextDecoder().decode(body).slice(0, 300)}`;
        else done++;
      }
    }),
  );
  return { count: done, seconds: (performance.now() - t0) / 1000, error };
}

export interface ReadsResult {
  /** Median over the rounds of reads/s ÷ bare answers/s. */
  ratio: number;
  ratios: number[];
  readsPerSecond: number[];
  barePerSecond: number[];
  /** Server thread CPU per answer, µs (medians over the rounds). */
  readCpuUs: number;
  bareCpuUs: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchReads(o: { seconds?: number; rounds?: number; warmup?: number; concurrency?: number; transfers?: number; max?: number } = {}): Promise<ReadsResult> {
  const { threadCpuMs } = await import("./baseline.ts");
  const { benchService, belowThresholdBody, dropBenchDatabases, ownerKey } = await import("./setup.ts");
  const seconds = o.seconds ?? 1;
  const rounds = o.rounds ?? 3;
  const concurrency = o.concurrency ?? 32;
  const max = o.max ?? 500_000;
  const dir = mkdtempSync(join(tmpdir(), "caravan-bench-reads-"));
  const worker = new Worker(fileURLToPath(import.meta.url));
  const client = (job: Job) =>
    new Promise<{ count: number; seconds: number }>((resolve, reject) => {
      worker.once("message", (r: { count: number; seconds: number; error?: string }) => (r.error ? reject(new Error(`bench client: ${r.error}`)) : resolve(r)));
      worker.once("error", reject);
      worker.postMessage(job);
    });
  const measure = async (job: Job) => {
    const cpu0 = threadCpuMs();
    const r = await client(job);
    return { rate: r.count / r.seconds, cpuUs: ((threadCpuMs() - cpu0) * 1000) / Math.max(1, r.count) };
  };
  // The bare answer of bench/transfers.ts (the baseline): a small JSON object, nothing else.
  const bare = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ data: { id: "trf_bare", state: "completed" }, meta: {} }) });
  let service: Awaited<ReturnType<typeof benchService>> | undefined;
  try {
    service = await benchService(join(dir, "reads.db"));
    const key = await ownerKey(service);
    const auth = { "x-api-key": key };
    const json = { ...auth, "content-type": "application/json" };
    const res = await fetch(`${service.url}/api/v2/customers`, { method: "POST", headers: json, body: JSON.stringify({ externalId: "bench-reads", name: "Jane Doe" }) });
    if (res.status !== 201) throw new Error(`POST /api/v2/customers answered ${res.status}: ${await res.text()}`);
    const customerId = ((await res.json()) as { data: { id: string } }).data.id;
    const body = belowThresholdBody(customerId);
    const ids: string[] = [];
    const wanted = o.transfers ?? 2000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (ids.length < wanted) {
          const r = await fetch(`${service!.url}/api/v2/transfers`, { method: "POST", headers: { ...json, "idempotency-key": `reads-${ids.length}-${Math.random()}` }, body });
          const text = await r.text();
          if (r.status !== 201) throw new Error(`POST /api/v2/transfers answered ${r.status}: ${text.slice(0, 300)}`);
          ids.push((JSON.parse(text) as { data: { id: string } }).data.id);
        }
      }),
    );
    const paths = ids.map((id) => `/api/v2/transfers/${id}`);
    const bareJob: Job = { base: `http://127.0.0.1:${bare.port}`, headers: auth, paths: ["/"], seconds, max, concurrency };
    const readJob: Job = { base: service.url, headers: auth, paths, seconds, max, concurrency };
    const warmup = o.warmup ?? 1;
    if (warmup > 0) {
      await client({ ...bareJob, seconds: warmup / 2 });
      await client({ ...readJob, seconds: warmup });
    }
    const out = { ratios: [] as number[], readsPerSecond: [] as number[], barePerSecond: [] as number[], readCpu: [] as number[], bareCpu: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      const b = await measure(bareJob);
      const r = await measure(readJob);
      out.barePerSecond.push(b.rate);
      out.readsPerSecond.push(r.rate);
      out.ratios.push(r.rate / b.rate);
      out.bareCpu.push(b.cpuUs);
      out.readCpu.push(r.cpuUs);
    }
    return { ratio: median(out.ratios), ratios: out.ratios, readsPerSecond: out.readsPerSecond, barePerSecond: out.barePerSecond, readCpuUs: median(out.readCpu), bareCpuUs: median(out.bareCpu) };
  } finally {
    void bare.stop(true);
    await service?.stop();
    await worker.terminate();
    await dropBenchDatabases();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!isMainThread) {
  parentPort!.on("message", async (job: Job) => parentPort!.postMessage(await runJob(job)));
} else if (import.meta.main) {
  const num = (name: string, def: number, min: number): number => {
    const v = Number(process.env[name] ?? def);
    if (!Number.isFinite(v) || v < min) throw new Error(`${name} must be a number >= ${min}, got "${process.env[name]}"`);
    return v;
  };
  const r = await benchReads({
    seconds: num("BENCH_SECONDS", 1, 0.1),
    rounds: Math.floor(num("BENCH_ROUNDS", 3, 1)),
    warmup: num("BENCH_WARMUP_SECONDS", 1, 0),
    concurrency: Math.floor(num("BENCH_CONCURRENCY", 32, 1)),
    transfers: Math.floor(num("BENCH_TRANSFERS", 2000, 1)),
    max: Math.floor(num("BENCH_MAX_REQUESTS", 500_000, 1)),
  });
  const f = (xs: number[], d = 0) => xs.map((x) => x.toFixed(d)).join(", ");
  console.log(`bare Bun.serve GET answers/s per round:        ${f(r.barePerSecond)}`);
  console.log(`GET /api/v2/transfers/:id reads/s per round:    ${f(r.readsPerSecond)}`);
  console.log(`ratio reads/s ÷ bare GET per round: ${f(r.ratios, 3)}; median ${r.ratio.toFixed(3)} (minimum 0.40, target 0.50)`);
  console.log(`server thread CPU per answer (median): read ${r.readCpuUs.toFixed(1)} µs, bare ${r.bareCpuUs.toFixed(1)} µs; bare ÷ read ${(r.bareCpuUs / r.readCpuUs).toFixed(3)}`);
  console.log(`bench-result ${JSON.stringify({ reads: r.ratio, readCpuUs: r.readCpuUs, bareCpuUs: r.bareCpuUs })}`);
}
