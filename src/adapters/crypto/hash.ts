// SHA-256 through the runtime's native implementation (`node:crypto`, in Bun and Deno), @noble where there is none.
import * as nodeCrypto from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

const native = typeof (nodeCrypto as Partial<typeof nodeCrypto>).createHash === "function";

/** Lowercase hex SHA-256 of the UTF-8 text: the same value as `hashKey` in src/domain/keys.ts. */
export function sha256Hex(text: string): string {
  if (native) return nodeCrypto.createHash("sha256").update(text, "utf8").digest("hex");
  return bytesToHex(sha256(utf8ToBytes(text)));
}
