// PATCH /api/v2/transfers/{id} bodies (Part 1): checked here, the same for every provider, so the transfer actor and
// a provider's flow only ever see a valid action (nothing invalid is sent to a provider).
import { apiError } from "../../domain/errors.ts";
import { ACTIONS, isTxHash, REJECT_REASONS } from "../../domain/transfers.ts";
import type { TransferAction } from "../../actors/transfer/commands.ts";

const allowedActions = [...ACTIONS];

/** The body as a typed action, or the spec's refusal (INVALID_REQUEST, MISSING_REQUIRED_FIELD, VALIDATION_ERROR). */
export function validateAction(body: unknown): TransferAction {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body))
    throw apiError("INVALID_REQUEST", { message: "The body must be a JSON object with an action", details: { action: null, allowedActions } });
  const b = body as Record<string, unknown>;
  switch (b.action) {
    case "accept":
      return { action: "accept", txHash: txHashOf(b) };
    case "reject":
      return rejectOf(b);
    case "retry":
      return retryOf(b);
    default:
      throw apiError("INVALID_REQUEST", {
        message: b.action === undefined ? "An action is required" : `Unknown action ${JSON.stringify(b.action)}`,
        details: { action: b.action ?? null, allowedActions },
      });
  }
}

const invalid = (message: string, validationErrors: string[]): never => {
  throw apiError("VALIDATION_ERROR", { message, details: { validationErrors } });
};

/** A txHash that is not a non-empty string is ignored (Part 1); a malformed one is refused. */
function txHashOf(b: Record<string, unknown>): string | null {
  const txHash = typeof b.txHash === "string" && b.txHash !== "" ? b.txHash : null;
  if (txHash !== null && !isTxHash(txHash)) invalid("txHash must be a 32-byte hexadecimal hash, with or without 0x", ["txHash: must be a 32-byte hexadecimal hash"]);
  return txHash;
}

/** Part 1 reject: a reason (missing → MISSING_REQUIRED_FIELD), status `rejected`, a known reason, details ≤ 500 characters. */
function rejectOf(b: Record<string, unknown>): TransferAction {
  if (b.reason === undefined || b.reason === null) throw apiError("MISSING_REQUIRED_FIELD", { message: "reason is required", details: { field: "reason" } });
  const errors: string[] = [];
  if (b.status === undefined) errors.push("status: is required");
  else if (b.status !== "rejected") errors.push("status: must be rejected");
  const reason = typeof b.reason === "string" && (REJECT_REASONS as readonly string[]).includes(b.reason) ? (b.reason as (typeof REJECT_REASONS)[number]) : null;
  if (reason === null) errors.push(`reason: must be one of ${REJECT_REASONS.join(", ")}`);
  let details: string | null = null;
  if (b.details !== undefined && b.details !== null) {
    if (typeof b.details !== "string") errors.push("details: must be text");
    else if (Array.from(b.details).length > 500) errors.push("details: must be at most 500 characters");
    else details = b.details;
  }
  if (errors.length) invalid(errors.join("; "), errors);
  return { action: "reject", reason: reason!, details };
}

/** Part 1 retry: a missing reason is answered by the actor, after the state; a reason that is not text is refused here. */
function retryOf(b: Record<string, unknown>): TransferAction {
  const reason = b.reason;
  if (reason === undefined || reason === null || reason === "") return { action: "retry", reason: null };
  if (typeof reason !== "string") invalid("reason must be text", ["reason: must be a string"]);
  return { action: "retry", reason: reason as string };
}
