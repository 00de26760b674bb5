// Faults that repeat by nature (a full disk met by every retry): a bounded back-off and one log line per fault class per
// interval with a count, so that the log keeps saying what is wrong without drowning in it.

/**
 * The delay before the next try after `n` store faults in a row: growing (doubling from `baseMs`), capped at `capMs`,
 * with up to a fifth of jitter either way so that many waiters do not come back in the same millisecond.
 */
export function storeBackoffMs(n: number, baseMs = 250, capMs = 30_000, random: () => number = Math.random): number {
  const d = Math.min(capMs, baseMs * 2 ** Math.max(0, Math.min(n - 1, 20)));
  return Math.max(1, Math.round(d * (0.8 + 0.4 * random())));
}

/**
 * One log line per fault class per interval: the first occurrence is logged at once, later ones within `intervalMs`
 * are counted and the next line (after the interval, or on `flush`) says how many there were.
 */
export class FaultLog {
  private readonly classes = new Map<string, { loggedAt: number; suppressed: number; last: Record<string, unknown> }>();

  constructor(
    private readonly log: (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void,
    private readonly clock: () => number = Date.now,
    readonly intervalMs = 10_000,
  ) {}

  /** Records one occurrence of `cls`; logs `msg` with `fields` and `count` when the interval allows. */
  record(level: "warn" | "error", msg: string, cls: string, fields: Record<string, unknown>): void {
    const key = `${msg}|${cls}`;
    const now = this.clock();
    const c = this.classes.get(key);
    if (c && now - c.loggedAt < this.intervalMs) {
      c.suppressed++;
      c.last = fields;
      return;
    }
    const count = (c?.suppressed ?? 0) + 1;
    this.classes.set(key, { loggedAt: now, suppressed: 0, last: fields });
    this.log(level, msg, { class: cls, ...fields, count, intervalMs: this.intervalMs });
  }

  /** Logs what is still counted (e.g. once the fault has passed) and forgets every class. */
  flush(level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown> = {}): void {
    let total = 0;
    for (const c of this.classes.values()) total += c.suppressed;
    this.classes.clear();
    this.log(level, msg, { ...fields, unloggedSinceLastLine: total });
  }
}
