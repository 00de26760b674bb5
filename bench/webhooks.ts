// Benchmark: events/s fanned out to 10 subscriptions and delivered to a loopback receiver (its own process), and the p99 from
// event commit to receipt at a steady rate, against baselines from the same run (bare Bun.serve answers, raw SQLite commits).
import { threadCpuMs } from "./baseline.ts";
import { benchDatabase, benchEngine, benchQuery, dropBenchDatabases, rawEngineCommitRate, rawEngineLabel } from "./setup.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../src/services.ts";
import type { PgSession } from "../src/adapters/storage/postgres/index.ts";
import { Webhooks } from "../src/adapters/storage/repos/webhooks.ts";
import { secretAad } from "../src/actors/webhook.ts";
import { iso, newId } from "../src/domain/ids.ts";
import { newSecret } from "../src/domain/webhooks.ts";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10);
const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** The light steady rate (events/s); the other steady phase runs at half the burst rate. */
const LIGHT_RATE = Number(process.env.BENCH_RATE ?? 20);
/** Wall-clock milliseconds with sub-millisecond precision, comparable across the two processes. */
const clock = () => performance.timeOrigin + performance.now();

// ---- the receiver process: records receipt times by event id, answers 200 ----
if (process.argv[2] === "--receiver") {
  const receipts: Record<string, number[]> = {};
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const at = clock();
      const path = new URL(req.url).pathname;
      if (path === "/receipts") return Response.json(receipts);
      if (req.method === "POST") {
        const id = (JSON.parse(await req.text()) as { data: { id: string } }).data.id;
        (receipts[id] ??= []).push(at);
      }
      return new Response("ok");
    },
  });
  console.log(server.port);
  await new Promise(() => {});
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

const dir = mkdtempSync(join(tmpdir(), "caravan-bench-webhooks-"));
const child = Bun.spawn(["bun", import.meta.path, "--receiver"], { stdout: "pipe", stderr: "inherit" });
const first = await (child.stdout as ReadableStream<Uint8Array>).getReader().read();
const receiverUrl = `http://127.0.0.1:${Number(new TextDecoder().decode(first.value).trim())}`;

/** Baseline 1: what the receiver answers over loopback with as many sequential senders as subscriptions. */
async function bareHttp(requests: number): Promise<{ rate: number; p50: number; p99: number }> {
  const lat: number[] = [];
  const per = Math.ceil(requests / SUBSCRIPTIONS);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SUBSCRIPTIONS }, async () => {
      for (let i = 0; i < per; i++) {
        const s = performance.now();
        const r = await fetch(`${receiverUrl}/bare`);
        await r.text();
        lat.push(performance.now() - s);
      }
    }),
  );
  return { rate: lat.length / ((performance.now() - t0) / 1000), p50: pct(lat, 50), p99: pct(lat, 99) };
}


