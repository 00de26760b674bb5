// Runs every benchmark once, each in its own process (one bench's JIT, memory and threads never bias the next), and
// prints one table: path, ratio, minimum, target, reached or not. Short by default (about three minutes in all);
// `--long` runs each with its careful settings and adds the slow benches (screening, reports, memory at 1M transfers).
// `--only <name,...>` runs some of them. A bench's figure is read from its `bench-result {json}` line when it prints
// one, otherwise from its own summary line. Loopback only; every bench bounds its own time.
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

async function run(b: Bench, long: boolean): Promise<{ value: number | null; seconds: number; note: string }> {
  const file = join(import.meta.dir, b.file);
  if (!existsSync(file)) return { value: null, seconds: 0, note: `bench/${b.file} not in this tree` };
  const t0 = performance.now();
  const proc = Bun.spawn(["bun", file], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, ...(long ? b.long : b.short) },
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
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  clearTimeout(timer);
  if (timedOut) return { value: null, seconds: (performance.now() - t0) / 1000, note: `stopped after ${limitSeconds} s` };
  const seconds = (performance.now() - t0) / 1000;
  const value = figureOf(out, b);
  if (code !== 0 || value === null) {
    const tail = (err || out).trim().split("\n").slice(-3).join(" | ");
    return { value, seconds, note: `exit ${code}${tail ? `: ${tail.slice(0, 200)}` : ""}` };
  }
  return { value, seconds, note: "" };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const long = args.includes("--long");
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? new Set((args[onlyAt + 1] ?? "").split(",")) : null;
  const chosen = BENCHES.filter((b) => (only ? only.has(b.name) : long || !b.longOnly));
  if (chosen.length === 0) throw new Error(`--only names none of: ${BENCHES.map((b) => b.name).join(", ")}`);
  const rows: string[][] = [];
  const started = performance.now();
  for (const b of chosen) {
    process.stderr.write(`bench/${b.file} …`);
    const r = await run(b, long);
    process.stderr.write(` ${r.seconds.toFixed(0)} s\n`);
    const fmt = (v: number) => `${v < 10 ? v.toFixed(3) : v.toFixed(1)}${b.unit ?? ""}`;
    const bound = (v: number) => `${b.better === "le" ? "≤ " : "≥ "}${fmt(v)}`;
    rows.push([b.path, r.value === null ? "—" : fmt(r.value), bound(b.minimum), bound(b.target), verdict(r.value, b) + (r.note ? ` (${r.note})` : "")]);
  }
  const head = ["path", "ratio", "minimum", "target", "reached"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log(`${long ? "long" : "short"} run, ${((performance.now() - started) / 1000).toFixed(0)} s; load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(line(head));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
}
