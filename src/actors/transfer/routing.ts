// The transfer actor's routing (Part 3 "What the service does"): queued → precheck → the cascade of discovery rounds
// and submissions (src/actors/routing.ts decides), the counterparty's answer, and expiry of a transfer no provider took.
import type { Transfer, TransferMessage } from "../../ports/transfers.ts";
import type { Submission } from "../../adapters/providers/types.ts";
import { isStuckFailedExpired, isUntakenExpired, type Protocol } from "../../domain/transfers.ts";
import type { Outcome } from "../outcome.ts";
import { cascadeOrder, decide, discoverRound, preferLastReached, submissionAttempt, type Attempt } from "../routing.ts";
import { evaluationsOf } from "../checkpoint.ts";
import { current, type TransferHandling } from "./handling.ts";
import { postcheck, screen } from "./holds.ts";

/** Queued → routed to a provider. With no provider able to carry it any more, the transfer fails. */
export async function start(h: TransferHandling): Promise<Outcome> {
  if (h.ctx.state.postcheck) return postcheck(h);
  // A replay after a crash once routing had begun (a checkpoint committed `processing` and maybe a `submitting`
  // attempt): routing picks up from there and turns a send in doubt into submission_unknown, never resends.
  if (h.t.state === "processing" && h.ctx.checkpoints > 0 && h.ctx.state.routing) return route(h);
  if (h.t.state !== "queued") return current(h);
  // Queued again (a retry) past its expiry: cancelled rather than routed.
  if (cancelIfExpired(h)) return current(h);
  // Part 3 "screening_c screening": precheck before wallet discovery or any exchange (once: an officer's approval
  // of a precheck hold goes on from there).
  if (h.ctx.state.prechecked) delete h.ctx.state.prechecked;
  else if (h.deps.checkpoint && (await screen(h, "precheck", await evaluationsOf(h.deps.checkpoint, h.t, { originator: h.persons("originator"), beneficiary: h.persons("beneficiary") }))) === "stopped") return current(h);
  const beneficiaryPersons = h.persons("beneficiary");
  const caps = await h.deps.providers.capabilities(h.t.companyId, h.t.environment, {
    assetId: h.t.assetId ?? "",
    asset: h.t.asset,
    network: h.t.network,
    amount: h.t.amount,
    beneficiaryPersonCount: beneficiaryPersons.length,
    hasOriginatorAddress: h.t.originatorAddress !== null,
    beneficiaryAddress: h.t.beneficiaryAddress,
  });
  const capable = caps.filter((c) => c.ok).map((c) => c.provider);
  if (capable.length === 0) {
    const reasons = caps.filter((c) => !c.ok).map((c) => (c as { reason: string }).reason);
    h.addAttempt({ provider: null, displayName: null, protocol: null, status: "error", externalId: null, error: "No enabled provider can carry the transfer", durationMs: 0 });
    h.change("failed", {}, "routing_failed", { reasons });
    return current(h);
  }
  const preferred = h.t.preferredProtocol as Protocol | null;
  h.ctx.state.routing = { startedAt: h.ctx.now, order: cascadeOrder(capable, preferred), preferred: preferred && capable.includes(preferred) ? preferred : null, discoveries: {}, done: [] };
  h.change("processing", {}, "routing_started", { order: h.ctx.state.routing.order });
  return route(h);
}

