// Due-time messages, back-off wake-ups (one armed setTimeout for the earliest) and croner sweeps.
import { Cron } from "croner";
import { MinHeap } from "./heap.ts";
import type { MessageRef } from "../ports/runtime-store.ts";

const MAX_DELAY = 60 * 60 * 1000; // re-arm at least hourly: setTimeout cannot wait longer than ~24.8 days

/**
 * Replacement schedules for the periodic sweeps (CARAVAN_SWEEP_SCHEDULE): either one croner pattern for every sweep
 * (`* * * * * *`: each sweep once a second) or `name=pattern` entries separated by `;` for some of them. What a sweep
 * finds due is decided by the clock and the stored times (a transfer unchanged five minutes), never by how often it
 * runs, so a faster schedule finds the same work sooner and nothing else.
 */
export type SweepSchedule = (name: string, pattern: string) => string;

export class SweepScheduleError extends Error {
  override name = "SweepScheduleError";
}

/** Parses CARAVAN_SWEEP_SCHEDULE (unset or empty: every sweep keeps its own schedule). Throws SweepScheduleError. */
export function parseSweepSchedule(text: string | undefined): SweepSchedule | undefined {
  const raw = text?.trim();
  if (!raw) return undefined;
  const check = (pattern: string, what: string) => {
    try {
      new Cron(pattern, { paused: true }).stop();
    } catch (e) {
      throw new SweepScheduleError(`CARAVAN_SWEEP_SCHEDULE: ${what} "${pattern}" is not a croner pattern (${(e as Error).message})`);
    }
    return pattern;
  };
  if (!raw.includes("=")) {
    const all = check(raw, "the schedule");
    return () => all;
  }
  const byName = new Map<string, string>();
  for (const part of raw.split(";")) {
    if (!part.trim()) continue;
    const eq = part.indexOf("=");
    const name = part.slice(0, eq).trim();
    if (eq <= 0 || !name) throw new SweepScheduleError(`CARAVAN_SWEEP_SCHEDULE: "${part.trim()}" is not name=pattern`);
    byName.set(name, check(part.slice(eq + 1).trim(), `the schedule of ${name}`));
  }
  return (name, pattern) => byName.get(name) ?? pattern;
}

export class Timers {
  private readonly heap = new MinHeap<MessageRef | string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedFor = Infinity;
  private readonly jobs = new Map<string, Cron>();
  private stopped = false;

  constructor(
    private readonly clock: () => number,
    private readonly fire: (item: MessageRef | string) => void,
    private readonly schedule?: SweepSchedule,
  ) {}

  get size(): number {
    return this.heap.size;
  }

  /** A message that becomes eligible at `dueAt`. */
  at(dueAt: number, ref: MessageRef): void {
    this.heap.push(dueAt, ref);
    this.arm();
  }

  /** Wake an actor blocked by back-off at `at`. */
  wake(at: number, actor: string): void {
    this.heap.push(at, actor);
    this.arm();
  }

  sweep(name: string, pattern: string, fn: () => Promise<void>): void {
    if (this.jobs.has(name)) throw new Error(`sweep ${name} registered twice`);
    this.jobs.set(name, new Cron(this.schedule?.(name, pattern) ?? pattern, { protect: true, name: `caravan-${name}-${Math.random()}` }, fn));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const j of this.jobs.values()) j.stop();
    this.jobs.clear();
  }

  private arm(): void {
    if (this.stopped) return;
    const next = this.heap.peekKey();
    if (next === undefined || next >= this.armedFor) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = next;
    const delay = Math.min(Math.max(0, next - this.clock()), MAX_DELAY);
    this.timer = setTimeout(() => this.run(), delay);
  }

  private run(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.clock();
    while (this.heap.size > 0 && this.heap.peekKey()! <= now) this.fire(this.heap.pop()!);
    this.arm();
  }
}
