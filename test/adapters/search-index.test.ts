// The transfer search index in its own file (src/adapters/storage/search-index.ts). What must hold: the storage worker
// fills it off the server's thread; a search finds a transfer from its commit on, indexed or not; the queue is
// trimmed only up to the index's mark; and a search file that does not match the database (missing, another
// database's, behind the trimmed queue, ahead of a restored backup) is rebuilt when the database is opened, while a
// matching one is kept.
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { startCheckpointer } from "../../src/adapters/storage/checkpointer.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import { Transfers, toTransfer, type TransferRow } from "../../src/adapters/storage/repos/transfers.ts";
import { SEARCHED, indexBatch, reconcile, trimQueue, type SearchConnection } from "../../src/adapters/storage/search-index.ts";
import { readMeta } from "../../src/adapters/storage/meta.ts";
import { iso, newId } from "../../src/domain/ids.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const NOW = Date.parse("2030-06-01T00:00:00.000Z");
const open: Storage[] = [];
afterAll(() => open.forEach((s) => s.close()));

async function database(name: string): Promise<{ path: string; storage: Storage; repo: Transfers; company: string }> {
  const path = join(dir, name);
  const storage = await openStorage(path);
  open.push(storage);
  const company = (await new Tenancy(storage, Date.now).createCompany(name.replace(/\W/g, "-"), "Acme Ltd")).id;
  return { path, storage, repo: new Transfers(storage), company };
}

async function reopen(path: string): Promise<{ storage: Storage; repo: Transfers }> {
  const storage = await openStorage(path);
  open.push(storage);
  return { storage, repo: new Transfers(storage) };
}

function close(s: Storage): void {
  s.close();
  open.splice(open.indexOf(s), 1);
}

let n = 0;
function transfer(company: string, ref: string): TransferRow {
  const at = iso(NOW + ++n);
  return {
    id: newId("trf", NOW + n), company_id: company, environment: "test", direction: "outgoing", state: "completed", status: "approved", external_id: ref,
    asset: "ETH", asset_id: "eip155:1/slip44:60", amount: "1", network: "ethereum", blockchain_type: "ethereum", originator_customer_id: null,
    originator_address: null, beneficiary_address: "0x52908400098527886E0F7030069857D2E4169EE7", beneficiary_customer_id: null, is_unhosted_wallet: 0,
    originator_sealed: null, beneficiary_sealed: null, originator_vasp_id: "vasp_own", originator_vasp_name: null, beneficiary_vasp_id: null, beneficiary_vasp_name: null,
    preferred_protocol: null, protocol: null, provider_external_id: null, matched_at: null, ours_status: null, theirs_status: null, rejection_reason: null,
    rejection_details_sealed: null, tx_hash: null, sanctions_status: null, sanctions_provider: null, threshold_info: null, fx_rate_id: null, checks: "[]",
    attempts: "[]", messages: "[]", history: "[]", expires_at: null, accepted_at: null, completed_at: at, created_at: at, updated_at: at,
  };
}

const insert = async (db: { storage: Storage; repo: Transfers; company: string }, refs: string[]): Promise<TransferRow[]> => {
  const rows = refs.map((r) => transfer(db.company, r));
  await db.storage.transaction(async () => {
    for (const r of rows) await db.repo.insert(toTransfer(r));
  });
  return rows;
};
/** The same rows written on this turn, for a stub that runs inside the engine's synchronous code. */
const insertNow = (db: { storage: Storage; company: string }, refs: string[]): void =>
  db.storage.tx(() => {
    for (const r of refs.map((ref) => transfer(db.company, ref))) db.storage.stmt(`INSERT INTO transfers (${Object.keys(r).join(", ")}) VALUES (${Object.keys(r).map(() => "?").join(", ")})`).run(...(Object.values(r) as never[]));
  });
const found = async (repo: Transfers, company: string, text: string) => (await repo.page(company, "test", { search: text }, null, 100)).map((t) => t.externalId).sort();
const queue = (s: Storage) => s.stmt("SELECT min(seq) AS lo, max(seq) AS hi, count(*) AS n FROM transfers_search_pending").get() as { lo: number; hi: number; n: number };

