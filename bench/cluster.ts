// Several nodes on one PostgreSQL database (test/support/cluster.ts): creates/s over one, two and three `caravan
// serve` processes, then the several-nodes proof with its figures (test/e2e/postgres-cluster-proof.test.ts runs the
// same proof as a test). Loopback only, on the throwaway cluster of test/support/postgres.ts (fsync off), bounded.
//
// Creates: for each node count a fresh database and that many nodes; BENCH_CLIENTS clients (default 8) send
// below-threshold creates (each completed at once, with its Idempotency-Key) round-robin over the nodes for
// BENCH_SECONDS (default 8) after a warm-up of BENCH_WARMUP_SECONDS (2). Beside each figure: raw single-row PostgreSQL
// commits/s on the same server (the ceiling every node shares), and where the nodes' connections waited while the
// creates ran (pg_stat_activity sampled every 50 ms: the mailbox's commit-order lock, row locks, the commit itself).
//
// On one 2-core machine the nodes, PostgreSQL and the client share the same two cores, so creates/s over 1/2/3 nodes
// measures contention, not scaling: see docs/architecture.md#several-nodes for what changes on separate machines.
//
//   bun bench/cluster.ts                    # creates over 1, 2, 3 nodes, then the proof (about 3 minutes)
//   BENCH_PROOF=0 bun bench/cluster.ts      # creates only
import { rawPgCommitRate } from "./baseline.ts";
import { balancer, createBody, describeProof, prepareWorkload, runProof, startProofCluster, startReceiver, type Sql } from "../test/support/cluster.ts";

