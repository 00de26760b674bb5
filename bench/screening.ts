// Benchmark (issue "Rules and screening"): the queued create path (POST /api/v2/transfers answering 202) without rules
// and with 20 active `field` rules in the same run; checkpoints against the sandbox screening vendors at concurrency 32;
// and the screening_c circuit breaker shedding load while the vendor answers 503. Ratios are printed against the raw
// SQLite single-row commit rate measured in the same run (bench/baseline.ts).
//
// The service runs in this process (main thread) on a temp database and a free loopback port. The HTTP client and the
// three sandbox peers (provider_b network, screening_c, screening_d) run in a worker thread (this same file), so that
// neither the load generator nor the simulated vendors share the service's event loop. They speak the real wire
// protocols over loopback HTTP.
//
// What is measured, per phase (each bounded by BENCH_SECONDS and BENCH_MAX_REQUESTS, then a bounded wait for settling):
// - creates/s: 202 answers per second at the client (BENCH_CONCURRENCY requests in flight, each its own Idempotency-Key);
// - precheck completions/s: transfers whose precheck `compliance.screening_complete` event committed, divided by the
//   time from the first create sent to the last such commit (commit times from runtime.onEvent, in this process);
// - settled/s: the same transfers all out of queued/processing (carried to the provider_b sandbox, or held/rejected);
// - checkpoint latency: from the create request being sent to its precheck `compliance.screening_complete` commit
//   (the create's own answer time is printed beside it: the difference is the asynchronous checkpoint).
//
// BENCH_SECONDS (10) per measured phase, BENCH_WARMUP_SECONDS (2), BENCH_CONCURRENCY (32), BENCH_MAX_REQUESTS (5000)
// per phase, BENCH_BURST (400) creates in the breaker burst, BENCH_RULES (20), BENCH_ROUTED (60) creates over the real
// provider_b routing leg (0 skips it), BENCH_SETTLE_SECONDS (120) bound on each wait, BENCH_LOG (the service's log
// level, default error), BENCH_ONLY ("rules" or "norules": only that create phase after the warm-up, for
// `bun --cpu-prof`). Phases 2–4 stub provider_b discovery (see below and docs/benchmarks.md "Screening benchmarks").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort } from "node:worker_threads";
import { decodeEventData } from "../src/adapters/storage/event-data.ts";
/** events.data is stored compactly (src/adapters/storage/event-data.ts): read in JS, not with json_extract. */
const isPrecheck = (data: string | Uint8Array): boolean => (JSON.parse(decodeEventData(data)) as { stage?: string }).stage === "precheck";

/** Epoch milliseconds with sub-millisecond precision, comparable between the worker and the main thread. */
const clock = () => performance.timeOrigin + performance.now();

// ---- shared fixtures ----

function person(family: string, given: string, country: string) {
  return { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] }, countryOfResidence: country } };
}
const JANE = person("Doe", "Jane", "NL");
const RICHARD = person("Roe", "Richard", "DE");
const ORIGIN_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";

// ---- the worker thread: HTTP client and sandbox peers ----

interface Job {
  base: string;
  headers: Record<string, string>;
  path: string;
  bodies: string[];
  keyPrefix: string;
  seconds: number;
  max: number;
  concurrency: number;
  /** Count answers other than 202 (by status) and go on, instead of stopping at the first. */
  tolerate?: boolean;
}

interface JobResult {
  count: number;
  seconds: number;
  /** Per answered create: its transfer ID, when its request was sent and when its 202 was read (epoch ms). */
  ids: string[];
  sentAt: number[];
  answeredAt: number[];
  firstSentAt: number;
  /** Answers other than 202, by status (with `tolerate`). */
  refused: Record<string, number>;
  error?: string;
}

interface VendorCounts {
  c: number;
  c503: number;
  d: number;
  peakC: number;
}

type ToWorker =
  | { op: "start" }
  | { op: "register"; entry: { entityId: string; publicKeyBase64: string; callbackBaseUrl: string; legalName: string; country: string } }
  | { op: "job"; job: Job }
  | { op: "fault"; status: number | null }
  | { op: "counts" }
  | { op: "stop" };

