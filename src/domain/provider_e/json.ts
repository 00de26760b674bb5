// A bounded JSON reader for provider_e's untrusted bodies: the nesting is measured on the text (one pass, no
// recursion) before `JSON.parse` builds anything, so a body of deeply nested arrays is refused before any signature
// canonicalisation (`JSON.stringify`) or decryption could spend time on it. Pure: no I/O.

/** Deepest nesting of objects and arrays a provider_e body may have (the deepest real message has about 8). */
export const MAX_JSON_DEPTH = 32;

export type BoundedJson = { ok: true; value: unknown } | { ok: false; reason: "depth" | "syntax" };

/** The deepest `{`/`[` nesting of a JSON text, counted outside strings; stops counting once past `limit`. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** Parses a JSON text only when its nesting is at most `maxDepth`. */
export function parseBoundedJson(text: string, maxDepth = MAX_JSON_DEPTH): BoundedJson {
  if (jsonDepth(text, maxDepth) > maxDepth) return { ok: false, reason: "depth" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: "syntax" };
  }
}
