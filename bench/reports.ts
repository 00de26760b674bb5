// Benchmark: PDF renders/s of a Latin and a CJK report (in process, and end to end through the download route), and
// the p99 latency of GET /api/v2/transfers/:id idle versus while PDFs render on the server (issue 15: within 2×).
// The server is a child process on loopback; the reads are sequential from this process.
//
// BENCH_RENDERS (20 Latin, a quarter of that CJK), BENCH_WINDOW (1 s) and BENCH_CYCLES (6): alternating windows of sequential reads, idle and while rendering. The server inherits the environment,
// so CARAVAN_PDF_NICE=0 measures render workers at the server's own priority (the design before nice 10).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "../src/adapters/storage/index.ts";
import { loadMasterKey } from "../src/adapters/crypto/master-key.ts";
import { Sealer } from "../src/adapters/crypto/envelope.ts";
import { Reports, newReportId } from "../src/adapters/storage/repos/reports.ts";
import { renderReportPdf } from "../src/adapters/pdf/render.ts";
import { reportDocument } from "../src/domain/reports/document.ts";
import { deadlineRule, filingDeadline, resolveReportType } from "../src/domain/reports/report.ts";
import { newId, iso } from "../src/domain/ids.ts";

const RENDERS = Number(process.env.BENCH_RENDERS ?? 20);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 1);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 6);
const root = join(import.meta.dir, "..");
const NARRATIVE = "The customer moved funds to a wallet attributed to a sanctioned mixing service; the pattern matches layering. ".repeat(20);

function doc(cjk: boolean) {
  const type = resolveReportType(cjk ? "JP" : "US");
  const now = Date.now();
  return reportDocument({
    type, reportNumber: "SAR-2026-000001", status: "draft", generatedAt: iso(now), filingReady: false, filingReference: null, filedAt: null,
    deadline: filingDeadline(iso(now), "draft", deadlineRule(type, []), now),
    narrative: cjk ? `顧客は制裁対象のミキサーに送金した。김민준 고객. ${NARRATIVE}` : NARRATIVE,
    riskIndicators: ["sanctions exposure", "layering"],
    regulatoryData: { subjectName: cjk ? "山田, 太郎" : "Jones, Jane", counterpartyName: cjk ? "김, 민준" : "Doe, John", amount: "1250.50", asset: "USDC" },
    transfer: { id: "trf_x", state: "rejected", createdAt: iso(now) }, caseNumber: null,
  });
}

function rate(n: number, fn: () => void): number {
  fn(); // warm (fonts loaded once per process)
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  return n / ((performance.now() - t) / 1000);
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99) - 1];

/** Sequential reads for `seconds` (a phase long enough to overlap many renders); their latencies in ms. */
async function reads(url: string, key: string, id: string, seconds: number): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t = performance.now();
    const r = await fetch(`${url}/api/v2/transfers/${id}`, { headers: { "x-api-key": key } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`transfer read ${r.status}`);
    out.push(performance.now() - t);
  }
  return out;
}

const latinInProcess = rate(RENDERS, () => renderReportPdf(doc(false)));
const cjkInProcess = rate(Math.max(2, RENDERS >> 2), () => renderReportPdf(doc(true)));