test("the storage worker fills the index off the server's thread; the server's connection never writes it", async () => {
  const db = await database("worker.db");
  expect(existsSync(`${db.path}-search`)).toBe(true);
  const worker = startCheckpointer(db.storage, { intervalMs: 20 });
  try {
    expect(worker.indexesSearch()).toBe(true);
    const rows = await insert(db, Array.from({ length: 2500 }, (_, i) => `order-${i}`));
    // Found at once (the queue is scanned), before the worker reached them.
    expect(await found(db.repo, db.company, "order-1234")).toEqual(["order-1234"]);
    for (let i = 0; i < 500 && (await db.repo.pendingIndex()) > 0; i++) await Bun.sleep(20);
    expect(await db.repo.pendingIndex()).toBe(0);
    // Indexed by the worker: the index alone answers, and the search answers the same.
    const fts = db.storage.search!.stmt("SELECT count(*) AS n FROM search.transfers_search WHERE transfers_search MATCH ?").get('"r-1" AND "-12" AND "123" AND "234"') as { n: number };
    // Every row whose searched columns hold all four trigrams: order-1234, and any row whose random ID happens to hold
    // "123" and "234" beside an external ID of order-12… (CI drew one: the count was 2).
    const terms = ["r-1", "-12", "123", "234"];
    const holding = rows.filter((r) => terms.every((t) => SEARCHED.some((c) => String(r[c] ?? "").toLowerCase().includes(t))));
    expect(holding.map((r) => r.external_id)).toContain("order-1234");
    expect(fts.n).toBe(holding.length);
    expect(await found(db.repo, db.company, "order-1234")).toEqual(["order-1234"]);
    expect(await found(db.repo, db.company, "ORDER-249")).toEqual(["order-249", ...Array.from({ length: 10 }, (_, i) => `order-249${i}`)].sort());
  } finally {
    await worker.stop();
  }
  // The server's own connection has no search file attached: its write transactions lock only the main file.
  expect((db.storage.client.prepare("PRAGMA database_list").all() as { name: string }[]).map((d) => d.name).filter((d) => d !== "temp")).toEqual(["main"]);
});

test("the queue is trimmed up to the index's mark, never past it; later changes are numbered after it", async () => {
  const db = await database("trim.db");
  const rows = await insert(db, ["a-100", "a-200", "a-300"]);
  expect(await db.repo.trimSearchQueue()).toBe(0); // nothing indexed yet: nothing trimmed
  expect(await db.repo.indexPending(2)).toBe(2);
  expect(await db.repo.trimSearchQueue()).toBe(1); // the entry at the mark stays
  expect(queue(db.storage).n).toBe(2);
  expect(await db.repo.indexPending(100)).toBe(1);
  expect(await db.repo.trimSearchQueue()).toBe(1);
  const before = queue(db.storage);
  expect(before.n).toBe(1);
  await db.repo.update(rows[0].id, { externalId: "b-100" });
  expect(queue(db.storage).hi).toBe(before.hi + 1);
  expect(await found(db.repo, db.company, "b-100")).toEqual(["b-100"]);
  expect(await found(db.repo, db.company, "a-100")).toEqual([]);
  expect(await db.repo.indexPending(100)).toBe(1);
  expect(await found(db.repo, db.company, "b-100")).toEqual(["b-100"]);
  expect(await found(db.repo, db.company, "a-100")).toEqual([]);
});

test("a search file that matches is kept when the database is opened again; a missing one is rebuilt", async () => {
  const db = await database("keep.db");
  await insert(db, ["k-111", "k-222"]);
  while ((await db.repo.indexPending(100)) === 100);
  await db.repo.trimSearchQueue();
  close(db.storage);
  const kept = await reopen(db.path);
  expect(await kept.repo.pendingIndex()).toBe(0);
  expect(await found(kept.repo, db.company, "k-222")).toEqual(["k-222"]);
  close(kept.storage);
  for (const f of [`${db.path}-search`, `${db.path}-search-wal`, `${db.path}-search-shm`]) rmSync(f, { force: true });
  const rebuilt = await reopen(db.path);
  expect(await rebuilt.repo.pendingIndex()).toBe(2);
  expect(await found(rebuilt.repo, db.company, "k-222")).toEqual(["k-222"]);
  while ((await rebuilt.repo.indexPending(100)) === 100);
  expect(await found(rebuilt.repo, db.company, "k-111")).toEqual(["k-111"]);
});

