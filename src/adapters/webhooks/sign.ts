// The delivery signature through the runtime's native HMAC (`node:crypto`, in Bun and Deno): the same header as
// `signatureHeader` in src/domain/webhooks.ts (the reference; a test compares the two), without pure-JS SHA-256 on
// every delivery. Falls back to the reference where there is no native HMAC.
import * as nodeCrypto from "node:crypto";
import { SIGNATURE, signatureHeader } from "../../domain/webhooks.ts";

const native = typeof (nodeCrypto as Partial<typeof nodeCrypto>).createHmac === "function";

/** `t=<unix>,alg=hmac-sha256,sig=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret's UTF-8 text>`. */
export function signDelivery(secret: string, t: number, body: string): string {
  if (!native) return signatureHeader(secret, t, body);
  const sig = nodeCrypto.createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest("hex");
  return `t=${t},alg=${SIGNATURE.alg},sig=${sig}`;
}
