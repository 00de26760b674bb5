// TransferActor (`transfer:<id>`): the only writer of a transfer after its creation: state, verdict, sides' status,
// rejection, checks, cascade attempts, messages, history. Providers plug in through `TransferRouting`.
import type { ActorContext, ActorKind } from "./types.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import { Transfers, type TransferRow } from "../adapters/storage/repos/transfers.ts";
import { AuditLog, type AuditActor } from "../adapters/storage/repos/audit.ts";
import type { ProviderRegistry } from "../adapters/providers/registry.ts";
import { iso } from "../domain/ids.ts";
import { FINAL_STATES, isTxHash, REJECT_REASONS, type TransferState } from "../domain/transfers.ts";
import type { Environment } from "../domain/types.ts";
import type { ErrorCode } from "../domain/errors.ts";
import { eventForState, transferEventData, type HistoryEntry } from "./transfer-presenter.ts";
import type { Outcome } from "./customer.ts";

interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

export type TransferMsg =
  | (Scoped & { type: "start" })
  | (Scoped & { type: "action"; body: Record<string, unknown> })
  | (Scoped & { type: "expire" });

export interface TransferDeps {
  pii: Sealer;
  providers: ProviderRegistry;
}

type Result = Outcome<{ id: string; state: string; status: { ours: string | null; theirs: string | null }; txHash: string | null }> & { meta?: Record<string, unknown> };

const refuse = (code: ErrorCode, message: string, details?: Record<string, unknown>) => ({ ok: false as const, code, message, details });

export function transferActor(deps: TransferDeps): ActorKind<Record<string, never>, TransferMsg> {
  return {
    kind: "transfer",
    initialState: () => ({}),
    handle(ctx, msg) {
      const repo = new Transfers(ctx.storage);
      const t = repo.get(msg.companyId, msg.environment, ctx.id);
      if (!t) {
        ctx.reply(refuse("TRANSFER_NOT_FOUND", "Transfer not found", { resource: "Transfer", id: ctx.id }));
        return;
      }
      const h = new Handling(ctx, msg, t, deps);
      switch (msg.type) {
        case "start":
          return ctx.reply(h.start());
        case "action":
          return ctx.reply(h.action(msg.body));
        case "expire":
          return ctx.reply(h.expire());
        default: {
          const _exhaustive: never = msg;
          throw new Error(`unknown transfer message ${JSON.stringify(_exhaustive)}`);
        }
      }
    },
  };
}

class Handling {
  private readonly at: string;
  constructor(
    private readonly ctx: ActorContext<Record<string, never>>,
    private readonly msg: TransferMsg,
    private t: TransferRow,
    private readonly deps: TransferDeps,
  ) {
    this.at = iso(ctx.now);
  }

  /** One state change: the row, its history entry and the matching event commit with the message. */
  private change(to: TransferState | string, set: Partial<TransferRow>, historyType: string, detail?: Record<string, unknown>): void {
    const from = this.t.state;
    const history: HistoryEntry[] = JSON.parse(this.t.history);
    history.push({ type: historyType, from, to, at: this.at, ...(detail ? { detail } : {}) });
    const patch: Partial<TransferRow> = { ...set, state: to, history: JSON.stringify(history), updated_at: this.at };
    this.t = { ...this.t, ...patch };
    const row = this.t;
    this.ctx.write((s) => new Transfers(s).update(row.id, patch));
    this.ctx.emit({
      companyId: row.company_id,
      environment: row.environment,
      type: from === to ? "transfer.updated" : eventForState(to),
      entityType: "transfer",
      entityId: row.id,
      data: transferEventData(row),
    });
  }

  private audit(action: string, detail?: Record<string, unknown>): void {
    const { companyId, environment, actor } = this.msg;
    const now = this.ctx.now;
    const id = this.t.id;
    this.ctx.write((s) => new AuditLog(s).record({ companyId, environment, actor, action, entityType: "Transfer", entityId: id, detail }, now));
  }

  private answer(action: string, previousState: string): Result {
    return {
      ok: true,
      data: { id: this.t.id, state: this.t.state, status: { ours: this.t.ours_status, theirs: this.t.theirs_status }, txHash: this.t.tx_hash },
      meta: { action, previousState },
    };
  }