test("an open beside a running indexer keeps the index when the mark moves between its two reads (no rebuild)", async () => {
  // The queue is in the main file and the mark in the search file: an open reads them one after the other. Here the
  // indexer appends, indexes and trims between those two reads (as the server's storage worker and sweep can while
  // the CLI opens the database), so the mark is read past the queue's end that was read first.
  const db = await database("moving.db");
  await insert(db, ["m-1", "m-2"]);
  while ((await db.repo.indexPending(100)) === 100);
  await db.repo.trimSearchQueue();
  const search = db.storage.search!;
  let moved = false;
  const c: SearchConnection = {
    exec: (sql) => search.exec(sql),
    stmt: (sql) => {
      const st = search.stmt(sql);
      if (moved || !sql.includes("min(seq)")) return st;
      return {
        ...st,
        get: (...a: unknown[]) => {
          const r = st.get(...(a as []));
          moved = true;
          insertNow(db, ["m-3", "m-4", "m-5"]);
          while (indexBatch(search, 100) === 100);
          trimQueue(search, db.storage);
          return r;
        },
      } as typeof st;
    },
  };
  expect(reconcile(c, readMeta(db.storage, "database_id")!)).toBe("kept");
  expect(moved).toBe(true);
  expect(await db.repo.pendingIndex()).toBe(0); // nothing queued again
  expect(await found(db.repo, db.company, "m-")).toEqual(["m-1", "m-2", "m-3", "m-4", "m-5"]);
});

test("another database's search file, and a restored backup with a newer search file, are rebuilt", async () => {
  const a = await database("a.db");
  const b = await database("b.db");
  await insert(a, ["only-in-a"]);
  await insert(b, ["only-in-b"]);
  for (const x of [a, b]) while ((await x.repo.indexPending(100)) === 100);
  // A backup of a, then more transfers, indexed and trimmed past the backup's queue.
  a.storage.client.prepare("VACUUM INTO ?").run(join(dir, "a-backup.db"));
  await insert(a, ["after-backup-1", "after-backup-2"]);
  while ((await a.repo.indexPending(100)) === 100);
  await a.repo.trimSearchQueue();
  close(a.storage);
  close(b.storage);
  // b's search file beside a: another database's index.
  copyFileSync(`${b.path}-search`, `${a.path}-search`);
  const foreign = await reopen(a.path);
  expect(await foreign.repo.pendingIndex()).toBe(3);
  expect(await found(foreign.repo, a.company, "only-in")).toEqual(["only-in-a"]);
  while ((await foreign.repo.indexPending(100)) === 100);
  expect(await found(foreign.repo, a.company, "after-backup")).toEqual(["after-backup-1", "after-backup-2"]);
  close(foreign.storage);
  // The backup restored over a, its search file left as it was (ahead of the restored queue).
  for (const f of [a.path, `${a.path}-wal`, `${a.path}-shm`]) rmSync(f, { force: true });
  copyFileSync(join(dir, "a-backup.db"), a.path);
  const restored = await reopen(a.path);
  expect(await restored.repo.pendingIndex()).toBe(1);
  // A transfer created after the restore is found, although its queue number was indexed before in the old file.
  const again = { storage: restored.storage, repo: restored.repo, company: a.company };
  await insert(again, ["after-restore"]);
  while ((await restored.repo.indexPending(100)) === 100);
  expect(await found(restored.repo, a.company, "after-")).toEqual(["after-restore"]);
  expect(await found(restored.repo, a.company, "only-in")).toEqual(["only-in-a"]);
});
