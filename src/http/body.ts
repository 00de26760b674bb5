// Request bodies: at most 65,536 bytes, counted while streaming (never read whole first), JSON nested at most 32 deep, no NUL.
import { decodeJsonLimited, MAX_JSON_DEPTH, readBodyCapped } from "../adapters/net/read.ts";
import { apiError } from "../domain/errors.ts";

export const MAX_BODY_BYTES = 65_536;

/** Refuses by the declared length before a byte is read. */
export function checkDeclaredLength(req: Request): void {
  const len = req.headers.get("content-length");
  if (len !== null && /^\d+$/.test(len) && Number(len) > MAX_BODY_BYTES) throw apiError("BODY_TOO_LARGE");
}

async function readLimited(req: Request): Promise<Uint8Array> {
  // The provider callbacks read theirs with the same reader (256 KiB).
  const bytes = await readBodyCapped(req, MAX_BODY_BYTES);
  if (bytes === null) throw apiError("BODY_TOO_LARGE");
  return bytes;
}

function hasNul(v: unknown): boolean {
  if (typeof v === "string") return v.includes("\u0000");
  if (Array.isArray(v)) return v.some(hasNul);
  if (v && typeof v === "object") return Object.entries(v).some(([k, x]) => k.includes("\u0000") || hasNul(x));
  return false;
}

/** The parsed JSON body; `undefined` when the request has no body. */
export async function readJsonBody(req: Request): Promise<unknown> {
  checkDeclaredLength(req);
  const bytes = await readLimited(req);
  if (bytes.byteLength === 0) return undefined;
  const r = decodeJsonLimited(bytes);
  if (!r.ok) {
    if (r.reason === "not_utf8") throw apiError("INVALID_JSON", { message: "The request body is not valid UTF-8 JSON" });
    if (r.reason === "too_deep") throw apiError("INVALID_JSON", { message: `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` });
    throw apiError("INVALID_JSON");
  }
  // JSON text can only carry NUL as the escape \u0000: without one, the value has none (no walk needed).
  if (r.text!.includes("\\u0000") && hasNul(r.value)) throw apiError("VALIDATION_ERROR", { message: "Text in the body must not contain a NUL character (U+0000)" });
  return r.value;
}
