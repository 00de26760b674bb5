// What the CLI's commands can ask of the actor runtime: one typed command to its owner each, answered with its
// outcome. The CLI's entry (src/cli/entry.ts, a composition root) builds it: the same runtime the server runs, with the
// kinds the commands ask, never started (a started runtime would pick up the server's mailbox). Commands see only this
// interface and name no actor kind themselves.
import type { MasterKey } from "../adapters/crypto/master-key.ts";
import type { CaseDeps, CaseMsg } from "../actors/case.ts";
import type { RuleActorDeps, RuleMsg } from "../actors/rules.ts";
import type { ReportActorDeps, ReportMsg } from "../actors/reports.ts";
import type { TenancyActorDeps, TenancyMsg } from "../actors/tenancy.ts";
import type { CustomerCommand, CustomerMsg } from "../actors/customer.ts";
import type { CustomerRepositories } from "../actors/customer-scope.ts";
import type { Outcome } from "../actors/outcome.ts";

/**
 * The customer commands the CLI sends (wallet proofs, legal holds). None of them screens or asks a provider, so the
 * CLI registers the customer actor without the server's screening and provider capabilities, and cannot send the
 * commands that would need them (creating or receiving transfers).
 */
export type CliCustomerMsg = Extract<CustomerMsg, { type: "issueWalletChallenge" | "proveWallet" | "attestWallet" | "revokeWalletProof" | "setLegalHold" }>;
/** One of those before the command adds tenant and actor. */
export type CliCustomerCommand = Extract<CustomerCommand, { type: CliCustomerMsg["type"] }>;

export interface CliRuntimeDeps {
  readonly clock: () => number;
  /** What the kinds registered here read and write. */
  readonly repositories: CaseDeps["repositories"] & RuleActorDeps["repositories"] & ReportActorDeps["repositories"] & TenancyActorDeps["repositories"] & CustomerRepositories;
  /** The database's master key (its `mailbox`, `pii` and `name-index` subkeys, as the server derives them). */
  readonly masterKey: () => MasterKey;
}

/** What the CLI's commands can ask, each as the typed command its owner handles. */
export interface CliRuntime {
  /** One command to a case's actor; answers its outcome. */
  caseCommand(caseId: string, msg: CaseMsg): Promise<Outcome<Record<string, unknown>>>;
  /** One command to the company's rules actor; answers its outcome. */
  ruleCommand<T>(msg: RuleMsg): Promise<Outcome<T>>;
  /** One command to the environment's reports actor; answers its outcome. */
  reportCommand<T>(msg: ReportMsg): Promise<Outcome<T>>;
  /** One command to the tenancy actor (the host's for companies, the company's for members and keys). */
  tenancyCommand<T>(msg: TenancyMsg): Promise<Outcome<T>>;
  /** One command to a customer's actor (the only writer of the customer and its wallets); answers its outcome. */
  customerCommand<T>(customerId: string, msg: CliCustomerMsg): Promise<Outcome<T>>;
}
