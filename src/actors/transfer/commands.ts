// What the transfer actor is asked and told (`transfer:<id>`): one typed command per kind, bodies already validated
// by the route that sends them, so the actor decides on the transfer's state and never words HTTP input problems.
import type { AuditActor } from "../../ports/audit.ts";
import type { Environment } from "../../domain/types.ts";
import type { Protocol, REJECT_REASONS } from "../../domain/transfers.ts";

/** A PATCH action as the route validated it (Part 1 "PATCH /api/v2/transfers/{id}"). */
export type TransferAction =
  /** `txHash` as given when it is a well-formed hash; null when absent or not a non-empty string (then ignored). */
  | { action: "accept"; txHash: string | null }
  | { action: "reject"; reason: (typeof REJECT_REASONS)[number]; details: string | null }
  /**
   * `reason` is null when missing or empty: Part 1 checks the transfer's state before the reason, so the actor, which
   * knows the state, answers MISSING_REQUIRED_FIELD after INVALID_TRANSFER_STATE.
   */
  | { action: "retry"; reason: string | null };

export type TransferCommand =
  | { type: "start" }
  | { type: "discover" }
  /**
   * `seen`: the transfer's version (transferVersion) when the request arrived; an action whose transfer changed before
   * its turn came is refused, so two racing actions take effect once. `key`: the request's Idempotency-Key, with the
   * hash of the action it names (a repeat is answered as the first was).
   */
  | { type: "action"; act: TransferAction; seen?: string; key?: { key: string; hash: string } }
  | { type: "expire" }
  // Part 3, provider_b callbacks: the originating VASP reports the transaction of, or cancels, an incoming transfer.
  | { type: "inboundTxid"; txid: string; vout: string | null }
  | { type: "inboundCancel"; reasonType: string | null }
  // Part 2 "States and transitions → Case": the transfer's case was resolved; `act` when it is to move the transfer.
  | { type: "caseResolved"; caseId: string; resolution: "approved" | "rejected"; act: boolean; approveUnscreened?: boolean }
  // A provider's event or poll for this transfer, handled by the provider's flow (src/actors/transfer-flow.ts).
  | { type: "providerEvent"; provider: Protocol; event: unknown };

/** Every message names the tenant and who acts, so the actor needs no other context. */
export interface TransferScoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

export type TransferMsg = TransferCommand & TransferScoped;

export const transferAddress = (id: string) => `transfer:${id}`;

/** The body a provider's flow reads for a PATCH action (src/actors/transfer-flow.ts `action`). */
export function actionBody(a: TransferAction): Record<string, unknown> {
  switch (a.action) {
    case "accept":
      return { action: a.action, txHash: a.txHash };
    case "reject":
      return { action: a.action, status: "rejected", reason: a.reason, details: a.details };
    case "retry":
      return { action: a.action, reason: a.reason };
  }
}

/**
 * What a PATCH saw of the transfer: its state, last change and number of changes (every change adds a history entry,
 * so a transfer held again within the same millisecond still has another version).
 */
export function transferVersion(t: { state: string; updatedAt: string; history: readonly unknown[] }): string {
  return `${t.state}|${t.updatedAt}|${t.history.length}`;
}