/** One discovery round, then submit to the first provider that found the VASP, wait, or fail. */
export async function route(h: TransferHandling): Promise<Outcome> {
  if (h.ctx.state.postcheck) return postcheck(h);
  const state = h.ctx.state.routing;
  if (!state || h.t.state !== "processing") return current(h);
  // A replay after the process died between recording and sending: what was sent is unknown (Part 3).
  const attempts: Attempt[] = h.t.attempts;
  const last = attempts[attempts.length - 1];
  if (last?.status === "submitting") {
    h.updateLastAttempt({ status: "submission_unknown", error: "The service stopped while the request was being sent" });
    // The provider may have taken it: it carries the transfer from now on (its flow, never the cascade, decides).
    h.change("failed", { protocol: last.provider }, "submission_unknown", { provider: last.provider });
    return current(h);
  }
  const t = h.outgoing();
  await discoverRound(h.deps.providers, t, state, h.ctx.now, (a) => h.addAttempt(a), (_p, vasp) => {
    // A VASP wallet discovery resolved is searchable from now on (`source: discovery` until a transfer names it).
    const { companyId, environment } = h.t;
    h.ctx.write(() => h.deps.repositories.vasps.record(companyId, environment, vasp.vaspId, vasp.vaspName, "discovery", h.at));
  });
  const repo = h.deps.repositories.transfers;
  const moved = await preferLastReached(state, (vaspId) => repo.lastReached(h.t.companyId, h.t.environment, vaspId, h.t.id));
  if (moved) h.note("routed_by_last_contact", { provider: moved, preferred: state.preferred });
  for (;;) {
    const next = decide(state, h.ctx.now, (a) => h.addAttempt(a), (p) => h.deps.providers.displayName(p));
    if (next.kind === "wait") {
      const { companyId, environment, actor } = h.msg;
      h.ctx.tell(`transfer:${h.t.id}`, { type: "discover", companyId, environment, actor }, { dueAt: next.dueAt });
      return current(h);
    }
    if (next.kind === "failed") {
      h.change("failed", {}, "routing_failed", { reason: next.reason });
      return current(h);
    }
    const p = next.provider;
    const adapter = h.deps.providers.adapter(p);
    const actx = await h.deps.providers.context(h.t.companyId, h.t.environment, p, h.ctx.now);
    state.done.push(p);
    if (!adapter?.submit || !actx) {
      h.addAttempt({ provider: p, displayName: h.deps.providers.displayName(p), protocol: p, status: "error", externalId: null, error: `${p} cannot send`, durationMs: 0 });
      continue;
    }
    // Record what will be sent, commit it, then send (a crash in between is a known submission_unknown).
    h.addAttempt({ provider: p, displayName: h.deps.providers.displayName(p), protocol: p, status: "submitting", externalId: null, error: null, durationMs: 0 });
    await h.ctx.checkpoint();
    const began = Date.now();
    const usdValue = await h.deps.priceUsd({ companyId: t.companyId, environment: t.environment, assetId: t.assetId, amount: t.amount }).catch(() => null);
    const result = await adapter.submit({ ...t, usdValue }, next.vasp, actx);
    h.updateLastAttempt(submissionAttempt(p, h.deps.providers.displayName(p), result, Date.now() - began));
    if (result.kind === "not_taken") continue;
    if (result.kind === "taken") {
      // The provider took the transfer and answers later (events, polls): its flow goes on from `exchanging`.
      h.ctx.write(() => h.deps.repositories.vasps.record(h.t.companyId, h.t.environment, result.vaspId, result.vaspName, "transfer_history", h.at));
      if (result.flowState) (h.ctx.state.flow ??= {})[p] = { ...(h.ctx.state.flow?.[p] ?? {}), ...result.flowState };
      h.change("exchanging", { protocol: p, providerExternalId: result.externalId, beneficiaryVaspId: result.vaspId, beneficiaryVaspName: result.vaspName }, "submitted", { provider: p });
      return current(h);
    }
    if (result.kind === "unknown") {
      h.change("failed", { protocol: p, providerExternalId: result.externalId }, "submission_unknown", { provider: p });
      return current(h);
    }
    await applyAnswer(h, p, result);
    return current(h);
  }
}

