// TransferActor (`transfer:<id>`): the only writer of a transfer after its creation: state, verdict, sides' status,
// rejection, checks, cascade attempts, messages, history. Providers plug in through `TransferRouting`.
import type { ActorContext, ActorKind } from "./types.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import { Transfers, type TransferRow } from "../adapters/storage/repos/transfers.ts";
import { AuditLog, type AuditActor } from "../adapters/storage/repos/audit.ts";
import type { ProviderRegistry } from "../adapters/providers/registry.ts";
import { iso } from "../domain/ids.ts";
import { FINAL_STATES, isUntakenExpired, type TransferState } from "../domain/transfers.ts";
import { actionBody, type TransferAction, type TransferMsg } from "./transfer/commands.ts";
import type { Environment } from "../domain/types.ts";
import { eventForState, transferEventData, type HistoryEntry } from "./transfer-presenter.ts";
import { refuse, type Outcome } from "./outcome.ts";
import { cascadeOrder, decide, discoverRound, preferLastReached, submissionAttempt, type Attempt, type RoutingState } from "./routing.ts";
import type { OutgoingTransfer } from "../adapters/providers/types.ts";
import type { Person } from "../domain/ivms101/index.ts";
import type { Protocol } from "../domain/transfers.ts";
import { VaspDirectory } from "../adapters/storage/repos/vasps.ts";
import { cancelDecision, txidDecision, type ReportedTx, type ResultDecision } from "../domain/provider_b/decisions.ts";
import type { Stage } from "../domain/rules/index.ts";
import { newCaseId } from "./case.ts";
import type { ActionResult, ScreeningOutcome, TransferFlow, TransferFlowContext } from "./transfer-flow.ts";
import { blockReason, caseOpening, evaluationsOf, pendingChecks, plan, runChecks, screeningCompleteData, type CheckpointDeps, type CheckpointResult, type Evaluation, type StoredCheck } from "./checkpoint.ts";

export type { TransferMsg } from "./transfer/commands.ts";

export interface TransferDeps {
  pii: Sealer;
  providers: ProviderRegistry;
  /** The amount valued in USD (provider_b's tradePrice), or null when no rate is known. */
  priceUsd(p: { companyId: string; environment: Environment; assetId: string; amount: string }): Promise<string | null>;
  /** Rules and screening at the checkpoints; without it every checkpoint approves (tests of other parts). */
  checkpoint?: CheckpointDeps;
  /** Providers whose transfers go on after submission through events and polls (src/actors/transfer-flow.ts). */
  flows?: Partial<Record<Protocol, TransferFlow>>;
}

export interface TransferActorState {
  routing?: RoutingState;
  /** A transaction hash once tried must be repeated (Part 3, provider_b). */
  triedTxHash?: string;
  /** The transaction the originating VASP reported for an incoming transfer (txid and vout), compared on repeats. */
  reportedTx?: ReportedTx;
  /** Where a hold interrupted the transfer (resumed from there when its case is approved). */
  hold?: { stage: Stage | "provider"; at: string; provider?: Protocol; persons?: Person[] };
  /** Provider-specific state of the transfer's flow (src/actors/transfer-flow.ts), by provider. */
  flow?: Partial<Record<Protocol, Record<string, unknown>>>;
  /** An officer approved a precheck hold: routing starts without screening the same data again. */
  prechecked?: boolean;
  /** The open case screening opened for this transfer: a second hold adds to it. */
  openCaseId?: string;
  /** Checkpoint runs so far (names each run's checks; a replay after a crash starts a new run). */
  runs?: number;
  /** The counterparty answered and its data waits for the postcheck (a replay resumes here, never resends). */
  postcheck?: { provider: Protocol; persons: Person[] };
  /** A self-cancellation at the provider after screening rejected the beneficiary data: recorded before it is sent. */
  cancelling?: boolean;
}

