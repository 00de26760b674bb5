// The transfer actor's inbound provider events: provider_b's callbacks for an incoming transfer (transaction reported,
// cancelled) and every other provider's events and polls, handed to the provider's flow (src/actors/transfer-flow.ts)
// through the context built here.
import type { Protocol } from "../../domain/transfers.ts";
import { cancelDecision, txidDecision, type ReportedTx, type ResultDecision } from "../../domain/provider_b/decisions.ts";
import { refuse, type Outcome } from "../outcome.ts";
import type { TransferFlowContext } from "../transfer-flow.ts";
import type { TransferHandling } from "./handling.ts";
import { providerHold, screenCounterparty } from "./holds.ts";

export async function providerEvent(h: TransferHandling, p: Protocol, event: unknown): Promise<unknown> {
  const flow = h.flowOf(p);
  if (!flow?.onEvent) return { ok: false, code: "UNSUPPORTED", message: `${p} has no transfer flow` };
  return flow.onEvent(h.flowContext(p), event);
}

/** An incoming transfer's transaction, reported by its originating VASP: a verified transfer becomes `accepted`. */
export function inboundTxid(h: TransferHandling, tx: ReportedTx): Outcome<ResultDecision> {
  if (h.t.direction !== "incoming") return { ok: true, data: { result: "error", reasonType: "UNKNOWN_TRANSFER_ID" } };
  const d = txidDecision(h.t.state, h.ctx.state.reportedTx ?? null, tx);
  if (d.record) {
    h.ctx.state.reportedTx = tx;
    h.change("accepted", { txHash: tx.txid, theirsStatus: "accepted", acceptedAt: h.at }, "transaction_reported", { vout: tx.vout });
    h.audit("transfer.accepted", { protocol: h.t.protocol });
  }
  return { ok: true, data: d.result === "normal" ? { result: "normal" } : d };
}

/** The originating VASP canceled an incoming transfer: `rejected`, or `failed` once its transaction was reported. */
export function inboundCancel(h: TransferHandling, reasonType: string | null): Outcome<ResultDecision> {
  if (h.t.direction !== "incoming") return { ok: true, data: { result: "error", reasonType: "UNKNOWN_TRANSFER_ID" } };
  const d = cancelDecision(h.t.state, h.ctx.state.reportedTx ?? null);
  if (d.to) {
    // The sender's own reasonType is kept in the history only when it looks like a code (never free text).
    const theirs = reasonType && /^[A-Z][A-Z0-9_]{0,63}$/.test(reasonType) ? { senderReasonType: reasonType } : undefined;
    h.change(d.to, { theirsStatus: "rejected", rejectionReason: "ORIGINATOR_CANCELED" }, "originator_canceled", theirs);
    h.audit(`transfer.${d.to}`, { reason: "ORIGINATOR_CANCELED" });
  }
  return { ok: true, data: { result: "normal" } };
}

/** What a provider's flow may do to this transfer, inside this handler. */
export function flowContextOf(h: TransferHandling, p: Protocol): TransferFlowContext {
  const { companyId, environment, actor } = h.msg;
  const seal = (text: string, field: string) => h.deps.pii.seal(text, `transfer:${h.t.id}:${field}`);
  return {
    get row() {
      return h.t;
    },
    companyId,
    environment,
    actor,
    now: h.ctx.now,
    at: h.at,
    flowState<T extends Record<string, unknown>>(): T {
      const all = (h.ctx.state.flow ??= {});
      return (all[p] ??= {}) as T;
    },
    change: (to, set, historyType, detail) => h.change(to, set, historyType, detail),
    update: (set) => h.update(set),
    note: (type, detail) => h.note(type, detail),
    audit: (action, detail) => h.audit(action, detail),
    persons: (field) => h.persons(field),
    setPersons: (field, persons) => h.update(field === "originator" ? { originatorSealed: seal(JSON.stringify(persons), "originator") } : { beneficiarySealed: seal(JSON.stringify(persons), "beneficiary") }),
    adapterContext: () => h.deps.providers.context(h.t.companyId, h.t.environment, p, h.ctx.now),
    checkpoint: () => h.ctx.checkpoint(),
    tell: (to, body, opts) => h.ctx.tell(to, body, opts),
    screenCounterparty: (persons, side, opts) => screenCounterparty(h, p, persons, side, opts),
    setRejectionDetails: (details) => h.update({ rejectionDetailsSealed: details === null ? null : seal(details, "rejection") }),
    hold: (reason, opts) => providerHold(h, p, reason, opts),
    answer: (action, previousState) => h.answer(action, previousState),
    refuse,
  };
}
