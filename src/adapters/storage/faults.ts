// Faults of the store itself (a full disk, an I/O error, a file that can no longer be written), told apart from faults
// of the work: a message or a request is not to blame for them, and they pass once the operator fixes the store.

import { StorageUnavailableError, type StoreFault, type StoreHealth } from "../../ports/store.ts";

export { StorageUnavailableError, type StoreFault } from "../../ports/store.ts";

const CLASSES = ["SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN"] as const;
/** Primary result codes (the low byte of an extended one), as bun:sqlite (`errno`) and node:sqlite (`errcode`) give them. */
const BY_NUMBER: Record<number, string> = { 8: "SQLITE_READONLY", 10: "SQLITE_IOERR", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN" };
const BY_TEXT: [RegExp, string][] = [
  [/database or disk is full/i, "SQLITE_FULL"],
  [/disk I\/O error/i, "SQLITE_IOERR"],
  [/attempt to write a readonly database/i, "SQLITE_READONLY"],
  [/unable to open database file/i, "SQLITE_CANTOPEN"],
];

/** The class of one SQLite error, or null (not a SQLite error, or a fault of the work: a constraint, a syntax error). */
function classOf(x: { code?: unknown; errno?: unknown; errcode?: unknown; message?: unknown; name?: unknown }): string | null {
  const code = typeof x.code === "string" ? x.code : "";
  const message = typeof x.message === "string" ? x.message : "";
  const named = CLASSES.find((c) => code === c || code.startsWith(`${c}_`));
  if (named) return named;
  // Only a SQLite error's number counts (a file system error's errno is another numbering).
  const sqlite = code.startsWith("SQLITE") || code === "ERR_SQLITE_ERROR" || /sqlite/i.test(String(x.name ?? ""));
  if (!sqlite) return null;
  const n = typeof x.errcode === "number" ? x.errcode : typeof x.errno === "number" ? x.errno : NaN;
  return BY_NUMBER[n & 0xff] ?? BY_TEXT.find(([re]) => re.test(message))?.[1] ?? null;
}

/** The store fault `e` is (or wraps), or null when it is a fault of the work (a constraint, a bug, a refusal). */
export function storeFault(e: unknown): StoreFault | null {
  for (let x: unknown = e, depth = 0; x && typeof x === "object" && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    if (x instanceof StorageUnavailableError) return x.fault;
    const cls = classOf(x as Record<string, unknown>);
    if (cls) return { class: cls, cause: typeof (x as Error).message === "string" && (x as Error).message ? (x as Error).message : cls };
  }
  return null;
}

/**
 * Whether the store takes writes. A store fault marks it unavailable; a commit that succeeds marks it available again
 * once no fault has been met for `settleMs`: on a nearly full disk a small commit can still fit where a larger one
 * cannot, and one such success says nothing about the next write. `/healthz` reports it; a probe (a one-row write)
 * lets a caller find out without other work to try.
 */
export class StorageHealth implements StoreHealth {
  private fault: (StoreFault & { since: number }) | null = null;
  private lastFaultAt = -Infinity;
  private readonly listeners = new Set<(fault: StoreFault | null) => void>();

  constructor(
    private readonly clock: () => number = Date.now,
    readonly settleMs = 5_000,
  ) {}

  /** The fault the store is in, with when it began (ms since epoch), or null when writes succeed. */
  get unavailable(): (StoreFault & { since: number }) | null {
    return this.fault;
  }

  failed(f: StoreFault): void {
    this.lastFaultAt = this.clock();
    const was = this.fault;
    if (was && was.class === f.class) return;
    this.fault = { ...f, since: was?.since ?? this.lastFaultAt };
    for (const l of this.listeners) l(this.fault);
  }

  succeeded(): void {
    if (this.fault === null || this.clock() - this.lastFaultAt < this.settleMs) return;
    this.fault = null;
    for (const l of this.listeners) l(null);
  }

  /** Called when the store becomes unavailable (with the fault) or available again (null). */
  onChange(fn: (fault: StoreFault | null) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
