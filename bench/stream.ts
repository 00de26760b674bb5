// Benchmark (issue 18): 200 concurrent SSE clients on GET /api/v2/events/stream while transfers are created at full speed.
// Prints events/s delivered per client, commit-to-client p99 (event commit in the server to receipt in the client
// process) and the create rate with clients against the same create run without clients (target ratio >= 0.8).
// The creates come from a worker thread of the server's process; the SSE clients live in their own process (raw HTTP/1.1
// sockets scanned as bytes, at nice 19). Phases alternate: without clients, with, without, ... (BENCH_ROUNDS rounds);
// each round's ratio is against the mean of the phases either side, and the medians are printed. The steady figure on
// a shared machine is the server thread's CPU per create (from /proc), with and without clients.
// BENCH_CLIENTS (200), BENCH_SECONDS (5) per phase, BENCH_ROUNDS (3), BENCH_CONCURRENCY (32) creates in flight,
// BENCH_CUSTOMERS (8), BENCH_MAX_CREATES (100000) per phase, BENCH_CLIENT_NICE (19), BENCH_WARMUP_SECONDS (3). Loopback only.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort } from "node:worker_threads";

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const clock = () => performance.timeOrigin + performance.now();
const ID_LINE = Buffer.from("\nid: ");
/** An event ID's length on the stream (src/adapters/crypto/event-ids.ts). */
const ID_LENGTH = 22;

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
// Each client is a plain TCP connection speaking HTTP/1.1 (Bun.connect), scanned as bytes: the client process handles
// up to a million messages (600 MB) a second on the same two cores as the server, so it must cost as little as
// possible (fetch with text decoding cost it a core). A message's id line is the only line that starts with "id: "
// (data is one JSON line; the chunked-encoding size lines are hex), so "\nid: <22-character ID>\n" finds every message.
async function clients(url: string, key: string, count: number, out: string): Promise<void> {
  const stats = Array.from({ length: count }, () => ({ events: 0, reconnects: 0 }));
  /**
   * Sampled receipts: each client records the event IDs whose last character code % 10 === its index % 10 (about a
   * tenth of all pairs), with the time; the main process deciphers them to seqs afterwards (the IDs are the seq
   * enciphered per company and environment, so the client process does no crypto).
   */
  const receipts: (string | number)[] = [];
  let stopping = false;
  let opened = 0;
  let countingFrom = Infinity;
  const { hostname, port } = new URL(url);
  const connect = (i: number, last: string | null, first: boolean): void => {
    let carry: Buffer = Buffer.alloc(0);
    let head = true;
    void Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(sock) {
          sock.write(`GET /api/v2/events/stream HTTP/1.1\r\nhost: ${hostname}\r\nx-api-key: ${key}\r\n${last !== null ? `last-event-id: ${last}\r\n` : ""}\r\n`);
        },
        data(sock, chunk) {
          const at = clock();
          const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
          if (head) {
            const end = buf.indexOf("\r\n\r\n");
            if (end < 0) {
              carry = Buffer.from(buf);
              return;
            }
            const status = buf.subarray(0, buf.indexOf("\r\n")).toString();
            if (!status.startsWith("HTTP/1.1 200")) {
              console.error(`stream answered ${buf.toString()}`);
              process.exit(1);
            }
            head = false;
            if (first) opened++;
            else stats[i].reconnects++;
          }
          let from = 0;
          let keep = Math.max(0, buf.length - (ID_LINE.length - 1));
          for (;;) {
            const p = buf.indexOf(ID_LINE, from);
            if (p < 0) break;
            const q = p + ID_LINE.length + ID_LENGTH;
            if (q >= buf.length) {
              keep = p; // the id goes on in the next chunk
              break;
            }
            from = q;
            keep = Math.max(keep, q);
            const id = buf.subarray(q - ID_LENGTH, q).toString("latin1");
            last = id;
            if (at >= countingFrom) stats[i].events++;
            if (buf[q - 1] % 10 === i % 10) receipts.push(id, at);
          }
          carry = keep < buf.length ? Buffer.from(buf.subarray(keep)) : Buffer.alloc(0);
          if (stopping) sock.end();
        },
        // Cut (a slow client) or ended: reconnect with Last-Event-ID, as EventSource does.
        close() {
          if (!stopping) setTimeout(() => connect(i, last, false), 100);
        },
        error() {},
        connectError() {
          if (!stopping) setTimeout(() => connect(i, last, first), 100);
        },
      },
    });
  };
  for (let i = 0; i < count; i++) connect(i, null, true);
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
  process.exit(0);
}

