// Which B-trees a create's commits write: BENCH_CREATES (5,000) below-threshold creates in process (32 customers,
// 32 in flight, a fresh random Idempotency-Key each) after BENCH_WARMUP (20,000), with a reader holding a snapshot so
// that the WAL is appended to instead of restarted; then every WAL frame written is read back, its page number
// mapped to its table or index by `dbstat`, and counted. Prints frames per create and per commit, by B-tree.
// Used for docs/performance.md ("What a create's commit writes").
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { createApp } from "../src/http/app.ts";
import { benchService, inProcessCreator } from "./setup.ts";
const dir = mkdtempSync(join(tmpdir(), "walpages-"));
const path = join(dir, "w.db");
const service = await benchService(path);
const creator = await inProcessCreator(createApp(service), service, { prefix: "w", key: () => `k-${crypto.randomUUID()}` });
const creates = (total: number) => creator.create(total);
await creates(Number(process.env.BENCH_WARMUP ?? 20_000));
await Bun.sleep(500);
// a reader pins the WAL: frames after this point are appended, not reused
const pin = new Database(path); pin.exec("BEGIN"); pin.query("SELECT count(*) FROM transfers").get();
const start = statSync(path + "-wal").size;
const N = Number(process.env.BENCH_CREATES ?? 5_000);
await creates(N);
await Bun.sleep(300);
const wal = readFileSync(path + "-wal");
pin.exec("COMMIT");
const names = new Map<number, string>();
for (const r of service.storage.client.prepare("SELECT name, pageno FROM dbstat").all() as { name: string; pageno: number }[]) names.set(r.pageno, r.name);
const pageSize = 4096, frame = 24 + pageSize;
const count = new Map<string, number>(); let frames = 0, commits = 0;
for (let off = Math.max(32, start - ((start - 32) % frame)); off + frame <= wal.length; off += frame) {
  const pg = wal.readUInt32BE(off); const commit = wal.readUInt32BE(off + 4);
  frames++; if (commit) commits++;
  const nm = names.get(pg) ?? "?"; count.set(nm, (count.get(nm) ?? 0) + 1);
}
console.log(`${N} creates: ${frames} WAL frames (${(frames / N).toFixed(2)} per create), ${commits} commits (${(N / commits).toFixed(1)} creates per commit, ${(frames / commits).toFixed(1)} frames per commit)`);
for (const [k, v] of [...count].sort((a, b) => b[1] - a[1])) console.log(`${(v / N).toFixed(3).padStart(7)} frames/create  ${(100 * v / frames).toFixed(1).padStart(5)}%  ${k}`);
await service.stop();
rmSync(dir, { recursive: true, force: true });
