// Runs every benchmark once, each in its own process (one bench's JIT, memory and threads never bias the next), and
// prints one table: path, ratio, minimum, target, reached or not. Short by default (about three minutes in all);
// `--long` runs each with its careful settings and adds the slow benches (screening, reports, memory at 1M transfers).
// `--only <name,...>` runs some of them. A bench's figure is read from its `bench-result {json}` line when it prints
// one, otherwise from its own summary line. Loopback only; every bench bounds its own time.
//
// `--engine postgres` runs the same benches on PostgreSQL (CARAVAN_BENCH_ENGINE=postgres for each bench's process):
// the service on a fresh database per bench, on the server CARAVAN_BENCH_DATABASE_URL names, else on one throwaway
// cluster this run starts (test/support/postgres.ts); each ratio against the same run's baselines (raw single-row
// PostgreSQL commits over the engine's driver, bare Bun.serve as on SQLite). One more row: creates/s on PostgreSQL ÷
// creates/s on SQLite, the creates bench run again on SQLite in the same run. Rows whose bench is SQLite's own say so.
import { existsSync } from "node:fs";
import { join } from "node:path";

interface Bench {
  name: string;
  /** The path the ratio is about, as the table shows it. */
  path: string;
  file: string;
  /** Settings for the short run and for --long. */
  short: Record<string, string>;
  long: Record<string, string>;
  /** Only with --long (the run takes minutes). */
  longOnly?: boolean;
  /** The figure: the `bench-result` key, else a pattern on the output whose first group is the number. */
  key: string;
  pattern: RegExp;
  minimum: number;
  target: number;
  /** "le": lower is better (disk, latency ratios). */
  better?: "ge" | "le";
  unit?: string;
  /** With --engine postgres: the row's text there, or why the row does not apply (then the bench is not run). */
  pg?: { path: string; short?: Record<string, string>; long?: Record<string, string> } | { notApplicable: string };
}

const BENCHES: Bench[] = [
  {
    name: "creates",
    path: "creates ÷ raw SQLite commits (32 customers)",
    file: "transfers.ts",
    short: { BENCH_CUSTOMERS: "32", BENCH_PROFILE: "0", BENCH_SECONDS: "2" },
    long: { BENCH_CUSTOMERS: "32", BENCH_PROFILE: "0", BENCH_SECONDS: "5", BENCH_WARMUP_SECONDS: "2" },
    key: "creates",
    pattern: /ratio creates\/s \/ raw commits\/s:\s+([\d.]+)/,
    minimum: 0.08,
    target: 0.1,
    pg: { path: "creates ÷ raw PostgreSQL commits (32 customers)" },
  },
  {
    name: "reads",
    path: "detail reads ÷ bare Bun.serve GET",
    file: "reads.ts",
    // Short phases, many rounds: both sides of a round see the same machine; the median of the rounds is the figure.
    short: { BENCH_SECONDS: "0.5", BENCH_ROUNDS: "7" },
    long: { BENCH_SECONDS: "2", BENCH_ROUNDS: "9", BENCH_WARMUP_SECONDS: "3" },
    key: "reads",
    pattern: /ratio reads\/s ÷ bare GET per round: .*; median ([\d.]+)/,
    minimum: 0.4,
    target: 0.5,
    pg: { path: "detail reads ÷ bare Bun.serve GET (PostgreSQL)" },
  },
  {
    name: "deliveries",
    path: "webhook deliveries ÷ bare answers",
    file: "webhooks.ts",
    short: { BENCH_SECONDS: "2" },
    long: {},
    key: "deliveries",
    pattern: /deliveries\/s to bare answers\/s ([\d.]+)/,
    minimum: 0.25,
    target: 0.3,
    // A quarter of the burst: PostgreSQL's deliveries are slower, and the short run's 120 s bound must hold.
    pg: { path: "webhook deliveries ÷ bare answers (PostgreSQL)", short: { BENCH_EVENTS: "500" } },
  },
  {
    name: "actors",
    path: "durable actor messages ÷ raw commits",
    file: "actors.ts",
    short: { BENCH_SECONDS: "2" },
    long: { BENCH_SECONDS: "5" },
    key: "actors",
    pattern: /ratio actor\/raw: ([\d.]+)/,
    minimum: 0.8,
    target: 1.0,
    pg: { path: "durable actor messages ÷ raw PostgreSQL commits" },
  },
  {
    name: "stream",
    path: "creates with 200 event-stream clients ÷ without",
    file: "stream.ts",
    short: { BENCH_SECONDS: "2", BENCH_ROUNDS: "2", BENCH_WARMUP_SECONDS: "1" },
    long: { BENCH_SECONDS: "5", BENCH_ROUNDS: "3" },
    key: "stream",
    pattern: /ratio creates\/s with clients \/ without .*; median ([\d.]+)/,
    minimum: 0.8,
    target: 0.9,
    pg: { path: "creates with 200 event-stream clients ÷ without (PostgreSQL)" },
  },
  {
    name: "disk",
    path: "disk per stored transfer, events kept (KB, dbstat)",
    file: "disk.ts",
    short: {},
    long: {},
    key: "diskKB",
    pattern: /([\d.]+) KB per (?:stored )?transfer/,
    minimum: 2.0,
    target: 1.5,
    better: "le",
    unit: " KB",
    pg: { path: "disk per stored transfer, events kept (KB, pg_total_relation_size)" },
  },
  {
    name: "disk-pruned",
    path: "disk per stored transfer, past the events window (KB)",
    file: "disk.ts",
    short: {},
    long: {},
    key: "diskKBPruned",
    pattern: /^$/,
    minimum: 2.0,
    target: 1.5,
    better: "le",
    unit: " KB",
    pg: { path: "disk per stored transfer, past the events window (KB, events rewritten)" },
  },
  {
    name: "disk-compact",
    path: "disk per stored transfer, events kept compact (KB)",
    file: "disk.ts",
    short: { CARAVAN_EVENTS_COMPACT: "on" },
    long: { CARAVAN_EVENTS_COMPACT: "on" },
    key: "diskKB",
    pattern: /^$/,
    minimum: 2.0,
    target: 1.5,
    better: "le",
    unit: " KB",
    pg: { path: "disk per stored transfer, events kept compact (KB, pg_total_relation_size)" },
  },
  {
    name: "screening",
    path: "queued creates with 20 rules ÷ without",
    file: "screening.ts",
    short: {},
    long: { BENCH_SECONDS: "5" },
    longOnly: true,
    key: "screening",
    pattern: /ratio creates\/s with \d+ rules ÷ without: ([\d.]+)/,
    minimum: 0.8,
    target: 0.8,
    pg: { notApplicable: "SQLite only: the bench sets its rules up through SQLite's handle" },
  },
  {
    name: "reports",
    path: "detail read p99 while PDFs render ÷ idle",
    file: "reports.ts",
    short: {},
    long: {},
    longOnly: true,
    key: "reports",
    pattern: /while rendering [\d.]+ ms, ratio ([\d.]+)×/,
    minimum: 2,
    target: 2,
    better: "le",
    unit: "×",
    pg: { notApplicable: "SQLite only: the bench sets its data up through SQLite's handle" },
  },
  {
    name: "memory",
    path: "server RSS, 1M ÷ 10k stored transfers",
    file: "memory.ts",
    short: {},
    long: {},
    longOnly: true,
    key: "memory",
    pattern: /ratio RSS after workload, \d+ \/ \d+ stored transfers: ([\d.]+)/,
    minimum: 1.2,
    target: 1.2,
    better: "le",
    unit: "×",
    pg: { notApplicable: "SQLite only: the bench fills a million transfers through SQLite's handle" },
  },
];

