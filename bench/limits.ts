// What a request budget shared through PostgreSQL would cost (docs/api.md#rate-limits, "On several nodes"): one
// token-bucket statement per request, the company's row, on the engine's session, against the one statement a detail
// read is (a primary-key SELECT on the reader pool) and the in-process bucket the nodes use instead. 32 in flight, as
// bench/reads.ts. Prints operations/s and this process's CPU per operation (µs, the steadier figure on a shared
// machine). `bun bench/limits.ts` (a throwaway PostgreSQL cluster, or CARAVAN_BENCH_DATABASE_URL's server);
// BENCH_SECONDS per phase (default 3).
import { openPostgres } from "../src/adapters/storage/postgres/index.ts";
import { take, type Bucket } from "../src/domain/ratelimit.ts";
import { benchDatabase, dropBenchDatabases } from "./engine.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const IN_FLIGHT = 32;
const RULE = { limit: 1_000_000_000, windowSeconds: 60 };

async function phase(name: string, op: (i: number) => Promise<unknown> | unknown): Promise<{ name: string; perSecond: number; cpuUs: number }> {
  for (let i = 0; i < 200; i++) await op(i); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) {
        await op(n++);
      }
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { name, perSecond: Math.round(n / (ms / 1000)), cpuUs: Math.round((cpu.user + cpu.system) / n) };
}

const url = await benchDatabase();
const db = await openPostgres(url);
try {
  await db.exec(
    "CREATE TABLE bench_buckets (key text PRIMARY KEY, tokens double precision NOT NULL, at bigint NOT NULL); INSERT INTO bench_buckets VALUES ('company:cmp_bench', 1000000000, 0)",
  );
  const company = (await db.read<{ id: string }>("SELECT id FROM companies LIMIT 1"))[0]!.id;
  const perMs = RULE.limit / (RULE.windowSeconds * 1000);
  // One statement per request: refill, take one token if there is one, answer what is left (no row: refused).
  const counter = () =>
    db.q(
      `INSERT INTO bench_buckets (key, tokens, at) VALUES ($1, $2::float8 - 1, $3) ON CONFLICT (key) DO UPDATE
         SET tokens = LEAST($2::float8, bench_buckets.tokens + GREATEST(0, $3 - bench_buckets.at) * $4::float8) - 1, at = GREATEST(bench_buckets.at, $3)
         WHERE LEAST($2::float8, bench_buckets.tokens + GREATEST(0, $3 - bench_buckets.at) * $4::float8) >= 1
       RETURNING tokens`,
      ["company:cmp_bench", RULE.limit, Date.now(), perMs],
    );
  const read = () => db.read("SELECT id, slug, name, status FROM companies WHERE id = $1", [company]);
  let bucket: Bucket | undefined;
  const local = () => {
    bucket = take(bucket, RULE, Date.now()).bucket;
  };
  const rows = [
    await phase("in-process bucket (what each node does)", local),
    await phase("detail-read-shaped SELECT (reader pool)", read),
    await phase("shared bucket statement (writer connection)", counter),
    await phase("shared bucket statement, then the SELECT", async () => {
      await counter();
      await read();
    }),
  ];
  console.log(`PostgreSQL ${new URL(url).host}, ${IN_FLIGHT} in flight, ${SECONDS} s per phase, load ${(await import("node:os")).loadavg()[0]!.toFixed(1)}`);
  console.log("| operation | per second | CPU per operation (µs, this process) |");
  console.log("|---|---|---|");
  for (const r of rows) console.log(`| ${r.name} | ${r.perSecond.toLocaleString("en-US")} | ${r.cpuUs} |`);
} finally {
  await db.close();
  await dropBenchDatabases();
}
process.exit(0);
