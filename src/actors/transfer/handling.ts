// The transfer actor's handling of one message: the transfer row as it stands, and the primitives every job of the
// actor (actions.ts, routing.ts, holds.ts, provider-events.ts) changes it through, so each change, its history entry
// and its event commit with the message.
import type { ActorContext } from "../types.ts";
import type { Sealer } from "../../adapters/crypto/envelope.ts";
import type { Repositories } from "../../ports/repositories.ts";
import type { Attempt, HistoryEntry, StoredCheck, Transfer } from "../../ports/transfers.ts";
import type { ProviderRegistry } from "../../adapters/providers/registry.ts";
import type { OutgoingTransfer } from "../../adapters/providers/types.ts";
import { iso } from "../../domain/ids.ts";
import type { Protocol, TransferState } from "../../domain/transfers.ts";
import type { Environment } from "../../domain/types.ts";
import type { Person } from "../../domain/ivms101/index.ts";
import type { ReportedTx } from "../../domain/provider_b/decisions.ts";
import type { Stage } from "../../domain/rules/index.ts";
import { eventForState, transferEventData } from "../transfer-presenter.ts";
import type { RoutingState } from "../routing.ts";
import type { ActionResult, TransferFlow, TransferFlowContext } from "../transfer-flow.ts";
import type { CheckpointDeps } from "../checkpoint.ts";
import type { TransferMsg } from "./commands.ts";

/** The repositories the transfer actor reads and writes (inside `ctx.write` too: they share the runtime's connection). */
export type TransferRepositories = Pick<Repositories, "transfers" | "audit" | "vasps">;

export interface TransferDeps {
  repositories: TransferRepositories;
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
  /** `unscreened`: held only because its checks could not run (approval screens again unless confirmed unscreened). */
  hold?: { stage: Stage | "provider"; at: string; provider?: Protocol; persons?: Person[]; unscreened?: boolean };
  /** Provider-specific state of the transfer's flow (src/actors/transfer-flow.ts), by provider. */
  flow?: Partial<Record<Protocol, Record<string, unknown>>>;
  /** An officer approved a precheck hold: routing starts without screening the same data again. */
  prechecked?: boolean;
  /** The open case screening opened for this transfer: a second hold adds to it. */
  openCaseId?: string;
  /** PATCH actions answered with an Idempotency-Key (the latest ACTION_KEYS): a repeat gets the same answer. */
  actionKeys?: { key: string; hash: string; result: ActionResult }[];
  /** Checkpoint runs so far (names each run's checks; a replay after a crash starts a new run). */
  runs?: number;
  /** The counterparty answered and its data waits for the postcheck (a replay resumes here, never resends). */
  postcheck?: { provider: Protocol; persons: Person[] };
  /** A self-cancellation at the provider after screening rejected the beneficiary data: recorded before it is sent. */
  cancelling?: boolean;
}

export type Result = ActionResult;

/** The idle answer of most messages: the transfer's ID and state as they stand. */
export const current = (h: TransferHandling) => ({ ok: true as const, data: { id: h.t.id, state: h.t.state } });

export class TransferHandling {
  readonly at: string;
  constructor(
    readonly ctx: ActorContext<TransferActorState>,
    readonly msg: TransferMsg,
    public t: Transfer,
    readonly deps: TransferDeps,
    private readonly flows: (h: TransferHandling, p: Protocol) => TransferFlowContext,
  ) {
    this.at = iso(ctx.now);
  }

  /** One state change: the row, its history entry and the matching event commit with the message. */
  change(to: TransferState | string, set: Partial<Transfer>, historyType: string, detail?: Record<string, unknown>): void {
    const from = this.t.state;
    const history: HistoryEntry[] = [...this.t.history, { type: historyType, from, to, at: this.at, ...(detail ? { detail } : {}) }];
    const patch: Partial<Transfer> = { ...set, state: to, history, updatedAt: this.at };
    this.t = { ...this.t, ...patch };
    const row = this.t;
    this.ctx.write(() => this.deps.repositories.transfers.update(row.id, patch));
    this.ctx.emit({
      companyId: row.companyId,
      environment: row.environment,
      type: from === to ? "transfer.updated" : eventForState(to),
      entityType: "transfer",
      entityId: row.id,
      data: transferEventData(row),
    });
  }

