// Shapes of a transfer for events and answers, shared by the actors and the HTTP layer.
import type { TransferRow } from "../adapters/storage/repos/transfers.ts";

export interface HistoryEntry {
  type: string;
  from: string | null;
  to: string;
  at: string;
  detail?: Record<string, unknown>;
}

/** Part 2, Events: the transfer event body's `data`, exactly these fields and no free text. */
export function transferEventData(t: TransferRow) {
  return {
    id: t.id,
    externalId: t.external_id,
    direction: t.direction,
    state: t.state,
    amount: t.amount,
    asset: t.asset,
    network: t.network,
    originatingVaspId: t.originator_vasp_id,
    originatingVaspName: t.originator_vasp_name,
    // A placeholder while discovery is pending (Part 2).
    beneficiaryVaspId: t.beneficiary_vasp_id ?? "pending",
    beneficiaryVaspName: t.beneficiary_vasp_name,
    complianceStatus: t.status,
    originatorStatus: t.ours_status,
    beneficiaryStatus: t.theirs_status,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
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
