// SHA-256 and HMAC-SHA256 through the runtime's native implementation (`node:crypto`, in Bun and Deno), @noble where
// there is none.
import * as nodeCrypto from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { hmac } from "@noble/hashes/hmac.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { useSha256 } from "../../domain/audit-tree.ts";

const native = typeof (nodeCrypto as Partial<typeof nodeCrypto>).createHash === "function";

/** Lowercase hex SHA-256 of the UTF-8 text (or of the bytes): the same value as `hashKey` in src/domain/keys.ts. */
export function sha256Hex(data: string | Uint8Array): string {
  if (native) return (typeof data === "string" ? nodeCrypto.createHash("sha256").update(data, "utf8") : nodeCrypto.createHash("sha256").update(data)).digest("hex");
  return bytesToHex(sha256(typeof data === "string" ? utf8ToBytes(data) : data));
}

const nativeHmac = typeof (nodeCrypto as Partial<typeof nodeCrypto>).createHmac === "function";

/** HMAC-SHA256 of the bytes under the key: the same bytes as @noble's `hmac(sha256, key, data)` (the reference). */
export function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (nativeHmac) return new Uint8Array(nodeCrypto.createHmac("sha256", key).update(data).digest());
  return hmac(sha256, key, data);
}

/** SHA-256 of the parts concatenated, native: what the audit trees hash leaves and nodes with (installed below). */
export function sha256Parts(...parts: Uint8Array[]): Uint8Array {
  const h = nodeCrypto.createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

if (native) useSha256(sha256Parts);
