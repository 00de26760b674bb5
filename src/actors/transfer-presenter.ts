// Shapes of a transfer for events and answers, shared by the actors and the HTTP layer.
import type { Transfer } from "../ports/transfers.ts";

export type { HistoryEntry } from "../ports/transfers.ts";

/** Part 2, Events: the transfer event body's `data`, exactly these fields and no free text. */
export function transferEventData(t: Transfer) {
  return {
    id: t.id,
    externalId: t.externalId,
    direction: t.direction,
    state: t.state,
    amount: t.amount,
    asset: t.asset,
    network: t.network,
    originatingVaspId: t.originatorVaspId,
    originatingVaspName: t.originatorVaspName,
    // A placeholder while discovery is pending (Part 2).
    beneficiaryVaspId: t.beneficiaryVaspId ?? "pending",
    beneficiaryVaspName: t.beneficiaryVaspName,
    complianceStatus: t.status,
    originatorStatus: t.oursStatus,
    beneficiaryStatus: t.theirsStatus,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** The event a state change emits (Part 1 Events; Part 2 catalogue). */
export function eventForState(state: string): string {
  switch (state) {
    case "completed":
      return "transfer.completed";
    case "accepted":
      return "transfer.accepted";
    case "rejected":
      return "transfer.rejected";
    case "cancelled":
      return "transfer.cancelled";
    case "held":
      return "transfer.held";
    case "failed":
      return "transfer.failed";
    default:
      return "transfer.updated";
  }
}
