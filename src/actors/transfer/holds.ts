// The transfer actor's checkpoints and holds (Part 2 "Rule", Part 3 "What the service does" 3; the planning and
// checks are in src/actors/checkpoint.ts): screening, the verdict applied, the case opened, a provider's own hold,
// the case's resolution, and the self-cancellation at the provider after a blocking verdict.
import type { Person } from "../../domain/ivms101/index.ts";
import type { Protocol } from "../../domain/transfers.ts";
import type { Stage } from "../../domain/rules/index.ts";
import type { Outcome } from "../outcome.ts";
import { newCaseId } from "../case.ts";
import type { ScreeningOutcome } from "../transfer-flow.ts";
import { verdictUnscreened } from "../../domain/rules/index.ts";
import { blockReason, caseOpening, evaluationsOf, pendingChecks, plan, runChecks, screeningCompleteData, type CheckpointResult, type Evaluation } from "../checkpoint.ts";
import { current, type TransferHandling } from "./handling.ts";

/** The counterparty's data, screened: approved → awaiting_counterparty; review → held; a block cancels at the provider. */
export async function postcheck(h: TransferHandling): Promise<Outcome> {
  const pending = h.ctx.state.postcheck;
  if (!pending || !h.deps.checkpoint) {
    delete h.ctx.state.postcheck;
    if (pending) h.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: h.at }, "counterparty_accepted");
    return current(h);
  }
  const ours = h.persons("originator");
  const counterparty = pending.persons;
  // The counterparty's first person with the company's party's stored name; each further person alone (Part 3).
  const evaluations = await evaluationsOf(h.deps.checkpoint!, h.t, { originator: ours, beneficiary: counterparty }, { beneficiary: counterparty.slice(1) });
  const outcome = await screen(h, "postcheck", evaluations, { provider: pending.provider, persons: counterparty });
  delete h.ctx.state.postcheck;
  if (outcome === "continue") h.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: h.at }, "counterparty_accepted", { screened: true });
  return current(h);
}

// -------------------------------------------------------------------------------------------
// Checkpoints (Part 2 "Rule", Part 3 "What the service does" 3; see src/actors/checkpoint.ts)

/**
 * One checkpoint: plan (applicable rules, integrations they read), record the pending checks and commit them, call
 * the integrations, record the results, emit `compliance.screening_complete`, apply the verdict. A crash while the
 * integrations are called replays the message: the interrupted run's pending checks are dropped and it runs again;
 * the verdict commits with the message's acknowledgement, so it is applied once.
 */
export async function screen(h: TransferHandling, stage: Stage, evaluations: Evaluation[], resumeWith: { provider?: Protocol; persons?: Person[] } = {}, onBlock: "cancel" | "hold" | "reject" = "cancel"): Promise<"continue" | "stopped"> {
  const deps = h.deps.checkpoint;
  if (!deps) return "continue";
  const { companyId, environment } = h.msg;
  const p = await plan(deps, h.t.companyId, h.t.environment, stage, evaluations);
  const kept = h.storedChecks().filter((c) => c.status !== "pending");
  const run = (h.ctx.state.runs ?? 0) + 1;
  h.ctx.state.runs = run;
  const pending = await pendingChecks(deps, h.t.companyId, p, h.t.id, String(run), h.ctx.now);
  if (pending.length) {
    h.setChecks([...kept, ...pending]);
    await h.ctx.checkpoint();
  }
  const r = await runChecks(deps, h.t.companyId, h.t.environment, p, pending, h.deps.pii, h.t.id);
  const sanctions = r.checks.filter((c) => c.type === "sanctions").at(-1);
  h.setChecks([...kept, ...r.checks], sanctions && sanctions.integration ? { status: sanctions.status, provider: sanctions.integration } : undefined);
  const outcome = await applyVerdict(h, stage, r, resumeWith, onBlock);
  h.ctx.emit({ companyId, environment, type: "compliance.screening_complete", entityType: "transfer", entityId: h.t.id, data: screeningCompleteData(h.t, stage, r, h.at) });
  return outcome;
}

