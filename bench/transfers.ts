// Benchmark: creates/s of POST /api/v2/transfers (201, below threshold) and reads/s of GET /api/v2/transfers/:id under
// concurrency, next to the raw SQLite single-row commit rate and a bare Bun.serve JSON answer rate, from one run.
// The HTTP client runs in a worker thread (this same file), so it does not share the server's event loop; the bare
// Bun.serve baseline is measured with the same client, concurrency and duration. Loopback only.
//
// BENCH_SECONDS (3) per measured phase, BENCH_WARMUP_SECONDS (0.5), BENCH_CONCURRENCY (32) requests in flight,
// BENCH_MAX_REQUESTS (200000) per phase, BENCH_CUSTOMERS (1) originator customers the creates are spread over
// (creates of one customer go through its actor one at a time), BENCH_PROFILE (1; 0 skips the create breakdown),
// BENCH_ONLY ("creates" or "reads": skips the baselines and the other phase, for `bun --cpu-prof`; "reads" still
// creates for one warm-up period to have IDs to read).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort } from "node:worker_threads";

// ---- the client (worker thread) ----

interface Job {
  base: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  /** Request paths, used in turn. */
  paths: string[];
  /** POST bodies, used in turn. */
  bodies?: string[];
  /** Each request gets `Idempotency-Key: <prefix>-<n>`. */
  keyPrefix?: string;
  expect: number;
  /** Parse the answer and keep `data.id` (creates); otherwise the body is read and dropped. */
  collectIds: boolean;
  seconds: number;
  max: number;
  concurrency: number;
}

interface JobResult {
  count: number;
  seconds: number;
  ids: string[];
  latencies: number[]; // ms, sorted
  error?: string;
}

async function runJob(job: Job): Promise<JobResult> {
  const latencies = new Float64Array(job.max);
  const ids: string[] = [];
  let started = 0;
  let done = 0;
  let error: string | undefined;
  const t0 = performance.now();
  const end = t0 + job.seconds * 1000;
  async function loop(): Promise<void> {
    while (error === undefined && started < job.max && performance.now() < end) {
      const n = started++;
      const headers: Record<string, string> = { ...job.headers };
      if (job.keyPrefix !== undefined) headers["idempotency-key"] = `${job.keyPrefix}-${n}`;
      const path = job.paths[n % job.paths.length];
      const body = job.bodies ? job.bodies[n % job.bodies.length] : undefined;
      const s = performance.now();
      let res: Response;
      try {
        res = await fetch(job.base + path, { method: job.method, headers, body });
      } catch (e) {
        error ??= `${job.method} ${path}: ${(e as Error).message}`;
        return;
      }
      if (res.status !== job.expect) {
        const text = await res.text();
        error ??= `${job.method} ${path} answered ${res.status}, expected ${job.expect}: ${text.slice(0, 500)}`;
        return;
      }
      if (job.collectIds) {
        const j = (await res.json()) as { data?: { id?: string; state?: string } };
        if (typeof j.data?.id !== "string" || j.data.state !== "completed") {
          error ??= `${job.method} ${path} answered ${res.status} without a completed transfer: ${JSON.stringify(j).slice(0, 500)}`;
          return;
        }
        ids.push(j.data.id);
      } else {
        await res.arrayBuffer();
      }
      latencies[done++] = performance.now() - s;
    }
  }
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  const seconds = (performance.now() - t0) / 1000;
  return { count: done, seconds, ids, latencies: Array.from(latencies.subarray(0, done)).sort((a, b) => a - b), error };
}

if (!isMainThread) {
  parentPort!.on("message", async (job: Job) => parentPort!.postMessage(await runJob(job)));
} else {
  await main();
}

// ---- the benchmark (main thread) ----

