// Reading a body of at most `max` bytes, counted while it streams in (never read whole first, whatever length was
// declared), and parsing it as JSON behind a nesting limit: the one reader of the API, the provider callbacks, every
// provider and screening client and the FX sources.

/** The bytes, or null once they pass `max` (the stream is then cancelled, not read further). */
export async function readStreamCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * A request's or response's body, or null when it is larger than `max` bytes. A body whose declared length is within
 * `max` and that is not content-encoded is framed by that length, so it is read in one piece (checked again); a
 * compressed one is decompressed as it is read, so only the stream can count it.
 */
export async function readBodyCapped(m: Request | Response, max: number): Promise<Uint8Array | null> {
  const declared = m.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared)) {
    if (Number(declared) > max) return null;
    const encoding = m.headers.get("content-encoding");
    if (encoding === null || encoding === "identity") {
      const whole = new Uint8Array(await m.arrayBuffer());
      return whole.byteLength > max ? null : whole;
    }
  }
  return readStreamCapped(m.body, max);
}

/** A response's body as text (UTF-8), or null when it is larger than `max` bytes. */
export async function readTextCapped(res: Response, max: number): Promise<string | null> {
  const bytes = await readBodyCapped(res, max);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/**
 * The deepest nesting of arrays and objects any untrusted JSON may have: 32 levels (the API's own bodies need at most
 * six; IVMS101, the deepest shape we read, about ten). Deeper text is refused before it is parsed: each level costs
 * every later walk (validation, canonicalisation, copies) stack and time, and a few megabytes of `[` stall a process.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests arrays and objects deeper than `max`. One pass over the characters: brackets inside strings
 * are text (skipped with indexOf), everything else is left to JSON.parse. Linear and allocation-free.
 */
export function jsonTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped (an odd run of backslashes before it escapes it).
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return false; // unterminated: JSON.parse refuses it
        let slashes = 0;
        while (text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++;
        i = q;
        if ((slashes & 1) === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Why a body is not JSON we read: over the byte cap, not UTF-8, not JSON, or nested deeper than the limit. */
export type JsonRefusal = "too_large" | "not_utf8" | "not_json" | "too_deep";

export type JsonParsed = { ok: true; value: unknown } | { ok: false; reason: Exclude<JsonRefusal, "too_large"> };

/** JSON.parse behind the nesting limit: the one parse of untrusted JSON text (API bodies, callbacks, provider answers). */
export function parseJsonLimited(text: string, maxDepth: number = MAX_JSON_DEPTH): JsonParsed {
  if (jsonTooDeep(text, maxDepth)) return { ok: false, reason: "too_deep" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: "not_json" };
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 bytes (strict: a malformed sequence is refused, not replaced) parsed behind the nesting limit. */
export function decodeJsonLimited(bytes: Uint8Array, maxDepth: number = MAX_JSON_DEPTH): JsonParsed & { text?: string } {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { ok: false, reason: "not_utf8" };
  }
  const r = parseJsonLimited(text, maxDepth);
  return r.ok ? { ok: true, value: r.value, text } : r;
}

export type JsonRead =
  | { ok: true; value: unknown; bytes: Uint8Array; text: string }
  | { ok: false; reason: JsonRefusal; bytes?: Uint8Array };

/**
 * A request's or response's JSON body: at most `maxBytes` (counted as it streams, see readBodyCapped), strict UTF-8,
 * at most `maxDepth` levels of nesting, parsed once. The raw bytes come back too (signatures are computed over them).
 * An empty body is `not_json`; callers that allow none check `bytes.byteLength` on the refusal.
 */
export async function readJsonCapped(m: Request | Response, maxBytes: number, maxDepth: number = MAX_JSON_DEPTH): Promise<JsonRead> {
  const bytes = await readBodyCapped(m, maxBytes);
  if (bytes === null) return { ok: false, reason: "too_large" };
  const r = decodeJsonLimited(bytes, maxDepth);
  return r.ok ? { ok: true, value: r.value, bytes, text: r.text! } : { ok: false, reason: r.reason, bytes };
}

/** parseJsonLimited for code written around JSON.parse: throws a SyntaxError for text that is not JSON or too deep. */
export function parseJsonChecked(text: string, maxDepth: number = MAX_JSON_DEPTH): unknown {
  if (jsonTooDeep(text, maxDepth)) throw new SyntaxError(`JSON nested deeper than ${maxDepth} levels`);
  return JSON.parse(text);
}