export async function applyVerdict(h: TransferHandling, stage: Stage, r: CheckpointResult, resumeWith: { provider?: Protocol; persons?: Person[] }, onBlock: "cancel" | "hold" | "reject"): Promise<"continue" | "stopped"> {
  const v = r.verdict;
  const rules = v.matched.map((m) => m.ruleId);
  if (v.action === "approve" || v.action === "flag") {
    if (v.action === "flag") h.note("flagged", { stage, rules });
    return "continue";
  }
  delete h.ctx.state.postcheck;
  const unscreened = verdictUnscreened(v);
  h.ctx.state.hold = { stage, at: h.at, ...resumeWith, ...(unscreened ? { unscreened: true } : {}) };
  openCase(h, stage, { ...r, verdict: { ...v, action: v.action } });
  if (v.action === "require_review") {
    // Could not check is said as such in the history and the audit, never as a finding (docs/screening.md).
    const why = unscreened ? { unscreened: true } : {};
    h.change("held", { status: "pending" }, "held", { stage, rules, ...why });
    h.audit("transfer.held", { stage, rules, ...why });
    return "stopped";
  }
  const reason = blockReason(v);
  // A rejection of the beneficiary data cancels the transfer at the provider first (strict notification, provider_b);
  // other providers' flows hold it with verdict rejected (and act at their provider themselves), or reject it.
  if (stage === "postcheck" && h.t.protocol && onBlock !== "reject") {
    h.change("held", { status: "rejected" }, "held", { stage, rules, blocked: true });
    if (onBlock === "cancel") await cancelAtProvider(h, reason);
    return "stopped";
  }
  delete h.ctx.state.hold;
  h.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: reason }, "screening_blocked", { stage, rules });
  h.audit("transfer.rejected", { reason, stage, rules });
  return "stopped";
}

/** Screening held or blocked the transfer: its case (opened now, or the open one it already has) is told. */
export function openCase(h: TransferHandling, stage: Stage, r: CheckpointResult & { verdict: { action: "require_review" | "block" } }): void {
  const caseId = h.ctx.state.openCaseId ?? newCaseId(h.ctx.now);
  h.ctx.state.openCaseId = caseId;
  const { companyId, environment } = h.msg;
  const open = caseOpening({ companyId, environment, transferId: h.t.id }, { by: "screening", verdict: r.verdict, stage }, h.at);
  h.ctx.tell(`case:${caseId}`, open);
}

/**
 * The service cancels itself at the provider (`canceled`, reasonType UNKNOWN) and the transfer is `rejected` once
 * the provider answers; otherwise it stays `held` with verdict rejected. Recorded before it is sent.
 */
export async function cancelAtProvider(h: TransferHandling, reason: string): Promise<boolean> {
  const p = h.t.protocol as Protocol;
  const adapter = h.deps.providers.adapter(p);
  const actx = await h.deps.providers.context(h.t.companyId, h.t.environment, p, h.ctx.now);
  if (!adapter?.cancel || !actx) return false;
  h.ctx.state.cancelling = true;
  await h.ctx.checkpoint();
  const result = await adapter.cancel({ ...h.outgoing(), externalId: h.t.providerExternalId ?? "", vaspId: h.t.beneficiaryVaspId ?? "" }, "UNKNOWN", actx);
  delete h.ctx.state.cancelling;
  if (!result.ok) {
    h.note("cancel_refused", { provider: p, message: result.message });
    return false;
  }
  delete h.ctx.state.hold;
  delete h.ctx.state.postcheck;
  h.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: reason }, "cancelled_at_provider", { provider: p });
  h.audit("transfer.rejected", { reason, provider: p });
  return true;
}

// -------------------------------------------------------------------------------------------
// Provider flows (src/actors/transfer-flow.ts)

export async function screenCounterparty(h: TransferHandling, p: Protocol, persons: Person[], side: "originator" | "beneficiary", opts: { onBlock: "hold" | "reject"; eachAlone?: boolean; ours?: Person[] }): Promise<ScreeningOutcome> {
  if (!h.deps.checkpoint) return "approved";
  const ours = opts.ours ?? (side === "beneficiary" ? h.persons("originator") : h.persons("beneficiary"));
  const sides = side === "beneficiary" ? { originator: ours, beneficiary: persons } : { originator: persons, beneficiary: ours };
  // Part 3: provider_e screens each counterparty person alone; the others the first with ours, then each further alone.
  const evaluations = opts.eachAlone
    ? (await Promise.all(persons.map((one) => evaluationsOf(h.deps.checkpoint!, h.t, side === "beneficiary" ? { originator: [], beneficiary: [one] } : { originator: [one], beneficiary: [] })))).flat()
    : await evaluationsOf(h.deps.checkpoint, h.t, sides, { [side]: persons.slice(1) });
  const outcome = await screen(h, "postcheck", evaluations, { provider: p, persons }, opts.onBlock);
  return outcome === "continue" ? "approved" : h.t.state === "rejected" ? "rejected" : "held";
}

export function providerHold(h: TransferHandling, p: Protocol, reason: string, opts: { status?: "pending" | "rejected"; caseType?: "compliance_review" | "provider_rejection" | "sanctions_hit"; severity?: "low" | "medium" | "high"; detail?: Record<string, unknown> } = {}): void {
  h.ctx.state.hold = { stage: "provider", at: h.at, provider: p };
  const caseId = h.ctx.state.openCaseId ?? newCaseId(h.ctx.now);
  h.ctx.state.openCaseId = caseId;
  const { companyId, environment } = h.msg;
  const cause = { by: "provider" as const, provider: p, rejected: opts.status === "rejected", caseType: opts.caseType, severity: opts.severity };
  const open = caseOpening({ companyId, environment, transferId: h.t.id }, cause, h.at);
  h.ctx.tell(`case:${caseId}`, open);
  h.change("held", { status: opts.status ?? "pending" }, "held", { provider: p, reason, ...(opts.detail ?? {}) });
  h.audit("transfer.held", { provider: p, reason });
}

