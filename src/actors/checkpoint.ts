// A rule checkpoint (Part 2 "Rule", Part 3 "What the service does" 3): which active rules apply to a transfer at a
// stage, which screening integrations those rules read (only those are called), the checks as the transfer records
// them, and the verdict. The transfer actor (and the customer actor for incoming transfers) run it; the rule logic is
// the pure engine in src/domain/rules/, the vendors sit behind the ScreeningService.
import { applicableRules, evaluate, integrationsRead, verdictUnscreened, type Rule, type Stage, type TransferFacts, type Verdict } from "../domain/rules/index.ts";
import { stronger } from "../domain/rules/engine.ts";
import type { CheckResult, Party, ScreeningSubject } from "../adapters/screening/types.ts";
import type { StoredCheck, Transfer } from "../ports/transfers.ts";
import { personNames, type Person } from "../domain/ivms101/index.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Environment } from "../domain/types.ts";
import type { IntegrationName } from "../domain/providers/catalog.ts";
import { iso } from "../domain/ids.ts";
import type { OpenFromScreening } from "./case.ts";

/** What a checkpoint needs from the service. */
export interface CheckpointDeps {
  /** The environment's active rules. */
  activeRules(companyId: string, env: Environment): Promise<Rule[]>;
  /** The integration an `integrationId` names (any state; a disabled one fails its check without a request). */
  integration(companyId: string, integrationId: string): Promise<{ name: IntegrationName; displayName: string; type: string } | null>;
  /** One integration's check of the subjects (breaker, credentials, bounded concurrency); never throws. */
  check(companyId: string, env: Environment, integration: IntegrationName, subjects: ScreeningSubject[]): Promise<CheckResult>;
  euMembers: ReadonlySet<string>;
  /** The amount valued in USD (recorded as a valuation), or null when no rate is known. */
  priceUsd(companyId: string, env: Environment, assetId: string, amount: string): Promise<string | null>;
  /** The valuation recorded at creation (the amount in the threshold's currency), or null. */
  valuation(companyId: string, env: Environment, fxRateId: string): Promise<{ value: string; currency: string } | null>;
}

/**
 * What rules read of a transfer (Part 2 field list), with the names of the evaluation's parties. The USD value is
 * asked for only when the environment has active rules (valuing records a row).
 */
export async function transferFacts(deps: CheckpointDeps, t: Transfer, names: { originator: string | null; beneficiary: string | null }): Promise<TransferFacts> {
  const info = (t.thresholdInfo ?? {}) as { jurisdiction?: string };
  const local = t.fxRateId ? await deps.valuation(t.companyId, t.environment, t.fxRateId) : null;
  let amountUSD: string | null = local?.currency === "USD" ? local.value : null;
  if (amountUSD === null && t.assetId && (await deps.activeRules(t.companyId, t.environment)).length > 0)
    amountUSD = await deps.priceUsd(t.companyId, t.environment, t.assetId, t.amount).catch(() => null);
  return {
    direction: t.direction as "incoming" | "outgoing",
    amount: t.amount,
    amountUSD,
    amountLocal: local?.value ?? null,
    localCurrency: local?.currency ?? null,
    asset: t.asset,
    network: t.network,
    jurisdiction: info.jurisdiction && /^[A-Z]{2}$/.test(info.jurisdiction) ? info.jurisdiction : null,
    walletType: t.isUnhostedWallet ? "unhosted" : "hosted",
    originatorName: names.originator,
    beneficiaryName: names.beneficiary,
    originatorAddress: t.originatorAddress,
    beneficiaryAddress: t.beneficiaryAddress,
  };
}

const firstName = (persons: readonly Person[]) => (persons.length ? (personNames([persons[0]])[0] ?? null) : null);
const nameSubjects = (party: Party, persons: readonly Person[]): ScreeningSubject[] => (persons.length ? [{ kind: "name", party, person: persons[0] }] : []);

