// What every bench that needs an engine shares, and nothing more: which engine it runs on, a fresh PostgreSQL database
// for it, and the raw single-row commit rate its ratios are taken against. Kept apart from setup.ts (the service, its
// keys and bodies) so that a bench of the storage or the actor runtime alone does not load the whole application: the
// service's module graph grows the heap from about 3 MB to 15 MB, and bench/actors.ts measured 0.5 µs more CPU per
// message with it loaded than without, on the same tree (docs/benchmarks.md).

/**
 * The engine the benches run on: `CARAVAN_BENCH_ENGINE=postgres` (what `bun run bench -- --engine postgres` sets for
 * each bench's process), SQLite otherwise.
 */
export function benchEngine(): "sqlite" | "postgres" {
  const e = process.env.CARAVAN_BENCH_ENGINE ?? "sqlite";
  if (e !== "sqlite" && e !== "postgres") throw new Error(`CARAVAN_BENCH_ENGINE must be sqlite or postgres, got "${e}"`);
  return e;
}

let cluster: Promise<string> | undefined;
/** Databases this process created on a server it did not start (CARAVAN_BENCH_DATABASE_URL): dropped at the end. */
const created: string[] = [];

/**
 * A fresh, empty PostgreSQL database (C collation, as Caravan needs) for one bench; answers its URL. On the server
 * CARAVAN_BENCH_DATABASE_URL names (any database of it: a new one is created beside it, and dropped by
 * `dropBenchDatabases()`), else on a throwaway cluster of this process (test/support/postgres.ts: fsync and
 * synchronous_commit off, which the raw-commit baseline on it shares).
 */
export async function benchDatabase(): Promise<string> {
  const name = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const given = process.env.CARAVAN_BENCH_DATABASE_URL;
  if (!given) {
    cluster ??= import("../test/support/postgres.ts").then((m) => m.startPostgres()).then((s) => s.url);
    const { default: postgres } = await import("postgres");
    const admin = postgres(await cluster, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`);
    } finally {
      await admin.end({ timeout: 5 });
    }
    return withDatabase(await cluster, name);
  }
  const { default: postgres } = await import("postgres");
  const admin = postgres(given, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  created.push(name);
  return withDatabase(given, name);
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops the databases `benchDatabase()` created on CARAVAN_BENCH_DATABASE_URL's server (a throwaway cluster goes whole). */
export async function dropBenchDatabases(): Promise<void> {
  const given = process.env.CARAVAN_BENCH_DATABASE_URL;
  if (!given || created.length === 0) return;
  const { default: postgres } = await import("postgres");
  const admin = postgres(given, { max: 1, onnotice: () => {} });
  try {
    for (const name of created.splice(0)) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** The engine's raw single-row commit rate, the creates' baseline: SQLite's in `dir`, or PostgreSQL's on a fresh database. */
export async function rawEngineCommitRate(dir: string, o: { seconds?: number; maxRows?: number } = {}): Promise<number> {
  const { rawCommitRate, rawPgCommitRate } = await import("./baseline.ts");
  return benchEngine() === "postgres" ? rawPgCommitRate(await benchDatabase(), o) : rawCommitRate(dir, o);
}

/** How the raw baseline is named in a bench's report. */
export function rawEngineLabel(): string {
  return benchEngine() === "postgres" ? "raw PostgreSQL commits/s (1 row per transaction, BEGIN; INSERT; COMMIT over postgres.js, one connection)" : "raw SQLite commits/s (1 row per transaction, WAL, synchronous=NORMAL)";
}
