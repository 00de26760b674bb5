// Benchmark: list latency at 1,000,000 customers and 1,000,000 wallets: first page, deep page (after 900,000 rows), search.
// Prints p50/p99 per request kind and the deep/first ratio; the baseline is a bare Bun.serve answer measured in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../src/services.ts";
import { Tenancy } from "../src/adapters/storage/repos/tenancy.ts";
import { nameGrams } from "../src/actors/customer.ts";
import { encodeCursor } from "../src/domain/cursor.ts";
import { newId, iso } from "../src/domain/ids.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
// BENCH_DIR keeps the filled database (and its master key) for another run; without it a temp dir is used and removed.
const keep = process.env.BENCH_DIR;
const dir = keep ?? mkdtempSync(join(tmpdir(), "caravan-bench-lists-"));

const service = await startService({ dbPath: join(dir, "lists.db"), host: "127.0.0.1", port: 0, logLevel: "warn", env: {} });
const { storage, pii, nameIndexKey, cursorKey } = service;
const tenancy = new Tenancy(storage, Date.now);
const company = await tenancy.requireCompany("default");
const member = await tenancy.createMember(company.id, `bench-${Date.now()}@example.com`, "owner");
const { key } = await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" });

const GIVEN = ["Anna", "Bram", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Julia", "Kofi", "Lena"];
const FAMILY = ["Smith", "de Vries", "Okafor", "Nakamura", "Rossi", "Novak", "Haddad", "Silva", "Kowalski", "Jansen"];

const already = (storage.client.prepare("SELECT count(*) AS n FROM customers").get() as { n: number }).n;
if (already === 0) await fill();
else console.log(`reusing ${already.toLocaleString()} customers in ${dir}`);

async function fill() {
console.log(`filling ${ROWS.toLocaleString()} customers and ${ROWS.toLocaleString()} wallets ...`);
const t0 = performance.now();
const base = Date.parse("2025-01-01T00:00:00.000Z");
const insC = storage.client.prepare(
  "INSERT INTO customers (id, company_id, environment, external_id, external_id_search, name_sealed, public_key, status, created_at, updated_at) VALUES (?, ?, 'test', ?, ?, ?, ?, 'active', ?, ?)",
);
const insG = storage.client.prepare("INSERT OR IGNORE INTO customer_name_grams (company_id, environment, gram, customer_id) VALUES (?, 'test', ?, ?)");
const insW = storage.client.prepare(
  "INSERT INTO wallets (id, company_id, environment, customer_id, address, network, label, verified, created_at, updated_at) VALUES (?, ?, 'test', ?, ?, 'ethereum', ?, 0, ?, ?)",
);
const BATCH = 20_000;
for (let start = 0; start < ROWS; start += BATCH) {
  storage.tx(() => {
    for (let i = start; i < Math.min(ROWS, start + BATCH); i++) {
      const at = base + i * 10;
      const id = newId("cus", at);
      const name = `${GIVEN[i % GIVEN.length]} ${FAMILY[(i >> 3) % FAMILY.length]} ${i}`;
      insC.run(id, company.id, `ext-${i}`, `ext-${i}`, pii.seal(name, `customer:${id}:name`), "02" + "00".repeat(32), iso(at), iso(at));
      for (const g of nameGrams(nameIndexKey, name)) insG.run(company.id, g, id);
      insW.run(newId("wal", at), company.id, id, "0x" + i.toString(16).padStart(40, "0"), i % 10 === 0 ? `cold ${i}` : null, iso(at), iso(at));
    }
  });
}
storage.client.exec("ANALYZE");
console.log(`filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

function cursorAt(table: "customers" | "wallets", list: string, offset: number): string {
  const row = storage.client
    .prepare(`SELECT created_at, id FROM ${table} WHERE company_id = ? AND environment = 'test' ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`)
    .get(company.id, offset - 1) as { created_at: string; id: string };
  return encodeCursor(cursorKey, { list, after: [row.created_at, row.id] });
}

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
  console.log(`${label.padEnd(44)} p50 ${p50.toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms`);
  return p50;
}

const bare = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ data: [], meta: {} }) });
const rows = (storage.client.prepare("SELECT count(*) AS n FROM customers WHERE company_id = ?").get(company.id) as { n: number }).n;
const deep = Math.floor(rows * 0.9);
const u = service.url;
const baseline = await measure("baseline: bare Bun.serve JSON", `http://127.0.0.1:${bare.port}/`);
const c1 = await measure("customers, first page (limit 50)", `${u}/api/v2/customers`);
const cDeep = await measure(`customers, after ${deep.toLocaleString()} rows`, `${u}/api/v2/customers?cursor=${encodeURIComponent(cursorAt("customers", `customers|${JSON.stringify([false, null, true])}`, deep))}`);
await measure("customers, search externalId part (ext-77777)", `${u}/api/v2/customers?search=ext-77777`);
await measure("customers, search name part (Nakamura 4242)", `${u}/api/v2/customers?search=${encodeURIComponent("Nakamura 4242")}`);
const w1 = await measure("wallets, first page (limit 50)", `${u}/api/v2/wallets`);
const wDeep = await measure(`wallets, after ${deep.toLocaleString()} rows`, `${u}/api/v2/wallets?cursor=${encodeURIComponent(cursorAt("wallets", "wallets|{}", deep))}`);
await measure("wallets, search address part", `${u}/api/v2/wallets?search=0x00000000000000000000000000000000000${(77777).toString(16)}`);
console.log(`deep/first page ratio: customers ${(cDeep / c1).toFixed(2)}, wallets ${(wDeep / w1).toFixed(2)}; first page / bare Bun.serve: customers ${(c1 / baseline).toFixed(1)}x`);

void bare.stop(true);
await service.stop();
if (!keep) rmSync(dir, { recursive: true, force: true });