/** Every address on the transfer, originator's and beneficiary's (Part 3 "screening_d screening"). */
export function addressSubjects(t: Transfer): ScreeningSubject[] {
  const out: ScreeningSubject[] = [];
  if (t.originatorAddress) out.push({ kind: "address", party: "originator", address: t.originatorAddress, network: t.network });
  if (t.beneficiaryAddress) out.push({ kind: "address", party: "beneficiary", address: t.beneficiaryAddress, network: t.network });
  return out;
}

/**
 * The evaluations of a checkpoint (Part 3 "screening_c screening"): the first person of each side (with the
 * addresses) in one, then each further person `alone` names in its own evaluation.
 */
export async function evaluationsOf(deps: CheckpointDeps, t: Transfer, sides: { originator: readonly Person[]; beneficiary: readonly Person[] }, alone: { originator?: readonly Person[]; beneficiary?: readonly Person[] } = {}): Promise<Evaluation[]> {
  const facts = await transferFacts(deps, t, { originator: firstName(sides.originator), beneficiary: firstName(sides.beneficiary) });
  const out: Evaluation[] = [{ facts, subjects: [...nameSubjects("originator", sides.originator), ...nameSubjects("beneficiary", sides.beneficiary), ...addressSubjects(t)] }];
  for (const party of ["originator", "beneficiary"] as const)
    for (const p of alone[party] ?? []) out.push({ facts: { ...facts, [`${party}Name`]: firstName([p]) }, subjects: nameSubjects(party, [p]) });
  return out;
}

/**
 * A whole checkpoint where nothing is recorded before the verdict (an incoming provider_b request is decided within
 * its request, and a crash means the provider asks again): plan, run, evaluate.
 */
export async function checkpointOnce(deps: CheckpointDeps, t: Transfer, stage: Stage, evaluations: Evaluation[], seal: Sealer, now: number): Promise<CheckpointResult> {
  const p = await plan(deps, t.companyId, t.environment, stage, evaluations);
  const pending = await pendingChecks(deps, t.companyId, p, t.id, "1", now);
  return runChecks(deps, t.companyId, t.environment, p, pending, seal, t.id);
}

/** One evaluation: what rules read of the transfer, and the subjects its integrations screen. */
export interface Evaluation {
  facts: TransferFacts;
  subjects: ScreeningSubject[];
}

export type { StoredCheck } from "../ports/transfers.ts";

/** A planned checkpoint: per evaluation its applicable rules and the integrations they read. */
export interface Plan {
  stage: Stage;
  evaluations: { facts: TransferFacts; subjects: ScreeningSubject[]; rules: Rule[]; integrationIds: string[] }[];
}

export interface CheckpointResult {
  verdict: Verdict;
  checks: StoredCheck[];
  /** Rules that applied at this stage (any evaluation). */
  ruleCount: number;
}

export async function plan(deps: CheckpointDeps, companyId: string, env: Environment, stage: Stage, evaluations: Evaluation[]): Promise<Plan> {
  const active = await deps.activeRules(companyId, env);
  return {
    stage,
    evaluations: evaluations.map((e) => {
      const rules = active.length ? applicableRules(active, e.facts, stage, deps.euMembers) : [];
      return { ...e, rules, integrationIds: rules.length ? integrationsRead(rules) : [] };
    }),
  };
}

/** The pending checks a plan will run, recorded before any request is sent (record, then call). */
export async function pendingChecks(deps: CheckpointDeps, companyId: string, p: Plan, transferId: string, run: string, now: number): Promise<StoredCheck[]> {
  const out: StoredCheck[] = [];
  for (const [evaluation, e] of p.evaluations.entries()) {
    for (const integrationId of e.integrationIds) {
      const i = await deps.integration(companyId, integrationId);
      out.push({
        id: `chk_${transferId.slice(4)}_${run}_${out.length + 1}`,
        integration: i?.name ?? null,
        integrationId,
        displayName: i?.displayName ?? integrationId,
        type: i?.type ?? "unknown",
        stage: p.stage,
        evaluation,
        status: "pending",
        requestedAt: iso(now),
        durationMs: null,
        error: null,
        responseSealed: null,
        run,
      });
    }
  }
  return out;
}