  audit(action: string, detail?: Record<string, unknown>): void {
    const { companyId, environment, actor } = this.msg;
    const now = this.ctx.now;
    const id = this.t.id;
    this.ctx.write(() => this.deps.repositories.audit.record({ companyId, environment, actor, action, entityType: "Transfer", entityId: id, detail }, now));
  }

  answer(action: string, previousState: string): Result {
    return {
      ok: true,
      data: { id: this.t.id, state: this.t.state, status: { ours: this.t.oursStatus, theirs: this.t.theirsStatus }, txHash: this.t.txHash },
      meta: { action, previousState },
    };
  }

  persons(field: "originator" | "beneficiary"): Person[] {
    const sealed = field === "originator" ? this.t.originatorSealed : this.t.beneficiarySealed;
    return sealed ? (JSON.parse(this.deps.pii.open(sealed, `transfer:${this.t.id}:${field}`)) as Person[]) : [];
  }

  outgoing(): OutgoingTransfer {
    const t = this.t;
    return {
      id: t.id,
      companyId: t.companyId,
      environment: t.environment,
      asset: t.asset,
      assetId: t.assetId ?? "",
      network: t.network,
      amount: t.amount,
      originatorAddress: t.originatorAddress,
      beneficiaryAddress: t.beneficiaryAddress,
      originatorPersons: this.persons("originator"),
      beneficiaryPersons: this.persons("beneficiary"),
      // Valued in USD only when a request is about to be sent (see route): discovery rounds and reports need no price.
      usdValue: null,
      // Queued transfers are those at or above the Travel Rule threshold (Part 1, create outcomes).
      isExceedingThreshold: true,
      expiresAt: t.expiresAt,
    };
  }

  addAttempt(a: Omit<Attempt, "id" | "order">): void {
    const prior = this.t.attempts;
    const attempts: Attempt[] = [...prior, { ...a, id: `att_${this.t.id.slice(4)}_${prior.length + 1}`, order: prior.length + 1 }];
    this.t = { ...this.t, attempts };
    const row = this.t;
    this.ctx.write(() => this.deps.repositories.transfers.update(row.id, { attempts: row.attempts }));
  }

  updateLastAttempt(patch: Partial<Attempt>): void {
    const attempts: Attempt[] = [...this.t.attempts];
    attempts[attempts.length - 1] = { ...attempts[attempts.length - 1], ...patch };
    this.t = { ...this.t, attempts };
    const row = this.t;
    this.ctx.write(() => this.deps.repositories.transfers.update(row.id, { attempts: row.attempts }));
  }

  /** A history note that changes no state and emits nothing (a flag, a case's outcome). */
  note(type: string, detail: Record<string, unknown>): void {
    const history: HistoryEntry[] = [...this.t.history, { type, from: this.t.state, to: this.t.state, at: this.at, detail }];
    const patch = { history, updatedAt: this.at };
    this.t = { ...this.t, ...patch };
    const id = this.t.id;
    this.ctx.write(() => this.deps.repositories.transfers.update(id, patch));
  }

  /** Columns changed without a state change, history entry or event. */
  update(set: Partial<Transfer>): void {
    const patch = { ...set, updatedAt: this.at };
    this.t = { ...this.t, ...patch };
    const id = this.t.id;
    this.ctx.write(() => this.deps.repositories.transfers.update(id, patch));
  }

  storedChecks(): StoredCheck[] {
    return this.t.checks;
  }

  setChecks(checks: StoredCheck[], sanctions?: { status: string; provider: string }): void {
    const patch: Partial<Transfer> = { checks, ...(sanctions ? { sanctionsStatus: sanctions.status, sanctionsProvider: sanctions.provider } : {}) };
    this.t = { ...this.t, ...patch };
    const id = this.t.id;
    this.ctx.write(() => this.deps.repositories.transfers.update(id, patch));
  }

  flowOf(p: string | null): TransferFlow | undefined {
    return p ? this.deps.flows?.[p as Protocol] : undefined;
  }

  /** What a provider's flow may do to this transfer, inside this handler (built in provider-events.ts). */
  flowContext(p: Protocol): TransferFlowContext {
    return this.flows(this, p);
  }

}
