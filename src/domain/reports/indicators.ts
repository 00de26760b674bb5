// Risk indicators of a suspicion report: drafted ones are codes (the case's type and category, the rule, the reporting
// threshold); an officer may add free text. A code is printed in words with the code beside it.

const WORDS: Record<string, string> = {
  // Case types.
  sanctions_hit: "Sanctions screening match",
  compliance_review: "Held for compliance review by a screening rule",
  provider_rejection: "Flagged or refused by the Travel Rule network",
  manual_escalation: "Escalated by an officer",
  threshold_breach: "Amount over a monitoring threshold",
  kyc_failure: "Customer due diligence failure",
  // Case categories.
  aml: "Money-laundering concern",
  sanctions: "Sanctions concern",
  kyc: "Know-your-customer concern",
  fraud: "Fraud concern",
  threshold: "Threshold concern",
  // Set by Caravan.
  str_threshold_reached: "Amount at or above the suspicious transaction reporting threshold",
  drafted_by_hand: "Drafted by an officer without a case",
  rejected_on_review: "Transfer rejected by an officer on review",
  screening_incomplete: "Screening could not be completed: a check failed or was skipped, so nothing was matched or cleared",
};

/**
 * True when the latest screening run of a transfer has a check that did not complete (error or skipped): the
 * transfer was not screened, whatever its rules then decided (docs/screening.md "Could not check").
 */
export function latestRunIncomplete(checks: readonly { status: string; run?: string }[]): boolean {
  if (checks.length === 0) return false;
  const last = checks.reduce((m, c) => Math.max(m, Number(c.run ?? 0)), 0);
  return checks.some((c) => Number(c.run ?? 0) === last && (c.status === "error" || c.status === "skipped"));
}

/** A rule that fired, as an indicator code: `rule:<severity>:<name>`. */
export const ruleIndicator = (rule: { name: string; severity: string }) => `rule:${rule.severity}:${rule.name}`;

/** An indicator in words with its code, e.g. "Sanctions screening match (sanctions_hit)"; free text as written. */
export function describeIndicator(code: string): string {
  const words = WORDS[code];
  if (words) return `${words} (${code})`;
  const rule = /^rule:(low|medium|high):(.+)$/s.exec(code);
  if (rule) return `Screening rule "${rule[2]}" fired, severity ${rule[1]} (rule)`;
  return code;
}

export const isIndicatorCode = (v: string) => v in WORDS;
