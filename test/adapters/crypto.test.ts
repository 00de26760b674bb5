// Encryption at rest and the master key file.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { statSync, writeFileSync, chmodSync } from "node:fs";
import { Sealer, UnreadableError } from "../../src/adapters/crypto/envelope.ts";
import { loadMasterKey, parseMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("sealed text opens with the same key and record, and shows nothing of the plaintext", () => {
  const s = new Sealer(new Uint8Array(32).fill(1));
  const sealed = s.seal("Jane Doe", "customer:cus_1:name");
  expect(sealed).toStartWith("v1:");
  expect(sealed).not.toContain("Jane");
  expect(s.open(sealed, "customer:cus_1:name")).toBe("Jane Doe");
  expect(s.seal("Jane Doe", "x")).not.toBe(s.seal("Jane Doe", "x")); // random nonce
});

test("another record's associated data, another key or a flipped bit cannot be opened", () => {
  const s = new Sealer(new Uint8Array(32).fill(1));
  const sealed = s.seal("Jane Doe", "customer:cus_1:name");
  expect(() => s.open(sealed, "customer:cus_2:name")).toThrow(UnreadableError);
  expect(() => new Sealer(new Uint8Array(32).fill(2)).open(sealed, "customer:cus_1:name")).toThrow(UnreadableError);
  const raw = Buffer.from(sealed.slice(3), "base64");
  raw[raw.length - 1] ^= 1;
  expect(() => s.open("v1:" + raw.toString("base64"), "customer:cus_1:name")).toThrow(UnreadableError);
});

test("the master key file is created on first start with mode 0600 and reused after", () => {
  const db = join(dir, "data", "caravan.db");
  require("node:fs").mkdirSync(join(dir, "data"), { recursive: true });
  const a = loadMasterKey(db, {});
  expect(statSync(join(dir, "data", "master.key")).mode & 0o777).toBe(0o600);
  const b = loadMasterKey(db, {});
  expect(a.derive("pii")).toEqual(b.derive("pii"));
  expect(a.derive("pii")).not.toEqual(a.derive("cursor"));
});

test("a master key file readable by others is refused", () => {
  const file = join(dir, "open.key");
  writeFileSync(file, "00".repeat(32));
  chmodSync(file, 0o644);
  expect(() => loadMasterKey(join(dir, "x.db"), { CARAVAN_MASTER_KEY_FILE: file })).toThrow(/chmod 600/);
});

test("CARAVAN_MASTER_KEY takes 64 hex characters or base64 of 32 bytes", () => {
  expect(parseMasterKey("ab".repeat(32)).length).toBe(32);
  expect(parseMasterKey(Buffer.alloc(32, 5).toString("base64"))).toEqual(new Uint8Array(32).fill(5));
  expect(() => parseMasterKey("short")).toThrow();
});
