// Cases at scale: 100,000 cases, list first and deep pages, case-number and title search (p50/p99), and resolutions/s
// under 32 concurrent officers; baselines from the same run: a bare Bun.serve answer and raw single-row commits/s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../src/services.ts";
import { Tenancy } from "../src/adapters/storage/repos/tenancy.ts";
import { encodeCursor } from "../src/domain/cursor.ts";
import { newId, iso } from "../src/domain/ids.ts";
import { blindGrams } from "../src/domain/blind-index.ts";
import { formatCaseNumber } from "../src/domain/cases.ts";
import { titleAad } from "../src/actors/case.ts";
import { rawCommitRate } from "./baseline.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const OFFICERS = 32;
const RESOLVE = Number(process.env.BENCH_RESOLVE ?? 3_000);
const dir = mkdtempSync(join(tmpdir(), "caravan-bench-cases-"));

const service = await startService({ dbPath: join(dir, "cases.db"), host: "127.0.0.1", port: 0, logLevel: "warn", env: {} });
const { storage, pii, nameIndexKey, cursorKey } = service;
const tenancy = new Tenancy(storage, Date.now);
const company = await tenancy.requireCompany("default");
const member = await tenancy.createMember(company.id, `bench-${Date.now()}@example.com`, "owner");
const { key } = await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" });

const WORDS = ["Structuring", "Velocity", "Mixer exposure", "Sanctions hit", "Name mismatch", "Dormant account", "High-risk corridor", "Smurfing"];

console.log(`filling ${ROWS.toLocaleString()} cases (batched inserts) ...`);
const t0 = performance.now();
const base = Date.parse("2025-01-01T00:00:00.000Z");
const insC = storage.client.prepare(
  `INSERT INTO cases (id, company_id, environment, seq, case_number, title_sealed, type, category, priority, status, transfer_ids, source, created_by_id, created_at, updated_at)
   VALUES (?, ?, 'test', ?, ?, ?, 'compliance_review', 'aml', ?, 'open', '[]', 'api', ?, ?, ?)`,
);
const insG = storage.client.prepare("INSERT OR IGNORE INTO case_text_grams (company_id, environment, gram, case_id) VALUES (?, 'test', ?, ?)");
const BATCH = 10_000;
for (let start = 0; start < ROWS; start += BATCH) {
  storage.tx(() => {
    for (let i = start; i < Math.min(ROWS, start + BATCH); i++) {
      const at = base + i * 10;
      const id = newId("cas", at);
      const title = `${WORDS[i % WORDS.length]} review ${i}`;
      insC.run(id, company.id, i + 1, formatCaseNumber("test", i + 1, at), pii.seal(title, titleAad(id)), ["low", "medium", "high"][i % 3], member.id, iso(at), iso(at));
      for (const g of blindGrams(nameIndexKey, title)) insG.run(company.id, g, id);
    }
  });
}
storage.client.prepare("INSERT INTO case_counters (company_id, environment, n) VALUES (?, 'test', ?) ON CONFLICT DO UPDATE SET n = excluded.n").run(company.id, ROWS);
storage.client.exec("ANALYZE");
console.log(`filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

async function measure(label: string, url: string, headers: Record<string, string> = { "x-api-key": key }): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) await (await fetch(url, { headers })).arrayBuffer(); // warm-up
  for (let i = 0; i < REQUESTS; i++) {
    const s = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status}`);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length * 0.5)];
  const p99 = times[Math.floor(times.length * 0.99)];
  console.log(`${label.padEnd(48)} p50 ${p50.toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms`);
  return p50;
}

const bare = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ data: [], meta: {} }) });
const deep = Math.floor(ROWS * 0.9);
const row = storage.client
  .prepare("SELECT created_at, id FROM cases WHERE company_id = ? AND environment = 'test' ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?")
  .get(company.id, deep - 1) as { created_at: string; id: string };
const cursor = encodeCursor(cursorKey, { list: `cases|${JSON.stringify([null, null, null, null, null, null, true])}`, after: [row.created_at, row.id] });
const u = service.url;
const baseline = await measure("baseline: bare Bun.serve JSON", `http://127.0.0.1:${bare.port}/`);
const first = await measure("cases, first page (limit 50)", `${u}/api/v2/cases`);
const deepP = await measure(`cases, after ${deep.toLocaleString()} rows (limit 50)`, `${u}/api/v2/cases?cursor=${encodeURIComponent(cursor)}`);
await measure("cases, open, high priority, first page", `${u}/api/v2/cases?status=open&priority=high`);
await measure("cases, search case number (CASE-…-077777)", `${u}/api/v2/cases?search=${formatCaseNumber("test", 77777, base)}`);
await measure("cases, search title part (review 4242)", `${u}/api/v2/cases?search=${encodeURIComponent("review 4242")}`);
console.log(`deep/first page ratio ${(deepP / first).toFixed(2)}; first page / bare Bun.serve ${(first / baseline).toFixed(1)}x`);

// Resolutions: 32 officers at once, each resolving its own share of fresh open cases through the API and the case actors.
const ids: string[] = [];
for (let i = 0; i < RESOLVE; i++) {
  const r = await fetch(`${u}/api/v2/cases`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ title: `to resolve ${i}`, type: "manual_escalation" }) });
  ids.push(((await r.json()) as { data: { id: string } }).data.id);
}
let next = 0;
const r0 = performance.now();
await Promise.all(
  Array.from({ length: OFFICERS }, async () => {
    for (;;) {
      const i = next++;
      if (i >= ids.length) return;
      const res = await fetch(`${u}/api/v2/cases/${ids[i]}/resolve`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: '{"resolution":"approved"}' });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`resolve: HTTP ${res.status}`);
    }
  }),
);
const perSec = ids.length / ((performance.now() - r0) / 1000);
const raw = await rawCommitRate(dir, { seconds: 3 });
console.log(`resolutions under ${OFFICERS} concurrent officers: ${perSec.toFixed(0)}/s; raw single-row commits ${raw.toFixed(0)}/s; ratio ${(perSec / raw).toFixed(3)}`);

void bare.stop(true);
await service.stop();
rmSync(dir, { recursive: true, force: true });
