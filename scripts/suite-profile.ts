// Where the suite's time goes: runs each test file alone (`bun test <file>`), one after another, and prints the files
// by wall time with their test counts and the processes each one started (servers, CLI runs, Deno, other programs).
//
//   bun scripts/suite-profile.ts                      every test file under test/, top 25 printed
//   bun scripts/suite-profile.ts --top 40 test/http   only files under these paths (or these exact files)
//   bun scripts/suite-profile.ts --runs 3 <file>      each file several times; the median is printed
//   bun scripts/suite-profile.ts --timings t.json     also write the per-file medians as a bun --timings file
//
// Wall time is the whole `bun test` process (start, hooks, tests, exit) measured from outside; cpu is the user and
// system time of that process and the children it reaped (servers, CLI runs); "tests" is bun's own figure for the file. The machine may be shared: compare files measured in the same minute, not across runs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";

const root = join(import.meta.dir, "..");
const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { top: { type: "string", default: "25" }, runs: { type: "string", default: "1" }, timings: { type: "string" }, json: { type: "string" } },
  allowPositionals: true,
});
const top = Number(values.top);
const runs = Math.max(1, Number(values.runs));

const all = [...new Bun.Glob("test/**/*.test.{ts,tsx}").scanSync({ cwd: root })].sort();
const wanted = positionals.length === 0
  ? all
  : all.filter((f) => positionals.some((p) => { const r = relative(root, join(process.cwd(), p)); return f === r || f.startsWith(r.endsWith("/") ? r : `${r}/`); }));
if (wanted.length === 0) {
  console.error("suite-profile: no test file matches");
  process.exit(1);
}

interface Row { file: string; wall: number; cpu: number; tests: number; pass: number; fail: number; spawns: Record<string, number> }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const dir = mkdtempSync(join(tmpdir(), "suite-profile-"));
const rows: Row[] = [];
const started = performance.now();
try {
  for (const [i, file] of wanted.entries()) {
    const walls: number[] = [];
    const testTimes: number[] = [];
    const cpus: number[] = [];
    let pass = 0, fail = 0;
    let spawns: Record<string, number> = {};
    for (let r = 0; r < runs; r++) {
      const log = join(dir, `spawns-${i}-${r}.jsonl`);
      const t0 = performance.now();
      const p = Bun.spawn(["bun", "test", "--preload", join(root, "scripts/profile-preload.ts"), `./${file}`], {
        cwd: root,
        env: { ...process.env, CARAVAN_PROFILE_SPAWN_LOG: log },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      walls.push((performance.now() - t0) / 1000);
      // user + system CPU of the file's process and every child it reaped (servers, CLI runs): the cores it used.
      cpus.push(Number(p.resourceUsage()?.cpuTime.total ?? 0n) / 1e6);
      const text = out + err;
      pass = Number(/^\s*(\d+) pass$/m.exec(text)?.[1] ?? 0);
      fail = Number(/^\s*(\d+) fail$/m.exec(text)?.[1] ?? 0) + (p.exitCode !== 0 && !/^\s*\d+ fail$/m.test(text) ? 1 : 0);
      const ms = /^Ran \d+ tests? across \d+ files?\. \[([\d.]+)(ms|s)\]$/m.exec(text);
      if (ms) testTimes.push(Number(ms[1]) / (ms[2] === "ms" ? 1000 : 1));
      spawns = {};
      if (existsSync(log) && statSync(log).size > 0)
        for (const line of readFileSync(log, "utf8").trim().split("\n")) {
          const k = (JSON.parse(line) as { kind: string }).kind;
          spawns[k] = (spawns[k] ?? 0) + 1;
        }
    }
    const row: Row = { file, wall: median(walls), cpu: median(cpus), tests: testTimes.length ? median(testTimes) : NaN, pass, fail, spawns };
    rows.push(row);
    process.stderr.write(`[${i + 1}/${wanted.length}] ${file} ${row.wall.toFixed(1)} s${fail ? ` (${fail} failed)` : ""}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const kinds = ["server", "cli", "deno", "demo", "binary", "build"];
const fmt = (s: Record<string, number>) => {
  const main = kinds.map((k) => String(s[k] ?? 0).padStart(k.length));
  const other = Object.entries(s).filter(([k]) => !kinds.includes(k)).map(([k, n]) => `${k}×${n}`).join(" ");
  return `${main.join("  ")}  ${other}`;
};
rows.sort((a, b) => b.wall - a.wall);
const sum = (f: (r: Row) => number) => rows.reduce((t, r) => t + (Number.isFinite(f(r)) ? f(r) : 0), 0);
const w = Math.max(...rows.slice(0, top).map((r) => r.file.length), 4);
console.log(`${"file".padEnd(w)}   wall     cpu   tests  pass fail  ${kinds.join("  ")}  other`);
for (const r of rows.slice(0, top))
  console.log(`${r.file.padEnd(w)} ${r.wall.toFixed(1).padStart(6)} ${r.cpu.toFixed(1).padStart(7)} ${r.tests.toFixed(1).padStart(7)} ${String(r.pass).padStart(5)} ${String(r.fail).padStart(4)}  ${fmt(r.spawns)}`);
const totals: Record<string, number> = {};
for (const r of rows) for (const [k, n] of Object.entries(r.spawns)) totals[k] = (totals[k] ?? 0) + n;
console.log(
  `${rows.length} files: wall ${sum((r) => r.wall).toFixed(1)} s (sum of files run alone), cpu ${sum((r) => r.cpu).toFixed(1)} s, tests ${sum((r) => r.tests).toFixed(1)} s, ` +
    `${sum((r) => r.pass)} passed, ${sum((r) => r.fail)} failed; processes started: ${Object.entries(totals).map(([k, n]) => `${k} ${n}`).join(", ")}; ` +
    `profile took ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
if (values.timings)
  writeFileSync(values.timings, JSON.stringify({ version: 1, files: Object.fromEntries([...rows].sort((a, b) => a.file.localeCompare(b.file)).map((r) => [r.file, Math.round(r.wall * 1000)])) }, null, 2) + "\n");
if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 2) + "\n");