export async function applyAnswer(h: TransferHandling, p: Protocol, r: Extract<Submission, { kind: "answered" }>): Promise<void> {
  const messages: TransferMessage[] = [...h.t.messages, { type: "transfer_request", direction: "outbound", timestamp: h.at }, { type: "transfer_response", direction: "inbound", timestamp: h.at }];
  const common: Partial<Transfer> = {
    protocol: p,
    providerExternalId: r.externalId,
    beneficiaryVaspId: r.vaspId,
    beneficiaryVaspName: r.vaspName,
    messages,
    // provider_d: the transfer named a Travel Address; the counterparty's approval names the chain address.
    ...(r.beneficiaryAddress ? { beneficiaryAddress: r.beneficiaryAddress } : {}),
  };
  if (r.flowState) (h.ctx.state.flow ??= {})[p] = { ...(h.ctx.state.flow?.[p] ?? {}), ...r.flowState };
  const row = h.t;
  h.ctx.write(() => h.deps.repositories.vasps.record(row.companyId, row.environment, r.vaspId, r.vaspName, "transfer_history", h.at));
  if (r.theirs === "rejected") {
    h.change("rejected", { ...common, status: "rejected", theirsStatus: "rejected", rejectionReason: r.reasonType ?? "UNKNOWN" }, "counterparty_rejected", { reasonType: r.reasonType ?? "UNKNOWN" });
    return;
  }
  // The beneficiary data is screened (postcheck) before the transfer goes on (Part 3, provider_b Outgoing). The answer
  // commits with the postcheck's pending checks (before any screening request), so a crash during screening resumes
  // the postcheck and never sends the request again.
  const answered = { ...common, theirsStatus: "accepted" };
  h.t = { ...h.t, ...answered };
  const id = h.t.id;
  h.ctx.write(() => h.deps.repositories.transfers.update(id, answered));
  h.ctx.state.postcheck = { provider: p, persons: r.beneficiaryPersons ?? [] };
  await postcheck(h);
}

/**
 * An outgoing transfer no provider has taken (no carrying protocol: still queued, discovering, or held before any
 * exchange) that reaches its `expiresAt` is `cancelled`, with `transfer.cancelled`: nothing was sent to a
 * counterparty, so there is nothing to reject there, and the customer's records are no longer held by it.
 */
export function cancelIfExpired(h: TransferHandling): boolean {
  if (!isUntakenExpired(h.t, h.ctx.now)) return false;
  // A send in doubt (its message buried before the replay settled it) may have reached the provider: not cancelled.
  const last = h.t.attempts.at(-1);
  if (last?.status === "submitting" || last?.status === "submission_unknown") return false;
  const from = h.t.state;
  delete h.ctx.state.routing;
  delete h.ctx.state.hold;
  delete h.ctx.state.prechecked;
  h.change("cancelled", {}, "expired", { expiresAt: h.t.expiresAt, from });
  h.audit("transfer.cancelled", { reason: "EXPIRED", previousState: from });
  return true;
}

/**
 * A failed transfer no action can move on (provider_a, provider_b; `isStuckFailedExpired`), unchanged a day and past
 * its `expiresAt`: `cancelled`, with `transfer.cancelled`. Nothing is sent: the provider has given the transfer up
 * (provider_a answers its later events 503), or whether it ever took it is unknown and no transaction will be
 * reported for it (provider_b), or the originator cancelled it itself (provider_b incoming).
 */
export function cancelIfStuck(h: TransferHandling): boolean {
  if (!isStuckFailedExpired(h.t, h.ctx.now)) return false;
  const lastAttempt = h.t.attempts.at(-1);
  h.change("cancelled", {}, "expired", { expiresAt: h.t.expiresAt, from: "failed", stuck: true });
  h.audit("transfer.cancelled", { reason: "EXPIRED", previousState: "failed", provider: h.t.protocol, attempt: lastAttempt?.status ?? null });
  return true;
}

export async function expire(h: TransferHandling): Promise<Outcome> {
  if (cancelIfExpired(h) || cancelIfStuck(h)) return current(h);
  // Expiry is provider-specific (Part 3, provider_e): the provider's flow decides what an expired transfer becomes.
  const flow = h.flowOf(h.t.protocol);
  if (flow?.expire) await flow.expire(h.flowContext(h.t.protocol as Protocol));
  return current(h);
}