const dir = mkdtempSync(join(tmpdir(), "caravan-bench-reports-"));
const db = join(dir, "bench.db");
// The company request budget is lifted so that the rate limiter does not answer 429 to the sequential reads.
const env = { ...process.env, CARAVAN_DB: db, PORT: "0", HOST: "127.0.0.1", CARAVAN_LOG: "warn", CARAVAN_RATE_LIMITS: "company=1000000000/1,vasp_search=120/60" };
// BENCH_PROFILE=<dir>: the server writes a CPU profile of its main thread there (bun --cpu-prof) when it stops.
const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const server = Bun.spawn(["bun", ...profile, join(root, "src/main.ts"), "serve"], { cwd: root, env, stdout: "pipe", stderr: "inherit" });
try {
  const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  let url: string | undefined;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server did not start: ${out}`);
    out += new TextDecoder().decode(value);
    url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  }
  const keyOut = Bun.spawnSync(["bun", join(root, "src/main.ts"), "keys", "create", "--env", "test", "--role", "owner", "--json"], { cwd: root, env }).stdout.toString();
  const key = JSON.parse(keyOut.trim().split("\n").at(-1)!).key as string;
  const storage = await openStorage(db, { migrate: false });
  const pii = new Sealer(loadMasterKey(db, {}).derive("pii"));
  const companyId = (storage.stmt("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;
  const transferId = newId("trf", Date.now());
  const at = iso(Date.now());
  storage
    .stmt("INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, created_at, updated_at) VALUES (?, ?, 'test', 'outgoing', 'rejected', 'rejected', 'USDC', '10', 'ethereum', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', ?, ?)")
    .run(transferId, companyId, at, at);
  const draft = async (jurisdiction: string, narrative: string) =>
    (await storage.transaction(() => new Reports(storage, pii).createDraft({ id: newReportId(), companyId, environment: "test", transferId, caseId: null, jurisdiction, narrative, riskIndicators: ["layering"], generatedBy: "system", detectionMethod: "manual" }, Date.now()))).id;
  const latinId = await draft("US", NARRATIVE);
  const cjkId = await draft("JP", `顧客は制裁対象のミキサーに送金した。${NARRATIVE}`);

  // Idle and loaded windows alternate (BENCH_CYCLES pairs of BENCH_WINDOW seconds each), so that the load other
  // processes put on the machine, which drifts over seconds, weighs on both sides alike.
  let downloads = 0;
  let busy = 0;
  let renderSecs = 0;
  const idle: number[] = [];
  const loaded: number[] = [];
  const loadedPhase = async () => {
    let rendering = true;
    let firstDone!: () => void;
    const first = new Promise<void>((r) => (firstDone = r));
    const loop = async (id: string) => {
      while (rendering) {
        const r = await fetch(`${url}/api/v2/reports/${id}/download`, { headers: { "x-api-key": key } });
        await r.arrayBuffer();
        if (r.status === 200) (downloads++, firstDone());
        else if (r.status === 503) (busy++, await Bun.sleep(50));
        else throw new Error(`download ${r.status}`);
      }
    };
    const loops = [loop(latinId), loop(cjkId), loop(cjkId)];
    // Measure once a render has completed (the workers are up and drawing; their start-up is not the steady state).
    await first;
    const d0 = downloads;
    const t0 = performance.now();
    loaded.push(...(await reads(url, key, transferId, WINDOW)));
    renderSecs += (performance.now() - t0) / 1000;
    const during = downloads - d0;
    rendering = false;
    await Promise.all(loops);
    return during;
  };
  let during = 0;
  for (let c = 0; c < CYCLES; c++) {
    idle.push(...(await reads(url, key, transferId, WINDOW)));
    during += await loadedPhase();
  }
  storage.close();

  const idleP99 = p99(idle);
  const loadedP99 = p99(loaded);
  const nice = process.env.CARAVAN_PDF_NICE ?? "19 (default)";
  console.log(`PDF renders in process: Latin ${latinInProcess.toFixed(1)}/s, CJK ${cjkInProcess.toFixed(1)}/s`);
  console.log(`render worker nice: ${nice}; ${CYCLES} × (${WINDOW} s idle + ${WINDOW} s rendering); reads: ${idle.length} idle, ${loaded.length} while rendering`);
  console.log(`downloads completed while reading: ${during} in ${renderSecs.toFixed(1)} s = ${(during / renderSecs).toFixed(1)}/s (${busy} answered 503 PDF_RENDERER_BUSY)`);
  console.log(`GET /api/v2/transfers/:id p99: idle ${idleP99.toFixed(2)} ms, while rendering ${loadedP99.toFixed(2)} ms, ratio ${(loadedP99 / idleP99).toFixed(2)}× (target ≤ 2×)`);
} finally {
  server.kill();
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}
