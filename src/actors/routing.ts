// The routing cascade of an outgoing transfer (issue 6; Part 3 "What the service does" 2, and each provider's
// discovery rules): discovery on every capable provider, preferredProtocol first, another provider only before
// one has taken the transfer, discovery asked again at least 11 s apart for up to five minutes.
import type { Protocol } from "../domain/transfers.ts";
import type { ProviderRegistry } from "../adapters/providers/registry.ts";
import type { Discovery, OutgoingTransfer, Submission } from "../adapters/providers/types.ts";

export const DISCOVERY_RETRY_MS = 11_000;
export const DISCOVERY_WINDOW_MS = 5 * 60_000;

import type { Attempt } from "../ports/transfers.ts";

export type { Attempt } from "../ports/transfers.ts";

/** Persisted in the transfer actor's state between discovery rounds. */
export interface RoutingState {
  startedAt: number;
  order: Protocol[];
  /** The create's preferredProtocol when it is first in `order`. */
  preferred?: Protocol | null;
  /** The provider moved ahead of the preferred one because it last reached the beneficiary VASP (set once). */
  lastReachedBy?: Protocol;
  discoveries: Partial<Record<Protocol, Discovery>>;
  done: Protocol[];
}

export type RoundResult =
  | { kind: "wait"; dueAt: number }
  | { kind: "submit"; provider: Protocol; vasp: { vaspId: string; vaspName: string | null } }
  | { kind: "failed"; reason: string };

/** Providers in cascade order: preferredProtocol first, then the registry's priority order. */
export function cascadeOrder(capable: Protocol[], preferred: Protocol | null): Protocol[] {
  if (!preferred || !capable.includes(preferred)) return capable;
  return [preferred, ...capable.filter((p) => p !== preferred)];
}

/**
 * Part 1 `preferredProtocol`: the preferred provider is tried first, but another provider may carry the transfer
 * "when the beneficiary VASP was last reached through another provider". After a discovery round: among the
 * providers whose discovery found the VASP, the one through which that VASP (as it names it) was reached most
 * recently goes first when it is not the preferred one and the preferred provider did not reach its VASP later.
 * Answers the provider moved first, or null (order unchanged). Pure but for `lastReached`.
 */
export async function preferLastReached(state: RoutingState, lastReached: (vaspId: string) => Promise<{ protocol: string; at: string } | null>): Promise<Protocol | null> {
  const preferred = state.preferred;
  if (!preferred || state.lastReachedBy || state.order[0] !== preferred || state.done.includes(preferred)) return null;
  let best: { p: Protocol; at: string } | null = null;
  let preferredAt: string | null = null;
  for (const p of state.order) {
    const d = state.discoveries[p];
    if (state.done.includes(p) || d?.kind !== "found") continue;
    const r = await lastReached(d.vaspId);
    if (!r || r.protocol !== p) continue;
    if (p === preferred) preferredAt = r.at;
    else if (!best || r.at > best.at) best = { p, at: r.at };
  }
  if (!best || (preferredAt !== null && preferredAt >= best.at)) return null;
  state.order = [best.p, ...state.order.filter((p) => p !== best.p)];
  state.lastReachedBy = best.p;
  return best.p;
}

/** Runs the discoveries still open (in parallel) and records their results in `state`. */
export async function discoverRound(
  registry: ProviderRegistry,
  t: OutgoingTransfer,
  state: RoutingState,
  now: number,
  record: (a: Omit<Attempt, "id" | "order">) => void,
  /** A provider's discovery resolved the beneficiary VASP (Part 1 VASP search: such VASPs are searchable). */
  found?: (p: Protocol, vasp: { vaspId: string; vaspName: string | null }) => void,
): Promise<void> {
  const open = state.order.filter((p) => {
    const d = state.discoveries[p];
    return !state.done.includes(p) && (!d || d.kind === "retry");
  });
  await Promise.all(
    open.map(async (p) => {
      const adapter = registry.adapter(p);
      const ctx = await registry.context(t.companyId, t.environment, p, now);
      const began = Date.now();
      let d: Discovery;
      if (!adapter?.discover || !ctx) d = { kind: "retry", reason: `${p} has no usable credentials` };
      else {
        try {
          d = await adapter.discover(t, ctx);
        } catch (e) {
          d = { kind: "retry", reason: `${p} discovery failed: ${(e as Error).message}` };
        }
      }
      state.discoveries[p] = d;
      if (d.kind === "found") found?.(p, { vaspId: d.vaspId, vaspName: d.vaspName });
      if (d.kind === "not_found") {
        record({ provider: p, displayName: registry.displayName(p), protocol: p, status: "vasp_not_found", externalId: null, error: null, durationMs: Date.now() - began });
        state.done.push(p);
      }
    }),
  );
}

/** What to do after a discovery round: submit to the first provider in order that found the VASP, wait, or fail. */
export function decide(state: RoutingState, now: number, record: (a: Omit<Attempt, "id" | "order">) => void, displayName: (p: Protocol) => string): RoundResult {
  const fatal = state.order.find((p) => state.discoveries[p]?.kind === "fatal");
  if (fatal) {
    const d = state.discoveries[fatal] as { reason: string };
    record({ provider: fatal, displayName: displayName(fatal), protocol: fatal, status: "error", externalId: null, error: d.reason, durationMs: 0 });
    return { kind: "failed", reason: d.reason };
  }
  const expired = now - state.startedAt >= DISCOVERY_WINDOW_MS;
  for (const p of state.order) {
    if (state.done.includes(p)) continue;
    const d = state.discoveries[p];
    if (d?.kind === "found") return { kind: "submit", provider: p, vasp: { vaspId: d.vaspId, vaspName: d.vaspName } };
    if (!d || d.kind === "retry") {
      if (!expired) return { kind: "wait", dueAt: now + DISCOVERY_RETRY_MS };
      record({ provider: p, displayName: displayName(p), protocol: p, status: "error", externalId: null, error: `discovery still open after five minutes: ${d?.kind === "retry" ? d.reason : "no answer"}`, durationMs: 0 });
      state.done.push(p);
    }
  }
  return { kind: "failed", reason: "No provider found the beneficiary VASP" };
}

export function submissionAttempt(p: Protocol, displayName: string, s: Submission, durationMs: number): Omit<Attempt, "id" | "order"> {
  switch (s.kind) {
    case "answered":
    case "taken":
      return { provider: p, displayName, protocol: p, status: "sent", externalId: s.externalId, error: null, durationMs };
    case "not_taken":
      return { provider: p, displayName, protocol: p, status: s.vaspNotFound ? "vasp_not_found" : "error", externalId: null, error: s.reason, durationMs };
    case "unknown":
      return { provider: p, displayName, protocol: p, status: "submission_unknown", externalId: s.externalId, error: s.error, durationMs };
  }
}