/** The figure named `key` from a `bench-result {json}` line, else the pattern's first group. */
export function figureOf(output: string, b: Pick<Bench, "key" | "pattern">): number | null {
  for (const line of output.split("\n").reverse()) {
    if (!line.startsWith("bench-result ")) continue;
    try {
      const v = (JSON.parse(line.slice("bench-result ".length)) as Record<string, unknown>)[b.key];
      if (typeof v === "number" && Number.isFinite(v)) return v;
    } catch {
      // not JSON: fall back to the pattern
    }
  }
  const m = b.pattern.exec(output);
  return m ? Number(m[1]) : null;
}

export function verdict(value: number | null, b: Pick<Bench, "minimum" | "target" | "better">): string {
  if (value === null) return "no figure";
  const meets = (bound: number) => (b.better === "le" ? value <= bound : value >= bound);
  return meets(b.target) ? "target reached" : meets(b.minimum) ? "minimum reached" : "below minimum";
}

async function run(b: Bench, long: boolean, engineEnv: Record<string, string> = {}): Promise<{ value: number | null; seconds: number; note: string; output: string }> {
  const file = join(import.meta.dir, b.file);
  if (!existsSync(file)) return { value: null, seconds: 0, note: `bench/${b.file} not in this tree`, output: "" };
  const t0 = performance.now();
  const proc = Bun.spawn(["bun", file], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, ...(long ? b.long : b.short), ...engineEnv },
    stdout: "pipe",
    stderr: "pipe",
  });
  // Bounded: a bench that runs past its limit (a stalled phase, a machine far too busy) is stopped and shown as such.
  const limitSeconds = long ? 1800 : 120;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill();
  }, limitSeconds * 1000);
  // A bench's own child (webhooks.ts's receiver) can outlive a stopped bench and hold the pipes open: once the bench
  // has exited, its output is waited for a few seconds at most.
  const output = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const [out, err] = await Promise.race([output, Bun.sleep(5_000).then(() => ["", ""] as const)]);
  clearTimeout(timer);
  if (timedOut) return { value: null, seconds: (performance.now() - t0) / 1000, note: `stopped after ${limitSeconds} s`, output: out };
  const seconds = (performance.now() - t0) / 1000;
  const value = figureOf(out, b);
  if (code !== 0 || value === null) {
    const tail = (err || out).trim().split("\n").slice(-3).join(" | ");
    return { value, seconds, note: `exit ${code}${tail ? `: ${tail.slice(0, 200)}` : ""}`, output: out };
  }
  return { value, seconds, note: "", output: out };
}

