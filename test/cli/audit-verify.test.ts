// `caravan audit verify` as a program, on copies of one real database that are then tampered with the way someone
// holding the file could (triggers dropped first): each tampering fails with exit 1 naming the first bad leaf index or
// checkpoint; the untouched copy passes. Checkpoints kept outside (a file) and the trusted public key are passed as an
// auditor would. Entries are written through the real audit repository, sealed and signed by `caravan audit checkpoint`.
import { describe, expect, test, beforeAll, setDefaultTimeout } from "bun:test";
import { copyFileSync, existsSync, writeFileSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { AuditLog } from "../../src/adapters/storage/repos/audit.ts";
import { runCli, startServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { withDb } from "../support/db.ts";
import { tempDir } from "../support/tmp.ts";
import { ENTRY_FIELDS_V1 } from "../../src/domain/audit-tree.ts";

// CLI processes on a shared 2-core machine (one test runs three in a row): a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir("caravan-audit-verify-");
const db = join(dir, "caravan.db");
const kept = join(dir, "kept.checkpoint");
let publicKey = "";
let origin = "";

async function record(n: number, from: number): Promise<void> {
  const s = await openStorage(db);
  try {
    const log = new AuditLog(s);
    await s.transaction(async () => {
      for (let i = from; i < from + n; i++)
        await log.record(
          { companyId: "cmp_default", environment: "live", actor: { type: "system" }, action: "test.recorded", entityType: "Thing", entityId: `thing_${i}`, detail: { n: i } },
          Date.parse("2026-12-01T00:00:00.000Z") + i,
        );
    });
  } finally {
    s.close();
  }
}

async function checkpoint(): Promise<string> {
  const r = await runCliInProcess(["audit", "checkpoint", "--env", "live"], { CARAVAN_DB: db });
  expect(r.code).toBe(0);
  return r.stdout.replace(/\n*$/, "\n");
}

/** A copy of the database, changed by `tamper` with its append-only triggers dropped. */
function copyWith(name: string, tamper: (sql: (q: string, ...a: (string | number | null)[]) => void) => void): string {
  const file = join(dir, `${name}.db`);
  copyFileSync(db, file);
  withDb(file, (d) => {
    for (const t of ["audit_log_no_update", "audit_log_no_delete", "audit_leaves_no_update", "audit_leaves_no_delete", "audit_tree_nodes_no_delete", "audit_checkpoints_no_update", "audit_checkpoints_no_delete"])
      d.exec(`DROP TRIGGER IF EXISTS ${t}`);
    tamper((q, ...a) => d.prepare(q).run(...a));
  });
  return file;
}

const verify = (file: string, ...extra: string[]) => runCli(["audit", "verify", "--db", file, "--public-key", publicKey, "--checkpoint", kept, ...extra], { CARAVAN_DB: db });
const seqOfLeaf = (file: string, i: number) =>
  withDb(file, (d) => (d.prepare("SELECT entry_seq FROM audit_leaves WHERE log_id = 'cmp_default/live' AND leaf_index = ?").get(i) as { entry_seq: number }).entry_seq);

beforeAll(async () => {
  // Migrations first (the company row and its audit entries), then 20 entries of our own.
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  await record(10, 0);
  writeFileSync(kept, await checkpoint());
  await record(10, 10);
  await checkpoint();
  const keys = JSON.parse((await runCliInProcess(["audit", "public-key", "--json"], { CARAVAN_DB: db })).stdout);
  publicKey = keys[0].publicKey;
  origin = readFileSync(kept, "utf8").split("\n")[0];
  // The live log is exactly our 20 entries (companies and members made nothing here), leaves 0..19.
  expect(withDb(db, (d) => (d.prepare("SELECT size FROM audit_trees WHERE log_id = 'cmp_default/live'").get() as { size: number }).size)).toBe(20);
}, 60_000);

describe("the leaf encoding covers the whole entry", () => {
  test("every column of audit_log but its row number is a field of the encoding (a new column needs a new version)", () => {
    const columns = withDb(db, (d) => (d.prepare("PRAGMA table_info(audit_log)").all() as { name: string }[]).map((c) => c.name));
    expect(columns.filter((c) => c !== "seq").sort()).toEqual([...ENTRY_FIELDS_V1].sort());
  });
});

describe("caravan audit verify", () => {
  test("an untouched log passes: every leaf, both checkpoints and the kept one, with time per million entries", async () => {
    const r = await verify(db);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${origin}: 20 leaves, 3 checkpoint(s) verified`);
    expect(r.stdout).toMatch(/ok: 20 entries and 3 checkpoints verified in [0-9.]+ s \([0-9.]+ s per million entries\)/);
  });

  test("one entry's field edited: fails at that leaf", async () => {
    const file = copyWith("edited", (sql) => sql("UPDATE audit_log SET detail = '{\"n\":99}' WHERE seq = ?", seqOfLeaf(db, 7)));
    const r = await verify(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`audit log verification failed: leaf 7 of ${origin}: entry `);
    expect(r.stderr).toContain("does not match its leaf hash");
  });

  test("one entry deleted: fails at its leaf", async () => {
    const file = copyWith("deleted", (sql) => sql("DELETE FROM audit_log WHERE seq = ?", seqOfLeaf(db, 4)));
    const r = await verify(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`leaf 4 of ${origin}: its entry (seq`);
  });

  test("one entry deleted with its leaf: fails at the gap", async () => {
    const file = copyWith("deleted-leaf", (sql) => {
      const seq = seqOfLeaf(db, 12);
      sql("DELETE FROM audit_leaves WHERE entry_seq = ?", seq);
      sql("DELETE FROM audit_log WHERE seq = ?", seq);
    });
    const r = await verify(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`leaf 12 of ${origin}: missing (the next leaf is 13)`);
  });

  test("the last entries removed with their leaves, nodes and checkpoints (truncation): the kept checkpoint names it", async () => {
    const file = copyWith("truncated", (sql) => {
      for (let i = 10; i < 20; i++) {
        const seq = seqOfLeaf(db, i);
        sql("DELETE FROM audit_leaves WHERE entry_seq = ?", seq);
        sql("DELETE FROM audit_log WHERE seq = ?", seq);
      }
      sql("DELETE FROM audit_tree_nodes WHERE log_id = 'cmp_default/live' AND idx * (1 << level) + (1 << level) > 10");
      sql("DELETE FROM audit_checkpoints WHERE log_id = 'cmp_default/live' AND tree_size > 10");
      sql("UPDATE audit_trees SET size = 10 WHERE log_id = 'cmp_default/live'");
    });
    // The database alone is consistent again (nothing in it remembers the removed end)...
    const alone = await runCli(["audit", "verify", "--db", file, "--public-key", publicKey], { CARAVAN_DB: db });
    expect(alone.code).toBe(0);
    // ...but not with the size-20 checkpoint an auditor kept from before the removal.
    const later = join(dir, "later.checkpoint");
    writeFileSync(later, withDb(db, (d) => (d.prepare("SELECT note FROM audit_checkpoints WHERE log_id = 'cmp_default/live' AND tree_size = 20").get() as { note: string }).note));
    const r = await verify(file, "--checkpoint", later);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`checkpoint 20 of ${origin} (${later}): signs 20 entries but the log has 10`);
  });

  test("two entries swapped: fails at the first of them", async () => {
    const file = copyWith("swapped", (sql) => {
      const a = seqOfLeaf(db, 2);
      const b = seqOfLeaf(db, 5);
      sql("UPDATE audit_log SET seq = -1 WHERE seq = ?", a);
      sql("UPDATE audit_log SET seq = ? WHERE seq = ?", a, b);
      sql("UPDATE audit_log SET seq = ? WHERE seq = -1", b);
    });
    const r = await verify(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`leaf 2 of ${origin}: entry `);
  });

  test("the whole log replaced and signed again with another key: no checkpoint is signed by the trusted key", async () => {
    const file = copyWith("replaced", (sql) => {
      sql("UPDATE audit_log SET detail = '{\"rewritten\":true}'");
      for (const t of ["audit_leaves", "audit_tree_nodes", "audit_checkpoints", "audit_trees", "audit_signing_keys"]) sql(`DELETE FROM ${t}`);
    });
    // The intruder's own key file and a fresh sealing and signing of the rewritten entries.
    const other = join(dir, "intruder.key");
    writeFileSync(other, `${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}\n`, { mode: 0o600 });
    const signed = await runCli(["audit", "checkpoint"], { CARAVAN_DB: file, CARAVAN_AUDIT_SIGNING_KEY_FILE: other });
    expect(signed.stderr).toBe("");
    expect(signed.code).toBe(0);
    const intruderKey = JSON.parse((await runCli(["audit", "public-key", "--json"], { CARAVAN_DB: file })).stdout)[0].publicKey;
    expect(intruderKey).not.toBe(publicKey);
    const sealedAgain = await runCli(["audit", "verify", "--db", file], { CARAVAN_DB: file });
    // Trusting only what the file lists, it looks whole: that is why the auditor passes the key they hold.
    expect(sealedAgain.code).toBe(0);
    const r = await runCli(["audit", "verify", "--db", file, "--public-key", publicKey], { CARAVAN_DB: db });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/checkpoint \d+ of .*: not signed by a trusted key/);
  }, 30_000);

  test("a checkpoint's signed size or root changed: its signature fails, named by the checkpoint", async () => {
    const note = withDb(db, (d) => (d.prepare("SELECT note FROM audit_checkpoints WHERE log_id = 'cmp_default/live' AND tree_size = 20").get() as { note: string }).note);
    const sized = copyWith("size-changed", (sql) => sql("UPDATE audit_checkpoints SET note = ? WHERE log_id = 'cmp_default/live' AND tree_size = 20", note.replace("\n20\n", "\n19\n")));
    const r1 = await verify(sized);
    expect(r1.code).toBe(1);
    expect(r1.stderr).toContain(`checkpoint 20 of ${origin}: the signature of key`);
    const lines = note.split("\n");
    lines[2] = Buffer.from(new Uint8Array(32).fill(7)).toString("base64");
    const rooted = copyWith("root-changed", (sql) => sql("UPDATE audit_checkpoints SET note = ? WHERE log_id = 'cmp_default/live' AND tree_size = 20", lines.join("\n")));
    const r2 = await verify(rooted);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(`checkpoint 20 of ${origin}: the signature of key`);
    const column = copyWith("size-column", (sql) => sql("UPDATE audit_checkpoints SET tree_size = 15 WHERE log_id = 'cmp_default/live' AND tree_size = 20"));
    const r3 = await verify(column);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain(`checkpoint 15 of ${origin}: its stored tree size 15 is not the signed size 20`);
  });

  test("a kept checkpoint with a changed root fails by name", async () => {
    const lines = readFileSync(kept, "utf8").split("\n");
    lines[2] = Buffer.from(new Uint8Array(32).fill(9)).toString("base64");
    const bad = join(dir, "bad.checkpoint");
    writeFileSync(bad, lines.join("\n"));
    const r = await runCli(["audit", "verify", "--db", db, "--public-key", publicKey, "--checkpoint", bad], { CARAVAN_DB: db });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`checkpoint 10 of ${origin} (${bad}): the signature of key`);
  });
});

describe("the signing key", () => {
  test("rotation: the old public key stays listed, the transition checkpoint carries both signatures, the old key alone stops trusting after it", async () => {
    const rdir = tempDir("caravan-audit-rotate-");
    const rdb = join(rdir, "r.db");
    expect((await runCliInProcess(["members", "create", "--email", "first@example.com", "--role", "analyst"], { CARAVAN_DB: rdb })).code).toBe(0);
    expect((await runCliInProcess(["audit", "checkpoint"], { CARAVAN_DB: rdb })).code).toBe(0);
    const before = JSON.parse((await runCliInProcess(["audit", "public-key", "--json"], { CARAVAN_DB: rdb })).stdout);
    expect(before).toHaveLength(1);
    const r = await runCliInProcess(["audit", "rotate-key", "--json"], { CARAVAN_DB: rdb });
    expect(r.code).toBe(0);
    const rotated = JSON.parse(r.stdout);
    expect(rotated.retired).toBe(before[0].keyId);
    expect(rotated.checkpoints).toBeGreaterThan(0);
    const after = JSON.parse((await runCliInProcess(["audit", "public-key", "--json"], { CARAVAN_DB: rdb })).stdout) as { keyId: string; publicKey: string; retiredAt: string | null }[];
    expect(after.map((k) => [k.keyId, k.retiredAt === null])).toEqual([
      [before[0].keyId, false],
      [rotated.active, true],
    ]);
    // The key file now holds the new key (0600), and the transition checkpoint is signed by both.
    expect(statSync(join(rdir, "audit-signing.key")).mode & 0o777).toBe(0o600);
    const latest = withDb(rdb, (d) => (d.prepare("SELECT note FROM audit_checkpoints ORDER BY created_at DESC, tree_size DESC LIMIT 1").get() as { note: string }).note);
    expect(latest.split("\n").filter((l) => l.startsWith("— "))).toHaveLength(2);
    const oldKey = before[0].publicKey;
    const newKey = rotated.publicKey;
    // Both keys trusted: everything verifies. The old key alone: still fine up to the transition...
    expect((await runCli(["audit", "verify", "--db", rdb, "--public-key", oldKey, "--public-key", newKey], { CARAVAN_DB: rdb })).code).toBe(0);
    expect((await runCli(["audit", "verify", "--db", rdb, "--public-key", oldKey], { CARAVAN_DB: rdb })).code).toBe(0);
    // ...and a checkpoint signed by the new key alone afterwards is not trusted by the old key.
    await (async () => {
      const s = await openStorage(rdb);
      try {
        await new AuditLog(s).record({ companyId: "cmp_default", environment: "test", actor: { type: "system" }, action: "test.after", entityType: "Thing", entityId: "t" }, Date.now());
      } finally {
        s.close();
      }
    })();
    expect((await runCliInProcess(["audit", "checkpoint"], { CARAVAN_DB: rdb })).code).toBe(0);
    const onlyOld = await runCli(["audit", "verify", "--db", rdb, "--public-key", oldKey], { CARAVAN_DB: rdb });
    expect(onlyOld.code).toBe(1);
    expect(onlyOld.stderr).toContain("not signed by a trusted key");
    // The new key alone does not vouch for the checkpoints signed before it: an auditor passes both keys.
    const onlyNew = await runCli(["audit", "verify", "--db", rdb, "--public-key", newKey], { CARAVAN_DB: rdb });
    expect(onlyNew.code).toBe(1);
    expect(onlyNew.stderr).toContain("not signed by a trusted key");
    expect((await runCli(["audit", "verify", "--db", rdb, "--public-key", oldKey, "--public-key", newKey], { CARAVAN_DB: rdb })).code).toBe(0);
  }, 60_000);

  test("a database that lists a signing key starts without its key file (or with another key) but signs nothing until the key is back", async () => {
    const kdir = tempDir("caravan-audit-key-");
    const kdb = join(kdir, "k.db");
    expect((await runCliInProcess(["members", "create", "--email", "k@example.com", "--role", "analyst"], { CARAVAN_DB: kdb })).code).toBe(0);
    expect((await runCliInProcess(["audit", "checkpoint"], { CARAVAN_DB: kdb })).code).toBe(0);
    const keyFile = join(kdir, "audit-signing.key");
    const original = readFileSync(keyFile, "utf8");
    const count = () => withDb(kdb, (d) => (d.prepare("SELECT count(*) AS n FROM audit_checkpoints").get() as { n: number }).n);
    const signed = count();
    rmSync(keyFile);
    // The CLI refuses to sign, naming the file.
    const cli = await runCliInProcess(["audit", "checkpoint"], { CARAVAN_DB: kdb });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`the key file ${keyFile} is missing`);
    // The server starts, says why it signs nothing, and makes no key of its own.
    const S = await startServer({ CARAVAN_DB: kdb, CARAVAN_AUDIT_CHECKPOINT_SECONDS: "1", CARAVAN_LOG: "warn" });
    try {
      expect(await S.untilOutput("no audit checkpoint is signed until the key file is put back")).toContain(keyFile);
      expect(existsSync(keyFile)).toBe(false);
      // Another key in its place is not taken either.
      writeFileSync(keyFile, `${"ab".repeat(32)}\n`, { mode: 0o600 });
      expect((await runCliInProcess(["audit", "checkpoint"], { CARAVAN_DB: kdb })).stderr).toContain("is not the database's active key");
      // The original back: the server signs again at its next checkpoint (a new entry makes the logs grow).
      writeFileSync(keyFile, original, { mode: 0o600 });
      expect((await runCliInProcess(["members", "create", "--email", "k2@example.com", "--role", "analyst"], { CARAVAN_DB: kdb })).code).toBe(0);
      const deadline = Date.now() + 30_000;
      while (count() === signed && Date.now() < deadline) await Bun.sleep(100);
      expect(count()).toBeGreaterThan(signed);
    } finally {
      await S.stop();
    }
  }, 60_000);
});
