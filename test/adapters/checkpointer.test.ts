// WAL checkpoints off the request thread (issue 19): a worker thread with its own connection checkpoints the WAL
// (PASSIVE) while the server's connection commits, with `wal_autocheckpoint` raised to a safety net. What must hold:
// the worker's checkpoints copy committed pages into the database file and the WAL is reused instead of growing;
// every committed row survives stop() and close; stop() closes the worker's connection (so the server's close, the
// last one, removes the -wal file); a worker that cannot open the file puts SQLite's default back.
import { test, expect, setDefaultTimeout, beforeAll } from "bun:test";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { openClient, openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { startCheckpointer, DEFAULT_AUTOCHECKPOINT, type Checkpointer } from "../../src/adapters/storage/checkpointer.ts";
import type { LogLevel } from "../../src/adapters/log.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(60_000);

const COMMITS = 5000;
const BATCH = 500;
const SAFETY_NET = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
const autocheckpoint = (s: Storage) => (s.stmt("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

let file: string;
let storage: Storage;
let checkpointer: Checkpointer;
let pageSize: number;

const dir = tempDir();

beforeAll(async () => {
  file = join(dir, "ckpt.db");
  storage = await openStorage(file, { migrate: false });
  storage.client.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  pageSize = (storage.stmt("PRAGMA page_size").get() as { page_size: number }).page_size;
});

test("the worker checkpoints the server connection's commits: pages reach the database file, the WAL is reused", async () => {
  expect(autocheckpoint(storage)).toBe(DEFAULT_AUTOCHECKPOINT);
  checkpointer = startCheckpointer(storage, { intervalMs: 50, safetyNetPages: SAFETY_NET });
  // The server's connection no longer checkpoints every 1000 frames: the safety net only.
  expect(autocheckpoint(storage)).toBe(SAFETY_NET);

  const insert = storage.stmt("INSERT INTO t (body) VALUES (?)");
  const body = new Uint8Array(1024).fill(7);
  const startSize = size(file);
  for (let done = 0; done < COMMITS; done += BATCH) {
    for (let i = 0; i < BATCH; i++) storage.tx(() => insert.run(body));
    // Under the safety net (fewer frames than it in all), the server's connection never checkpoints itself: the
    // database file reaches the size of the committed database only by the worker's checkpoints. Wait for it (the
    // file's hang guard bounds the wait); the next commit then restarts the WAL from its beginning.
    const pages = (storage.stmt("PRAGMA page_count").get() as { page_count: number }).page_count;
    while (size(file) < pages * pageSize) await sleep(10);
  }
  expect(size(file)).toBeGreaterThan(startSize + COMMITS * 1024);
  expect(checkpointer.status().state).toBe("running");
  expect(checkpointer.status().passes).toBeGreaterThan(0);
  // Every commit appends at least one whole page to the WAL: a WAL never restarted would hold COMMITS pages or more.
  expect(size(`${file}-wal`)).toBeLessThan(COMMITS * pageSize);
  expect(autocheckpoint(storage)).toBe(SAFETY_NET);
});

test("stop() returns and the worker is stopped; the server's connection is left at SQLite's default", async () => {
  await checkpointer.stop();
  expect(checkpointer.status().state).toBe("stopped");
  await checkpointer.stop(); // idempotent
  expect(autocheckpoint(storage)).toBe(DEFAULT_AUTOCHECKPOINT);
  storage.close();
});

test("stop() closes the worker's connection: the server's close is then the last one and removes the -wal file", async () => {
  // A bare client whose close really closes (Storage.close under Bun leaves cached statements to the GC, and
  // SQLite finishes closing a connection only when its statements are finalized).
  const path = join(dir, "last.db");
  const client = await openClient(path);
  const bare = { path, client } as unknown as Storage;
  client.exec("PRAGMA journal_mode = WAL");
  client.exec("CREATE TABLE t (n INTEGER)");
  const c = startCheckpointer(bare, { intervalMs: 20 });
  for (let i = 0; i < 50; i++) client.exec(`INSERT INTO t (n) VALUES (${i})`);
  // The worker's connection is open and has checkpointed.
  while (c.status().passes === 0) await sleep(10);
  expect(existsSync(`${path}-wal`)).toBe(true);
  await c.stop();
  client.close();
  expect(existsSync(`${path}-wal`)).toBe(false);
});

test("every committed row is in the database after stop() and close", async () => {
  const again = await openStorage(file, { migrate: false });
  try {
    const r = again.stmt("SELECT count(*) AS n, min(length(body)) AS lo, max(length(body)) AS hi FROM t").get() as { n: number; lo: number; hi: number };
    expect(r).toEqual({ n: COMMITS, lo: 1024, hi: 1024 });
    expect((again.stmt("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
  } finally {
    again.close();
  }
});

test("a worker that cannot open the database file falls back: SQLite's default checkpointing, logged once", async () => {
  const gone = join(dir, "gone");
  mkdirSync(gone);
  const path = join(gone, "gone.db");
  const s = await openStorage(path, { migrate: false });
  try {
    s.client.exec("CREATE TABLE t (n INTEGER)");
    // The server's connection keeps its open file; the path the worker would open is gone.
    rmSync(gone, { recursive: true, force: true });
    const logged: { level: LogLevel; msg: string; fields?: Record<string, unknown> }[] = [];
    const c = startCheckpointer(s, { log: (level, msg, fields) => logged.push({ level, msg, fields }) });
    expect(autocheckpoint(s)).toBe(SAFETY_NET);
    while (c.status().state !== "failed") await sleep(10);
    expect(autocheckpoint(s)).toBe(DEFAULT_AUTOCHECKPOINT);
    expect(logged).toHaveLength(1);
    expect(logged[0]!.level).toBe("warn");
    expect(String(logged[0]!.fields?.reason)).toContain("does not exist");
    // The server keeps committing on its own connection.
    s.tx(() => s.stmt("INSERT INTO t (n) VALUES (1)").run());
    await c.stop();
    expect(logged).toHaveLength(1);
    expect(autocheckpoint(s)).toBe(DEFAULT_AUTOCHECKPOINT);
  } finally {
    s.close();
  }
});

test("an in-memory database has no WAL: no worker, the connection is left as it is", async () => {
  const s = await openStorage(":memory:", { migrate: false });
  try {
    const c = startCheckpointer(s);
    expect(c.status().state).toBe("stopped");
    expect(autocheckpoint(s)).toBe(DEFAULT_AUTOCHECKPOINT);
    await c.stop();
  } finally {
    s.close();
  }
});
