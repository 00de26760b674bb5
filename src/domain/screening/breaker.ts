// The circuit breaker of one screening integration in one environment (Part 3 "screening_c screening", Limits). Pure:
// every function takes the state and the time and returns the next state; the integration actor keeps it durable.

/** Failed checks in a row that open the breaker. */
export const FAILURES_TO_OPEN = 5;
/** Each failure counts toward the row only if it came within this long of the one before. */
export const FAILURE_WINDOW_MS = 60_000;
/** How long an open breaker skips the integration. */
export const OPEN_FOR_MS = 60_000;
/** Successful checks after the open minute that close the breaker again. */
export const SUCCESSES_TO_CLOSE = 2;

export type BreakerPhase = "closed" | "open" | "half_open";

export interface BreakerState {
  phase: BreakerPhase;
  /** Closed: failed checks in a row so far, each within a minute of the one before. */
  failures: number;
  /** When the last failure of the row was recorded (ms since epoch). */
  lastFailureAt: number | null;
  /** Open: checks are skipped until this time. */
  openUntil: number | null;
  /** Half-open: successful checks so far. */
  successes: number;
}

export const CLOSED: BreakerState = Object.freeze({ phase: "closed", failures: 0, lastFailureAt: null, openUntil: null, successes: 0 });

/**
 * May a check call the vendor now? An open breaker whose minute has passed becomes half-open and lets checks through
 * (every check, not just one trial: a half-open breaker needs two successes, and checks are short and bounded anyway).
 */
export function permit(s: BreakerState, now: number): { allowed: boolean; state: BreakerState } {
  if (s.phase !== "open") return { allowed: true, state: s };
  if (s.openUntil !== null && now < s.openUntil) return { allowed: false, state: s };
  return { allowed: true, state: { ...s, phase: "half_open", successes: 0, openUntil: null } };
}

/** A check that called the vendor ended: `ok` when it succeeded. */
export function record(s: BreakerState, ok: boolean, now: number): BreakerState {
  switch (s.phase) {
    case "open":
      // A check let through before the breaker opened finished late: the open minute stands as it is.
      return s;
    case "half_open":
      if (!ok) return open(now);
      return s.successes + 1 >= SUCCESSES_TO_CLOSE ? CLOSED : { ...s, successes: s.successes + 1 };
    case "closed": {
      if (ok) return s.failures === 0 ? s : CLOSED;
      const inRow = s.lastFailureAt !== null && s.failures > 0 && now - s.lastFailureAt <= FAILURE_WINDOW_MS;
      const failures = inRow ? s.failures + 1 : 1;
      if (failures >= FAILURES_TO_OPEN) return open(now);
      return { ...s, failures, lastFailureAt: now };
    }
    default: {
      const _: never = s.phase;
      return _;
    }
  }
}

function open(now: number): BreakerState {
  return { phase: "open", failures: 0, lastFailureAt: now, openUntil: now + OPEN_FOR_MS, successes: 0 };
}
