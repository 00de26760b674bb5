// Where a create's time goes, without sockets: creates below the threshold through the application's own fetch
// (the whole route pipeline, the customer actor, the group commit), 32 in flight over 32 customers, on a temp database.
// Prints the thread CPU per create and, measured with performance.now() around them: the read transactions
// (Storage.read: the route's and the actor's checks), the group commits (the runtime's flush) with each write statement
// inside them, and the other transactions (the search-index sweep). Used for docs/performance.md ("third round").
//
// BENCH_CREATES (15000) measured creates after BENCH_WARMUP (3000).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/http/app.ts";
import { benchService, inProcessCreator } from "./setup.ts";
import type { SqlStatement, Storage } from "../src/adapters/storage/index.ts";
import { threadCpuMs } from "./baseline.ts";

const CREATES = Number(process.env.BENCH_CREATES ?? 15_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3_000);
const dir = mkdtempSync(join(tmpdir(), "caravan-bench-create-parts-"));
const service = await benchService(join(dir, "parts.db"));
try {
  const app = createApp(service);
  const creator = await inProcessCreator(app, service, { prefix: "parts" });
  const creates = (total: number) => creator.create(total);
  await creates(WARMUP);

  // Timers around the parts (private parts of the runtime: a refactor that drops them drops their lines).
  const acc = new Map<string, { ms: number; calls: number }>();
  const add = (k: string, ms: number) => {
    const e = acc.get(k) ?? { ms: 0, calls: 0 };
    e.ms += ms;
    e.calls++;
    acc.set(k, e);
  };
  const storage = service.storage as Storage;
  const runtime = service.runtime as unknown as { flush?: () => void };
  let inFlush = false;
  let depth = 0;
  const { read, tx, stmt } = { read: storage.read.bind(storage), tx: storage.tx.bind(storage), stmt: storage.stmt.bind(storage) };
  storage.read = <T>(fn: () => T): T => {
    const s = performance.now();
    try {
      return read(fn);
    } finally {
      add("read transactions (route and actor checks)", performance.now() - s);
    }
  };
  storage.tx = <T>(fn: () => T): T => {
    if (depth > 0) return tx(fn);
    depth++;
    const s = performance.now();
    try {
      return tx(fn);
    } finally {
      depth--;
      add(inFlush ? "group commits (flush), all of it" : "other transactions (search-index sweep)", performance.now() - s);
    }
  };
  const timed = new Map<string, SqlStatement>();
  storage.stmt = (sql: string): SqlStatement => {
    const st = stmt(sql);
    if (!/^\s*(INSERT|UPDATE|DELETE)/i.test(sql)) return st;
    let t = timed.get(sql);
    if (!t) {
      const label = `  ${sql.replace(/\s+/g, " ").slice(0, 48)}…`;
      t = { ...st, get: st.get.bind(st), all: st.all.bind(st), values: st.values.bind(st), run: (...a) => {
        const s = performance.now();
        try {
          return st.run(...a);
        } finally {
          add(`${inFlush ? "in flush" : "outside"}: ${label}`, performance.now() - s);
        }
      } };
      timed.set(sql, t);
    }
    return t;
  };
  const flush = runtime.flush?.bind(runtime);
  if (flush)
    runtime.flush = () => {
      inFlush = true;
      try {
        flush();
      } finally {
        inFlush = false;
      }
    };

  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  await creates(CREATES);
  const wall = performance.now() - t0;
  const cpuUs = ((threadCpuMs() - cpu0) * 1000) / CREATES;
  console.log(`${CREATES} creates in-process (app.fetch, 32 in flight, 32 customers): ${((CREATES * 1000) / wall).toFixed(0)}/s, thread CPU ${cpuUs.toFixed(1)} µs per create`);
  console.log("µs per create (performance.now(); calls per create):");
  for (const [k, e] of [...acc.entries()].sort((a, b) => b[1].ms - a[1].ms))
    console.log(`${((e.ms * 1000) / CREATES).toFixed(1).padStart(7)}  ${k} (${(e.calls / CREATES).toFixed(2)})`);
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
