// Benchmark: the tamper-evident audit log. Writes BENCH_AUDIT_ENTRIES (1,000,000) synthetic audit entries through the
// real repository into a fresh database file, seals them (the server's sealer: leaf indexes, leaf and node hashes and
// rows), signs a checkpoint every 100,000 entries, then runs `caravan audit verify` on the file as a program, as an
// auditor would. Prints the sealing cost per entry (what each create adds to the server thread, off the request) and
// the verifier's time per million entries.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "../src/adapters/storage/index.ts";
import { AuditLog } from "../src/adapters/storage/repos/audit.ts";
import { AuditTrees } from "../src/adapters/storage/repos/audit-tree.ts";
import { loadAuditKey } from "../src/adapters/crypto/audit-key.ts";

const N = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), "caravan-bench-audit-"));
const db = join(dir, "audit.db");
try {
  const s = await openStorage(db);
  const log = new AuditLog(s);
  const trees = new AuditTrees(s, {});
  const key = loadAuditKey(db, {});
  await trees.adoptKey(key, Date.now(), "bench");
  const t0 = Date.parse("2026-12-01T00:00:00.000Z");
  let written = 0;
  let sealMs = 0;
  let sealCpuUs = 0;
  const wStart = performance.now();
  for (let from = 0; from < N; from += 10_000) {
    const n = Math.min(10_000, N - from);
    s.tx(() => {
      for (let i = from; i < from + n; i++)
        log.append(
          {
            companyId: "cmp_default",
            environment: i % 10 === 0 ? "test" : "live",
            actor: { type: "member", memberId: "mem_01jd0000000000000000000000", apiKeyId: "key_01jd0000000000000000000000" },
            action: "transfer.created",
            entityType: "Transfer",
            entityId: `trf_${String(i).padStart(26, "0")}`,
            detail: { amount: "1234.56", asset: "USDC", network: "ethereum", direction: "outgoing" },
          },
          t0 + i,
        );
    });
    written += n;
    const s0 = performance.now();
    const c0 = process.cpuUsage();
    await trees.sealAll();
    const c1 = process.cpuUsage(c0);
    sealCpuUs += c1.user + c1.system;
    sealMs += performance.now() - s0;
    if (written % 100_000 === 0 || written === N) await trees.checkpoint(key, t0 + written);
  }
  const writeMs = performance.now() - wStart - sealMs;
  s.close();
  console.log(`${N} entries written in ${(writeMs / 1000).toFixed(1)} s (the inserts alone)`);
  console.log(
    `sealed in ${(sealMs / 1000).toFixed(2)} s: ${((sealMs * 1000) / N).toFixed(1)} µs per entry wall, ${(sealCpuUs / N).toFixed(1)} µs CPU (encoding, leaf hash, node hashes, leaf and node rows, in batches of 5,000)`,
  );
  const v0 = performance.now();
  const proc = Bun.spawn(["bun", join(import.meta.dir, "../src/main.ts"), "audit", "verify", "--db", db, "--public-key", Buffer.from(key.publicKey).toString("base64")], {
    env: { ...process.env, CARAVAN_DB: db },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const wall = (performance.now() - v0) / 1000;
  console.log(out.trim());
  console.log(err.trim().split("\n").slice(-3).join("\n"));
  console.log(`caravan audit verify: exit ${code}, ${wall.toFixed(1)} s wall (process start included): ${((wall * 1_000_000) / N).toFixed(1)} s per million entries`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
