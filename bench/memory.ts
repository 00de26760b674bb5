// Benchmark: the service's resident memory (RSS) with 10k and with 1M stored transfers, after the same workload
// (creates, reads of random stored transfers, list pages, a search), each in a fresh server process; prints both and
// their ratio (issue 19: within 1.2×). Linux: RSS is read from /proc/<pid>/status of the server process.
//
// BENCH_MEMORY_SIZES ("10000,1000000") stored transfers per run, BENCH_MEMORY_CREATES (1500) and BENCH_MEMORY_READS
// (4000) requests of the workload (together under the default company budget of 6,000 per minute), BENCH_CONCURRENCY
// (16) in flight. Seeding writes rows as the customer actor does
// (sealed persons, JSON columns, the search index and counters by the triggers), 10,000 per transaction.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "../src/adapters/storage/index.ts";
import { Transfers } from "../src/adapters/storage/repos/transfers.ts";
import type { Transfer } from "../src/ports/transfers.ts";
import { Tenancy } from "../src/adapters/storage/repos/tenancy.ts";
import { Sealer } from "../src/adapters/crypto/envelope.ts";
import { loadMasterKey } from "../src/adapters/crypto/master-key.ts";
import { iso, newId } from "../src/domain/ids.ts";

const SIZES = (process.env.BENCH_MEMORY_SIZES ?? "10000,1000000").split(",").map(Number);
const CREATES = Number(process.env.BENCH_MEMORY_CREATES ?? 1500);
const READS = Number(process.env.BENCH_MEMORY_READS ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");

/** Seeds `n` completed outgoing transfers; answers a key and a sample of stored IDs to read. */
async function seed(dbPath: string, n: number): Promise<{ key: string; sample: string[] }> {
  const storage = await openStorage(dbPath);
  const tenancy = new Tenancy(storage, Date.now);
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "memory@example.com", "owner");
  const { key } = await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" });
  const pii = new Sealer(loadMasterKey(dbPath, process.env).derive("pii"));
  const persons = JSON.stringify([{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } }]);
  const repo = new Transfers(storage);
  const sample: string[] = [];
  const start = Date.now() - n; // one transfer per millisecond, in the past
  for (let done = 0; done < n; ) {
    await storage.transaction(async () => {
      for (let i = 0; i < 10_000 && done < n; i++, done++) {
        const at = iso(start + done);
        const id = newId("trf", start + done);
        const t: Transfer = {
          id, companyId: company.id, environment: "test", direction: "outgoing", state: "completed", status: "approved", externalId: `seed-${done}`,
          asset: "ETH", assetId: "eip155:1/slip44:60", amount: "0.01", network: "ethereum", blockchainType: "ethereum", originatorCustomerId: null,
          originatorAddress: null, beneficiaryAddress: `0x${hex(20)}`, beneficiaryCustomerId: null, isUnhostedWallet: false,
          originatorSealed: pii.seal(persons, `transfer:${id}:originator`), beneficiarySealed: null, originatorVaspId: "vasp_own", originatorVaspName: "Caravan",
          beneficiaryVaspId: null, beneficiaryVaspName: null, preferredProtocol: null, protocol: null, providerExternalId: null, matchedAt: null,
          oursStatus: null, theirsStatus: null, rejectionReason: null, rejectionDetailsSealed: null, txHash: null, sanctionsStatus: null, sanctionsProvider: null,
          thresholdInfo: { amount: "0.01", asset: "ETH", threshold: "1000", thresholdCurrency: "EUR", jurisdiction: "EU", regulation: "TFR" },
          fxRateId: null, checks: [], attempts: [], messages: [], history: [{ type: "created", from: null, to: "completed", at }],
          expiresAt: null, acceptedAt: null, completedAt: at, createdAt: at, updatedAt: at,
        };
        await repo.insert(t);
        if (done % Math.max(1, Math.floor(n / 5000)) === 0) sample.push(id);
      }
    });
  }
  // The search index as the server's background sweep leaves it: every seeded transfer indexed.
  while ((await repo.indexPending(10_000)) === 10_000);
  storage.client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  storage.close();
  return { key, sample };
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function pool(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) await fn(next++);
  }));
}

async function run(n: number): Promise<{ n: number; seedSeconds: number; rssStart: number; rssEnd: number; dbMiB: number }> {
  const dir = mkdtempSync(join(tmpdir(), "caravan-bench-memory-"));
  const db = join(dir, "caravan.db");
  try {
    const t0 = performance.now();
    const { key, sample } = await seed(db, n);
    const seedSeconds = (performance.now() - t0) / 1000;
    const proc = Bun.spawn(["bun", join(import.meta.dir, "../src/main.ts"), "serve"], {
      env: { ...process.env, CARAVAN_DB: db, PORT: "0", HOST: "127.0.0.1", CARAVAN_LOG: "warn" },
      stdout: "pipe",
      stderr: "inherit",
    });
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    let url: string | undefined;
    while (!url) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server did not start: ${out}`);
      out += new TextDecoder().decode(value);
      url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    }
    void (async () => {
      for (;;) if ((await reader.read()).done) break;
    })();
    try {
      const rssStart = rssMiB(proc.pid);
      const json = { "x-api-key": key, "content-type": "application/json" };
      const customer = await fetch(`${url}/api/v2/customers`, { method: "POST", headers: json, body: JSON.stringify({ externalId: "memory-1", name: "Jane Doe" }) });
      if (customer.status !== 201) throw new Error(`customer: ${customer.status} ${await customer.text()}`);
      const customerId = ((await customer.json()) as { data: { id: string } }).data.id;
      const body = JSON.stringify({
        asset: "ETH", amount: "0.01", network: "ethereum", originatorCustomerId: customerId, beneficiaryAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } }] },
      });
      await pool(CREATES, async (i) => {
        const r = await fetch(`${url}/api/v2/transfers`, { method: "POST", headers: { ...json, "idempotency-key": `memory-${i}` }, body });
        if (r.status !== 201) throw new Error(`create: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      });
      await pool(READS, async (i) => {
        const r = await fetch(`${url}/api/v2/transfers/${sample[(i * 7919) % sample.length]}`, { headers: json });
        if (r.status !== 200) throw new Error(`read: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      });
      for (const q of ["?limit=100", "?limit=100&state=completed", "?search=5aaeb6053f"]) {
        const r = await fetch(`${url}/api/v2/transfers${q}`, { headers: json });
        if (r.status !== 200) throw new Error(`list ${q}: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      }
      const rssEnd = rssMiB(proc.pid);
      const dbMiB = (Bun.file(db).size + Bun.file(`${db}-wal`).size) / 1024 / 1024;
      return { n, seedSeconds, rssStart, rssEnd, dbMiB };
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (const n of SIZES) {
  const r = await run(n);
  results.push(r);
  console.log(
    `${String(r.n).padStart(8)} stored transfers (database ${r.dbMiB.toFixed(0)} MiB, seeded in ${r.seedSeconds.toFixed(0)} s): server RSS ${r.rssStart.toFixed(0)} MiB at start, ${r.rssEnd.toFixed(0)} MiB after ${CREATES} creates, ${READS} reads, 3 lists`,
  );
}
if (results.length >= 2) {
  const [small, large] = [results[0], results[results.length - 1]];
  console.log(`ratio RSS after workload, ${large.n} / ${small.n} stored transfers: ${(large.rssEnd / small.rssEnd).toFixed(2)} (issue 19: at most 1.2)`);
}