if (!isMainThread) {
  parentPort!.on("message", async (job: CreateJob) => parentPort!.postMessage(await creates(job)));
} else if (process.argv[2] === "--clients") {
  await clients(process.argv[3], process.argv[4], Number(process.argv[5]), process.argv[6]);
} else if (import.meta.main) {
  const r = await benchStream();
  console.log(`bench-result ${JSON.stringify({ stream: r.ratio, streamCpu: r.cpuRatio })}`);
}

export interface StreamResult {
  /** Median over the rounds of creates/s with clients ÷ the mean of the phases without either side. */
  ratio: number;
  /** Median over the rounds of server-thread CPU per create without ÷ with clients. */
  cpuRatio: number;
}

/** Runs the bench (settings from the environment, as documented above) and prints its report; returns its ratios. */
export async function benchStream(): Promise<StreamResult> {
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
  const NICE = Math.min(19, Math.floor(num("BENCH_CLIENT_NICE", 19, 0)));
  const ROUNDS = Math.floor(num("BENCH_ROUNDS", 3, 1));
  const WARMUP = num("BENCH_WARMUP_SECONDS", 3, 0.5);

  const dir = mkdtempSync(join(tmpdir(), "caravan-bench-stream-"));
  const worker = new Worker(fileURLToPath(import.meta.url));
  /** utime and stime in ms of /proc/<path>/stat (a process, or one thread as self/task/<tid>); NaN off Linux. */
  const cpuMs = (path: string): { user: number; sys: number } => {
    try {
      const f = readFileSync(`/proc/${path}/stat`, "utf8");
      const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
      return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 }; // USER_HZ = 100
    } catch {
      return { user: NaN, sys: NaN };
    }
  };
  /** The server's thread (this main thread): its CPU per create hardly moves when other processes compete for the cores. */
  const serverThread = `self/task/${process.pid}`;
  const create = async (job: CreateJob) => {
    const cpu0 = cpuMs(serverThread);
    const r = await new Promise<{ count: number; seconds: number }>((resolve, reject) => {
      worker.once("message", (r: { count: number; seconds: number; error?: string }) => (r.error ? reject(new Error(r.error)) : resolve(r)));
      worker.postMessage(job);
    });
    const cpu1 = cpuMs(serverThread);
    const per = (ms: number) => (ms * 1000) / Math.max(1, r.count);
    return { ...r, rate: r.count / r.seconds, userUs: per(cpu1.user - cpu0.user), sysUs: per(cpu1.sys - cpu0.sys), cpuUs: per(cpu1.user - cpu0.user + cpu1.sys - cpu0.sys) };
  };
  const { benchDatabase, benchEngine, benchQuery, dropBenchDatabases } = await import("./setup.ts");
  // On PostgreSQL (CARAVAN_BENCH_ENGINE=postgres), a fresh database of the bench's server.
  const databaseUrl = benchEngine() === "postgres" ? await benchDatabase() : undefined;
  const svc = await startService({
    dbPath: join(dir, "stream.db"),
    databaseUrl,
    host: "127.0.0.1",
    port: 0,
    logLevel: "warn",
    // Every client uses the bench's one key: the per-key and per-environment caps are raised with the company's.
    env: { CARAVAN_STREAM_MAX_PER_COMPANY: String(Math.max(500, CLIENTS)), CARAVAN_STREAM_MAX_PER_ENVIRONMENT: String(Math.max(400, CLIENTS)), CARAVAN_STREAM_MAX_PER_KEY: String(Math.max(100, CLIENTS)) },
    rateLimits: { ...DEFAULT_RATE_LIMITS, company: { limit: 1_000_000_000, windowSeconds: 1 } },
  });
  let child: ReturnType<typeof Bun.spawn> | undefined;
  try {
    const tenancy = databaseUrl ? svc.tenancy : new Tenancy(svc.storage, Date.now);
    const company = await tenancy.requireCompany("default");
    const member = await tenancy.createMember(company.id, "bench@example.com", "owner");
    const { key } = await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" });
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

    await create({ ...job("warm"), seconds: WARMUP });
    type Phase = Awaited<ReturnType<typeof create>>;
    const alone: Phase[] = [await create(job("alone-0"))];
    const rounds: { with: Phase; rateRatio: number; cpuRatio: number; perClient: number[]; lat: number[]; clientCpu: number; reconnects: number; events: number; clientSeconds: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const out = join(dir, `receipts-${round}.json`);
      // The client process runs at BENCH_CLIENT_NICE (19): in a deployment the 200 clients are browsers on other
      // machines; here they share the two cores with the server and the create client and must not take their share.
      child = Bun.spawn(["nice", "-n", String(NICE), "bun", fileURLToPath(import.meta.url), "--clients", svc.url, key, String(CLIENTS), out], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
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
      void stdin.write("count\n");
      void stdin.flush();
      const clientCpu0 = cpuMs(String(child.pid));
      const seqBefore = Number((await benchQuery<{ n: number }>(svc, "SELECT coalesce(max(seq), 0) AS n FROM events")).n);
      const withClients = await create(job(`with-clients-${round}`));
      const seqAfter = Number((await benchQuery<{ n: number }>(svc, "SELECT coalesce(max(seq), 0) AS n FROM events")).n);
      const clientCpu1 = cpuMs(String(child.pid));
      await Bun.sleep(1000); // the last events reach the clients
      void stdin.write("stop\n");
      void stdin.flush();
      await said("done");
      await child.exited;
      child = undefined;
      alone.push(await create(job(`alone-${round}`)));

      const r = JSON.parse(readFileSync(out, "utf8")) as { stats: { events: number; reconnects: number }[]; receipts: (string | number)[]; seconds: number };
      const lat: number[] = [];
      for (let i = 0; i < r.receipts.length; i += 2) {
        const seq = svc.eventIds.decode(company.id, "test", r.receipts[i] as string);
        if (seq === null || seq <= seqBefore || seq > seqAfter) continue;
        const c = committedAt.get(seq);
        if (c !== undefined) lat.push((r.receipts[i + 1] as number) - c);
      }
      // The phases without clients either side of this one.
      const [before, after] = alone.slice(-2);
      rounds.push({
        with: withClients,
        rateRatio: withClients.rate / ((before.rate + after.rate) / 2),
        cpuRatio: (before.cpuUs + after.cpuUs) / 2 / withClients.cpuUs,
        perClient: r.stats.map((s) => s.events / r.seconds),
        lat,
        clientCpu: (clientCpu1.user + clientCpu1.sys - clientCpu0.user - clientCpu0.sys) / withClients.seconds,
        reconnects: r.stats.reduce((a, s) => a + s.reconnects, 0),
        events: seqAfter - seqBefore,
        clientSeconds: r.seconds,
      });
    }

    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    const f = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(", ");
    const lat = rounds.flatMap((r) => r.lat).sort((a, b) => a - b);
    const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? NaN;
    const perClient = rounds.flatMap((r) => r.perClient);
    const rule = "-".repeat(100);
    console.log(rule);
    console.log(`${CLIENTS} SSE clients (one separate process at nice ${NICE}), creates from a worker thread with ${CONCURRENCY} in flight, ${SECONDS} s per phase, ${ROUNDS} rounds`);
    console.log(`creates/s without clients (phases 0..${ROUNDS}): ${f(alone.map((p) => p.rate))}`);
    console.log(`creates/s with ${CLIENTS} clients (rounds 1..${ROUNDS}): ${f(rounds.map((r) => r.with.rate))}  (events/s committed: ${f(rounds.map((r) => r.events / r.with.seconds))})`);
    console.log(`ratio creates/s with clients / without (mean of the phases either side): ${f(rounds.map((r) => r.rateRatio), 3)}; median ${median(rounds.map((r) => r.rateRatio)).toFixed(3)}  (target >= 0.8)`);
    console.log(`server thread CPU per create without clients: ${f(alone.map((p) => p.cpuUs))} µs (user ${f(alone.map((p) => p.userUs))}, sys ${f(alone.map((p) => p.sysUs))})`);
    console.log(`server thread CPU per create with clients:    ${f(rounds.map((r) => r.with.cpuUs))} µs (user ${f(rounds.map((r) => r.with.userUs))}, sys ${f(rounds.map((r) => r.with.sysUs))})`);
    console.log(`ratio server thread CPU per create without / with: ${f(rounds.map((r) => r.cpuRatio), 3)}; median ${median(rounds.map((r) => r.cpuRatio)).toFixed(3)}`);
    console.log(`events/s delivered per client: median ${median(perClient).toFixed(0)}, min ${Math.min(...perClient).toFixed(0)}, max ${Math.max(...perClient).toFixed(0)}; total messages/s per round ${f(rounds.map((r) => r.perClient.reduce((a, b) => a + b, 0)))}`);
    console.log(`commit-to-client over ${lat.length} sampled receipts: p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${lat.at(-1)?.toFixed(1)} ms`);
    console.log(`client process CPU with clients: ${f(rounds.map((r) => r.clientCpu))} ms/s; reconnections after a slow-client cut: ${f(rounds.map((r) => r.reconnects))}`);
    console.log(rule);
    return { ratio: median(rounds.map((r) => r.rateRatio)), cpuRatio: median(rounds.map((r) => r.cpuRatio)) };
  } finally {
    child?.kill();
    await svc.stop();
    await worker.terminate();
    await dropBenchDatabases();
    rmSync(dir, { recursive: true, force: true });
  }
}