/** Runs the pending checks (in parallel), evaluates each evaluation's rules and combines the verdicts. */
export async function runChecks(deps: CheckpointDeps, companyId: string, env: Environment, p: Plan, pending: StoredCheck[], seal: Sealer, transferId: string): Promise<CheckpointResult> {
  const results = await Promise.all(
    pending.map(async (c): Promise<{ stored: StoredCheck; result: CheckResult | null }> => {
      if (c.integration === null) return { stored: { ...c, status: "error", error: "The integration no longer exists", durationMs: 0 }, result: null };
      const subjects = p.evaluations[c.evaluation].subjects;
      const result = await deps.check(companyId, env, c.integration, subjects);
      const response = result.screenings.length ? { screenings: result.screenings } : null;
      return {
        stored: {
          ...c,
          status: result.status,
          durationMs: result.durationMs,
          error: result.error ?? null,
          responseSealed: response === null ? null : seal.seal(JSON.stringify(response), checkAad(transferId, c.id)),
        },
        result,
      };
    }),
  );
  let action: Verdict["action"] = "approve";
  const matched: Verdict["matched"] = [];
  p.evaluations.forEach((e, evaluation) => {
    if (e.rules.length === 0) return;
    const checks = new Map<string, CheckResult>();
    for (const r of results) if (r.stored.evaluation === evaluation && r.result) checks.set(r.stored.integrationId, r.result);
    const v = evaluate(e.rules, e.facts, checks);
    action = stronger(action, v.action);
    matched.push(...v.matched);
  });
  return { verdict: { action, matched }, checks: results.map((r) => r.stored), ruleCount: p.evaluations.reduce((n, e) => n + e.rules.length, 0) };
}

export const checkAad = (transferId: string, checkId: string) => `transfer:${transferId}:check:${checkId}`;

/** The detail's check (Part 1): `response` only for a role with `pii:view`. */
export function presentCheck(c: StoredCheck | Record<string, unknown>, piiView: boolean, open: (sealed: string, aad: string) => string, transferId: string) {
  const k = c as StoredCheck;
  const response = piiView && k.responseSealed ? JSON.parse(open(k.responseSealed, checkAad(transferId, k.id))) : null;
  return {
    id: k.id,
    integration: k.integration,
    displayName: k.displayName,
    type: k.type,
    stage: k.stage,
    status: k.status,
    response,
    error: k.error,
    requestedAt: k.requestedAt,
    durationMs: k.durationMs,
  };
}

/** Part 1 list item: `{ name, status (passed, failed, pending), response }`. */
export function presentListCheck(c: StoredCheck | Record<string, unknown>, piiView: boolean, open: (sealed: string, aad: string) => string, transferId: string) {
  const d = presentCheck(c, piiView, open, transferId);
  const status = d.status === "success" ? "passed" : d.status === "pending" ? "pending" : "failed";
  return { name: d.integration ?? d.displayName, status, response: d.response };
}

/** The rejection reason of a blocking verdict: a sanctions rule gives SANCTIONS_MATCH (Part 1 reject reasons). */
export function blockReason(v: Verdict): "SANCTIONS_MATCH" | "COMPLIANCE_POLICY" {
  return v.matched.some((m) => m.action === "block" && m.category === "sanctions") ? "SANCTIONS_MATCH" : "COMPLIANCE_POLICY";
}

/** The rule that decided (the first with the strongest action), for the case it opens. */
export function decidingRule(v: Verdict): Verdict["matched"][number] | null {
  const want = v.action === "approve" ? null : v.action;
  return want ? (v.matched.find((m) => m.action === want) ?? v.matched[0] ?? null) : null;
}

