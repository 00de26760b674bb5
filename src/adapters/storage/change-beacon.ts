// The change beacon: eight bytes beside the database (`<db>-changes`) that every Caravan process rewrites after each
// commit it makes. A process that maps the file (Bun) sees from memory, without a system call, whether anyone may
// have committed since it last looked; only then does it read `PRAGMA data_version`, which takes and releases the
// WAL read lock (two `fcntl` calls per request on the authentication path before this). Where the file cannot be
// mapped (Deno) the beacon is still written, with `pwrite`, and the reader reads `data_version` every time, as before.
//
// Why a word that only changes is enough: a writer rewrites it after its COMMIT returned, and a reader copies it
// before it reads `data_version`. So a commit that finished before a request began has either changed the word since
// the reader's copy, or was already counted by the `data_version` read that followed the copy. The word is a random
// per-connection prefix and a counter, never a shared counter: two processes incrementing one could bring it back
// to a value a reader already holds. A torn read (half old, half new) only ever reads as "changed".
import { closeSync, constants, fstatSync, ftruncateSync, openSync, writeSync } from "node:fs";

const BYTES = 8;

export interface ChangeBeacon {
  /** True when the beacon can be read from memory: `moved()` then answers without a system call. */
  readonly mapped: boolean;
  /** Whether the word differs from the copy `take()` made (always true when not mapped). */
  moved(): boolean;
  /** Copies the word as it is now; call it before the exact read it vouches for. */
  take(): void;
  /** Writes a word no reader holds: call it after every commit of this connection. */
  signal(): void;
  close(): void;
}

/** `<db>-changes`, or null for a database that lives in memory. */
export function beaconPath(dbPath: string): string | null {
  return dbPath === ":memory:" || dbPath === "" || dbPath.startsWith("file:") ? null : `${dbPath}-changes`;
}

/**
 * Opens (creating, mode 0600) the beacon file. `map` is the runtime's shared mapping of a file (Bun.mmap); without it
 * the beacon is written through the descriptor and never read. Undefined when the file cannot be opened (a read-only
 * directory): callers then read `data_version` every time, which is always correct.
 */
export function openBeacon(path: string, map?: (path: string) => Uint8Array): ChangeBeacon | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    if (fstatSync(fd).size < BYTES) ftruncateSync(fd, BYTES);
  } catch {
    return undefined;
  }
  let words: Uint32Array | undefined;
  if (map) {
    try {
      const bytes = map(path);
      if (bytes.byteLength >= BYTES) words = new Uint32Array(bytes.buffer, bytes.byteOffset, 2);
    } catch {
      words = undefined;
    }
  }
  const prefix = crypto.getRandomValues(new Uint32Array(1))[0];
  let counter = 0;
  const seen = new Uint32Array(2);
  const out = new Uint32Array(2);
  let open = true;
  return {
    mapped: words !== undefined,
    moved: () => words === undefined || words[0] !== seen[0] || words[1] !== seen[1],
    take() {
      if (words) {
        seen[0] = words[0];
        seen[1] = words[1];
      }
    },
    signal() {
      if (!open) return;
      counter = (counter + 1) >>> 0;
      if (words) {
        words[1] = counter;
        words[0] = prefix;
        return;
      }
      out[0] = prefix;
      out[1] = counter;
      try {
        writeSync(fd, out, 0, BYTES, 0);
      } catch {
        /* readers fall back to their bound (see Storage.dataVersion) */
      }
    },
    close() {
      if (!open) return;
      open = false;
      words = undefined;
      try { closeSync(fd); } catch { /* already closed */ }
    },
  };
}
