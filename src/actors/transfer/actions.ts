// The transfer actor's PATCH actions (Part 1 "PATCH /api/v2/transfers/{id}"): accept, reject, retry, each checked
// against the transfer's state; a provider's flow answers first for the transfers it carries.
import { FINAL_STATES, type Protocol } from "../../domain/transfers.ts";
import { refuse } from "../outcome.ts";
import type { Attempt } from "../routing.ts";
import { actionBody, transferVersion, type TransferAction } from "./commands.ts";
import type { Result, TransferHandling } from "./handling.ts";

/** Idempotency-Keys remembered per transfer for PATCH actions. */
const ACTION_KEYS = 20;

/**
 * A PATCH action, validated by the route: a repeated Idempotency-Key is answered as the first time; an action whose
 * transfer changed after the request arrived is refused (two racing actions take effect once); then the provider's
 * flow first, then the generic handling.
 */
export async function action(h: TransferHandling, act: TransferAction, seen?: string, key?: { key: string; hash: string }): Promise<Result> {
  if (key) {
    const used = h.ctx.state.actionKeys?.find((k) => k.key === key.key);
    if (used && used.hash === key.hash) return { ...used.result, meta: { ...used.result.meta, idempotent: true } } as Result;
    if (used) return refuse("CONFLICT", "This Idempotency-Key was used for another action on this transfer: send a new key for a new action", { action: act.action });
  }
  const result = await decide(h, act, seen);
  // Answers of the transfer's state are kept for the key (an unexpected failure is not: it throws and is retried).
  if (key) h.ctx.state.actionKeys = [...(h.ctx.state.actionKeys ?? []), { key: key.key, hash: key.hash, result }].slice(-ACTION_KEYS);
  return result;
}

/**
 * The refusal an action meets on a transfer that changed while it waited: the spec's own code when the state it is in
 * now does not take the action at all (INVALID_TRANSFER_STATE for a retry, INVALID_REQUEST otherwise), else 409
 * CONFLICT, "another request changed the same record simultaneously" (Part 1, Errors).
 */
function changedMeanwhile(h: TransferHandling, act: TransferAction): Result {
  const state = h.t.state;
  if (act.action === "retry" && state !== "failed" && state !== "held")
    return refuse("INVALID_TRANSFER_STATE", `A ${state} transfer cannot be retried`, { currentState: state, action: "retry", allowedStates: ["failed", "held"] });
  if (act.action !== "retry" && (FINAL_STATES as readonly string[]).includes(state)) return refuse("INVALID_REQUEST", `A ${state} transfer cannot be ${act.action}ed`);
  return refuse("CONFLICT", `The transfer changed while this ${act.action} waited (it is now ${state}): read it and decide again`, { currentState: state, action: act.action });
}

async function decide(h: TransferHandling, act: TransferAction, seen?: string): Promise<Result> {
  if (seen !== undefined && transferVersion(h.t) !== seen) return changedMeanwhile(h, act);
  const previousState = h.t.state;
  const flow = h.flowOf(h.t.protocol);
  if (flow?.action) {
    const done = await flow.action(h.flowContext(h.t.protocol as Protocol), act.action, actionBody(act), previousState);
    if (done) return done;
  }
  switch (act.action) {
    case "retry":
      return retry(h, act.reason, previousState);
    case "reject":
      return reject(h, act.reason, act.details, previousState);
    case "accept":
      return accept(h, act.txHash, previousState);
    default: {
      const _exhaustive: never = act;
      throw new Error(`unknown transfer action ${JSON.stringify(_exhaustive)}`);
    }
  }
}