/** Part 2 `compliance.screening_complete` (payload designed here, no personal data): see docs/screening.md. */
export function screeningCompleteData(t: { id: string; direction: string; state: string }, stage: Stage, r: CheckpointResult, at: string) {
  return {
    transferId: t.id,
    direction: t.direction,
    stage,
    outcome: r.verdict.action === "approve" ? "approved" : r.verdict.action === "flag" ? "flagged" : r.verdict.action === "require_review" ? "held" : "blocked",
    // Held because a check could not run, not because anything matched (docs/screening.md "Could not check").
    unscreened: verdictUnscreened(r.verdict),
    state: t.state,
    rulesEvaluated: r.ruleCount,
    matchedRules: r.verdict.matched.map((m) => ({ ruleId: m.ruleId, action: m.action, category: m.category, severity: m.severity, unscreened: m.unscreened === true })),
    checks: r.checks.map((c) => ({ id: c.id, integration: c.integration, status: c.status, error: c.error })),
    completedAt: at,
  };
}

/** The screening of an incoming transfer decided within its request (provider_b), for the customer actor. */
export interface IncomingScreening {
  verdict: "approved" | "pending" | "rejected";
  checks: StoredCheck[];
  /** `compliance.screening_complete` data for the transfer as created. */
  event(t: { id: string; direction: string; state: string }): unknown;
  /** The case to open when screening did not approve (`caseOpening` with the created transfer, told to `case:<caseId>`). */
  openCase: { caseId: string; cause: CaseCause; at: string } | null;
}

/** Why a transfer's case is opened: screening held or blocked it, or its provider did (provider_a FLAGGED, provider_e). */
export type CaseCause =
  | { by: "screening"; verdict: Verdict & { action: "require_review" | "block" }; stage: Stage }
  | { by: "provider"; provider: string; rejected: boolean; caseType?: "compliance_review" | "provider_rejection" | "sanctions_hit"; severity?: "low" | "medium" | "high" };

/**
 * The one builder of the message that opens (or adds to) a transfer's case, told to `case:<caseId>` by the transfer
 * actor (screening and provider holds) and the customer actor (an incoming transfer screening denied).
 */
export function caseOpening(on: { companyId: string; environment: Environment; transferId: string }, cause: CaseCause, at: string): OpenFromScreening {
  if (cause.by === "provider") {
    return {
      type: "openFromScreening",
      ...on,
      ruleId: null,
      caseType: cause.caseType ?? "provider_rejection",
      category: cause.caseType === "sanctions_hit" ? "sanctions" : "aml",
      severity: cause.severity ?? "medium",
      stage: "postcheck",
      verdict: cause.rejected ? "block" : "require_review",
      at,
      source: cause.provider,
    };
  }
  const rule = decidingRule(cause.verdict);
  // A check that could not run is never a hit: reviewed as compliance_review, titled so (docs/screening.md).
  const unscreened = verdictUnscreened(cause.verdict);
  return {
    type: "openFromScreening",
    ...on,
    ruleId: rule?.ruleId ?? null,
    caseType: rule?.category === "sanctions" && !unscreened ? "sanctions_hit" : "compliance_review",
    ...(unscreened ? { unscreened: true } : {}),
    category: rule?.category ?? "aml",
    severity: rule?.severity ?? "medium",
    stage: cause.stage,
    verdict: cause.verdict.action,
    at,
  };
}

/**
 * Incoming (Part 3, provider_b Incoming): the counterparty's first person with our customer's stored identity, and
 * each further person on either side alone; review maps to `pending`, a block to `rejected`.
 */
export async function screenIncoming(deps: CheckpointDeps, seal: Sealer, t: Transfer, persons: { originator: Person[]; beneficiary: Person[]; identity: Person[] }, now: number, newCaseId: () => string): Promise<IncomingScreening> {
  const evaluations = await evaluationsOf(deps, t, { originator: persons.originator, beneficiary: persons.identity }, { originator: persons.originator.slice(1), beneficiary: persons.beneficiary.slice(1) });
  const r = await checkpointOnce(deps, t, "postcheck", evaluations, seal, now);
  const a = r.verdict.action;
  const at = iso(now);
  return {
    verdict: a === "block" ? "rejected" : a === "require_review" ? "pending" : "approved",
    checks: r.checks,
    event: (x) => screeningCompleteData(x, "postcheck", r, at),
    openCase: a === "block" || a === "require_review" ? { caseId: newCaseId(), cause: { by: "screening", verdict: { ...r.verdict, action: a }, stage: "postcheck" }, at } : null,
  };
}
