// deflate-raw (RFC 1951) with a preset dictionary, the same way on Bun and Deno: what sealed personal data ("v2:",
// src/adapters/crypto/envelope.ts) and the SQLite engine's compact event data (its event-data module) are compressed with.
//
// Inflating never relies on node:zlib's `dictionary` option (Deno's node:zlib ignores it for raw deflate): the
// dictionary goes in front as one stored (uncompressed, non-final) deflate block, then the value's own stream, and the
// dictionary's bytes are dropped from the output. A stream written with the preset dictionary refers back into those
// bytes exactly as into a preset dictionary; one written without it (under Deno: just less compressed) never does. So
// a value reads the same whichever runtime wrote it.
import { constants as zlibConstants, createDeflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";

export interface PresetDeflate {
  deflate(text: Uint8Array): Uint8Array;
  /** Throws on a stream that is not deflate-raw, or shorter than the dictionary it was inflated behind. */
  inflate(packed: Uint8Array): Uint8Array;
}

/**
 * `windowBits`/`memLevel`/`level` are part of the format only through the window: a value is read with any window at
 * least as large as the one it was written with. `probe` is a typical value, used once to check the kept stream.
 */
export function presetDeflate(dictionary: Uint8Array, o: { windowBits: number; memLevel: number; level: number; probe: string }): PresetDeflate {
  const zlib = { dictionary, windowBits: o.windowBits, memLevel: o.memLevel, level: o.level };
  const n = dictionary.length;
  const stored = new Uint8Array(5 + n);
  stored.set([0x00, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff]); // BFINAL 0, BTYPE 00; LEN, NLEN little-endian
  stored.set(dictionary, 5);
  return {
    deflate: keptDeflate(zlib, new TextEncoder().encode(o.probe)),
    inflate(packed) {
      const stream = new Uint8Array(stored.length + packed.length);
      stream.set(stored);
      stream.set(packed, stored.length);
      const out = inflateRawSync(stream);
      if (out.length < n) throw new Error("short stream");
      return out.subarray(n);
    },
  };
}

/**
 * The same bytes as `deflateRawSync(text, zlib)`. `deflateRawSync` builds and frees a whole zlib stream (its window and
 * hash tables) per call, most of a small value's cost (~10 µs of ~12). Where the runtime's node:zlib exposes its
 * native stream handle synchronously (Bun), one stream is kept and reset before each value (reset keeps the preset
 * dictionary): ~4 µs. It relies on node:zlib internals (`_handle`, `_writeState`), so it is checked once against
 * `deflateRawSync` and used only if it writes the same bytes; a value too long for its output buffer, and every value
 * on a runtime without that handle, take `deflateRawSync`. Synchronous, so no two values ever share the stream.
 */
function keptDeflate(zlib: Parameters<typeof deflateRawSync>[1], probe: Uint8Array): (text: Uint8Array) => Uint8Array {
  const plain = (text: Uint8Array): Uint8Array => deflateRawSync(text, zlib);
  try {
    const stream = createDeflateRaw(zlib) as unknown as {
      _handle?: { reset(): void; writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void };
      _writeState?: Uint32Array | number[];
    };
    const handle = stream._handle;
    const state = stream._writeState;
    if (!handle || typeof handle.reset !== "function" || typeof handle.writeSync !== "function" || !state) return plain;
    const out = new Uint8Array(16 * 1024);
    const reused = (text: Uint8Array): Uint8Array => {
      try {
        handle.reset();
        handle.writeSync(zlibConstants.Z_FINISH, text, 0, text.length, out, 0, out.length);
      } catch {
        return plain(text);
      }
      const [availOut, availIn] = [state[0], state[1]];
      // Output full or input left over: the stream did not finish in the buffer; this value takes the plain path.
      if (availIn !== 0 || availOut === 0) return plain(text);
      return out.slice(0, out.length - availOut);
    };
    for (let i = 0; i < 2; i++) {
      const a = reused(probe);
      const b = plain(probe);
      if (a.length !== b.length || a.some((x, j) => x !== b[j])) return plain;
    }
    return reused;
  } catch {
    return plain;
  }
}