async function main(): Promise<void> {
  const { threadCpuMs } = await import("./baseline.ts");
  const { benchService, belowThresholdBody, ownerKey, benchEngine, benchQuery, dropBenchDatabases, rawEngineCommitRate, rawEngineLabel } = await import("./setup.ts");

  const num = (name: string, def: number, min: number): number => {
    const v = Number(process.env[name] ?? def);
    if (!Number.isFinite(v) || v < min) throw new Error(`${name} must be a number >= ${min}, got "${process.env[name]}"`);
    return v;
  };
  const SECONDS = num("BENCH_SECONDS", 3, 0.1);
  const WARMUP = num("BENCH_WARMUP_SECONDS", 0.5, 0);
  const CONCURRENCY = Math.floor(num("BENCH_CONCURRENCY", 32, 1));
  const MAX = Math.floor(num("BENCH_MAX_REQUESTS", 200_000, 1));
  const CUSTOMERS = Math.floor(num("BENCH_CUSTOMERS", 1, 1));
  const ONLY = process.env.BENCH_ONLY;
  if (ONLY !== undefined && ONLY !== "creates" && ONLY !== "reads") throw new Error(`BENCH_ONLY must be creates or reads, got "${ONLY}"`);
  // The breakdown wraps SQLite's transaction function: SQLite only.
  const PROFILE = process.env.BENCH_PROFILE !== "0" && ONLY === undefined && benchEngine() === "sqlite";

  const dir = mkdtempSync(join(tmpdir(), "caravan-bench-transfers-"));
  const worker = new Worker(fileURLToPath(import.meta.url));
  let pending: { resolve(r: JobResult): void; reject(e: unknown): void } | undefined;
  worker.on("message", (r: JobResult) => (r.error ? pending?.reject(new Error(`bench client: ${r.error}`)) : pending?.resolve(r)));
  worker.on("error", (e) => pending?.reject(e));
  /** One job at a time on the client thread. */
  const client = (job: Omit<Job, "max" | "concurrency" | "seconds"> & Partial<Pick<Job, "max" | "concurrency" | "seconds">>): Promise<JobResult> =>
    new Promise((resolve, reject) => {
      pending = { resolve, reject };
      worker.postMessage({ seconds: SECONDS, max: MAX, concurrency: CONCURRENCY, ...job });
    });
  /** A warm-up run (not counted), then the measured run. */
  const measure = async (job: Parameters<typeof client>[0]): Promise<JobResult & { rate: number; warmIds: string[]; cpuUs: number }> => {
    const warm = WARMUP > 0 ? await client({ ...job, seconds: WARMUP, keyPrefix: job.keyPrefix && `${job.keyPrefix}-warm` }) : undefined;
    const cpu0 = threadCpuMs();
    const r = await client(job);
    const cpuUs = ((threadCpuMs() - cpu0) * 1000) / Math.max(1, r.count);
    return { ...r, rate: r.count / r.seconds, warmIds: warm?.ids ?? [], cpuUs };
  };
  const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
  const lat = (r: JobResult & { cpuUs?: number }) =>
    `p50 ${pct(r.latencies, 0.5).toFixed(2)} ms, p99 ${pct(r.latencies, 0.99).toFixed(2)} ms${r.cpuUs !== undefined && !Number.isNaN(r.cpuUs) ? `, server thread CPU ${r.cpuUs.toFixed(1)} µs each` : ""}`;

  let service: Awaited<ReturnType<typeof benchService>> | undefined;
  let bare: ReturnType<typeof Bun.serve> | undefined;
  try {
    // 1. Raw SQLite: one row per transaction, the service's driver and pragmas (as bench/actors.ts); on PostgreSQL,
    // BEGIN; INSERT; COMMIT over the engine's driver on a fresh database of the same server.
    const raw = ONLY ? NaN : await rawEngineCommitRate(dir, { seconds: SECONDS, maxRows: MAX * 10 });

    // 2. Bare Bun.serve JSON answers, same client and concurrency; GET for reads, POST with the create body for creates.
    bare = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        if (req.method === "POST") {
          const body = (await req.json()) as { asset?: string };
          return Response.json({ data: { id: "trf_bare", state: "completed", asset: body.asset }, meta: {} }, { status: 201 });
        }
        return Response.json({ data: { id: "trf_bare", state: "completed" }, meta: {} });
      },
    });
    const bareBase = `http://127.0.0.1:${bare.port}`;

    // 3. The service on a temp database; the company budget is lifted so that the rate limiter does not answer 429.
    service = await benchService(join(dir, "transfers.db"));
    const key = await ownerKey(service);
    const auth = { "x-api-key": key };
    const json = { ...auth, "content-type": "application/json" };

    const customerIds: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const res = await fetch(`${service.url}/api/v2/customers`, { method: "POST", headers: json, body: JSON.stringify({ externalId: `bench-${i}`, name: `Jane Doe ${i}` }) });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`POST /api/v2/customers answered ${res.status}, expected 201: ${text.slice(0, 500)}`);
      customerIds.push((JSON.parse(text) as { data: { id: string } }).data.id);
    }
    const bodies = customerIds.map((id) => belowThresholdBody(id));

    const skipped = { count: 0, seconds: 1, ids: [] as string[], latencies: [] as number[], rate: NaN, warmIds: [] as string[], cpuUs: NaN };
    const bareGet = ONLY ? skipped : await measure({ base: bareBase, method: "GET", headers: auth, paths: ["/"], expect: 200, collectIds: false });
    const barePost = ONLY ? skipped : await measure({ base: bareBase, method: "POST", headers: json, paths: ["/"], bodies, expect: 201, collectIds: false });
    const createJob: Parameters<typeof client>[0] = { base: service.url, method: "POST", headers: json, paths: ["/api/v2/transfers"], bodies, keyPrefix: "bench-create", expect: 201, collectIds: true };
    const creates = ONLY === "reads" ? { ...skipped, ...(await client({ ...createJob, seconds: Math.max(WARMUP, 0.5) })) } : await measure(createJob);

    // The search index is filled by the storage worker on its own thread (src/adapters/storage/search-index.ts), or,
    // when it does not run, by a sweep on this thread, whose cost is then mostly in the create phase's CPU already;
    // what it had not reached yet is drained here and added to the figure. With the worker, the wait is not counted.
    const searchRepo = service.repositories.transfers;
    const unindexed = await searchRepo.pendingIndex();
    const byWorker = service.searchIndexedElsewhere();
    const drain0 = threadCpuMs();
    if (byWorker) for (let i = 0; i < 600 && (await searchRepo.pendingIndex()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    else while ((await searchRepo.indexPending(500)) === 500);
    const drainUs = byWorker ? 0 : ((threadCpuMs() - drain0) * 1000) / Math.max(1, creates.count);
    const ids = [...creates.warmIds, ...creates.ids];
    const stored = Number((await benchQuery<{ n: number }>(service, "SELECT count(*) AS n FROM transfers WHERE environment = 'test'")).n);
    if (stored !== ids.length) throw new Error(`${ids.length} creates answered 201 but ${stored} transfers are stored`);
    if (new Set(ids).size !== ids.length) throw new Error("two creates answered the same transfer ID");
    const reads = ONLY === "creates" ? skipped : await measure({ base: service.url, method: "GET", headers: auth, paths: ids.map((id) => `/api/v2/transfers/${id}`), expect: 200, collectIds: false });

    const rule = "-".repeat(100);
    console.log(rule);
    console.log(`client: worker thread, ${CONCURRENCY} requests in flight, ${SECONDS} s per phase after ${WARMUP} s warm-up; ${CUSTOMERS} originator customer(s); company rate limit lifted`);
    console.log(`${rawEngineLabel()}: ${raw.toFixed(0)}`);
    console.log(`bare Bun.serve GET JSON answers/s:                      ${bareGet.rate.toFixed(0).padStart(7)}  (${lat(bareGet)})`);
    console.log(`bare Bun.serve POST JSON answers/s (create body, 201):   ${barePost.rate.toFixed(0).padStart(7)}  (${lat(barePost)})`);
    console.log(`POST /api/v2/transfers creates/s (201, below threshold): ${creates.rate.toFixed(0).padStart(7)}  (${lat(creates)}; ${creates.count} creates)`);
    if (ONLY !== "reads")
      console.log(
        byWorker
          ? `  search index: filled by the storage worker off this thread (${unindexed} queue entries not yet indexed at the end of the phase)`
          : `  search index: ${unindexed} transfers not yet indexed at the end of the phase; draining them cost ${drainUs.toFixed(1)} µs per create → ${(creates.cpuUs + drainUs).toFixed(1)} µs per create in all`,
      );
    console.log(`GET /api/v2/transfers/:id reads/s (200, ${ids.length} IDs):     ${reads.rate.toFixed(0).padStart(7)}  (${lat(reads)}; ${reads.count} reads)`);
    console.log(`ratio creates/s / raw commits/s:       ${(creates.rate / raw).toFixed(3)}`);
    console.log(`ratio creates/s / bare Bun.serve GET:  ${(creates.rate / bareGet.rate).toFixed(3)}   (/ bare POST: ${(creates.rate / barePost.rate).toFixed(3)})`);
    console.log(`ratio reads/s / bare Bun.serve GET:    ${(reads.rate / bareGet.rate).toFixed(3)}`);
    // For bench/all.ts: the creates' rate itself too (PostgreSQL's row "creates on PostgreSQL ÷ creates on SQLite").
    if (ONLY === undefined) console.log(`bench-result ${JSON.stringify({ creates: Number((creates.rate / raw).toFixed(3)), createsPerSecond: Number(creates.rate.toFixed(1)), engine: benchEngine() })}`);

    if (PROFILE) await breakdown(service, bareBase, json, bodies, customerIds);
    console.log(rule);
    console.log('package.json script suggestion: "bench:transfers": "bun bench/transfers.ts"');
  } finally {
    void bare?.stop(true);
    await service?.stop();
    await worker.terminate();
    await dropBenchDatabases();
    rmSync(dir, { recursive: true, force: true });
  }

  /**
   * Where a create's time goes: wraps pricing.appraise, runtime.ask, the customer actor's handler and the runtime's
   * group commit with performance.now, and sends creates at concurrency 1 and at BENCH_CONCURRENCY (not counted above).
   */
  async function breakdown(svc: NonNullable<typeof service>, bareBase: string, json: Record<string, string>, bodies: string[], customerIds: string[]): Promise<void> {
    const acc = { pricing: 0, pricingN: 0, ask: 0, askN: 0, handler: 0, handlerN: 0, tx: 0, txN: 0, flushN: 0, units: 0 };
    // The create prices with appraise (its valuation row is written in the create's own commit).
    const pricing = svc.pricing as unknown as { appraise: (...a: unknown[]) => Promise<unknown> };
    const origValue = pricing.appraise.bind(pricing);
    pricing.appraise = async (...a) => {
      const s = performance.now();
      try {
        return await origValue(...a);
      } finally {
        acc.pricing += performance.now() - s;
        acc.pricingN++;
      }
    };
    // flush, units and kinds are the runtime's private parts: a refactor that drops them only drops their lines here.
    const rt = svc.runtime as unknown as {
      ask: (to: string, ...a: unknown[]) => Promise<unknown>;
      flush?: () => void;
      units?: unknown[];
      kinds?: Map<string, { handle: (ctx: unknown, msg: unknown) => unknown }>;
    };
    const origAsk = rt.ask.bind(rt);
    rt.ask = async (to, ...a) => {
      const s = performance.now();
      try {
        return await origAsk(to, ...a);
      } finally {
        acc.ask += performance.now() - s;
        acc.askN++;
      }
    };
    const origFlush = typeof rt.flush === "function" && Array.isArray(rt.units) ? rt.flush.bind(rt) : undefined;
    if (origFlush)
      rt.flush = () => {
        acc.units += rt.units!.length;
        acc.flushN++;
        origFlush();
      };
    const storage = svc.storage as { tx: <T>(fn: () => T) => T };
    const origTx = storage.tx;
    let depth = 0;
    storage.tx = <T>(fn: () => T): T => {
      if (depth > 0) return origTx(fn);
      const s = performance.now();
      depth++;
      try {
        return origTx(fn);
      } finally {
        depth--;
        acc.tx += performance.now() - s;
        acc.txN++;
      }
    };
    const kind = rt.kinds instanceof Map ? rt.kinds.get("customer") : undefined;
    const origHandle = kind?.handle;
    if (kind && origHandle)
      kind.handle = (ctx, msg) => {
        const s = performance.now();
        const r = origHandle.call(kind, ctx, msg);
        acc.handler += performance.now() - s;
        acc.handlerN++;
        return r;
      };
    const seconds = Math.min(SECONDS, 2);
    try {
      console.log("-".repeat(100));
      console.log(`create breakdown (performance.now around pricing.appraise, runtime.ask, the customer handler, SQLite transactions; ${seconds} s each, mean ms per create):`);
      for (const concurrency of [1, CONCURRENCY]) {
        const floor = await client({ base: bareBase, method: "POST", headers: json, paths: ["/"], bodies, expect: 201, collectIds: false, seconds, concurrency });
        for (const k of Object.keys(acc) as (keyof typeof acc)[]) acc[k] = 0;
        const r = await client({ base: svc.url, method: "POST", headers: json, paths: ["/api/v2/transfers"], bodies, keyPrefix: `bench-profile-${concurrency}`, expect: 201, collectIds: true, seconds, concurrency });
        const per = (v: number) => (v / r.count).toFixed(3).padStart(8);
        const mean = r.latencies.reduce((a, b) => a + b, 0) / r.count;
        const floorMean = floor.latencies.reduce((a, b) => a + b, 0) / floor.count;
        console.log(`  concurrency ${concurrency}: ${(r.count / r.seconds).toFixed(0)} creates/s over ${customerIds.length} customer(s)`);
        console.log(`    client round trip (mean)                               ${per(mean * r.count)}   (bare Bun.serve POST round trip: ${floorMean.toFixed(3)})`);
        console.log(`    pricing.appraise (rate and value, no write)           ${per(acc.pricing)}   (${acc.pricingN} calls)`);
        console.log(`    runtime.ask (mailbox commit, queue, handler, commit)   ${per(acc.ask)}   (${acc.askN} calls)`);
        if (origHandle) console.log(`      of which customer handler, synchronous part          ${per(acc.handler)}   (${acc.handlerN} calls)`);
        const groups = origFlush ? `; runtime group commits: ${(acc.flushN / r.count).toFixed(2)} per create, ${(acc.units / Math.max(1, acc.flushN)).toFixed(1)} units each` : "";
        console.log(`    SQLite transactions, BEGIN..COMMIT with their writes   ${per(acc.tx)}   (${(acc.txN / r.count).toFixed(2)} per create${groups})`);
        console.log(`    rest: HTTP, auth, validation, threshold, answer        ${per(mean * r.count - acc.pricing - acc.ask)}`);
      }
    } finally {
      pricing.appraise = origValue;
      rt.ask = origAsk;
      if (origFlush) rt.flush = origFlush;
      storage.tx = origTx;
      if (kind && origHandle) kind.handle = origHandle;
    }
  }
}
