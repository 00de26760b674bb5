// The seam where a provider's own transfer flow plugs into the transfer actor (provider_a events and polls, provider_e
// permissions and information requests): what a flow may do to its transfer, and what the actor asks of a flow.
// The actor stays the only writer of the transfer; a flow works through this context inside the actor's handler, so
// everything it changes commits with the message (one transaction, like every other change of the transfer).
import type { Transfer } from "../ports/transfers.ts";
import type { AdapterContext } from "../adapters/providers/types.ts";
import type { Person } from "../domain/ivms101/index.ts";
import type { TransferState } from "../domain/transfers.ts";
import type { Environment } from "../domain/types.ts";
import type { ErrorCode } from "../domain/errors.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { TellOptions } from "./types.ts";
import type { Outcome } from "./outcome.ts";

/** What a PATCH action answers (Part 1): `data: { id, state, status, txHash }`, `meta: { action, previousState }`. */
export type ActionResult = Outcome<{ id: string; state: string; status: { ours: string | null; theirs: string | null }; txHash: string | null }> & { meta?: Record<string, unknown> };

/** How a counterparty's data screened at postcheck came out, after the hold or rejection was applied. */
export type ScreeningOutcome = "approved" | "held" | "rejected";

export interface TransferFlowContext {
  /** The transfer as it stands (after the changes made so far in this handler). */
  readonly row: Transfer;
  readonly companyId: string;
  readonly environment: Environment;
  readonly actor: AuditActor;
  /** The handler's clock (ms) and its ISO form. */
  readonly now: number;
  readonly at: string;
  /** The flow's own durable state for this transfer (saved with the actor's state when the handler succeeds). */
  flowState<T extends Record<string, unknown>>(): T;
  /** A state change: row, history entry and the matching `transfer.*` event, committed with the message. */
  change(to: TransferState, set: Partial<Transfer>, historyType: string, detail?: Record<string, unknown>): void;
  /** Fields changed without a state change, history entry or event. */
  update(set: Partial<Transfer>): void;
  /** A history entry that changes nothing else. */
  note(type: string, detail: Record<string, unknown>): void;
  audit(action: string, detail?: Record<string, unknown>): void;
  /** The IVMS101 persons stored on the transfer (decrypted). */
  persons(field: "originator" | "beneficiary"): Person[];
  /** Stores (sealed) the counterparty's persons on the transfer. */
  setPersons(field: "originator" | "beneficiary", persons: Person[]): void;
  /** Credentials and the paced outbound client of the transfer's provider, or null (disabled, no credentials). */
  adapterContext(): Promise<AdapterContext | null>;
  /** Commits what was recorded so far without acknowledging the message ("record what will be sent, then send"). */
  checkpoint(): Promise<void>;
  tell(to: string, body: unknown, opts?: TellOptions): void;
  /**
   * Screens the counterparty's persons at `postcheck` (the first with our party's stored name — or `ours`, such as the
   * customer's verified identity the provider was sent — each further one alone)
   * and applies the verdict: approve/flag → "approved" (nothing changed: the flow goes on); review → `held`, verdict
   * pending, a case; block → per `onBlock`: `hold` (held, verdict rejected, a case), `reject` (rejected with
   * SANCTIONS_MATCH or COMPLIANCE_POLICY, a case).
   */
  screenCounterparty(persons: Person[], side: "originator" | "beneficiary", opts: { onBlock: "hold" | "reject"; eachAlone?: boolean; ours?: Person[] }): Promise<ScreeningOutcome>;
  /** Free text of a rejection (PATCH reject `details`): sealed on the transfer, kept out of the audit log. */
  setRejectionDetails(details: string | null): void;
  /** A provider-driven hold (provider_a FLAGGED, provider_e information requests): `held`, `transfer.held`, the case opened or joined. */
  hold(reason: string, opts?: { status?: "pending" | "rejected"; caseType?: "compliance_review" | "provider_rejection" | "sanctions_hit"; severity?: "low" | "medium" | "high"; detail?: Record<string, unknown> }): void;
  /** The PATCH answer for the transfer as it stands now. */
  answer(action: string, previousState: string): ActionResult;
  refuse(code: ErrorCode, message: string, details?: Record<string, unknown>): ActionResult;
}

/** What the transfer actor asks of a provider's flow (all optional: without one, the generic handling applies). */
export interface TransferFlow {
  /** A provider event or a poll for this transfer (`providerEvent` messages from callbacks and sweeps). */
  onEvent?(f: TransferFlowContext, event: unknown): Promise<unknown>;
  /** A PATCH action on a transfer this provider carries; undefined falls back to the generic handling. */
  action?(f: TransferFlowContext, action: "accept" | "reject" | "retry", body: Record<string, unknown>, previousState: string): Promise<ActionResult | undefined>;
  /** The transfer's case was resolved (`act` true): move it; undefined falls back to the generic resume/reject. */
  caseResolved?(f: TransferFlowContext, resolution: "approved" | "rejected"): Promise<{ moved: boolean; newValue: string } | undefined>;
  /** The transfer reached its `expiresAt` (the expiry sweep tells `expire`). */
  expire?(f: TransferFlowContext): Promise<void>;
}
