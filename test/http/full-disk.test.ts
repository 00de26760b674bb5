// A full disk under a running server: the database on a small tmpfs (mounted here when the machine allows it) is
// filled while transfers are created. What must hold: the log names the true cause (SQLITE_FULL) at a bounded rate,
// a write the store cannot take is answered at once with a 503 that says the storage is unavailable (Retry-After),
// /healthz is not ready until writes succeed again, no message is dead-lettered for the fault, and everything
// acknowledged before it is intact after space returns.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, type Answer } from "../support/api.ts";

// A server on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(180_000);

// Not tempDir(): the mount is undone first, then the directory removed (afterAll below).
const mnt = mkdtempSync(join(tmpdir(), "caravan-full-disk-"));

/** Whether a 20 MB tmpfs can be mounted here (root, a kernel that allows it). */
function mountSmallFs(): boolean {
  if (process.platform !== "linux") return false;
  const r = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", mnt], { stderr: "pipe" });
  return r.exitCode === 0;
}
const mounted = mountSmallFs();

const db = join(mnt, "caravan.db");
const filler = join(mnt, "filler");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let key: string;
let customer: string;

const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
const transfer = () => ({
  asset: "ETH",
  amount: "0.001",
  network: "ethereum",
  originatorCustomerId: customer,
  beneficiaryAddress: `0x${hex(20)}`,
  originator: {
    originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }],
  },
});

/** Writes zeros into `filler` until the file system refuses (ENOSPC): then no byte is free. */
function fillDisk(): void {
  const fd = openSync(filler, "a");
  const big = new Uint8Array(1 << 20);
  const small = new Uint8Array(512);
  try {
    for (;;) writeSync(fd, big);
  } catch {
    try {
      for (;;) writeSync(fd, small);
    } catch {
      /* full */
    }
  } finally {
    closeSync(fd);
  }
}

/** The server's JSON log lines (stderr), parsed. */
function logLines(): { level: string; msg: string; [k: string]: unknown }[] {
  return S.output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return null;
      }
    })
    .filter((l) => l !== null);
}

beforeAll(async () => {
  if (!mounted) return;
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  key = (await newKey("--env", "test", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_LOG: "info", CARAVAN_RATE_LIMITS: "company=1000000/60" });
  const c = await call("/api/v2/customers", { method: "POST", key, json: { name: "Disk Full Originator" } });
  if (c.status !== 201) throw new Error(c.text);
  customer = c.body.data.id;
}, 120_000);

afterAll(async () => {
  await S?.stop();
  if (mounted) Bun.spawnSync(["umount", "-l", mnt]);
  rmSync(mnt, { recursive: true, force: true });
});

test.skipIf(!mounted)("a full disk: true cause logged at a bounded rate, fast 503 storage unavailable, /healthz not ready, no dead letter, nothing acknowledged lost", async () => {
  const acknowledged: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await call("/api/v2/transfers", { method: "POST", key, json: transfer(), headers: { "Idempotency-Key": `before-${i}-${hex(4)}` } });
    expect([201, 202]).toContain(r.status);
    acknowledged.push(r.body.data.id);
  }
  const before = await call("/healthz");
  expect(before.status).toBe(200);

  fillDisk();
  const faultStarted = Date.now();
  // Writes go on until the store refuses one (the WAL may still have room for a few commits).
  let refused: Answer | undefined;
  for (let i = 0; i < 5_000 && !refused; i++) {
    const r = await call("/api/v2/transfers", { method: "POST", key, json: transfer(), headers: { "Idempotency-Key": `during-${i}-${hex(4)}` } });
    if (r.status === 201 || r.status === 202) acknowledged.push(r.body.data.id);
    else refused = r;
  }
  expect(refused).toBeDefined();
  expectError(refused!, 503, "SERVICE_UNAVAILABLE");
  expect(refused!.body.error).toContain("storage is unavailable");
  // Not the actor time-out's answer (that one comes after 15 s of waiting): the refusal came at once.
  expect(refused!.body.error).not.toContain("did not finish in time");
  expect(refused!.headers.get("retry-after")).toBe("5");

  const health = await call("/healthz");
  if (health.status !== 503) console.log(S.output().split("\n").slice(-60).join("\n"));
  expect(health.status).toBe(503);
  expect(health.body).toMatchObject({ status: "storage_unavailable", fault: "SQLITE_FULL" });
  expect(health.headers.get("retry-after")).toBe("5");

  // Other writes, a customer's actor among them, answer the same while the disk stays full.
  for (let i = 0; i < 20; i++) {
    const r = await call("/api/v2/customers", { method: "POST", key, json: { name: `During ${i}` } });
    if (r.status === 503) expect(r.body.error).toContain("storage is unavailable");
    else expect(r.status).toBe(201);
  }
  // The sweeps (once a second under test), the webhook dispatcher and the runtime's retries meet the full disk for a
  // while: what they log is what is asserted below.
  await Bun.sleep(4_000);
  expect((await call("/healthz")).status).toBe(503);

  rmSync(filler);
  const faultEnded = Date.now();
  // /healthz turns ready once a write succeeds again (it probes the store itself).
  let ready: Answer | undefined;
  for (let i = 0; i < 600; i++) {
    ready = await call("/healthz");
    if (ready.status === 200) break;
    await Bun.sleep(50);
  }
  expect(ready!.status).toBe(200);
  expect(ready!.body).toEqual({ status: "ok" });
  const after = await call("/api/v2/transfers", { method: "POST", key, json: transfer(), headers: { "Idempotency-Key": `after-${hex(4)}` } });
  expect([201, 202]).toContain(after.status);

  // Everything acknowledged is there, once.
  for (const id of acknowledged) {
    const g = await call(`/api/v2/transfers/${id}`, { key });
    expect({ id, status: g.status }).toEqual({ id, status: 200 });
  }

  // The log: the true cause, one line per class per interval, never the rollback's own error.
  const lines = logLines();
  const text = S.output();
  expect(text).not.toContain("cannot rollback");
  expect(text).not.toContain("no transaction is active");
  const faults = lines.filter((l) => l.msg === "storage fault");
  expect(faults.length).toBeGreaterThan(0);
  for (const f of faults) {
    expect(f.level).toBe("error");
    expect(f.class).toBe("SQLITE_FULL");
    expect(String(f.cause)).toContain("database or disk is full");
    expect(typeof f.count).toBe("number");
  }
  // At most one line per class per 10 s interval while the fault lasted (the first one at once).
  const intervals = Math.ceil((faultEnded - faultStarted) / 10_000) + 1;
  expect(faults.length).toBeLessThanOrEqual(intervals);
  // No message counted an attempt for the fault, so nothing was retried as a message fault or buried for it.
  expect(lines.filter((l) => l.msg === "actor handler failed; will retry").map((l) => l.error)).toEqual([]);
  expect(lines.filter((l) => l.msg === "actor message parked as dead")).toEqual([]);
  expect(lines.filter((l) => l.msg === "actor runtime fault")).toEqual([]);
  expect(lines.some((l) => l.msg === "storage available again")).toBe(true);

  await S.stop();
  const check = new Database(db, { readonly: true });
  try {
    expect((check.prepare("SELECT count(*) AS n FROM actor_dead_letters").get() as { n: number }).n).toBe(0);
    expect((check.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
    const ids = check.prepare("SELECT id FROM transfers").all() as { id: string }[];
    const stored = new Set(ids.map((r) => r.id));
    for (const id of acknowledged) expect(stored.has(id)).toBe(true);
    expect(stored.size).toBe(new Set(ids.map((r) => r.id)).size);
  } finally {
    check.close();
  }
});