const num = (name: string, def: number) => {
  const v = Number(process.env[name] ?? def);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number`);
  return v;
};
const CLIENTS = num("BENCH_CLIENTS", 8);
const SECONDS = num("BENCH_SECONDS", 8);
const WARMUP = num("BENCH_WARMUP_SECONDS", 2);
const PROOF = process.env.BENCH_PROOF !== "0";

/** Samples what the database's client backends wait on, until stopped: counts by wait event (or "running"/"idle"). */
/** The statements seen waiting for a lock, by wait event and text, over every sampling. */
const lockQueries: Record<string, number> = {};

function sampleWaits(sql: Sql, ms = 50): { stop(): Promise<Record<string, number>> } {
  const counts: Record<string, number> = {};
  let on = true;
  const loop = (async () => {
    while (on) {
      const rows = await sql.unsafe(
        `SELECT state, wait_event_type, wait_event, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 70) AS query FROM pg_stat_activity
         WHERE datname = current_database() AND application_name LIKE 'proof-%' AND pid <> pg_backend_pid()`,
      );
      for (const r of rows) {
        const k = r.state !== "active" ? "idle" : r.wait_event_type ? `${r.wait_event_type}/${r.wait_event}` : "running";
        counts[k] = (counts[k] ?? 0) + 1;
        // A lock wait: which statement waits (the row or lock it wants is what another node's transaction holds).
        if (r.wait_event_type === "Lock") lockQueries[`${r.wait_event}: ${r.query}`] = (lockQueries[`${r.wait_event}: ${r.query}`] ?? 0) + 1;
      }
      await Bun.sleep(ms);
    }
  })();
  return {
    async stop() {
      on = false;
      await loop;
      return counts;
    },
  };
}

async function createsOver(nodes: number): Promise<{ rate: number; waits: Record<string, number>; answered: number; other: Record<string, number> }> {
  const c = await startProofCluster({ nodes });
  const rx = startReceiver();
  try {
    const w = await prepareWorkload(c, rx.url, 32);
    // Creates alone: the subscription paused (deliveries are the proof's, below).
    const paused = await balancer(() => c.urls(), w.owner.key)(`/api/v2/webhooks/${w.webhookId}`, { method: "PATCH", json: { status: "paused" } });
    if (paused.status !== 200) throw new Error(`pause: ${paused.status} ${JSON.stringify(paused.body)}`);
    await c.startRest();
    // Every node holds its share before the clock starts (a new node gets it within two ticks).
    const share = Math.floor(64 / nodes);
    for (let i = 0; i < 100; i++) {
      const rows = await c.sql.unsafe("SELECT node_id, count(*)::int AS n FROM shard_leases WHERE node_id IS NOT NULL AND expires_at > $1 GROUP BY node_id", [Date.now()]);
      if (rows.length === nodes && rows.every((r) => (r.n as number) >= share)) break;
      await Bun.sleep(100);
    }
    let phase: "warmup" | "measure" | "done" = "warmup";
    let answered = 0;
    const other: Record<string, number> = {};
    let n = 0;
    const client = async (k: number) => {
      const send = balancer(() => c.urls(), w.owner.key, { maxMs: 30_000 });
      while (phase !== "done") {
        const i = n++;
        const r = await send("/api/v2/transfers", { method: "POST", json: createBody(w.customers[i % w.customers.length]!, "0.001"), headers: { "Idempotency-Key": `bench-${k}-${i}` } });
        if (phase !== "measure") continue;
        if (r.status === 201) answered++;
        else other[r.status] = (other[r.status] ?? 0) + 1;
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, k) => client(k));
    await Bun.sleep(WARMUP * 1000);
    phase = "measure";
    const waits = sampleWaits(c.sql);
    const t0 = performance.now();
    await Bun.sleep(SECONDS * 1000);
    const seconds = (performance.now() - t0) / 1000;
    const counted = answered;
    phase = "done";
    const w8 = await waits.stop();
    await Promise.all(clients);
    return { rate: counted / seconds, waits: w8, answered: counted, other };
  } finally {
    rx.stop();
    await c.stop();
  }
}

function describeWaits(w: Record<string, number>): string {
  const total = Object.values(w).reduce((a, b) => a + b, 0) || 1;
  return Object.entries(w)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([k, v]) => `${k} ${((100 * v) / total).toFixed(0)} %`)
    .join(", ");
}

if (import.meta.main) {
  const started = performance.now();
  const pg = await (await import("../test/support/postgres.ts")).startPostgres();
  try {
    const raw = await rawPgCommitRate(await pg.createDatabase(), { seconds: 3 });
    const rule = "-".repeat(100);
    const rates: Record<string, number> = {};
    console.log(rule);
    console.log(`raw single-row PostgreSQL commits/s on this server: ${raw.toFixed(0)}`);
    for (const nodes of [1, 2, 3]) {
      const r = await createsOver(nodes);
      rates[`creates${nodes}`] = r.rate;
      console.log(
        `${nodes} node${nodes > 1 ? "s" : ""}: ${r.rate.toFixed(0)} creates/s (${r.answered} in ${SECONDS} s, ${CLIENTS} clients round-robin${Object.keys(r.other).length ? `, other answers ${JSON.stringify(r.other)}` : ""}); ÷ raw commits ${(r.rate / raw).toFixed(3)}; the nodes' connections: ${describeWaits(r.waits)}`,
      );
    }
    console.log(
      `statements seen waiting for a lock (samples): ${Object.entries(lockQueries)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([q, n]) => `${n}× ${q}`)
        .join(" | ")}`,
    );
    console.log(`creates/s 2 nodes ÷ 1: ${(rates.creates2! / rates.creates1!).toFixed(2)}; 3 nodes ÷ 1: ${(rates.creates3! / rates.creates1!).toFixed(2)} (one 2-core machine: contention, not scaling)`);
    let proof: Record<string, unknown> = {};
    if (PROOF) {
      console.log(rule);
      console.log("the proof: 3 nodes, a node SIGKILLed every ~4 s under a mixed load");
      const r = await runProof({ nodes: 3, creates: 300, clients: 6, seconds: 45, heldEvery: 5, killEveryMs: 4_000, settleMs: 60_000, customers: 12, log: (l) => console.log(l) });
      for (const line of describeProof(r)) console.log(line);
      const t = r.kills.filter((k) => k.takeoverMs !== null && k.held.length > 0).map((k) => k.takeoverMs!);
      proof = {
        kills: r.kills.length,
        takeoverMedianMs: t.length ? [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)] : null,
        withoutLease: r.ledger.withoutLease.length,
        createsNotOnce: r.findings.createsNotOnce.length,
        tracesDiffer: r.findings.tracesDiffer.length,
        undelivered: r.findings.undelivered,
        receivedTwice: r.findings.receivedTwice,
      };
    }
    console.log(rule);
    console.log(`bench-result ${JSON.stringify({ raw, ...rates, ...proof })}`);
    console.log(`${((performance.now() - started) / 1000).toFixed(0)} s; load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  } finally {
    await pg.stop();
  }
}
