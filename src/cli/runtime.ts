// The CLI's one entry to the actor runtime: the same runtime the server runs, with the kinds the CLI's commands ask,
// never started (a started runtime would pick up the server's mailbox). A command is handled in this process through
// `ActorRuntime.handleHere`: the kind's own handler, under the write lock, its unit of work committed in one
// transaction; what it sends is left in the mailbox for the running server (or the next start). CLI commands reach
// actors only through this file and name no actor kind themselves. The master key is read on the first command.
import { Sealer } from "../adapters/crypto/envelope.ts";
import type { MasterKey } from "../adapters/crypto/master-key.ts";
import type { RuntimeHost } from "../ports/runtime-store.ts";
import { ActorRuntime } from "../actors/runtime.ts";
import { caseActor, caseAddress, type CaseDeps, type CaseMsg } from "../actors/case.ts";
import { rulesActor, rulesAddress, type RuleActorDeps, type RuleMsg } from "../actors/rules.ts";
import { reportsActor, reportsAddress, type ReportActorDeps, type ReportMsg } from "../actors/reports.ts";
import { companiesAddress, tenancyActor, tenancyAddress, type TenancyActorDeps, type TenancyMsg } from "../actors/tenancy.ts";
import { customerActor, type CustomerCommand, type CustomerMsg } from "../actors/customer.ts";
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

export function cliRuntime(store: RuntimeHost, deps: CliRuntimeDeps): CliRuntime {
  let runtime: ActorRuntime | undefined;
  let master: MasterKey | undefined;
  const key = () => (master ??= deps.masterKey());
  const registered = new Set<string>();
  /** The runtime with `kind` registered, built on first use. */
  const withKind = (kind: string, make: () => Parameters<ActorRuntime["register"]>[0]): ActorRuntime => {
    runtime ??= new ActorRuntime(store, { clock: deps.clock, sealer: new Sealer(key().derive("mailbox")) });
    if (!registered.has(kind)) {
      runtime.register(make());
      registered.add(kind);
    }
    return runtime;
  };
  return {
    caseCommand: (caseId, msg) =>
      withKind("case", () => caseActor({ repositories: deps.repositories, pii: new Sealer(key().derive("pii")), nameIndexKey: key().derive("name-index") })).handleHere<Outcome<Record<string, unknown>>>(caseAddress(caseId), msg),
    ruleCommand: <T>(msg: RuleMsg) => withKind("rules", () => rulesActor({ repositories: deps.repositories })).handleHere<Outcome<T>>(rulesAddress(msg.companyId), msg),
    reportCommand: <T>(msg: ReportMsg) =>
      withKind("reports", () => reportsActor({ repositories: deps.repositories })).handleHere<Outcome<T>>(reportsAddress(msg.companyId, msg.environment), msg),
    tenancyCommand: <T>(msg: TenancyMsg) =>
      withKind("tenancy", () => tenancyActor({ repositories: deps.repositories })).handleHere<Outcome<T>>("companyId" in msg ? tenancyAddress(msg.companyId) : companiesAddress, msg),
    customerCommand: <T>(customerId: string, msg: CliCustomerMsg) =>
      withKind("customer", () =>
        customerActor({
          repositories: deps.repositories,
          pii: new Sealer(key().derive("pii")),
          nameIndexKey: key().derive("name-index"),
          activeTransferIds: (companyId, env, id) => deps.repositories.transfers.activeForCustomer(companyId, env, id),
        }),
      ).handleHere<Outcome<T>>(`customer:${customerId}`, msg),
  };
}