// On PostgreSQL (CARAVAN_BENCH_ENGINE=postgres), a fresh database of the bench's server.
const databaseUrl = benchEngine() === "postgres" ? await benchDatabase() : undefined;
const svc = await startService({ dbPath: join(dir, "caravan.db"), databaseUrl, host: "127.0.0.1", port: 0, logLevel: "silent", env: { CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" } });
const company = (await svc.tenancy.companyBySlug("default"))!;
const repo = databaseUrl ? svc.repositories.webhooks : new Webhooks(svc.storage);
for (let i = 0; i < SUBSCRIPTIONS; i++) {
  const now = Date.now();
  const id = newId("whk", now);
  await repo.insert({
    id, companyId: company.id, environment: "test", name: `bench-${i}`, url: `${receiverUrl}/hook/${i}`, events: ["*"], status: "active", description: null,
    secretSealed: svc.secrets.seal(newSecret(), secretAad(id)), activeFromSeq: 0, createdAt: iso(now), updatedAt: iso(now),
  });
}
// Events as the transfer actor writes them: emitted by a handler, committed by the runtime (commit time taken from onEvent).
svc.runtime.register<null, { id: string }>({
  kind: "bench-emitter",
  initialState: () => null,
  handle(ctx, msg) {
    ctx.emit({ companyId: company.id, environment: "test", type: "transfer.completed", entityType: "transfer", entityId: msg.id, data: { id: msg.id, state: "completed" } });
  },
});
const committedAt = new Map<number, number>();
svc.runtime.onEvent((seq) => committedAt.set(seq, clock()));
/** Sent deliveries, from the trigger-kept counters (counting rows every few milliseconds would cost the service). */
const delivered = async () => Number((await benchQuery<{ n: number }>(svc, "SELECT coalesce(sum(sent_count), 0) AS n FROM webhooks")).n);
const emit = (id: string, k: number) => svc.runtime.tell(`bench-emitter:${k % 50}`, { id });

/** Burst: every event at once, until all are delivered (sent and recorded). */
async function burst(prefix: string, n: number): Promise<number> {
  const target = (await delivered()) + n * SUBSCRIPTIONS;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, (_, k) => emit(`${prefix}-${k}`, k)));
  while ((await delivered()) < target) await Bun.sleep(5);
  return (performance.now() - t0) / 1000;
}

/** Steady: events at `rate` per second; latency from each event's commit to each receipt. */
async function steady(prefix: string, rate: number, seconds: number): Promise<number[]> {
  const n = Math.max(1, Math.round(rate * seconds));
  const target = (await delivered()) + n * SUBSCRIPTIONS;
  const t0 = performance.now();
  for (let k = 0; k < n; k++) {
    const wait = t0 + (k * 1000) / rate - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    void emit(`${prefix}-${k}`, k);
  }
  while ((await delivered()) < target) await Bun.sleep(5);
  const receipts = (await (await fetch(`${receiverUrl}/receipts`)).json()) as Record<string, number[]>;
  const seqs = databaseUrl
    ? await (svc.store as PgSession).read<{ seq: number; entity_id: string }>("SELECT seq, entity_id FROM events WHERE entity_id LIKE $1", [`${prefix}-%`])
    : (svc.storage.stmt("SELECT seq, entity_id FROM events WHERE entity_id LIKE ?").all(`${prefix}-%`) as { seq: number; entity_id: string }[]);
  const lat: number[] = [];
  for (const { seq, entity_id } of seqs) for (const at of receipts[entity_id] ?? []) lat.push(at - committedAt.get(seq)!);
  return lat;
}

await burst("warm", 200);
const cpu0 = threadCpuMs();
const seconds = await burst("burst", EVENTS);
const cpuPerDelivery = ((threadCpuMs() - cpu0) * 1000) / (EVENTS * SUBSCRIPTIONS);
const eventsPerSec = EVENTS / seconds;
const light = await steady("light", LIGHT_RATE, STEADY_SECONDS);
const lat = await steady("steady", eventsPerSec / 2, STEADY_SECONDS);
await svc.stop();
const bare = await bareHttp(EVENTS * SUBSCRIPTIONS);
const raw = await rawEngineCommitRate(dir, { maxRows: EVENTS * SUBSCRIPTIONS, seconds: 60 });
await dropBenchDatabases();
child.kill();
rmSync(dir, { recursive: true, force: true });

console.log(`baseline: bare Bun.serve answers/s over loopback (${SUBSCRIPTIONS} sequential senders): ${bare.rate.toFixed(0)}; p50 ${bare.p50.toFixed(2)} ms, p99 ${bare.p99.toFixed(2)} ms`);
console.log(`baseline: ${rawEngineLabel()}: ${raw.toFixed(0)}`);
console.log(`burst: ${EVENTS} events fanned out to ${SUBSCRIPTIONS} subscriptions, every delivery sent and recorded: ${eventsPerSec.toFixed(0)} events/s = ${(eventsPerSec * SUBSCRIPTIONS).toFixed(0)} deliveries/s (service thread CPU ${cpuPerDelivery.toFixed(1)} µs per delivery)`);
console.log(`steady ${LIGHT_RATE} events/s for ${STEADY_SECONDS} s, event commit to receipt over ${light.length} deliveries: p50 ${pct(light, 50).toFixed(2)} ms, p99 ${pct(light, 99).toFixed(2)} ms`);
console.log(`steady ${(eventsPerSec / 2).toFixed(0)} events/s (half the burst rate) for ${STEADY_SECONDS} s, event commit to receipt over ${lat.length} deliveries: p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms`);
console.log(`ratios: deliveries/s to bare answers/s ${((eventsPerSec * SUBSCRIPTIONS) / bare.rate).toFixed(3)}; deliveries/s to raw commits/s ${((eventsPerSec * SUBSCRIPTIONS) / raw).toFixed(3)}; p99 to bare p99 ${(pct(light, 99) / bare.p99).toFixed(1)} (light), ${(pct(lat, 99) / bare.p99).toFixed(1)} (half burst)`);
