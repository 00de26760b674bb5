// Opaque, tamper-evident list cursors: base64url(JSON position) + "." + HMAC-SHA256 tag under a server key.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64urlnopad } from "@scure/base";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { constantTimeEqual } from "./keys.ts";

export interface CursorPosition {
  /** Which list handed it out, with the filters that shape its order: a cursor never crosses lists. */
  list: string;
  /** Keyset position: the sort key values of the last item of the page. */
  after: (string | number)[];
}

function tag(key: Uint8Array, payload: string): string {
  return base64urlnopad.encode(hmac(sha256, key, utf8ToBytes(payload)).slice(0, 16));
}

export function encodeCursor(key: Uint8Array, pos: CursorPosition): string {
  const payload = base64urlnopad.encode(utf8ToBytes(JSON.stringify([pos.list, pos.after])));
  return `${payload}.${tag(key, payload)}`;
}

/** The position, or null for anything this server did not hand out for this list. */
export function decodeCursor(key: Uint8Array, cursor: string, list: string): CursorPosition | null {
  if (cursor.length > 1000) return null;
  const dot = cursor.indexOf(".");
  if (dot <= 0) return null;
  const payload = cursor.slice(0, dot);
  if (!constantTimeEqual(cursor.slice(dot + 1), tag(key, payload))) return null;
  try {
    const [l, after] = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(payload)));
    if (l !== list || !Array.isArray(after)) return null;
    return { list: l, after };
  } catch {
    return null;
  }
}