type Result = ActionResult;

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
          return ctx.reply(await h.action(msg.act));
        case "expire":
          return ctx.reply(await h.expire());
        case "inboundTxid":
          return ctx.reply(h.inboundTxid({ txid: msg.txid, vout: msg.vout }));
        case "inboundCancel":
          return ctx.reply(h.inboundCancel(msg.reasonType));
        case "caseResolved":
          return ctx.reply(await h.caseResolved(msg.caseId, msg.resolution, msg.act));
        case "providerEvent":
          return ctx.reply(await h.providerEvent(msg.provider, msg.event));
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
    if (this.ctx.state.postcheck) return this.postcheck();
    // A replay after a crash once routing had begun (a checkpoint committed `processing` and maybe a `submitting`
    // attempt): routing picks up from there and turns a send in doubt into submission_unknown, never resends.
    if (this.t.state === "processing" && this.ctx.checkpoints > 0 && this.ctx.state.routing) return this.route();
    if (this.t.state !== "queued") return { ok: true, data: { id: this.t.id, state: this.t.state } };
    // Queued again (a retry) past its expiry: cancelled rather than routed.
    if (this.cancelIfExpired()) return { ok: true, data: { id: this.t.id, state: this.t.state } };
    // Part 3 "screening_c screening": precheck before wallet discovery or any exchange (once: an officer's approval
    // of a precheck hold goes on from there).
    if (this.ctx.state.prechecked) delete this.ctx.state.prechecked;
    else if (this.deps.checkpoint && (await this.screen("precheck", await evaluationsOf(this.deps.checkpoint, this.t, { originator: this.persons("originator"), beneficiary: this.persons("beneficiary") }))) === "stopped") return { ok: true, data: { id: this.t.id, state: this.t.state } };
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
    const preferred = this.t.preferred_protocol as Protocol | null;
    this.ctx.state.routing = { startedAt: this.ctx.now, order: cascadeOrder(capable, preferred), preferred: preferred && capable.includes(preferred) ? preferred : null, discoveries: {}, done: [] };
    this.change("processing", {}, "routing_started", { order: this.ctx.state.routing.order });
    return this.route();
  }

  /** One discovery round, then submit to the first provider that found the VASP, wait, or fail. */
  async route(): Promise<Outcome> {
    if (this.ctx.state.postcheck) return this.postcheck();
    const state = this.ctx.state.routing;
    if (!state || this.t.state !== "processing") return { ok: true, data: { id: this.t.id, state: this.t.state } };
    // A replay after the process died between recording and sending: what was sent is unknown (Part 3).
    const attempts: Attempt[] = JSON.parse(this.t.attempts);
    const last = attempts[attempts.length - 1];
    if (last?.status === "submitting") {
      this.updateLastAttempt({ status: "submission_unknown", error: "The service stopped while the request was being sent" });
      // The provider may have taken it: it carries the transfer from now on (its flow, never the cascade, decides).
      this.change("failed", { protocol: last.provider }, "submission_unknown", { provider: last.provider });
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    const t = this.outgoing();
    await discoverRound(this.deps.providers, t, state, this.ctx.now, (a) => this.addAttempt(a), (_p, vasp) => {
      // A VASP wallet discovery resolved is searchable from now on (`source: discovery` until a transfer names it).
      const { company_id, environment } = this.t;
      this.ctx.write((s) => new VaspDirectory(s).record(company_id, environment, vasp.vaspId, vasp.vaspName, "discovery", this.at));
    });
    const repo = new Transfers(this.ctx.storage);
    const moved = preferLastReached(state, (vaspId) => repo.lastReached(this.t.company_id, this.t.environment, vaspId, this.t.id));
    if (moved) this.note("routed_by_last_contact", { provider: moved, preferred: state.preferred });
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
      if (result.kind === "taken") {
        // The provider took the transfer and answers later (events, polls): its flow goes on from `exchanging`.
        this.ctx.write((s) => new VaspDirectory(s).record(this.t.company_id, this.t.environment, result.vaspId, result.vaspName, "transfer_history", this.at));
        this.change("exchanging", { protocol: p, provider_external_id: result.externalId, beneficiary_vasp_id: result.vaspId, beneficiary_vasp_name: result.vaspName }, "submitted", { provider: p });
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
      if (result.kind === "unknown") {
        this.change("failed", { protocol: p, provider_external_id: result.externalId }, "submission_unknown", { provider: p });
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
      await this.applyAnswer(p, result);
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
  }

  private async applyAnswer(p: Protocol, r: Extract<import("../adapters/providers/types.ts").Submission, { kind: "answered" }>): Promise<void> {
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
    // The beneficiary data is screened (postcheck) before the transfer goes on (Part 3, provider_b Outgoing). The answer
    // commits with the postcheck's pending checks (before any screening request), so a crash during screening resumes
    // the postcheck and never sends the request again.
    const answered = { ...common, theirs_status: "accepted" };
    this.t = { ...this.t, ...answered };
    const id = this.t.id;
    this.ctx.write((s) => new Transfers(s).update(id, answered));
    this.ctx.state.postcheck = { provider: p, persons: r.beneficiaryPersons ?? [] };
    await this.postcheck();
  }

  /** The counterparty's data, screened: approved → awaiting_counterparty; review → held; a block cancels at the provider. */
  private async postcheck(): Promise<Outcome> {
    const pending = this.ctx.state.postcheck;
    if (!pending || !this.deps.checkpoint) {
      delete this.ctx.state.postcheck;
      if (pending) this.change("awaiting_counterparty", { status: "approved", ours_status: "accepted", matched_at: this.at }, "counterparty_accepted");
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    const ours = this.persons("originator");
    const counterparty = pending.persons;
    // The counterparty's first person with the company's party's stored name; each further person alone (Part 3).
    const evaluations = await evaluationsOf(this.deps.checkpoint!, this.t, { originator: ours, beneficiary: counterparty }, { beneficiary: counterparty.slice(1) });
    const outcome = await this.screen("postcheck", evaluations, { provider: pending.provider, persons: counterparty });
    delete this.ctx.state.postcheck;
    if (outcome === "continue") this.change("awaiting_counterparty", { status: "approved", ours_status: "accepted", matched_at: this.at }, "counterparty_accepted", { screened: true });
    return { ok: true, data: { id: this.t.id, state: this.t.state } };
  }

  // -------------------------------------------------------------------------------------------
  // Checkpoints (Part 2 "Rule", Part 3 "What the service does" 3; see src/actors/checkpoint.ts)

  private storedChecks(): StoredCheck[] {
    return JSON.parse(this.t.checks) as StoredCheck[];
  }

  private setChecks(checks: StoredCheck[], sanctions?: { status: string; provider: string }): void {
    const patch: Partial<TransferRow> = { checks: JSON.stringify(checks), ...(sanctions ? { sanctions_status: sanctions.status, sanctions_provider: sanctions.provider } : {}) };
    this.t = { ...this.t, ...patch };
    const id = this.t.id;
    this.ctx.write((s) => new Transfers(s).update(id, patch));
  }

  /**
   * One checkpoint: plan (applicable rules, integrations they read), record the pending checks and commit them, call
   * the integrations, record the results, emit `compliance.screening_complete`, apply the verdict. A crash while the
   * integrations are called replays the message: the interrupted run's pending checks are dropped and it runs again;
   * the verdict commits with the message's acknowledgement, so it is applied once.
   */
  private async screen(stage: Stage, evaluations: Evaluation[], resumeWith: { provider?: Protocol; persons?: Person[] } = {}, onBlock: "cancel" | "hold" | "reject" = "cancel"): Promise<"continue" | "stopped"> {
    const deps = this.deps.checkpoint;
    if (!deps) return "continue";
    const { companyId, environment } = this.msg;
    const p = plan(deps, this.t.company_id, this.t.environment, stage, evaluations);
    const kept = this.storedChecks().filter((c) => c.status !== "pending");
    const run = (this.ctx.state.runs ?? 0) + 1;
    this.ctx.state.runs = run;
    const pending = pendingChecks(deps, this.t.company_id, p, this.t.id, String(run), this.ctx.now);
    if (pending.length) {
      this.setChecks([...kept, ...pending]);
      await this.ctx.checkpoint();
    }
    const r = await runChecks(deps, this.t.company_id, this.t.environment, p, pending, this.deps.pii, this.t.id);
    const sanctions = r.checks.filter((c) => c.type === "sanctions").at(-1);
    this.setChecks([...kept, ...r.checks], sanctions && sanctions.integration ? { status: sanctions.status, provider: sanctions.integration } : undefined);
    const outcome = await this.applyVerdict(stage, r, resumeWith, onBlock);
    this.ctx.emit({ companyId, environment, type: "compliance.screening_complete", entityType: "transfer", entityId: this.t.id, data: screeningCompleteData(this.t, stage, r, this.at) });
    return outcome;
  }

  private async applyVerdict(stage: Stage, r: CheckpointResult, resumeWith: { provider?: Protocol; persons?: Person[] }, onBlock: "cancel" | "hold" | "reject"): Promise<"continue" | "stopped"> {
    const v = r.verdict;
    const rules = v.matched.map((m) => m.ruleId);
    if (v.action === "approve" || v.action === "flag") {
      if (v.action === "flag") this.note("flagged", { stage, rules });
      return "continue";
    }
    delete this.ctx.state.postcheck;
    this.ctx.state.hold = { stage, at: this.at, ...resumeWith };
    this.openCase(stage, { ...r, verdict: { ...v, action: v.action } });
    if (v.action === "require_review") {
      this.change("held", { status: "pending" }, "held", { stage, rules });
      this.audit("transfer.held", { stage, rules });
      return "stopped";
    }
    const reason = blockReason(v);
    // A rejection of the beneficiary data cancels the transfer at the provider first (strict notification, provider_b);
    // other providers' flows hold it with verdict rejected (and act at their provider themselves), or reject it.
    if (stage === "postcheck" && this.t.protocol && onBlock !== "reject") {
      this.change("held", { status: "rejected" }, "held", { stage, rules, blocked: true });
      if (onBlock === "cancel") await this.cancelAtProvider(reason);
      return "stopped";
    }
    delete this.ctx.state.hold;
    this.change("rejected", { status: "rejected", ours_status: "rejected", rejection_reason: reason }, "screening_blocked", { stage, rules });
    this.audit("transfer.rejected", { reason, stage, rules });
    return "stopped";
  }

  /** A history note that changes no state and emits nothing (a flag, a case's outcome). */
  private note(type: string, detail: Record<string, unknown>): void {
    const history: HistoryEntry[] = JSON.parse(this.t.history);
    history.push({ type, from: this.t.state, to: this.t.state, at: this.at, detail });
    const patch = { history: JSON.stringify(history), updated_at: this.at };
    this.t = { ...this.t, ...patch };
    const id = this.t.id;
    this.ctx.write((s) => new Transfers(s).update(id, patch));
  }

  /** Screening held or blocked the transfer: its case (opened now, or the open one it already has) is told. */
  private openCase(stage: Stage, r: CheckpointResult & { verdict: { action: "require_review" | "block" } }): void {
    const caseId = this.ctx.state.openCaseId ?? newCaseId(this.ctx.now);
    this.ctx.state.openCaseId = caseId;
    const { companyId, environment } = this.msg;
    const open = caseOpening({ companyId, environment, transferId: this.t.id }, { by: "screening", verdict: r.verdict, stage }, this.at);
    this.ctx.tell(`case:${caseId}`, open);
  }

  /**
   * The service cancels itself at the provider (`canceled`, reasonType UNKNOWN) and the transfer is `rejected` once
   * the provider answers; otherwise it stays `held` with verdict rejected. Recorded before it is sent.
   */
  private async cancelAtProvider(reason: string): Promise<boolean> {
    const p = this.t.protocol as Protocol;
    const adapter = this.deps.providers.adapter(p);
    const actx = this.deps.providers.context(this.t.company_id, this.t.environment, p, this.ctx.now);
    if (!adapter?.cancel || !actx) return false;
    this.ctx.state.cancelling = true;
    await this.ctx.checkpoint();
    const result = await adapter.cancel({ ...this.outgoing(), externalId: this.t.provider_external_id ?? "", vaspId: this.t.beneficiary_vasp_id ?? "" }, "UNKNOWN", actx);
    delete this.ctx.state.cancelling;
    if (!result.ok) {
      this.note("cancel_refused", { provider: p, message: result.message });
      return false;
    }
    delete this.ctx.state.hold;
    delete this.ctx.state.postcheck;
    this.change("rejected", { status: "rejected", ours_status: "rejected", rejection_reason: reason }, "cancelled_at_provider", { provider: p });
    this.audit("transfer.rejected", { reason, provider: p });
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // Provider flows (src/actors/transfer-flow.ts)

  private flowOf(p: string | null): TransferFlow | undefined {
    return p ? this.deps.flows?.[p as Protocol] : undefined;
  }

  /** What a provider's flow may do to this transfer, inside this handler. */
  private flowContext(p: Protocol): TransferFlowContext {
    const self = this;
    const { companyId, environment, actor } = this.msg;
    return {
      get row() {
        return self.t;
      },
      companyId,
      environment,
      actor,
      now: this.ctx.now,
      at: this.at,
      flowState<T extends Record<string, unknown>>(): T {
        const all = (self.ctx.state.flow ??= {});
        return (all[p] ??= {}) as T;
      },
      change: (to, set, historyType, detail) => this.change(to, set, historyType, detail),
      update: (set) => this.update(set),
      note: (type, detail) => this.note(type, detail),
      audit: (action, detail) => this.audit(action, detail),
      persons: (field) => this.persons(field),
      setPersons: (field, persons) =>
        this.update(field === "originator" ? { originator_sealed: this.deps.pii.seal(JSON.stringify(persons), `transfer:${this.t.id}:originator`) } : { beneficiary_sealed: this.deps.pii.seal(JSON.stringify(persons), `transfer:${this.t.id}:beneficiary`) }),
      adapterContext: () => this.deps.providers.context(this.t.company_id, this.t.environment, p, this.ctx.now),
      checkpoint: () => this.ctx.checkpoint(),
      tell: (to, body, opts) => this.ctx.tell(to, body, opts),
      screenCounterparty: (persons, side, opts) => this.screenCounterparty(p, persons, side, opts),
      setRejectionDetails: (details) => this.update({ rejection_details_sealed: details === null ? null : this.deps.pii.seal(details, `transfer:${this.t.id}:rejection`) }),
      hold: (reason, opts) => this.providerHold(p, reason, opts),
      answer: (action, previousState) => this.answer(action, previousState),
      refuse: (code, message, details) => refuse(code, message, details),
    };
  }

  /** Columns changed without a state change, history entry or event. */
  private update(set: Partial<TransferRow>): void {
    const patch = { ...set, updated_at: this.at };
    this.t = { ...this.t, ...patch };
    const id = this.t.id;
    this.ctx.write((s) => new Transfers(s).update(id, patch));
  }

  async providerEvent(p: Protocol, event: unknown): Promise<unknown> {
    const flow = this.flowOf(p);
    if (!flow?.onEvent) return { ok: false, code: "UNSUPPORTED", message: `${p} has no transfer flow` };
    return flow.onEvent(this.flowContext(p), event);
  }

  private async screenCounterparty(p: Protocol, persons: Person[], side: "originator" | "beneficiary", opts: { onBlock: "hold" | "reject"; eachAlone?: boolean; ours?: Person[] }): Promise<ScreeningOutcome> {
    if (!this.deps.checkpoint) return "approved";
    const ours = opts.ours ?? (side === "beneficiary" ? this.persons("originator") : this.persons("beneficiary"));
    const sides = side === "beneficiary" ? { originator: ours, beneficiary: persons } : { originator: persons, beneficiary: ours };
    // Part 3: provider_e screens each counterparty person alone; the others the first with ours, then each further alone.
    const evaluations = opts.eachAlone
      ? (await Promise.all(persons.map((one) => evaluationsOf(this.deps.checkpoint!, this.t, side === "beneficiary" ? { originator: [], beneficiary: [one] } : { originator: [one], beneficiary: [] })))).flat()
      : await evaluationsOf(this.deps.checkpoint, this.t, sides, { [side]: persons.slice(1) });
    const outcome = await this.screen("postcheck", evaluations, { provider: p, persons }, opts.onBlock);
    return outcome === "continue" ? "approved" : this.t.state === "rejected" ? "rejected" : "held";
  }

  private providerHold(p: Protocol, reason: string, opts: { status?: "pending" | "rejected"; caseType?: "compliance_review" | "provider_rejection" | "sanctions_hit"; severity?: "low" | "medium" | "high"; detail?: Record<string, unknown> } = {}): void {
    this.ctx.state.hold = { stage: "provider", at: this.at, provider: p };
    const caseId = this.ctx.state.openCaseId ?? newCaseId(this.ctx.now);
    this.ctx.state.openCaseId = caseId;
    const { companyId, environment } = this.msg;
    const cause = { by: "provider" as const, provider: p, rejected: opts.status === "rejected", caseType: opts.caseType, severity: opts.severity };
    const open = caseOpening({ companyId, environment, transferId: this.t.id }, cause, this.at);
    this.ctx.tell(`case:${caseId}`, open);
    this.change("held", { status: opts.status ?? "pending" }, "held", { provider: p, reason, ...(opts.detail ?? {}) });
    this.audit("transfer.held", { provider: p, reason });
  }

  /**
   * Part 2 "States and transitions → Case": approved resumes the held transfer from where the hold interrupted it,
   * rejected rejects it (provider_b: cancelled at the provider first). The outcome is told to the case either way.
   */
  async caseResolved(caseId: string, resolution: "approved" | "rejected", act: boolean): Promise<Outcome> {
    if (this.ctx.state.openCaseId === caseId) delete this.ctx.state.openCaseId;
    if (!act) return { ok: true, data: { id: this.t.id, state: this.t.state } };
    const { companyId, environment } = this.msg;
    const tell = (moved: boolean, newValue: string) =>
      this.ctx.tell(`case:${caseId}`, { type: "transferOutcome", companyId, environment, transferId: this.t.id, moved, newValue });
    const flow = this.flowOf(this.t.protocol);
    if (flow?.caseResolved) {
      const done = await flow.caseResolved(this.flowContext(this.t.protocol as Protocol), resolution);
      if (done) {
        if (done.moved) delete this.ctx.state.hold;
        tell(done.moved, done.newValue);
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
    }
    const hold = this.ctx.state.hold;
    const held = this.t.state === "held" && hold !== undefined;
    if (resolution === "approved") {
      if (!held || this.t.status !== "pending") {
        tell(false, "resume_refused");
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
      delete this.ctx.state.hold;
      this.audit("transfer.resumed", { caseId, stage: hold.stage });
      if (hold.stage === "precheck") {
        // Back to where the precheck stopped it: routing (no second screening of the same data).
        this.change("queued", {}, "resumed", { caseId, stage: hold.stage });
        tell(true, this.t.state);
        this.ctx.state.prechecked = true;
        this.ctx.tell(`transfer:${this.t.id}`, { type: "start", companyId, environment, actor: this.msg.actor });
        return { ok: true, data: { id: this.t.id, state: this.t.state } };
      }
      this.change("awaiting_counterparty", { status: "approved", ours_status: "accepted", matched_at: this.at }, "resumed", { caseId, stage: hold.stage });
      tell(true, this.t.state);
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    if (!held || (this.t.status !== "pending" && this.t.status !== "rejected")) {
      tell(false, "reject_refused");
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    if (hold.stage === "postcheck" && this.t.protocol) {
      const done = await this.cancelAtProvider("COMPLIANCE_POLICY");
      tell(done, done ? this.t.state : "reject_refused");
      return { ok: true, data: { id: this.t.id, state: this.t.state } };
    }
    delete this.ctx.state.hold;
    this.change("rejected", { status: "rejected", ours_status: "rejected", rejection_reason: "COMPLIANCE_POLICY" }, "rejected", { caseId });
    this.audit("transfer.rejected", { reason: "COMPLIANCE_POLICY", caseId });
    tell(true, this.t.state);
    return { ok: true, data: { id: this.t.id, state: this.t.state } };
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

  /**
   * An outgoing transfer no provider has taken (no carrying protocol: still queued, discovering, or held before any
   * exchange) that reaches its `expiresAt` is `cancelled`, with `transfer.cancelled`: nothing was sent to a
   * counterparty, so there is nothing to reject there, and the customer's records are no longer held by it.
   */
  private cancelIfExpired(): boolean {
    if (!isUntakenExpired(this.t, this.ctx.now)) return false;
    // A send in doubt (its message buried before the replay settled it) may have reached the provider: not cancelled.
    const last = (JSON.parse(this.t.attempts) as Attempt[]).at(-1);
    if (last?.status === "submitting" || last?.status === "submission_unknown") return false;
    const from = this.t.state;
    delete this.ctx.state.routing;
    delete this.ctx.state.hold;
    delete this.ctx.state.prechecked;
    this.change("cancelled", {}, "expired", { expiresAt: this.t.expires_at, from });
    this.audit("transfer.cancelled", { reason: "EXPIRED", previousState: from });
    return true;
  }

  async expire(): Promise<Outcome> {
    if (this.cancelIfExpired()) return { ok: true, data: { id: this.t.id, state: this.t.state } };
    // Expiry is provider-specific (Part 3, provider_e): the provider's flow decides what an expired transfer becomes.
    const flow = this.flowOf(this.t.protocol);
    if (flow?.expire) await flow.expire(this.flowContext(this.t.protocol as Protocol));
    return { ok: true, data: { id: this.t.id, state: this.t.state } };
  }

  /** A PATCH action, validated by the route: the provider's flow first, then the generic handling. */
  async action(act: TransferAction): Promise<Result> {
    const previousState = this.t.state;
    const flow = this.flowOf(this.t.protocol);
    if (flow?.action) {
      const done = await flow.action(this.flowContext(this.t.protocol as Protocol), act.action, actionBody(act), previousState);
      if (done) return done;
    }
    switch (act.action) {
      case "retry":
        return this.retry(act.reason, previousState);
      case "reject":
        return this.reject(act.reason, act.details, previousState);
      case "accept":
        return this.accept(act.txHash, previousState);
      default: {
        const _exhaustive: never = act;
        throw new Error(`unknown transfer action ${JSON.stringify(_exhaustive)}`);
      }
    }
  }

  private retry(reason: string | null, previousState: string): Result {
    // Part 1: the state is checked before the reason.
    if (previousState !== "failed" && previousState !== "held")
      return refuse("INVALID_TRANSFER_STATE", `A ${previousState} transfer cannot be retried`, { currentState: previousState, action: "retry", allowedStates: ["failed", "held"] });
    if (reason === null) return refuse("MISSING_REQUIRED_FIELD", "reason is required", { field: "reason" });
    if (this.t.direction !== "outgoing") return refuse("INVALID_REQUEST", "Only an outgoing transfer can be queued again");
    // Part 3: after a submission whose outcome is unknown the provider may hold the transfer; it is never sent again.
    const lastAttempt = (JSON.parse(this.t.attempts) as Attempt[]).at(-1);
    if (previousState === "failed" && lastAttempt?.status === "submission_unknown")
      return refuse("INVALID_REQUEST", `The transfer may have reached ${lastAttempt.provider ?? "the provider"} (submission unknown): it is not sent again`);
    // The reason is kept for the record (history), out of the audit log.
    const reasonSealed = this.deps.pii.seal(reason, `transfer:${this.t.id}:retry`);
    const hold = this.ctx.state.hold;
    delete this.ctx.state.hold;
    delete this.ctx.state.prechecked;
    if (previousState === "held" && hold?.stage === "postcheck" && hold.provider) {
      // The provider already took the transfer: retrying re-runs the postcheck on the counterparty's data, never resends.
      this.ctx.state.postcheck = { provider: hold.provider, persons: hold.persons ?? [] };
      this.change("exchanging", {}, "retry", { reasonSealed, stage: "postcheck" });
    } else this.change("queued", {}, "retry", { reasonSealed });
    this.audit("transfer.retried");
    const { companyId, environment, actor } = this.msg;
    this.ctx.tell(`transfer:${this.t.id}`, { type: "start", companyId, environment, actor });
    return this.answer("retry", previousState);
  }

  private reject(reason: string, details: string | null, previousState: string): Result {
    if ((FINAL_STATES as readonly string[]).includes(previousState)) return refuse("INVALID_REQUEST", `A ${previousState} transfer cannot be rejected`);
    // Part 3: reject on a provider_b transfer is refused.
    if (this.t.protocol === "provider_b") return refuse("INVALID_REQUEST", "A transfer carried by provider_b cannot be rejected through the API");
    delete this.ctx.state.hold;
    this.change("rejected", {
      status: "rejected",
      ours_status: "rejected",
      rejection_reason: reason,
      // Details are free text kept on the rejection (sealed) and out of the audit log (Part 1).
      rejection_details_sealed: details === null ? null : this.deps.pii.seal(details, `transfer:${this.t.id}:rejection`),
    }, "rejected", { reason });
    this.audit("transfer.rejected", { reason });
    return this.answer("reject", previousState);
  }

  /** `txHash` is null when none was given (Part 1: a txHash that is not a non-empty string is ignored). */
  private async accept(txHash: string | null, previousState: string): Promise<Result> {
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
