// Benchmark: raw SQLite single-row commits/s against durable actor messages/s end to end, from one run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "../src/adapters/storage/index.ts";
import { ActorRuntime } from "../src/actors/runtime.ts";
import { Sealer } from "../src/adapters/crypto/envelope.ts";
import { threadCpuMs } from "./baseline.ts";
import { benchDatabase, benchEngine, dropBenchDatabases, rawEngineCommitRate, rawEngineLabel } from "./engine.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ACTORS = Number(process.env.BENCH_ACTORS ?? 1000);
const dir = mkdtempSync(join(tmpdir(), "caravan-bench-"));

/** `sealed`: states and message bodies sealed as the service's runtime does (its mailbox Sealer); otherwise plain. */
async function actorMessages(sealed: boolean): Promise<{ rate: number; processed: number; cpuUs: number }> {
  // On PostgreSQL (CARAVAN_BENCH_ENGINE=postgres) the runtime over the engine's session, on a fresh database.
  const s =
    benchEngine() === "postgres"
      ? await (await import("../src/adapters/storage/postgres/index.ts")).openPostgres(await benchDatabase())
      : await openStorage(join(dir, sealed ? "actors-sealed.db" : "actors.db"));
  const runtime = new ActorRuntime(s, { concurrency: 256, sealer: sealed ? new Sealer(crypto.getRandomValues(new Uint8Array(32))) : undefined });
  runtime.register<{ n: number }, { n: number }>({
    kind: "acc",
    initialState: () => ({ n: 0 }),
    handle(ctx, msg) {
      ctx.state.n += msg.n;
    },
  });
  await runtime.start();
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  let sent = 0;
  // Producers keep a bounded number of tells in flight, spread over many actors.
  while (performance.now() < end) {
    const batch: Promise<number>[] = [];
    for (let i = 0; i < 2000; i++) batch.push(runtime.tell(`acc:${sent++ % ACTORS}`, { n: 1 }));
    await Promise.all(batch);
    while (runtime.stats().queued > 4000) await new Promise((r) => setTimeout(r, 1));
  }
  await runtime.idle();
  const seconds = (performance.now() - t0) / 1000;
  const cpuUs = ((threadCpuMs() - cpu0) * 1000) / Math.max(1, runtime.stats().processed);
  const processed = runtime.stats().processed;
  await runtime.stop();
  await s.close();
  return { rate: processed / seconds, processed, cpuUs };
}

const raw = await rawEngineCommitRate(dir, { seconds: SECONDS });
const actors = await actorMessages(false);
const sealedRun = await actorMessages(true);
await dropBenchDatabases();
rmSync(dir, { recursive: true, force: true });
console.log(`${rawEngineLabel()}: ${raw.toFixed(0)}`);
console.log(`durable actor messages/s end to end (tell + handle + state + ack, ${ACTORS} actors): ${actors.rate.toFixed(0)} (${actors.processed} messages, thread CPU ${actors.cpuUs.toFixed(1)} µs each)`);
console.log(`  the same with states and bodies sealed, as the service runs: ${sealedRun.rate.toFixed(0)} (${sealedRun.processed} messages, thread CPU ${sealedRun.cpuUs.toFixed(1)} µs each)`);
console.log(`ratio actor/raw: ${(actors.rate / raw).toFixed(2)}; sealed ${(sealedRun.rate / raw).toFixed(2)} (issue 27: minimum 0.8)`);
