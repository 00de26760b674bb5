// The audit log and its trees on PostgreSQL, where the engine differs from SQLite: the append-only triggers refuse an
// UPDATE, a DELETE and a TRUNCATE of rows that exist (leaves, nodes and checkpoints included); entries written by two
// sessions at once (two processes) commit in seq order, so a sealer running between them passes none by; and the tree
// built here verifies with `caravan audit verify --db postgres://…` (the real program), which also names a tampered
// leaf, as it does on a SQLite file.
import { test, expect, setDefaultTimeout, beforeAll, afterAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { base64 } from "@scure/base";
import { openPostgres, createPgRepositories, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { verifyAuditFile } from "../../src/adapters/storage/audit-verify.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { newSigningKey } from "../../src/adapters/crypto/audit-key.ts";
import { logIdOf } from "../../src/ports/audit-tree.ts";
import type { AuditEntryInput } from "../../src/ports/audit.ts";
import type { Repositories } from "../../src/ports/repositories.ts";
import { AUDIT_APPEND_LOCK } from "../../src/adapters/storage/postgres/repos/audit.ts";
import { KEYS_LOCK, SEAL_LOCK } from "../../src/adapters/storage/postgres/repos/audit-tree.ts";
import { startPostgres } from "../support/postgres.ts";
import { runCli } from "../support/server.ts";

setDefaultTimeout(120_000);

const NOW = Date.parse("2026-12-01T00:00:00.000Z");
const COMPANY = "cmp_default";
const key = newSigningKey();

interface Opened {
  db: PgSession;
  repos: Repositories;
}

let url = "";
const opened: Opened[] = [];

async function open(): Promise<Opened> {
  const db = await openPostgres(url, { readers: 1 });
  const o = { db, repos: createPgRepositories(db, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock: () => NOW }) };
  opened.push(o);
  return o;
}

const entry = (i: number, environment: "test" | "live" = "live"): AuditEntryInput => ({
  companyId: COMPANY,
  environment,
  actor: { type: "system" },
  action: "pg.recorded",
  entityType: "Thing",
  entityId: `thing_${i}`,
  detail: { i },
});

let a: Opened;

beforeAll(async () => {
  url = await (await startPostgres()).createDatabase();
  a = await open();
  await a.repos.auditTrees.adoptKey(key, NOW, "the test");
  await a.db.transaction(async () => {
    for (let i = 0; i < 20; i++) await a.repos.audit.record(entry(i), NOW + i);
  });
  for (let i = 20; i < 40; i++) await a.repos.audit.record(entry(i, i % 2 ? "live" : "test"), NOW + i);
  await a.repos.auditTrees.checkpoint(key, NOW + 1000);
});

afterAll(async () => {
  for (const o of opened) await o.db.close();
});

test("the database has its own ID, and the trees are named after it", async () => {
  const [meta] = await a.db.read<{ value: string }>("SELECT value FROM database_meta WHERE key = 'database_id'");
  expect(meta!.value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect((await a.repos.auditTrees.tree(logIdOf(COMPANY, "live")))!.origin).toBe(`caravan/${meta!.value}/audit/${COMPANY}/live`);
});

test("UPDATE, DELETE and TRUNCATE of the audit tables fail, rows and all; nothing changed", async () => {
  const before = await a.db.read<{ t: string; n: number }>(
    "SELECT 'log' AS t, count(*) AS n FROM audit_log UNION ALL SELECT 'leaves', count(*) FROM audit_leaves UNION ALL SELECT 'nodes', count(*) FROM audit_tree_nodes UNION ALL SELECT 'checkpoints', count(*) FROM audit_checkpoints",
  );
  // Each table holds rows, so a row trigger has something to refuse (a tree of 30 leaves has a node of 16).
  for (const r of before) expect(r.n).toBeGreaterThan(0);
  const tables: [string, string][] = [
    ["audit_log", "action = 'x'"],
    ["audit_leaves", "leaf_index = leaf_index + 1000"],
    ["audit_tree_nodes", "idx = idx + 1000"],
    ["audit_checkpoints", "note = 'x'"],
  ];
  for (const [t, set] of tables) {
    await expect(a.db.q(`UPDATE ${t} SET ${set}`)).rejects.toThrow(`${t} is append-only`);
    await expect(a.db.q(`DELETE FROM ${t}`)).rejects.toThrow(`${t} is append-only`);
    await expect(a.db.q(`TRUNCATE ${t}`)).rejects.toThrow(`${t} is append-only`);
    await expect(a.db.q(`TRUNCATE ${t} CASCADE`)).rejects.toThrow(`${t} is append-only`);
  }
  const after = await a.db.read<{ t: string; n: number }>(
    "SELECT 'log' AS t, count(*) AS n FROM audit_log UNION ALL SELECT 'leaves', count(*) FROM audit_leaves UNION ALL SELECT 'nodes', count(*) FROM audit_tree_nodes UNION ALL SELECT 'checkpoints', count(*) FROM audit_checkpoints",
  );
  expect(after).toEqual(before);
});

test("a checkpoint is announced by its tenant's audit.checkpoint event carrying the checkpoint's view", async () => {
  const trees = a.repos.auditTrees;
  const logId = logIdOf(COMPANY, "live");
  const cp = (await trees.latest(logId))!;
  const [ev] = await a.db.read<{ type: string; entity_id: string; data: string; company_id: string; environment: string }>(
    "SELECT type, entity_id, data, company_id, environment FROM events WHERE type = 'audit.checkpoint' AND company_id = $1 AND environment = 'live' ORDER BY seq DESC LIMIT 1",
    [COMPANY],
  );
  expect(ev).toMatchObject({ type: "audit.checkpoint", company_id: COMPANY, environment: "live", entity_id: (await trees.tree(logId))!.origin });
  expect(JSON.parse(ev!.data)).toEqual(await trees.view(cp));
});

test("the appends', the sealer's and the keys' advisory locks are three locks (exact integers, all different)", () => {
  const keys = [AUDIT_APPEND_LOCK, SEAL_LOCK, KEYS_LOCK];
  for (const k of keys) expect(Number.isSafeInteger(k)).toBe(true);
  expect(new Set(keys).size).toBe(3);
});

/** Whether a session of this database waits for an advisory lock. */
async function someoneWaits(db: PgSession): Promise<boolean> {
  return (await db.read("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")).length > 0;
}

test("two sessions writing at once commit in seq order: a sealer between them passes no entry by", async () => {
  const b = await open();
  const c = await open();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let first = "";
  // A: an entry in a transaction that stays open.
  let recorded!: () => void;
  const inside = new Promise<void>((r) => (recorded = r));
  const aDone = a.db.transaction(async () => {
    first = await a.repos.audit.record(entry(100), NOW + 100);
    recorded();
    await held;
  });
  await inside;
  // B: another entry, from another session, while A is open.
  let bDone = false;
  const bWrite = b.repos.audit.record(entry(101), NOW + 101).then((id) => ((bDone = true), id));
  // B either waits for A (the entries commit in seq order) or has committed already.
  while (!bDone && !(await someoneWaits(c.db))) await Bun.sleep(5);
  // A sealer (a third session) runs between them: it may seal only what is committed.
  await c.repos.auditTrees.sealAll();
  release();
  await aDone;
  const second = await bWrite;
  await c.repos.auditTrees.sealAll();
  const seqOf = async (id: string) => (await a.repos.audit.get(COMPANY, "live", id))!.seq;
  const [s1, s2] = [await seqOf(first), await seqOf(second)];
  expect(s2).toBeGreaterThan(s1);
  const [l1, l2] = [await c.repos.auditTrees.leafOf(s1), await c.repos.auditTrees.leafOf(s2)];
  expect(l1).toBeDefined();
  expect(l2).toBeDefined();
  expect(l2!.leafIndex).toBe(l1!.leafIndex + 1);
  await a.repos.auditTrees.checkpoint(key, NOW + 2000);
});

test("the tree built on PostgreSQL verifies: in process and with `caravan audit verify --db postgres://…`", async () => {
  const direct = await verifyAuditFile(url, { trusted: [key.publicKey], kept: [] });
  expect(direct.failure).toBeUndefined();
  expect(direct.ok).toBe(true);
  const live = direct.logs.find((l) => l.origin.endsWith(`/audit/${COMPANY}/live`))!;
  expect(live).toMatchObject({ leaves: 32, checkpoints: 2, unsealed: 0 });
  expect(direct.entries).toBe((await a.db.read<{ n: number }>("SELECT count(*) AS n FROM audit_log"))[0]!.n);

  const r = await runCli(["audit", "verify", "--db", url, "--public-key", base64.encode(key.publicKey)]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`${live.origin}: 32 leaves, 2 checkpoint(s) verified`);
  expect(r.stdout).toMatch(/^ok: \d+ entries and \d+ checkpoints verified/m);
  // A key it does not hold: every checkpoint is refused.
  const other = await verifyAuditFile(url, { trusted: [newSigningKey().publicKey], kept: [] });
  expect(other.ok).toBe(false);
  expect(other.failure).toContain("not signed by a trusted key");
});

test("an entry edited after sealing (its trigger dropped first): verify names its leaf", async () => {
  const logId = logIdOf(COMPANY, "live");
  const [leaf] = await a.db.read<{ entry_seq: number }>("SELECT entry_seq FROM audit_leaves WHERE log_id = $1 AND leaf_index = 7", [logId]);
  await a.db.exec("DROP TRIGGER audit_log_no_update ON audit_log");
  await a.db.q("UPDATE audit_log SET detail = '{\"i\":99}' WHERE seq = $1", [leaf!.entry_seq]);
  const origin = (await a.repos.auditTrees.tree(logId))!.origin;
  const r = await runCli(["audit", "verify", "--db", url, "--public-key", base64.encode(key.publicKey)]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`audit log verification failed: leaf 7 of ${origin}: entry `);
  expect(r.stderr).toContain("does not match its leaf hash");
  expect(r.stderr).not.toContain(new URL(url).password || "\u0000");
});
