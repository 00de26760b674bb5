// `caravan demo`: the service, the provider_b sandbox network and a webhook receiver; transfers go out and complete.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { runDemo } from "../src/demo.ts";
import { tempDir } from "./support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();

test("the demo sends transfers out through provider_b to a sandbox VASP, takes one in, and the local receiver gets their webhooks", async () => {
  const lines: string[] = [];
  const demo = await runDemo({ port: 0, dbPath: join(dir, "demo.db"), count: 6, intervalMs: 300, log: (l) => lines.push(l) });
  try {
    await demo.done;
    // Let the followers finish (accept with txHash for the one that reached awaiting_counterparty).
    for (let i = 0; i < 100 && !lines.some((l) => l.includes("transaction reported to provider_b")); i++) await Bun.sleep(100);
    for (let i = 0; i < 100 && !demo.received.some((r) => r.event === "transfer.failed"); i++) await Bun.sleep(100);
    const text = lines.join("\n");
    expect(text).toMatch(/0\.05 ETH: 201 completed/);
    expect(text).toMatch(/→ awaiting_counterparty via provider_b to Alpine Exchange/);
    expect(text).toMatch(/→ completed \(transaction reported to provider_b\)/);
    expect(text).toMatch(/→ rejected \(SANCTION_LIST\)/);
    // Screening for real: a watch-listed name held and resolved through its case, a high-risk address blocked.
    for (let i = 0; i < 100 && !/case CASE-\S+ → closed \(transfer action: queued\)/.test(lines.join("\n")); i++) await Bun.sleep(100);
    const screened = lines.join("\n");
    expect(screened).toMatch(/→ held by screening \(screening_c success\)/);
    expect(screened).toMatch(/case CASE-\S+ \(sanctions_hit, high\) opened for trf_/);
    expect(screened).toMatch(/case CASE-\S+ → closed \(transfer action: queued\)/);
    expect(screened).toMatch(/→ rejected \(COMPLIANCE_POLICY\)/);
    expect(text).toMatch(/incoming 2\.5 ETH from Alpine Exchange to Jane van Dyke: verified/);
    expect(text).toMatch(/incoming transaction reported by Alpine Exchange: normal/);
    const events = new Set(demo.received.map((r) => r.event));
    for (const e of ["transfer.created", "transfer.completed", "transfer.rejected", "transfer.failed"]) expect(events.has(e)).toBe(true);
  } finally {
    await demo.stop();
  }
});