async function runJob(job: Job): Promise<JobResult> {
  const ids: string[] = [];
  const sentAt: number[] = [];
  const answeredAt: number[] = [];
  let started = 0;
  let error: string | undefined;
  const refused: Record<string, number> = {};
  const firstSentAt = clock();
  const t0 = performance.now();
  const end = t0 + job.seconds * 1000;
  async function loop(): Promise<void> {
    while (error === undefined && started < job.max && performance.now() < end) {
      const n = started++;
      const headers = { ...job.headers, "idempotency-key": `${job.keyPrefix}-${n}` };
      const s = clock();
      let res: Response;
      try {
        res = await fetch(job.base + job.path, { method: "POST", headers, body: job.bodies[n % job.bodies.length] });
      } catch (e) {
        error ??= `POST ${job.path}: ${(e as Error).message}`;
        return;
      }
      const text = await res.text();
      if (res.status !== 202 && job.tolerate) {
        refused[res.status] = (refused[res.status] ?? 0) + 1;
        continue;
      }
      if (res.status !== 202) {
        error ??= `POST ${job.path} answered ${res.status}, expected 202: ${text.slice(0, 500)}`;
        return;
      }
      const j = JSON.parse(text) as { data?: { id?: string } };
      if (typeof j.data?.id !== "string") {
        error ??= `POST ${job.path} answered 202 without a transfer ID: ${text.slice(0, 500)}`;
        return;
      }
      ids.push(j.data.id);
      sentAt.push(s);
      answeredAt.push(clock());
    }
  }
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  return { count: ids.length, seconds: (performance.now() - t0) / 1000, ids, sentAt, answeredAt, firstSentAt, refused, error };
}

if (!isMainThread) {
  const { startProviderBPeer } = await import("../src/sandbox/provider_b/index.ts");
  const { startScreeningCSandbox } = await import("../src/sandbox/screening_c/index.ts");
  const { startScreeningDSandbox } = await import("../src/sandbox/screening_d/index.ts");
  type Peers = { b: Awaited<ReturnType<typeof startProviderBPeer>>; c: Awaited<ReturnType<typeof startScreeningCSandbox>>; d: Awaited<ReturnType<typeof startScreeningDSandbox>> };
  let peers: Peers | undefined;
  parentPort!.on("message", async (m: ToWorker) => {
    try {
      switch (m.op) {
        case "start": {
          const c = await startScreeningCSandbox();
          const d = await startScreeningDSandbox();
          const b = await startProviderBPeer({ vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { richard: [RICHARD as never] }, wallets: [{ address: BENE_ADDR, customer: "richard" }] }] });
          peers = { b, c, d };
          parentPort!.postMessage({ b: b.url, c: c.url, d: d.url });
          return;
        }
        case "register":
          peers!.b.registerCaravan(m.entry as never);
          parentPort!.postMessage({});
          return;
        case "job":
          parentPort!.postMessage(await runJob(m.job));
          return;
        case "fault":
          peers!.c.setFault(m.status === null ? null : { kind: "status", status: m.status });
          peers!.c.resetPeak();
          parentPort!.postMessage({});
          return;
        case "counts": {
          const c = peers!.c;
          const counts: VendorCounts = { c: c.requests.length, c503: c.requests.filter((r) => r.status === 503).length, d: peers!.d.requests.length, peakC: c.peakInFlight };
          parentPort!.postMessage(counts);
          return;
        }
        case "stop":
          if (peers) await Promise.all([peers.b.stop(), peers.c.stop(), peers.d.stop()]);
          parentPort!.postMessage({});
          return;
      }
    } catch (e) {
      parentPort!.postMessage({ error: `worker ${m.op}: ${(e as Error).message}` });
    }
  });
}

if (isMainThread) await main();

// ---- the benchmark (main thread) ----