/**
 * Part 2 "States and transitions → Case": approved resumes the held transfer from where the hold interrupted it,
 * rejected rejects it (provider_b: cancelled at the provider first). The outcome is told to the case either way.
 */
export async function caseResolved(h: TransferHandling, caseId: string, resolution: "approved" | "rejected", act: boolean, approveUnscreened = false): Promise<Outcome> {
  if (h.ctx.state.openCaseId === caseId) delete h.ctx.state.openCaseId;
  if (!act) return current(h);
  const { companyId, environment } = h.msg;
  const tell = (moved: boolean, newValue: string) =>
    h.ctx.tell(`case:${caseId}`, { type: "transferOutcome", companyId, environment, transferId: h.t.id, moved, newValue });
  const flow = h.flowOf(h.t.protocol);
  const unscreenedHold = h.ctx.state.hold?.unscreened === true && h.t.state === "held";
  if (flow?.caseResolved && resolution === "approved" && unscreenedHold && !approveUnscreened) {
    // A provider flow resumes without screening: a hold whose checks did not run is not resumed on approval alone
    // (PATCH retry screens it again, or approval with approveUnscreened confirms it goes on unscreened).
    h.note("resume_refused", { caseId, unscreened: true });
    tell(false, "resume_refused_unscreened");
    return current(h);
  }
  if (flow?.caseResolved) {
    const done = await flow.caseResolved(h.flowContext(h.t.protocol as Protocol), resolution);
    if (done) {
      if (done.moved && unscreenedHold) h.audit("transfer.resumed", { caseId, unscreened: true });
      if (done.moved) delete h.ctx.state.hold;
      tell(done.moved, done.newValue);
      return current(h);
    }
  }
  const hold = h.ctx.state.hold;
  const held = h.t.state === "held" && hold !== undefined;
  if (resolution === "approved") {
    if (!held || h.t.status !== "pending") {
      tell(false, "resume_refused");
      return current(h);
    }
    delete h.ctx.state.hold;
    if (hold.unscreened && !approveUnscreened && (hold.stage === "precheck" || (hold.stage === "postcheck" && hold.provider))) {
      // Its checks did not run: approval screens it again first (docs/screening.md "Could not check"); a check that
      // fails again holds it again, in a new case.
      h.audit("transfer.resumed", { caseId, stage: hold.stage, screenAgain: true });
      delete h.ctx.state.prechecked;
      if (hold.stage === "postcheck") {
        h.ctx.state.postcheck = { provider: hold.provider!, persons: hold.persons ?? [] };
        h.change("exchanging", {}, "resumed", { caseId, stage: hold.stage, screenAgain: true });
      } else h.change("queued", {}, "resumed", { caseId, stage: hold.stage, screenAgain: true });
      tell(true, h.t.state);
      h.ctx.tell(`transfer:${h.t.id}`, { type: "start", companyId, environment, actor: h.msg.actor });
      return current(h);
    }
    h.audit("transfer.resumed", { caseId, stage: hold.stage, ...(hold.unscreened ? { unscreened: true } : {}) });
    if (hold.stage === "precheck") {
      // Back to where the precheck stopped it: routing (no second screening of the same data).
      h.change("queued", {}, "resumed", { caseId, stage: hold.stage, ...(hold.unscreened ? { unscreened: true } : {}) });
      tell(true, h.t.state);
      h.ctx.state.prechecked = true;
      h.ctx.tell(`transfer:${h.t.id}`, { type: "start", companyId, environment, actor: h.msg.actor });
      return current(h);
    }
    h.change("awaiting_counterparty", { status: "approved", oursStatus: "accepted", matchedAt: h.at }, "resumed", { caseId, stage: hold.stage, ...(hold.unscreened ? { unscreened: true } : {}) });
    tell(true, h.t.state);
    return current(h);
  }
  if (!held || (h.t.status !== "pending" && h.t.status !== "rejected")) {
    tell(false, "reject_refused");
    return current(h);
  }
  if (hold.stage === "postcheck" && h.t.protocol) {
    const done = await cancelAtProvider(h, "COMPLIANCE_POLICY");
    tell(done, done ? h.t.state : "reject_refused");
    return current(h);
  }
  delete h.ctx.state.hold;
  h.change("rejected", { status: "rejected", oursStatus: "rejected", rejectionReason: "COMPLIANCE_POLICY" }, "rejected", { caseId });
  h.audit("transfer.rejected", { reason: "COMPLIANCE_POLICY", caseId });
  tell(true, h.t.state);
  return current(h);
}
