// A failed transfer no action can move on (provider_a, provider_b) is closed once it has waited a day unchanged and
// its expiry, if any, has passed (docs/transfers.md "Cancellation"): a table of rows and the answer.
import { test, expect } from "bun:test";
import { isStuckFailedExpired, STUCK_FAILED_MS } from "../../src/domain/transfers.ts";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const dayAgo = iso(NOW - STUCK_FAILED_MS);
const row = (o: Partial<{ state: string; protocol: string | null; expiresAt: string | null; updatedAt: string }> = {}) => ({
  state: "failed",
  protocol: "provider_b",
  expiresAt: iso(NOW - 1),
  updatedAt: dayAgo,
  ...o,
});

test.each([
  ["provider_b, failed a day ago, past its expiry", row(), true],
  ["provider_a, failed a day ago, past its expiry", row({ protocol: "provider_a" }), true],
  ["an incoming transfer without an expiry, unchanged a day", row({ expiresAt: null }), true],
  ["changed less than a day ago", row({ updatedAt: iso(NOW - STUCK_FAILED_MS + 1) }), false],
  ["its expiry not reached yet", row({ expiresAt: iso(NOW + 1) }), false],
  ["provider_e: reject still moves it", row({ protocol: "provider_e" }), false],
  ["no provider carries it: retry and reject still move it", row({ protocol: null }), false],
  ["held, not failed", row({ state: "held" }), false],
  ["already cancelled", row({ state: "cancelled" }), false],
] as const)("%s → %p", (_label, t, expected) => {
  expect(isStuckFailedExpired(t, NOW)).toBe(expected);
});
