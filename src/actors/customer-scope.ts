// What the customer actor's handlers work with (src/actors/customer.ts and the transfer work it delegates to
// customer-transfers.ts and the provider_*-incoming.ts files): a lower module both sides import, so none of those
// files imports the actor that calls it.
import type { ActorContext } from "./types.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Repositories } from "../ports/repositories.ts";
import type { Wallet } from "../ports/wallets.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { Transfer } from "../ports/transfers.ts";
import type { Person } from "../domain/ivms101/index.ts";
import type { Environment } from "../domain/types.ts";
import type { ProviderVerdict } from "../domain/transfers/create.ts";
import type { IncomingScreening } from "./checkpoint.ts";

/** Every customer message names the tenant and who acts, so the actor needs no other context. */
export interface CustomerScoped {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
}

/** The repositories the customer actor reads and writes (inside `ctx.write` too: they share the runtime's connection). */
export type CustomerRepositories = Pick<Repositories, "customers" | "wallets" | "proofs" | "audit" | "transfers" | "vasps" | "fxValuations" | "thresholds">;

export interface CustomerDeps {
  repositories: CustomerRepositories;
  pii: Sealer;
  /** HMAC key of the blind name index. */
  nameIndexKey: Uint8Array;
  /** Transfers of the customer not in a final state (erasure refuses while there are any). */
  activeTransferIds(companyId: string, env: Environment, customerId: string): Promise<string[]>;
  /**
   * Every provider's verdict on carrying an outgoing transfer (the create decision); without it no provider can, so
   * only creates below the threshold succeed (tests of other parts).
   */
  capabilities?(companyId: string, env: Environment, t: { assetId: string; asset: string; network: string; amount: string; beneficiaryPersonCount: number; hasOriginatorAddress: boolean; beneficiaryAddress?: string }): Promise<ProviderVerdict[]>;
  /**
   * Screening of a new incoming transfer with rules and screening integrations (Part 3). None exist yet, so the
   * default approves; the seam is here so that a verdict lands in the same transaction as the creation.
   */
  screenIncoming?(t: Transfer, persons: { originator: Person[]; beneficiary: Person[]; identity: Person[] }): Promise<IncomingScreening>;
}

export interface CustomerScope {
  readonly ctx: ActorContext<Record<string, never>>;
  readonly msg: CustomerScoped;
  readonly deps: CustomerDeps;
  readonly customers: CustomerRepositories["customers"];
  readonly wallets: CustomerRepositories["wallets"];
  readonly at: string;
  audit(action: string, entityType: string, entityId: string, detail?: Record<string, unknown>): void;
  ownWallet(walletId: string): Promise<Wallet | undefined>;
}
