// The master key: CARAVAN_MASTER_KEY (64 hex or base64 of 32 bytes), or a key file created on first start (mode 0600).
import { existsSync, readFileSync, writeFileSync, chmodSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { hexToBytes, bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import { StorageError } from "../../ports/store.ts";

export class MasterKey {
  private constructor(private readonly key: Uint8Array) {}

  static fromBytes(key: Uint8Array): MasterKey {
    if (key.length !== 32) throw new StorageError("the master key must be 32 bytes");
    return new MasterKey(key);
  }

  /** A subkey for one purpose ("pii", "cursor", "secrets"): keys never serve two purposes. */
  derive(purpose: string): Uint8Array {
    return hkdf(sha256, this.key, undefined, utf8ToBytes(`caravan:${purpose}`), 32);
  }
}

/** 32 key bytes written as 64 hex characters or base64 (a key variable or key file); `from` names the source in the refusal. */
export function parseKeyBytes(text: string, from: string): Uint8Array {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return hexToBytes(t.toLowerCase());
  try {
    const b = base64.decode(t);
    if (b.length === 32) return b;
  } catch {
    /* fall through */
  }
  throw new StorageError(`${from} must be 64 hex characters or base64 of 32 bytes`);
}

export function parseMasterKey(text: string): Uint8Array {
  return parseKeyBytes(text, "CARAVAN_MASTER_KEY");
}

/** Where the master key is read from: CARAVAN_MASTER_KEY, else the key file (CARAVAN_MASTER_KEY_FILE or beside the database). */
export function masterKeySource(dbPath: string, env: Record<string, string | undefined>): { env: true } | { file: string } {
  if (env.CARAVAN_MASTER_KEY) return { env: true };
  return { file: env.CARAVAN_MASTER_KEY_FILE || join(dirname(resolve(dbPath)), "master.key") };
}

/** Resolves the master key for a database path: env first, then `<db dir>/master.key`, created if absent. */
export function loadMasterKey(dbPath: string, env: Record<string, string | undefined>): MasterKey {
  if (env.CARAVAN_MASTER_KEY) return MasterKey.fromBytes(parseMasterKey(env.CARAVAN_MASTER_KEY));
  if (dbPath === ":memory:") return MasterKey.fromBytes(crypto.getRandomValues(new Uint8Array(32)));
  const file = env.CARAVAN_MASTER_KEY_FILE || join(dirname(resolve(dbPath)), "master.key");
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) throw new StorageError(`master key file ${file} must not be readable by others (mode ${mode.toString(8)}; chmod 600)`);
    return MasterKey.fromBytes(parseMasterKey(readFileSync(file, "utf8")));
  }
  const key = crypto.getRandomValues(new Uint8Array(32));
  try {
    writeFileSync(file, bytesToHex(key) + "\n", { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
  } catch (e) {
    throw new StorageError(`cannot create master key file ${file}: ${(e as Error).message}`);
  }
  return MasterKey.fromBytes(key);
}
