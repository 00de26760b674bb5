// Database files are private to their owner: created 0600 (database, WAL, SHM) in a 0700 directory whatever the
// umask, and an existing file readable by others is narrowed to 0600 when the database is opened.
import { test, expect } from "bun:test";
import { chmodSync, statSync } from "node:fs";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { loadMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { tempDir } from "../support/tmp.ts";

const modeOf = (f: string) => (statSync(f).mode & 0o777).toString(8);

test("a new database, its WAL and SHM are created 0600 in a 0700 directory under a permissive umask; the key file 0600", async () => {
  const previous = process.umask(0o022);
  try {
    const dir = join(tempDir(), "data");
    const db = join(dir, "new.db");
    const s = await openStorage(db);
    try {
      s.client.exec("CREATE TABLE IF NOT EXISTS probe (x)");
      s.client.exec("INSERT INTO probe VALUES (1)");
      expect({ db: modeOf(db), wal: modeOf(`${db}-wal`), shm: modeOf(`${db}-shm`), dir: modeOf(dir) }).toEqual({ db: "600", wal: "600", shm: "600", dir: "700" });
    } finally {
      s.close();
    }
    loadMasterKey(db, {});
    expect(modeOf(join(dir, "master.key"))).toBe("600");
  } finally {
    process.umask(previous);
  }
});

test("an existing database and WAL readable by others are narrowed to 0600 on open", async () => {
  const dir = tempDir();
  const db = join(dir, "old.db");
  const first = await openStorage(db);
  try {
    first.client.exec("CREATE TABLE IF NOT EXISTS probe (x)");
    first.client.exec("INSERT INTO probe VALUES (1)");
    // As an older version (or a copy) might have left them.
    chmodSync(db, 0o644);
    chmodSync(`${db}-wal`, 0o644);
    const s = await openStorage(db);
    try {
      expect({ db: modeOf(db), wal: modeOf(`${db}-wal`) }).toEqual({ db: "600", wal: "600" });
    } finally {
      s.close();
    }
  } finally {
    first.close();
  }
});
