// Passphrases are kept only as a slow hash: scrypt (RFC 7914) through the runtime's native implementation
// (`node:crypto`, in Bun and Deno, off the event loop), compared in constant time.
import * as nodeCrypto from "node:crypto";
import { promisify } from "node:util";
import { Buffer } from "node:buffer";

const scrypt = promisify(nodeCrypto.scrypt) as (pw: string | Uint8Array, salt: Uint8Array, len: number, o: nodeCrypto.ScryptOptions) => Promise<Buffer>;

/** Cost of new hashes: N = 2^15, r = 8, p = 1 (32 MiB; 120-155 ms a check measured on the loaded 2-core machine); stored with each hash. */
export const SCRYPT_DEFAULT = { logN: 15, r: 8, p: 1 } as const;
const LEN = 32;

async function derive(passphrase: string, salt: Uint8Array, logN: number, r: number, p: number): Promise<Uint8Array> {
  const N = 2 ** logN;
  return new Uint8Array(await scrypt(passphrase.normalize("NFKC"), salt, LEN, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }));
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64). */
export async function hashPassphrase(passphrase: string, cost: { logN: number; r: number; p: number } = SCRYPT_DEFAULT): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const h = await derive(passphrase, salt, cost.logN, cost.r, cost.p);
  return `scrypt$${cost.logN}$${cost.r}$${cost.p}$${b64(salt)}$${b64(h)}`;
}

/** A hash of nothing anyone knows, checked when no member matches so that both answers take the same time. */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassphrase(Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64"));
  return decoy;
}

export async function verifyPassphrase(passphrase: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number);
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20) return false;
  const salt = new Uint8Array(Buffer.from(parts[4], "base64"));
  const want = new Uint8Array(Buffer.from(parts[5], "base64"));
  const got = await derive(passphrase, salt, logN, r, p);
  return got.length === want.length && nodeCrypto.timingSafeEqual(got, want);
}
