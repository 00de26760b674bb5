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
import { refuse as refusal, type Outcome } from "./outcome.ts";
import { cascadeOrder, decide, discoverRound, submissionAttempt, type Attempt, type RoutingState } from "./routing.ts";
import type { OutgoingTransfer } from "../adapters/providers/types.ts";
import type { Person } from "../domain/ivms101/index.ts";
import type { Protocol } from "../domain/transfers.ts";
import { VaspDirectory } from "../adapters/storage/repos/vasps.ts";
import { cancelDecision, txidDecision, type ReportedTx, type ResultDecision } from "../domain/provider_b/decisions.ts";

interface Scoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

export type TransferMsg =
  | (Scoped & { type: "start" })
  | (Scoped & { type: "discover" })
  | (Scoped & { type: "action"; body: Record<string, unknown> })
  | (Scoped & { type: "expire" })
  // Part 3, provider_b callbacks: the originating VASP reports the transaction of, or cancels, an incoming transfer.
  | (Scoped & { type: "inboundTxid"; txid: string; vout: string | null })
  | (Scoped & { type: "inboundCancel"; reasonType: string | null });

export interface TransferDeps {
  pii: Sealer;
  providers: ProviderRegistry;
  /** The amount valued in USD (provider_b's tradePrice), or null when no rate is known. */
  priceUsd(p: { companyId: string; environment: Environment; assetId: string; amount: string }): Promise<string | null>;
}

export interface TransferActorState {
  routing?: RoutingState;
  /** A transaction hash once tried must be repeated (Part 3, provider_b). */
  triedTxHash?: string;
  /** The transaction the originating VASP reported for an incoming transfer (txid and vout), compared on repeats. */
  reportedTx?: ReportedTx;
}

type Result = Outcome<{ id: string; state: string; status: { ours: string | null; theirs: string | null }; txHash: string | null }> & { meta?: Record<string, unknown> };

/** The transfer actor words every refusal (Part 1: the reason in `error`). */
const refuse = (code: ErrorCode, message: string, details?: Record<string, unknown>) => refusal(code, details, message);

