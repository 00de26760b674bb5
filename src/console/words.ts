// Codes the API answers with, said in words for the officer; the code stays beside it (or one key away).

const CASE_TYPES: Record<string, string> = {
  sanctions_hit: "sanctions screening match",
  compliance_review: "compliance review",
  provider_rejection: "flagged or refused by the Travel Rule network",
  manual_escalation: "escalated by an officer",
  threshold_breach: "amount over a monitoring threshold",
  kyc_failure: "customer due diligence failure",
};

/** A case type in words: `sanctions screening match`; an unknown code as it is. */
export const caseTypeWords = (type: string): string => CASE_TYPES[type] ?? type;

/**
 * A case's title as the list shows it: a title masked for a role without pii:view (the API answers `***`) reads as
 * what is not personal, the case's type in words, with the mask named.
 */
export function caseTitleText(c: { title: string; type: string }): string {
  return /^\*+$/.test(c.title) ? `*** masked · ${caseTypeWords(c.type)}` : c.title;
}
