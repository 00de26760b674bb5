// Part 3 "screening_c screening", circuit breaker: after five failed checks in a row, each within a minute of the one before,
// the integration is skipped for a minute (no request); two successful checks then close it; a failure opens it again.
import { test, expect, setDefaultTimeout } from "bun:test";
import { CLOSED, FAILURE_WINDOW_MS, FAILURES_TO_OPEN, OPEN_FOR_MS, permit, record, SUCCESSES_TO_CLOSE, type BreakerState } from "../../src/domain/screening/breaker.ts";

setDefaultTimeout(60_000);

const T0 = 1_700_000_000_000;

/** Runs a script of events and returns the phase after each, and whether each permit was allowed. */
function run(events: ({ at: number; fail: true } | { at: number; ok: true } | { at: number; permit: true })[], start: BreakerState = CLOSED) {
  let s = start;
  const out: string[] = [];
  for (const e of events) {
    if ("permit" in e) {
      const p = permit(s, e.at);
      s = p.state;
      out.push(`${p.allowed ? "allowed" : "skipped"}:${s.phase}`);
    } else {
      s = record(s, "ok" in e, e.at);
      out.push(s.phase);
    }
  }
  return { out, state: s };
}

const fails = (n: number, from: number, step: number) => Array.from({ length: n }, (_, i) => ({ at: from + i * step, fail: true as const }));

test("the spec's figures", () => {
  expect([FAILURES_TO_OPEN, FAILURE_WINDOW_MS, OPEN_FOR_MS, SUCCESSES_TO_CLOSE]).toEqual([5, 60_000, 60_000, 2]);
});

test("five failed checks in a row, each within a minute of the one before → open; four do not", () => {
  expect(run(fails(4, T0, 59_000)).out).toEqual(["closed", "closed", "closed", "closed"]);
  expect(run(fails(5, T0, 59_000)).out.at(-1)).toBe("open");
  // Exactly a minute apart is still within a minute.
  expect(run(fails(5, T0, 60_000)).out.at(-1)).toBe("open");
});

test("a failure more than a minute after the one before starts a new row", () => {
  const events = [...fails(4, T0, 1000), { at: T0 + 3000 + 60_001, fail: true as const }];
  const r = run(events);
  expect(r.out.at(-1)).toBe("closed");
  expect(r.state.failures).toBe(1);
  // Four more within a minute each then open it.
  expect(run(fails(4, T0 + 3000 + 60_002, 1000), r.state).out.at(-1)).toBe("open");
});

test("a success in between breaks the row", () => {
  const r = run([...fails(4, T0, 1000), { at: T0 + 4000, ok: true }, ...fails(4, T0 + 5000, 1000)]);
  expect(r.out.at(-1)).toBe("closed");
  expect(run([{ at: T0 + 10_000, fail: true }], r.state).out).toEqual(["open"]);
});

test("open: checks are skipped for a minute, then half-open lets them through", () => {
  const opened = run(fails(5, T0, 1000)).state;
  const openedAt = T0 + 4000;
  expect(opened.openUntil).toBe(openedAt + 60_000);
  const r = run([{ at: openedAt, permit: true }, { at: openedAt + 59_999, permit: true }, { at: openedAt + 60_000, permit: true }, { at: openedAt + 60_001, permit: true }], opened);
  expect(r.out).toEqual(["skipped:open", "skipped:open", "allowed:half_open", "allowed:half_open"]);
});

test("half-open: two successful checks close it; one is not enough", () => {
  const half = permit(run(fails(5, T0, 1000)).state, T0 + 70_000).state;
  expect(half.phase).toBe("half_open");
  expect(run([{ at: T0 + 71_000, ok: true }], half).out).toEqual(["half_open"]);
  const closed = run([{ at: T0 + 71_000, ok: true }, { at: T0 + 72_000, ok: true }], half);
  expect(closed.out).toEqual(["half_open", "closed"]);
  expect(closed.state).toEqual(CLOSED);
  // Closed again: permits flow, and it takes five fresh failures to open.
  expect(run([{ at: T0 + 73_000, permit: true }, ...fails(4, T0 + 74_000, 1000)], closed.state).out.at(-1)).toBe("closed");
});

test("half-open: a failure opens it again for another minute (even after one success)", () => {
  const half = permit(run(fails(5, T0, 1000)).state, T0 + 70_000).state;
  const r = run([{ at: T0 + 71_000, ok: true }, { at: T0 + 72_000, fail: true }, { at: T0 + 72_500, permit: true }, { at: T0 + 132_000, permit: true }], half);
  expect(r.out).toEqual(["half_open", "open", "skipped:open", "allowed:half_open"]);
});

test("open: an outcome of a check let through before it opened changes nothing", () => {
  const opened = run(fails(5, T0, 1000)).state;
  expect(record(opened, true, T0 + 5000)).toBe(opened);
  expect(record(opened, false, T0 + 5000)).toBe(opened);
});
