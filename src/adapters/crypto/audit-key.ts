// The audit checkpoint signing key: a dedicated Ed25519 key (never the master key), kept as the master key is:
// CARAVAN_AUDIT_SIGNING_KEY (64 hex or base64 of the 32-byte seed), or a key file beside the database
// (`audit-signing.key`, or CARAVAN_AUDIT_SIGNING_KEY_FILE), created on first start with mode 0600. Rotation writes a
// new file in place (a temporary file renamed over the old one); the public halves stay listed in the database.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync, chmodSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { publicKeyOf } from "../../domain/audit-tree.ts";
import { StorageError } from "../../ports/store.ts";
import { parseKeyBytes } from "./master-key.ts";

export interface AuditSigningKey {
  /** 32-byte Ed25519 seed (RFC 8032 private key). */
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  /** Caravan's own short name for the key: hex of the first 8 bytes of SHA-256(public key). */
  readonly keyId: string;
}

export function signingKeyFromSeed(seed: Uint8Array): AuditSigningKey {
  if (seed.length !== 32) throw new StorageError("the audit signing key must be 32 bytes");
  const publicKey = publicKeyOf(seed);
  return { seed, publicKey, keyId: publicKeyId(publicKey) };
}

export function publicKeyId(publicKey: Uint8Array): string {
  return bytesToHex(sha256(publicKey).slice(0, 8));
}

/** Where the key is read from: the environment variable, else the key file. */
export function auditKeySource(dbPath: string, env: Record<string, string | undefined>): { env: true } | { file: string } {
  if (env.CARAVAN_AUDIT_SIGNING_KEY) return { env: true };
  return { file: env.CARAVAN_AUDIT_SIGNING_KEY_FILE || join(dirname(resolve(dbPath)), "audit-signing.key") };
}

/** The key if there is one (the variable, or an existing file), without creating it. */
export function readAuditKey(dbPath: string, env: Record<string, string | undefined>): AuditSigningKey | null {
  if (env.CARAVAN_AUDIT_SIGNING_KEY) return signingKeyFromSeed(parseKeyBytes(env.CARAVAN_AUDIT_SIGNING_KEY, "CARAVAN_AUDIT_SIGNING_KEY"));
  if (dbPath === ":memory:") return null;
  const { file } = auditKeySource(dbPath, env) as { file: string };
  if (!existsSync(file)) return null;
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) throw new StorageError(`audit signing key file ${file} must not be readable by others (mode ${mode.toString(8)}; chmod 600)`);
  return signingKeyFromSeed(parseKeyBytes(readFileSync(file, "utf8"), `the audit signing key file ${file}`));
}

/** Writes a new key file (mode 0600) in place of any old one: a temporary file renamed over it. */
export function writeAuditKeyFile(file: string, seed: Uint8Array): void {
  const tmp = `${file}.new-${process.pid}`;
  try {
    writeFileSync(tmp, bytesToHex(seed) + "\n", { mode: 0o600, flag: "wx" });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new StorageError(`cannot write the audit signing key file ${file}: ${(e as Error).message}`);
  }
}

/** The key, made on first use (a file database without the variable). An in-memory database gets a throwaway key. */
export function loadAuditKey(dbPath: string, env: Record<string, string | undefined>): AuditSigningKey {
  const found = readAuditKey(dbPath, env);
  if (found) return found;
  const seed = crypto.getRandomValues(new Uint8Array(32));
  if (dbPath !== ":memory:") writeAuditKeyFile((auditKeySource(dbPath, env) as { file: string }).file, seed);
  return signingKeyFromSeed(seed);
}

export function newSigningKey(): AuditSigningKey {
  return signingKeyFromSeed(crypto.getRandomValues(new Uint8Array(32)));
}