export function transferActor(deps: TransferDeps): ActorKind<TransferActorState, TransferMsg> {
  return {
    kind: "transfer",
    initialState: () => ({}),
    async handle(ctx, msg) {
      const repo = new Transfers(ctx.storage);
      const t = repo.get(msg.companyId, msg.environment, ctx.id);
      if (!t) {
        ctx.reply(refuse("TRANSFER_NOT_FOUND", "Transfer not found", { resource: "Transfer", id: ctx.id }));
        return;
      }
      const h = new Handling(ctx, msg, t, deps);
      switch (msg.type) {
        case "start":
          return ctx.reply(await h.start());
        case "discover":
          return ctx.reply(await h.route());
        case "action":
          return ctx.reply(await h.action(msg.body));
        case "expire":
          return ctx.reply(h.expire());
        case "inboundTxid":
          return ctx.reply(h.inboundTxid({ txid: msg.txid, vout: msg.vout }));
        case "inboundCancel":
          return ctx.reply(h.inboundCancel(msg.reasonType));
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
    private readonly ctx: ActorContext<TransferActorState>,
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

  private persons(field: "originator" | "beneficiary"): Person[] {
    const sealed = field === "originator" ? this.t.originator_sealed : this.t.beneficiary_sealed;
    return sealed ? (JSON.parse(this.deps.pii.open(sealed, `transfer:${this.t.id}:${field}`)) as Person[]) : [];
  }

  private outgoing(): OutgoingTransfer {
    const t = this.t;
    return {
      id: t.id,
      companyId: t.company_id,
      environment: t.environment,
      asset: t.asset,
      assetId: t.asset_id ?? "",
      network: t.network,
      amount: t.amount,
      originatorAddress: t.originator_address,
      beneficiaryAddress: t.beneficiary_address,
      originatorPersons: this.persons("originator"),
      beneficiaryPersons: this.persons("beneficiary"),
      // Valued in USD only when a request is about to be sent (see route): discovery rounds and reports need no price.
      usdValue: null,
      // Queued transfers are those at or above the Travel Rule threshold (Part 1, create outcomes).
      isExceedingThreshold: true,
      expiresAt: t.expires_at,
    };
  }

  private addAttempt(a: Omit<Attempt, "id" | "order">): void {
    const attempts: Attempt[] = JSON.parse(this.t.attempts);
    attempts.push({ ...a, id: `att_${this.t.id.slice(4)}_${attempts.length + 1}`, order: attempts.length + 1 });
    this.t = { ...this.t, attempts: JSON.stringify(attempts) };
    const row = this.t;
    this.ctx.write((s) => new Transfers(s).update(row.id, { attempts: row.attempts }));
  }

  private updateLastAttempt(patch: Partial<Attempt>): void {
    const attempts: Attempt[] = JSON.parse(this.t.attempts);
    attempts[attempts.length - 1] = { ...attempts[attempts.length - 1], ...patch };
    this.t = { ...this.t, attempts: JSON.stringify(attempts) };
    const row = this.t;
    this.ctx.write((s) => new Transfers(s).update(row.id, { attempts: row.attempts }));
  }

  /** Queued → routed to a provider. With no provider able to carry it any more, the transfer fails. */
  async start(): Promise<Outcome> {
    if (this.t.state !== "queued") return { ok: true, data: { id: this.t.id, state: this.t.state } };
    const beneficiaryPersons = this.persons("beneficiary");
    const caps = this.deps.providers.capabilities(this.t.company_id, this.t.environment, {
      assetId: this.t.asset_id ?? "",
      asset: this.t.asset,
      network: this.t.network,
      amount: this.t.amount,
      beneficiaryPersonCount: beneficiaryPersons.length,
      hasOriginatorAddress: this.t.originator_address !== null,
    });
    const capable = caps.filter((c) => c.ok).map((c) => c.provider);
    if (capable.length === 0) {
      const reasons = caps.filter((c) => !c.ok).map((c) => (c as { reason: string }).reason);
      this.addAttempt({ provider: null, displayName: null, protocol: null, status: "error", externalId: null, error: "No enabled provider can carry the transfer", durationMs: 0 });
      this.change("failed", {}, "routing_failed", { reasons });
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    this.ctx.state.routing = { startedAt: this.ctx.now, order: cascadeOrder(capable, this.t.preferred_protocol as Protocol | null), discoveries: {}, done: [] };
    this.change("processing", {}, "routing_started", { order: this.ctx.state.routing.order });
    return this.route();
  }

  /** One discovery round, then submit to the first provider that found the VASP, wait, or fail. */
  async route(): Promise<Outcome> {
    const state = this.ctx.state.routing;
    if (!state || this.t.state !== "processing") return { ok: true, data: { id: this.t.id, state: this.t.state } };
    // A replay after the process died between recording and sending: what was sent is unknown (Part 3).
    const attempts: Attempt[] = JSON.parse(this.t.attempts);
    const last = attempts[attempts.length - 1];
    if (last?.status === "submitting") {
      this.updateLastAttempt({ status: "submission_unknown", error: "The service stopped while the request was being sent" });
      this.change("failed", {}, "submission_unknown");
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    const t = this.outgoing();
    await discoverRound(this.deps.providers, t, state, this.ctx.now, (a) => this.addAttempt(a));
    for (;;) {
      const next = decide(state, this.ctx.now, (a) => this.addAttempt(a), (p) => this.deps.providers.displayName(p));
      if (next.kind === "wait") {
        const { companyId, environment, actor } = this.msg;
        this.ctx.tell(`transfer:${this.t.id}`, { type: "discover", companyId, environment, actor }, { dueAt: next.dueAt });
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
      if (next.kind === "failed") {
        this.change("failed", {}, "routing_failed", { reason: next.reason });
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
      const p = next.provider;
      const adapter = this.deps.providers.adapter(p);
      const actx = this.deps.providers.context(this.t.company_id, this.t.environment, p, this.ctx.now);
      state.done.push(p);
      if (!adapter?.submit || !actx) {
        this.addAttempt({ provider: p, displayName: this.deps.providers.displayName(p), protocol: p, status: "error", externalId: null, error: `${p} cannot send`, durationMs: 0 });
        continue;
      }
      // Record what will be sent, commit it, then send (a crash in between is a known submission_unknown).
      this.addAttempt({ provider: p, displayName: this.deps.providers.displayName(p), protocol: p, status: "submitting", externalId: null, error: null, durationMs: 0 });
      await this.ctx.checkpoint();
      const began = Date.now();
      const usdValue = await this.deps.priceUsd({ companyId: t.companyId, environment: t.environment, assetId: t.assetId, amount: t.amount }).catch(() => null);
      const result = await adapter.submit({ ...t, usdValue }, next.vasp, actx);
      this.updateLastAttempt(submissionAttempt(p, this.deps.providers.displayName(p), result, Date.now() - began));
      if (result.kind === "not_taken") continue;
      if (result.kind === "unknown") {
        this.change("failed", { protocol: p, provider_external_id: result.externalId }, "submission_unknown", { provider: p });
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
      this.applyAnswer(p, result);
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
  }

  private applyAnswer(p: Protocol, r: Extract<import("../adapters/providers/types.ts").Submission, { kind: "answered" }>): void {
    const messages = JSON.parse(this.t.messages) as { type: string; direction: string; timestamp: string }[];
    messages.push({ type: "transfer_request", direction: "outbound", timestamp: this.at }, { type: "transfer_response", direction: "inbound", timestamp: this.at });
    const common: Partial<TransferRow> = {
      protocol: p,
      provider_external_id: r.externalId,
      beneficiary_vasp_id: r.vaspId,
      beneficiary_vasp_name: r.vaspName,
      messages: JSON.stringify(messages),
    };
    const row = this.t;
    this.ctx.write((s) => new VaspDirectory(s).record(row.company_id, row.environment, r.vaspId, r.vaspName, "transfer_history", this.at));
    if (r.theirs === "rejected") {
      this.change("rejected", { ...common, status: "rejected", theirs_status: "rejected", rejection_reason: r.reasonType ?? "UNKNOWN" }, "counterparty_rejected", { reasonType: r.reasonType ?? "UNKNOWN" });
      return;
    }
    // The beneficiary data is screened before authorizing; with no screening rule it is approved (Part 3).
    this.change("awaiting_counterparty", { ...common, status: "approved", theirs_status: "accepted", ours_status: "accepted", matched_at: this.at }, "counterparty_accepted");
  }

  /** An incoming transfer's transaction, reported by its originating VASP: a verified transfer becomes `accepted`. */
  inboundTxid(tx: ReportedTx): Outcome<ResultDecision> {
    if (this.t.direction !== "incoming") return { ok: true, data: { result: "error", reasonType: "UNKNOWN_TRANSFER_ID" } };
    const d = txidDecision(this.t.state, this.ctx.state.reportedTx ?? null, tx);
    if (d.record) {
      this.ctx.state.reportedTx = tx;
      this.change("accepted", { tx_hash: tx.txid, theirs_status: "accepted", accepted_at: this.at }, "transaction_reported", { vout: tx.vout });
      this.audit("transfer.accepted", { protocol: this.t.protocol });
    }
    return { ok: true, data: d.result === "normal" ? { result: "normal" } : d };
  }

  /** The originating VASP canceled an incoming transfer: `rejected`, or `failed` once its transaction was reported. */
  inboundCancel(reasonType: string | null): Outcome<ResultDecision> {
    if (this.t.direction !== "incoming") return { ok: true, data: { result: "error", reasonType: "UNKNOWN_TRANSFER_ID" } };
    const d = cancelDecision(this.t.state, this.ctx.state.reportedTx ?? null);
    if (d.to) {
      // The sender's own reasonType is kept in the history only when it looks like a code (never free text).
      const theirs = reasonType && /^[A-Z][A-Z0-9_]{0,63}$/.test(reasonType) ? { senderReasonType: reasonType } : undefined;
      this.change(d.to, { theirs_status: "rejected", rejection_reason: "ORIGINATOR_CANCELED" }, "originator_canceled", theirs);
      this.audit(`transfer.${d.to}`, { reason: "ORIGINATOR_CANCELED" });
    }
    return { ok: true, data: { result: "normal" } };
  }

  expire(): Outcome {
    // Expiry is provider-specific (Part 3, provider_e): a provider adapter decides what an expired transfer becomes.
    return { ok: true, data: { id: this.t.id, state: this.t.state } };
  }

  async action(body: Record<string, unknown>): Promise<Result> {
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
    // Part 3: reject on a provider_b transfer is refused.
    if (this.t.protocol === "provider_b") return refuse("INVALID_REQUEST", "A transfer carried by provider_b cannot be rejected through the API");
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

  private async accept(body: Record<string, unknown>, previousState: string): Promise<Result> {
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
    const p = this.t.protocol as Protocol | null;
    const adapter = p ? this.deps.providers.adapter(p) : undefined;
    const actx = p ? this.deps.providers.context(this.t.company_id, this.t.environment, p, this.ctx.now) : null;
    if (!p || !adapter?.reportTransaction || !actx) return refuse("INVALID_REQUEST", `The transfer's provider ${p ?? "(none)"} cannot take the transaction report`);
    // A hash once tried must be repeated (Part 3, provider_b): a different one is refused.
    if (this.ctx.state.triedTxHash && this.ctx.state.triedTxHash !== txHash) return refuse("INVALID_REQUEST", `${this.deps.providers.displayName(p)} request failed (TXID_ALREADY_EXISTS)`);
    this.ctx.state.triedTxHash = txHash;
    await this.ctx.checkpoint();
    const t = this.outgoing();
    const result = await adapter.reportTransaction({ ...t, externalId: this.t.provider_external_id ?? "", vaspId: this.t.beneficiary_vasp_id ?? "" }, txHash, actx);
    if (!result.ok) return refuse("INVALID_REQUEST", result.message);
    // Strict notification: the provider was told first; only now the transfer changes.
    this.change("completed", { tx_hash: txHash, accepted_at: this.t.accepted_at ?? this.at, completed_at: this.at }, "transaction_reported");
    this.audit("transfer.completed");
    return this.answer("accept", previousState);
  }
}