async function main(): Promise<void> {
  const { rawCommitRate } = await import("./baseline.ts");
  const { startService } = await import("../src/services.ts");
  const { Tenancy } = await import("../src/adapters/storage/repos/tenancy.ts");
  const { DEFAULT_RATE_LIMITS } = await import("../src/domain/ratelimit.ts");
  const { publicKeyBase64, randomSeedBase64 } = await import("../src/adapters/providers/provider_b/crypto.ts");
  const { SANDBOX_API_KEY } = await import("../src/sandbox/screening_c/index.ts");
  const { SANDBOX_SCREENING_D_KEY } = await import("../src/sandbox/screening_d/index.ts");
  const { FAILURES_TO_OPEN, OPEN_FOR_MS } = await import("../src/domain/screening/breaker.ts");
  const { MAX_CONCURRENT_CALLS } = await import("../src/adapters/screening/index.ts");

  const num = (name: string, def: number, min: number): number => {
    const v = Number(process.env[name] ?? def);
    if (!Number.isFinite(v) || v < min) throw new Error(`${name} must be a number >= ${min}, got "${process.env[name]}"`);
    return v;
  };
  const SECONDS = num("BENCH_SECONDS", 10, 0.1);
  const WARMUP = num("BENCH_WARMUP_SECONDS", 2, 0);
  const CONCURRENCY = Math.floor(num("BENCH_CONCURRENCY", 32, 1));
  const MAX = Math.floor(num("BENCH_MAX_REQUESTS", 5000, 1));
  const BURST = Math.floor(num("BENCH_BURST", 400, 1));
  const ROUTED = Math.floor(num("BENCH_ROUTED", 60, 0));
  const RULES = Math.floor(num("BENCH_RULES", 20, 1));
  const SETTLE = num("BENCH_SETTLE_SECONDS", 120, 1);
  const ONLY = process.env.BENCH_ONLY;
  if (ONLY !== undefined && ONLY !== "rules" && ONLY !== "norules") throw new Error(`BENCH_ONLY must be rules or norules, got "${ONLY}"`);

  const dir = mkdtempSync(join(tmpdir(), "caravan-bench-screening-"));
  const worker = new Worker(fileURLToPath(import.meta.url));
  let pending: { resolve(r: unknown): void; reject(e: unknown): void } | undefined;
  worker.on("message", (r: { error?: string }) => (r && typeof r === "object" && "error" in r && r.error && !("ids" in r) ? pending?.reject(new Error(r.error)) : pending?.resolve(r)));
  worker.on("error", (e) => pending?.reject(e));
  /** One request to the worker at a time. */
  const ask = <R>(m: ToWorker): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      pending = { resolve: resolve as (r: unknown) => void, reject };
      worker.postMessage(m);
    });

  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
  };
  const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
  const lat = (xs: number[]) => `p50 ${ms(pct(xs, 0.5))}, p99 ${ms(pct(xs, 0.99))}`;

  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    // 1. Raw SQLite: one row per transaction, the service's driver and pragmas.
    const raw = ONLY ? NaN : await rawCommitRate(dir, { seconds: 3 });

    // 2. The sandbox peers (worker), then the service pointed at them; the company budget is lifted (no 429).
    const urls = await ask<{ b: string; c: string; d: string }>({ op: "start" });
    service = await startService({
      dbPath: join(dir, "screening.db"),
      host: "127.0.0.1",
      port: 0,
      logLevel: (process.env.BENCH_LOG as "error") ?? "error",
      env: {
        CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
        PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
        CARAVAN_SCREENING_C_URLS: `eu=${urls.c},us=${urls.c},apac=${urls.c}`,
        CARAVAN_SCREENING_D_URL: urls.d,
      },
      rateLimits: { ...DEFAULT_RATE_LIMITS, company: { limit: 1_000_000_000, windowSeconds: 1 } },
    });
    const svc = service;
    const tenancy = new Tenancy(svc.storage, Date.now);
    const company = await tenancy.requireCompany("default");
    const member = await tenancy.createMember(company.id, "bench@example.com", "owner");
    const owner = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" })).key;
    const live = (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "live" })).key;

    async function call(path: string, key: string, method = "GET", body?: unknown, expect?: number): Promise<any> {
      const res = await fetch(svc.url + path, { method, headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (expect !== undefined && res.status !== expect) throw new Error(`${method} ${path} answered ${res.status}, expected ${expect}: ${text.slice(0, 500)}`);
      return text ? JSON.parse(text) : null;
    }

    // Settings as in test/http/screening-checkpoints.test.ts: provider_b and both integrations saved in both
    // environments, enabled with the live key.
    const seed = randomSeedBase64();
    const credentials = { apiUrl: urls.b, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Bench VASP", country: "NL" };
    for (const key of [owner, live]) {
      await call("/api/v2/providers/provider_b", key, "PUT", { credentials }, 201);
      await call("/api/v2/integrations/screening_c", key, "PUT", { credentials: { apiKey: SANDBOX_API_KEY } }, 201);
      await call("/api/v2/integrations/screening_d", key, "PUT", { credentials: { apiKey: SANDBOX_SCREENING_D_KEY } }, 201);
    }
    for (const path of ["/api/v2/providers/provider_b", "/api/v2/integrations/screening_c", "/api/v2/integrations/screening_d"]) await call(path, live, "PATCH", { enabled: true }, 200);
    const C: string = (await call("/api/v2/integrations/screening_c", owner, "GET", undefined, 200)).data.id;
    const D: string = (await call("/api/v2/integrations/screening_d", owner, "GET", undefined, 200)).data.id;
    await ask({ op: "register", entry: { entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: svc.url, legalName: "Caravan Bench VASP", country: "NL" } });
    const customerId: string = (await call("/api/v2/customers", owner, "POST", { name: "Jane Doe" }, 201)).data.id;
    await call(`/api/v2/customers/${customerId}/travel-rule-identity`, owner, "PUT", { status: "verified", persons: [JANE] }, 200);
    await call("/api/v2/wallets", owner, "POST", { customerId, network: "ethereum", address: ORIGIN_ADDR }, 201);

    // 1 ETH = 3,200 USD at the sandbox snapshot rate: above the 1,000 USD fallback threshold, so every create is queued (202).
    const bodies = [
      JSON.stringify({
        asset: "ETH",
        amount: "1",
        network: "ethereum",
        originatorCustomerId: customerId,
        originatorAddress: ORIGIN_ADDR,
        beneficiaryAddress: BENE_ADDR,
        originator: { originatorPersons: [JANE] },
        beneficiary: { beneficiaryPersons: [RICHARD] },
      }),
    ];

    // The routing leg. provider_b discovery goes through the connection's outbound permit (CALLS_PER_SECOND per
    // connection, a politeness limit towards the provider), which caps the full queued path at about one routed transfer
    // per two calls; a 32-in-flight create load would build a backlog that routing drains for minutes. So the
    // measured phases replace provider_b's discovery by an immediate "VASP not found" (no request, no permit): the
    // transfer is screened at precheck exactly as it would be, then fails routing at once. The real routing leg is
    // measured on its own at the end (BENCH_ROUTED creates), to show that cap.
    const providerB = svc.providers.adapter("provider_b") as { discover?: (...a: unknown[]) => Promise<unknown> } | undefined;
    if (!providerB?.discover) throw new Error("the provider_b adapter has no discover()");
    const realDiscover = providerB.discover;
    let routing: "stub" | "real" = "stub";
    providerB.discover = function (this: unknown, ...a: unknown[]) {
      return routing === "real" ? realDiscover.apply(this, a) : Promise.resolve({ kind: "not_found" });
    };

    // Commit time of every event (the runtime calls this after each event's commit).
    const committedAt = new Map<number, number>();
    svc.runtime.onEvent((seq) => committedAt.set(seq, clock()));
    const completes = svc.storage.client.prepare(
      "SELECT seq, entity_id AS id, data FROM events WHERE seq > ? AND type = 'compliance.screening_complete'",
    );
    const maxSeq = svc.storage.client.prepare("SELECT coalesce(max(seq), 0) AS n FROM events");
    const unsettled = svc.storage.client.prepare("SELECT count(*) AS n FROM transfers WHERE state IN ('queued', 'processing', 'exchanging')");
    const rowsOf = svc.storage.client.prepare("SELECT id, state, checks FROM transfers WHERE id IN (SELECT value FROM json_each(?))");

    interface Phase {
      label: string;
      creates: JobResult & { rate: number };
      /** Create sent → precheck screening_complete committed, ms, per transfer. */
      toVerdict: number[];
      createLatency: number[];
      completionsPerSec: number;
      settledPerSec: number;
      settledAll: boolean;
      states: Record<string, number>;
      checks: { integration: string; status: string; durationMs: number | null; stage: string; error: string | null }[];
      vendor: VendorCounts;
    }

    /** Creates for `seconds` (or `max`), then waits (bounded) until every precheck committed and nothing is queued or processing. */
    async function phase(label: string, o: { seconds: number; max: number; keyPrefix: string; tolerate?: boolean }): Promise<Phase> {
      const v0 = await ask<VendorCounts>({ op: "counts" });
      const seq0 = (maxSeq.get() as { n: number }).n;
      const r = await ask<JobResult>({ op: "job", job: { base: svc.url, headers: { "x-api-key": owner, "content-type": "application/json" }, path: "/api/v2/transfers", bodies, keyPrefix: o.keyPrefix, seconds: o.seconds, max: o.max, concurrency: CONCURRENCY, tolerate: o.tolerate } });
      if (r.error) throw new Error(`bench client: ${r.error}`);
      const mine = new Set(r.ids);
      const done = new Map<string, number>();
      let settledAt = NaN;
      const deadline = performance.now() + SETTLE * 1000;
      for (;;) {
        for (const e of completes.all(seq0) as { seq: number; id: string; data: string | Uint8Array }[]) if (isPrecheck(e.data) && mine.has(e.id) && !done.has(e.id)) done.set(e.id, committedAt.get(e.seq) ?? clock());
        const open = (unsettled.get() as { n: number }).n;
        if (open === 0 && Number.isNaN(settledAt)) settledAt = clock();
        if ((done.size >= mine.size && open === 0) || performance.now() > deadline) break;
        await Bun.sleep(20);
      }
      const rows = rowsOf.all(JSON.stringify(r.ids)) as { id: string; state: string; checks: string }[];
      const states: Record<string, number> = {};
      const checks: Phase["checks"] = [];
      for (const row of rows) {
        states[row.state] = (states[row.state] ?? 0) + 1;
        for (const c of JSON.parse(row.checks) as Phase["checks"]) checks.push(c);
      }
      const toVerdict: number[] = [];
      r.ids.forEach((id, i) => {
        const at = done.get(id);
        if (at !== undefined) toVerdict.push(at - r.sentAt[i]);
      });
      const lastDone = Math.max(...done.values());
      const v1 = await ask<VendorCounts>({ op: "counts" });
      return {
        label,
        creates: { ...r, rate: r.count / r.seconds },
        toVerdict,
        createLatency: r.ids.map((_, i) => r.answeredAt[i] - r.sentAt[i]),
        completionsPerSec: done.size / ((lastDone - r.firstSentAt) / 1000),
        settledPerSec: r.count / ((settledAt - r.firstSentAt) / 1000),
        settledAll: done.size === mine.size && !Number.isNaN(settledAt),
        states,
        checks,
        vendor: { c: v1.c - v0.c, c503: v1.c503 - v0.c503, d: v1.d - v0.d, peakC: v1.peakC },
      };
    }

    /**
     * Closed loop: CONCURRENCY loops in this thread, each creating a transfer and waiting for its precheck
     * `compliance.screening_complete` commit before the next create, so exactly CONCURRENCY checkpoints are in flight.
     * (The open-loop phases keep CONCURRENCY creates in flight; their checkpoints run behind the 202 without bound.)
     */
    const eventOf = svc.storage.client.prepare("SELECT entity_id AS id, data FROM events WHERE seq = ? AND type = 'compliance.screening_complete'");
    const waiting = new Map<string, (at: number) => void>();
    const early = new Map<string, number>();
    svc.runtime.onEvent((seq) => {
      if (waiting.size === 0 && early.size === 0 && !closedLoopOn) return;
      const at = clock();
      const e = eventOf.get(seq) as { id: string; data: string | Uint8Array } | null;
      if (!e || !isPrecheck(e.data)) return;
      const w = waiting.get(e.id);
      if (w) {
        waiting.delete(e.id);
        w(at);
      } else early.set(e.id, at);
    });
    let closedLoopOn = false;
    async function closedLoop(seconds: number, max: number, keyPrefix: string): Promise<{ count: number; seconds: number; perSec: number; latency: number[]; createLatency: number[] }> {
      closedLoopOn = true;
      const latency: number[] = [];
      const createLatency: number[] = [];
      let started = 0;
      const t0 = performance.now();
      const end = t0 + seconds * 1000;
      const headers = { "x-api-key": owner, "content-type": "application/json" };
      async function loop(): Promise<void> {
        while (started < max && performance.now() < end) {
          const n = started++;
          const s0 = clock();
          const res = await fetch(`${svc.url}/api/v2/transfers`, { method: "POST", headers: { ...headers, "idempotency-key": `${keyPrefix}-${n}` }, body: bodies[0] });
          const text = await res.text();
          if (res.status !== 202) throw new Error(`POST /api/v2/transfers answered ${res.status}, expected 202: ${text.slice(0, 300)}`);
          const id = (JSON.parse(text) as { data: { id: string } }).data.id;
          createLatency.push(clock() - s0);
          const at = early.get(id) ?? (await new Promise<number>((resolve, reject) => {
            waiting.set(id, resolve);
            setTimeout(() => waiting.has(id) && reject(new Error(`no precheck for ${id} within ${SETTLE} s`)), SETTLE * 1000);
          }));
          early.delete(id);
          latency.push(at - s0);
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, loop));
      closedLoopOn = false;
      early.clear();
      const secs = (performance.now() - t0) / 1000;
      return { count: latency.length, seconds: secs, perSec: latency.length / secs, latency, createLatency };
    }

    const ruleIds: string[] = [];
    async function addRule(body: Record<string, unknown>): Promise<void> {
      ruleIds.push((await call("/api/v2/rules", owner, "POST", body, 201)).data.id);
    }
    async function dropRules(): Promise<void> {
      while (ruleIds.length) await call(`/api/v2/rules/${ruleIds.pop()}`, owner, "DELETE", undefined, 200);
    }
    const line = (p: Phase) =>
      `${p.creates.count} creates: ${p.creates.rate.toFixed(0)} creates/s (202, ${lat(p.createLatency)}); ` +
      `precheck completions/s ${p.completionsPerSec.toFixed(0)}; settled/s ${p.settledPerSec.toFixed(0)}${p.settledAll ? "" : " (NOT ALL SETTLED within the bound)"}; ` +
      `create → verdict ${lat(p.toVerdict)}; states ${JSON.stringify(p.states)}`;
    const fieldRules = Array.from({ length: RULES }, (_, i) => {
      // Field rules only (no integration read, no vendor call), none matching a bench transfer: the flow stays the same.
      const branches = [
        { type: "if", field: "amountUSD", operator: "gt", value: String(1_000_000_000 + i), action: "block" },
        { type: "if", field: "beneficiaryName", operator: "contains", value: `Zzyzx ${i}`, action: "require_review" },
        { type: "if", field: "network", operator: "eq", value: "bitcoin", action: "flag" },
        { type: "if", field: "originatorName", operator: "eq", value: `Nobody ${i}`, action: "require_review" },
        { type: "if", field: "beneficiaryAddress", operator: "eq", value: `0x${String(i).padStart(40, "0")}`, action: "block" },
      ][i % 5];
      return { name: `Bench field rule ${i + 1}`, category: i % 2 ? "aml" : "sanctions", stage: "both", action: branches.action, condition: { rules: [branches] } };
    });

    // Warm-up (not counted): the JIT, the caches, the actors of the customer.
    if (WARMUP > 0) await phase("warm-up", { seconds: WARMUP, max: MAX, keyPrefix: "warm" });

    const rule = "-".repeat(110);
    const out: string[] = [];
    const print = (s: string) => {
      out.push(s);
      console.log(s);
    };
    print(rule);
    print(`client and sandbox peers: worker thread; ${CONCURRENCY} creates in flight; ${SECONDS} s per phase (at most ${MAX} creates), ${WARMUP} s warm-up; company rate limit lifted`);
    if (!ONLY) print(`raw SQLite commits/s (1 row per transaction, WAL, synchronous=NORMAL): ${raw.toFixed(0)}`);

    // 2. The queued create path without rules, then with RULES active field rules (same run, same database).
    let without: Phase | undefined;
    let withRules: Phase | undefined;
    if (ONLY !== "rules") {
      without = await phase("no rules", { seconds: SECONDS, max: MAX, keyPrefix: "norules" });
      print(`queued creates, no rules:         ${line(without)}`);
    }
    if (ONLY !== "norules") {
      for (const r of fieldRules) await addRule(r);
      withRules = await phase(`${RULES} field rules`, { seconds: SECONDS, max: MAX, keyPrefix: "rules" });
      print(`queued creates, ${RULES} field rules:   ${line(withRules)}`);
      const vendorCalls = withRules.vendor.c + withRules.vendor.d;
      if (vendorCalls !== 0) throw new Error(`field rules made ${vendorCalls} vendor requests, expected none`);
      await dropRules();
    }
    if (without && withRules) {
      print(`ratio creates/s with ${RULES} rules ÷ without: ${(withRules.creates.rate / without.creates.rate).toFixed(3)} (target ≥ 0.8); ` +
        `precheck completions/s ratio ${(withRules.completionsPerSec / without.completionsPerSec).toFixed(3)}; settled/s ratio ${(withRules.settledPerSec / without.settledPerSec).toFixed(3)}`);
      print(`ratio creates/s ÷ raw commits/s: ${(without.creates.rate / raw).toFixed(4)} (no rules), ${(withRules.creates.rate / raw).toFixed(4)} (${RULES} rules)`);
    }

    if (!ONLY) {
      // 3. Checkpoints against the sandbox vendors: a rule reading screening_c (names) and one reading screening_d
      //    (addresses); clean names and addresses, so every transfer is approved and carried.
      await addRule({ name: "Watch-list name hit", category: "sanctions", stage: "precheck", action: "require_review", condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "require_review" }] } });
      await addRule({ name: "Risky address", category: "aml", stage: "precheck", action: "block", condition: { rules: [{ type: "if", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.9", action: "block" }] } });
      const vendors = await phase("vendors", { seconds: SECONDS, max: MAX, keyPrefix: "vendors" });
      const byVendor = (name: string, status?: string) => vendors.checks.filter((c) => c.integration === name && (status === undefined || c.status === status)).map((c) => c.durationMs ?? 0);
      print(`checkpoints against the sandbox vendors (screening_c + screening_d rules, ${MAX_CONCURRENT_CALLS} vendor calls in flight per integration at most):`);
      print(`  ${line(vendors)}`);
      print(`  open loop (${CONCURRENCY} creates in flight, checkpoints unbounded behind the 202s): checkpoints/s (precheck completions) ${vendors.completionsPerSec.toFixed(0)}; checkpoint latency (create sent → precheck screening_complete committed) ${lat(vendors.toVerdict)}`);
      print(`  vendor requests: screening_c ${vendors.vendor.c} (${(vendors.vendor.c / vendors.creates.count).toFixed(2)} per checkpoint), screening_d ${vendors.vendor.d} (${(vendors.vendor.d / vendors.creates.count).toFixed(2)} per checkpoint)`);
      print(`  check durations: screening_c ${lat(byVendor("screening_c"))} (${byVendor("screening_c", "success").length} success), screening_d ${lat(byVendor("screening_d"))} (${byVendor("screening_d", "success").length} success); ` +
        `screening_c checks that took ≥ 5 s (the breaker's permit ask timed out and the check was let through): ${byVendor("screening_c").filter((d) => d >= 5000).length}`);
      print(`  ratio checkpoints/s ÷ raw commits/s: ${(vendors.completionsPerSec / raw).toFixed(4)}; ÷ creates/s without rules: ${without ? (vendors.completionsPerSec / without.creates.rate).toFixed(3) : "n/a"}`);
      const v0 = await ask<VendorCounts>({ op: "counts" });
      const closed = await closedLoop(SECONDS, MAX, "closed");
      const v1 = await ask<VendorCounts>({ op: "counts" });
      while ((unsettled.get() as { n: number }).n > 0) await Bun.sleep(20);
      print(`  closed loop, ${CONCURRENCY} checkpoints in flight (each loop waits for its verdict): ${closed.count} checkpoints, ${closed.perSec.toFixed(0)} checkpoints/s; ` +
        `checkpoint latency (create sent → precheck screening_complete committed) ${lat(closed.latency)} (of which the 202 answer ${lat(closed.createLatency)}); ` +
        `vendor requests screening_c ${v1.c - v0.c}, screening_d ${v1.d - v0.d}`);
      await dropRules();

      // 4. The breaker: screening_c answers 503; a burst of creates with a rule reading only screening_c.
      await addRule({ name: "Watch-list name hit", category: "sanctions", stage: "precheck", action: "require_review", condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "require_review" }] } });
      await ask({ op: "fault", status: 503 });
      const down = await phase("vendor down", { seconds: SETTLE, max: BURST, keyPrefix: "down" });
      await ask({ op: "fault", status: null });
      const cChecks = down.checks.filter((c) => c.integration === "screening_c");
      const of = (status: string) => cChecks.filter((c) => c.status === status).map((c) => c.durationMs ?? 0);
      const failed = of("error");
      const skipped = of("skipped");
      print(`breaker: screening_c answers 503; burst of ${BURST} creates with a rule reading screening_c (opens after ${FAILURES_TO_OPEN} failed checks in a row, open ${OPEN_FOR_MS / 1000} s):`);
      print(`  ${line(down)}`);
      print(`  screening_c requests made: ${down.vendor.c} (${down.vendor.c503} answered 503, at most ${down.vendor.peakC} in flight) for ${cChecks.length} checks: ${failed.length} error (called the vendor), ${skipped.length} skipped (breaker open, no request)`);
      print(`  check duration: error ${lat(failed)}; skipped ${lat(skipped)}`);
      print(`  shed: ${((skipped.length / Math.max(1, cChecks.length)) * 100).toFixed(1)}% of checks made no request; requests per check ${(down.vendor.c / Math.max(1, cChecks.length)).toFixed(3)} (2 names per check when the vendor is called)`);
      await dropRules();
    }

    if (!ONLY && ROUTED > 0) {
      // 5. The real routing leg (no rules): discovery and submission to the provider_b sandbox network.
      routing = "real";
      const routed = await phase("routed", { seconds: SETTLE, max: ROUTED, keyPrefix: "routed", tolerate: true });
      routing = "stub";
      print(`real routing to the provider_b sandbox (no rules, ${ROUTED} creates, ${CONCURRENCY} in flight; every other phase stubs discovery):`);
      print(`  ${line(routed)}${Object.keys(routed.creates.refused).length ? `; refused ${JSON.stringify(routed.creates.refused)}` : ""}`);
    }
    print(rule);
  } finally {
    await service?.stop();
    await ask({ op: "stop" }).catch(() => {});
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  }
}