  /** Queued → routed to a provider. With no provider able to carry it any more, the transfer fails. */
  start(): Outcome {
    if (this.t.state !== "queued") return { ok: true, data: { id: this.t.id, state: this.t.state } };
    const caps = this.deps.providers.capabilities(this.t.company_id, this.t.environment, {
      assetId: this.t.asset_id ?? "",
      asset: this.t.asset,
      network: this.t.network,
      amount: this.t.amount,
      beneficiaryPersonCount: this.t.beneficiary_sealed ? (JSON.parse(this.deps.pii.open(this.t.beneficiary_sealed, `transfer:${this.t.id}:beneficiary`)) as unknown[]).length : 0,
      hasOriginatorAddress: this.t.originator_address !== null,
    });
    const attempts: unknown[] = JSON.parse(this.t.attempts);
    if (!caps.some((c) => c.ok)) {
      const reasons = caps.filter((c) => !c.ok).map((c) => (c as { reason: string }).reason);
      attempts.push({ id: `att_${attempts.length + 1}`, provider: null, displayName: null, protocol: null, order: attempts.length + 1, status: "error", externalId: null, error: "No enabled provider can carry the transfer", durationMs: 0 });
      this.change("failed", { attempts: JSON.stringify(attempts) }, "routing_failed", { reasons });
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    // Provider exchange: the providers issue plugs the cascade in here.
    this.change("processing", {}, "processing_started");
    return { ok: true, data: { id: this.t.id, state: this.t.state } };
  }

  expire(): Outcome {
    // Expiry is provider-specific (Part 3, provider_e): a provider adapter decides what an expired transfer becomes.
    return { ok: true, data: { id: this.t.id, state: this.t.state } };
  }

  action(body: Record<string, unknown>): Result {
    const action = body.action;
    const previousState = this.t.state;
    switch (action) {
      case "retry":
        return this.retry(body, previousState);
      case "reject":
        return this.reject(body, previousState);
      case "accept":
        return this.accept(body, previousState);
      default:
        return refuse("INVALID_REQUEST", action === undefined ? "An action is required" : `Unknown action ${JSON.stringify(action)}`, {
          action: action ?? null,
          allowedActions: ["accept", "reject", "retry"],
        });
    }
  }

  private retry(body: Record<string, unknown>, previousState: string): Result {
    // Part 1: the state is checked before the reason.
    if (previousState !== "failed" && previousState !== "held")
      return refuse("INVALID_TRANSFER_STATE", `A ${previousState} transfer cannot be retried`, { currentState: previousState, action: "retry", allowedStates: ["failed", "held"] });
    const reason = body.reason;
    if (reason === undefined || reason === null || reason === "") return refuse("MISSING_REQUIRED_FIELD", "reason is required", { field: "reason" });
    if (typeof reason !== "string") return refuse("VALIDATION_ERROR", "reason must be text", { validationErrors: ["reason: must be a string"] });
    if (this.t.direction !== "outgoing") return refuse("INVALID_REQUEST", "Only an outgoing transfer can be queued again");
    // The reason is kept for the record (history), out of the audit log.
    this.change("queued", {}, "retry", { reasonSealed: this.deps.pii.seal(reason, `transfer:${this.t.id}:retry`) });
    this.audit("transfer.retried");
    const { companyId, environment, actor } = this.msg;
    this.ctx.tell(`transfer:${this.t.id}`, { type: "start", companyId, environment, actor });
    return this.answer("retry", previousState);
  }

  private reject(body: Record<string, unknown>, previousState: string): Result {
    if (body.reason === undefined || body.reason === null) return refuse("MISSING_REQUIRED_FIELD", "reason is required", { field: "reason" });
    const errors: string[] = [];
    if (body.status === undefined) errors.push("status: is required");
    else if (body.status !== "rejected") errors.push("status: must be rejected");
    if (typeof body.reason !== "string" || !(REJECT_REASONS as readonly string[]).includes(body.reason)) errors.push(`reason: must be one of ${REJECT_REASONS.join(", ")}`);
    if (body.details !== undefined && body.details !== null) {
      if (typeof body.details !== "string") errors.push("details: must be text");
      else if (Array.from(body.details).length > 500) errors.push("details: must be at most 500 characters");
    }
    if (errors.length) return refuse("VALIDATION_ERROR", errors.join("; "), { validationErrors: errors });
    if ((FINAL_STATES as readonly string[]).includes(previousState)) return refuse("INVALID_REQUEST", `A ${previousState} transfer cannot be rejected`);
    const details = typeof body.details === "string" ? body.details : null;
    this.change("rejected", {
      status: "rejected",
      ours_status: "rejected",
      rejection_reason: body.reason as string,
      // Details are free text kept on the rejection (sealed) and out of the audit log (Part 1).
      rejection_details_sealed: details === null ? null : this.deps.pii.seal(details, `transfer:${this.t.id}:rejection`),
    }, "rejected", { reason: body.reason });
    this.audit("transfer.rejected", { reason: body.reason });
    return this.answer("reject", previousState);
  }

  private accept(body: Record<string, unknown>, previousState: string): Result {
    // A txHash that is not a non-empty string is ignored (Part 1).
    const txHash = typeof body.txHash === "string" && body.txHash !== "" ? body.txHash : null;
    if (txHash !== null && !isTxHash(txHash)) return refuse("VALIDATION_ERROR", "txHash must be a 32-byte hexadecimal hash, with or without 0x", { validationErrors: ["txHash: must be a 32-byte hexadecimal hash"] });
    if (this.t.direction === "incoming" && txHash === null) {
      if (previousState !== "held" || this.t.status !== "pending") return refuse("INVALID_REQUEST", `Only a held incoming transfer with a pending verdict can be accepted (it is ${previousState})`);
      return refuse("INVALID_REQUEST", "The transfer's provider does not allow accepting it here");
    }
    if (txHash === null) return refuse("INVALID_REQUEST", "An outgoing transfer is accepted with its txHash");
    if (this.t.theirs_status !== "accepted" || this.t.status !== "approved" || !["awaiting_counterparty", "accepted"].includes(previousState))
      return refuse("INVALID_REQUEST", `The transaction can be confirmed only once the counterparty accepted and the verdict is approved, in awaiting_counterparty or accepted (it is ${previousState})`);
    // Reporting the transaction to the carrying provider comes first; the providers issue plugs it in here.
    return refuse("INVALID_REQUEST", `The transfer's provider ${this.t.protocol ?? "(none)"} cannot take the transaction report`);
  }
}