export function retry(h: TransferHandling, reason: string | null, previousState: string): Result {
  // Part 1: the state is checked before the reason.
  if (previousState !== "failed" && previousState !== "held")
    return refuse("INVALID_TRANSFER_STATE", `A ${previousState} transfer cannot be retried`, { currentState: previousState, action: "retry", allowedStates: ["failed", "held"] });
  if (reason === null) return refuse("MISSING_REQUIRED_FIELD", "reason is required", { field: "reason" });
  if (h.t.direction !== "outgoing") return refuse("INVALID_REQUEST", "Only an outgoing transfer can be queued again");
  // Part 3: after a submission whose outcome is unknown the provider may hold the transfer; it is never sent again.
  const lastAttempt = h.t.attempts.at(-1);
  if (previousState === "failed" && lastAttempt?.status === "submission_unknown")
    return refuse("INVALID_REQUEST", `The transfer may have reached ${lastAttempt.provider ?? "the provider"} (submission unknown): it is not sent again`);
  // The reason is kept for the record (history), out of the audit log.
  const reasonSealed = h.deps.pii.seal(reason, `transfer:${h.t.id}:retry`);
  const hold = h.ctx.state.hold;
  delete h.ctx.state.hold;
  delete h.ctx.state.prechecked;
  if (previousState === "held" && hold?.stage === "postcheck" && hold.provider) {
    // The provider already took the transfer: queued again (Part 1 table), the start re-runs the postcheck on the
    // counterparty's data and never resends.
    h.ctx.state.postcheck = { provider: hold.provider, persons: hold.persons ?? [] };
    h.change("queued", {}, "retry", { reasonSealed, stage: "postcheck" });
  } else h.change("queued", {}, "retry", { reasonSealed });
  h.audit("transfer.retried");
  const { companyId, environment, actor } = h.msg;
  h.ctx.tell(`transfer:${h.t.id}`, { type: "start", companyId, environment, actor });
  return h.answer("retry", previousState);
}

export function reject(h: TransferHandling, reason: string, details: string | null, previousState: string): Result {
  if ((FINAL_STATES as readonly string[]).includes(previousState)) return refuse("INVALID_REQUEST", `A ${previousState} transfer cannot be rejected`);
  // Part 3: reject on a provider_b transfer is refused.
  if (h.t.protocol === "provider_b") return refuse("INVALID_REQUEST", "A transfer carried by provider_b cannot be rejected through the API");
  delete h.ctx.state.hold;
  h.change("rejected", {
    status: "rejected",
    oursStatus: "rejected",
    rejectionReason: reason,
    // Details are free text kept on the rejection (sealed) and out of the audit log (Part 1).
    rejectionDetailsSealed: details === null ? null : h.deps.pii.seal(details, `transfer:${h.t.id}:rejection`),
  }, "rejected", { reason });
  h.audit("transfer.rejected", { reason });
  return h.answer("reject", previousState);
}

/** `txHash` is null when none was given (Part 1: a txHash that is not a non-empty string is ignored). */
export async function accept(h: TransferHandling, txHash: string | null, previousState: string): Promise<Result> {
  if (h.t.direction === "incoming" && txHash === null) {
    if (previousState !== "held" || h.t.status !== "pending") return refuse("INVALID_REQUEST", `Only a held incoming transfer with a pending verdict can be accepted (it is ${previousState})`);
    return refuse("INVALID_REQUEST", "The transfer's provider does not allow accepting it here");
  }
  if (txHash === null) return refuse("INVALID_REQUEST", "An outgoing transfer is accepted with its txHash");
  if (h.t.theirsStatus !== "accepted" || h.t.status !== "approved" || !["awaiting_counterparty", "accepted"].includes(previousState))
    return refuse("INVALID_REQUEST", `The transaction can be confirmed only once the counterparty accepted and the verdict is approved, in awaiting_counterparty or accepted (it is ${previousState})`);
  const p = h.t.protocol as Protocol | null;
  const adapter = p ? h.deps.providers.adapter(p) : undefined;
  const actx = p ? await h.deps.providers.context(h.t.companyId, h.t.environment, p, h.ctx.now) : null;
  if (!p || !adapter?.reportTransaction || !actx) return refuse("INVALID_REQUEST", `The transfer's provider ${p ?? "(none)"} cannot take the transaction report`);
  // A hash once tried must be repeated (Part 3, provider_b): a different one is refused.
  if (h.ctx.state.triedTxHash && h.ctx.state.triedTxHash !== txHash) return refuse("INVALID_REQUEST", `${h.deps.providers.displayName(p)} request failed (TXID_ALREADY_EXISTS)`);
  h.ctx.state.triedTxHash = txHash;
  await h.ctx.checkpoint();
  const t = h.outgoing();
  const result = await adapter.reportTransaction({ ...t, externalId: h.t.providerExternalId ?? "", vaspId: h.t.beneficiaryVaspId ?? "" }, txHash, actx);
  if (!result.ok) return refuse("INVALID_REQUEST", result.message);
  // Strict notification: the provider was told first; only now the transfer changes.
  h.change("completed", { txHash: txHash, acceptedAt: h.t.acceptedAt ?? h.at, completedAt: h.at }, "transaction_reported");
  h.audit("transfer.completed");
  return h.answer("accept", previousState);
}