/** The `--engine` argument: sqlite (the default) or postgres. */
export function engineOf(args: readonly string[]): "sqlite" | "postgres" {
  const at = args.indexOf("--engine");
  const e = at >= 0 ? args[at + 1] : "sqlite";
  if (e !== "sqlite" && e !== "postgres") throw new Error(`--engine must be sqlite or postgres, got ${JSON.stringify(e)}`);
  return e;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const long = args.includes("--long");
  const engine = engineOf(args);
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? new Set((args[onlyAt + 1] ?? "").split(",")) : null;
  const chosen = BENCHES.filter((b) => (only ? only.has(b.name) : long || !b.longOnly));
  if (chosen.length === 0) throw new Error(`--only names none of: ${BENCHES.map((b) => b.name).join(", ")}`);
  const rows: string[][] = [];
  const started = performance.now();
  // PostgreSQL: one server for the whole run (each bench makes its own database on it), stopped when this process ends.
  let engineEnv: Record<string, string> = {};
  if (engine === "postgres") {
    let url = process.env.CARAVAN_BENCH_DATABASE_URL;
    if (!url) {
      process.stderr.write("starting a throwaway PostgreSQL cluster …");
      url = (await (await import("../test/support/postgres.ts")).startPostgres()).url;
      process.stderr.write(" done\n");
    }
    engineEnv = { CARAVAN_BENCH_ENGINE: "postgres", CARAVAN_BENCH_DATABASE_URL: url };
  }
  const fmt = (b: Pick<Bench, "unit">, v: number) => `${v < 10 ? v.toFixed(3) : v.toFixed(1)}${b.unit ?? ""}`;
  const bound = (b: Pick<Bench, "unit" | "better">, v: number) => `${b.better === "le" ? "≤ " : "≥ "}${fmt(b, v)}`;
  let pgCreatesPerSecond: number | null = null;
  for (const b of chosen) {
    const pg = engine === "postgres" ? b.pg : undefined;
    if (pg && "notApplicable" in pg) {
      rows.push([b.path, "—", bound(b, b.minimum), bound(b, b.target), `does not apply on PostgreSQL (${pg.notApplicable})`]);
      continue;
    }
    const settings = pg ? { ...b, short: { ...b.short, ...pg.short }, long: { ...b.long, ...pg.long } } : b;
    process.stderr.write(`bench/${b.file}${engine === "postgres" ? " (PostgreSQL)" : ""} …`);
    const r = await run(settings, long, engineEnv);
    process.stderr.write(` ${r.seconds.toFixed(0)} s\n`);
    rows.push([pg ? pg.path : b.path, r.value === null ? "—" : fmt(b, r.value), bound(b, b.minimum), bound(b, b.target), verdict(r.value, b) + (r.note ? ` (${r.note})` : "")]);
    if (engine === "postgres" && b.name === "creates") pgCreatesPerSecond = figureOf(r.output, { key: "createsPerSecond", pattern: /creates\/s \(201, below threshold\):\s+(\d+)/ });
  }
  if (engine === "postgres" && chosen.some((b) => b.name === "creates")) {
    // The same creates bench on SQLite, in this run: the engines side by side on the same machine minutes apart.
    const b = BENCHES.find((x) => x.name === "creates")!;
    process.stderr.write(`bench/${b.file} (SQLite, for the engines' ratio) …`);
    const r = await run(b, long);
    process.stderr.write(` ${r.seconds.toFixed(0)} s\n`);
    const sqlite = figureOf(r.output, { key: "createsPerSecond", pattern: /creates\/s \(201, below threshold\):\s+(\d+)/ });
    const ratio = pgCreatesPerSecond !== null && sqlite !== null && sqlite > 0 ? pgCreatesPerSecond / sqlite : null;
    const figures = pgCreatesPerSecond !== null && sqlite !== null ? `${pgCreatesPerSecond.toFixed(0)} ÷ ${sqlite.toFixed(0)} creates/s` : "";
    rows.push(["creates on PostgreSQL ÷ creates on SQLite (same run)", ratio === null ? "—" : fmt({}, ratio), "—", "—", ratio === null ? `no figure${r.note ? ` (${r.note})` : ""}` : `measured, no bound (${figures})`]);
  }
  const head = ["path", "ratio", "minimum", "target", "reached"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log(`${long ? "long" : "short"} run${engine === "postgres" ? " on PostgreSQL" : ""}, ${((performance.now() - started) / 1000).toFixed(0)} s; load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(line(head));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
  // The throwaway cluster (if this run started one) is stopped by test/support/postgres.ts's exit handler.
  if (engine === "postgres") process.exit(0);
}
