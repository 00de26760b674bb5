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

type HistoryEntry = { action: string; field: string | null; oldValue: string | null; newValue: string | null };
type Named = { id: string; email?: string | null; name?: string | null };

/**
 * A case history entry as a sentence: `assigned to ruth@example.com` rather than `assigned assigneeId mem_…`,
 * `suspicion report rpt_… drafted`, `held again by screening at precheck (screening did not run)`. Member IDs are
 * named when the member is known (`members`); anything unknown keeps its code.
 */
export function caseHistoryText(h: HistoryEntry, members: readonly Named[] = []): string {
  const who = (id: string | null) => {
    if (!id) return "nobody";
    const m = members.find((x) => x.id === id);
    return m ? (m.email ?? m.name ?? id) : id;
  };
  switch (h.action) {
    case "created":
      return "opened";
    case "assigned":
      return h.newValue ? `assigned to ${who(h.newValue)}${h.oldValue ? ` (was ${who(h.oldValue)})` : ""}` : `unassigned (was ${who(h.oldValue)})`;
    case "note_added":
      return "note added";
    case "resolved":
      return `resolved ${h.newValue ?? ""}`.trim();
    case "str_drafted":
      return `suspicion report ${h.newValue ?? ""} drafted (Reports shows it)`;
    case "transfer_updated":
      return `the transfer moved: ${h.newValue ?? "?"}`;
    case "transfer_not_updated":
      return `the transfer was not moved: ${h.newValue ?? "?"}`;
    case "updated": {
      if (h.field === "screening" && h.newValue) {
        const [stage, verdict] = h.newValue.split(":");
        return `held again by screening at ${stage} (${verdict === "block" ? "block" : "review"})${h.newValue.endsWith(":unscreened") ? ": screening did not run" : ""}`;
      }
      if (h.field === "transferIds") return `transfer ${h.newValue ?? ""} linked`;
      if (h.field === "assigneeId") return `assigned to ${who(h.newValue)}`;
      return `${h.field ?? "case"} changed${h.oldValue != null ? ` from ${h.oldValue}` : ""} to ${h.newValue ?? "nothing"}`;
    }
    default:
      return `${h.action}${h.field ? ` ${h.field}` : ""}${h.newValue != null ? ` ${h.newValue}` : ""}`;
  }
}

const REJECTIONS: Record<string, string> = {
  BENE_NOT_FOUND: "the beneficiary was not found",
  BENE_NAME_MISMATCH: "the beneficiary's name did not match",
  SANCTIONS_MATCH: "a sanctions match",
  HIGH_RISK: "high risk",
  COMPLIANCE_POLICY: "the compliance policy (a rule or an officer's review)",
  INVALID_DATA: "invalid data",
  EXPIRED: "it expired",
  OTHER: "another reason",
};

/** A rejection reason in words with its code: `the compliance policy (…) (COMPLIANCE_POLICY)`. */
export const rejectionWords = (code: string) => (REJECTIONS[code] ? `${REJECTIONS[code]} (${code})` : code);

/** The verdict in words: a transfer that ended before any verdict says so instead of "pending". */
export function verdictText(state: string, verdict: string | null | undefined): string {
  const v = verdict ?? "-";
  if (v === "pending" && ["failed", "cancelled", "rejected", "completed"].includes(state)) return `none (the transfer is ${state}; screening gave none)`;
  return v;
}

const INDICATORS: Record<string, string> = {
  sanctions_hit: "A sanctions screening match.",
  compliance_review: "Held for compliance review by a screening rule.",
  provider_rejection: "Flagged or refused by the Travel Rule network.",
  manual_escalation: "Escalated by an officer.",
  threshold_breach: "The amount is over a monitoring threshold.",
  kyc_failure: "The customer's due diligence failed.",
  aml: "A money-laundering concern.",
  sanctions: "A sanctions concern.",
  kyc: "A know-your-customer concern.",
  fraud: "A fraud concern.",
  threshold: "A threshold concern.",
  str_threshold_reached: "The amount is at or above the suspicious transaction reporting threshold.",
  drafted_by_hand: "Drafted by an officer without a case.",
  rejected_on_review: "The transfer was rejected by an officer on review.",
  screening_incomplete: "Screening could not be completed: a check failed or was skipped, so nothing was matched and nothing was cleared.",
};

/**
 * A report's risk indicator as a sentence: `rule:high:<rule>` reads "A screening rule fired: <rule> (high
 * severity)."; a known code reads as its sentence; free text an officer wrote is returned as it is. `null` when the
 * indicator is not a code (nothing to say beside it).
 */
export function indicatorWords(code: string): string | null {
  if (INDICATORS[code]) return INDICATORS[code];
  const rule = /^rule:(low|medium|high|critical):(.+)$/s.exec(code);
  if (rule) return `A screening rule fired: ${rule[2]} (${rule[1]} severity).`;
  return null;
}

/** The indicator's line: the sentence, and with `codes` the code beside it; free text as written. */
export const indicatorText = (code: string, codes = false): string => {
  const w = indicatorWords(code);
  return w ? (codes ? `${w}  [${code}]` : w) : code;
};

/**
 * A report's risk indicators as the detail shows them (Reports and Filing alike): a heading that says what `c` does
 * when any indicator is a code, then one sentence per indicator, with its code beside it when `codes` is on.
 */
export function indicatorLines(indicators: readonly string[] | null | undefined, codes = false): { text: string; bold?: boolean }[] {
  const all = indicators ?? [];
  const toggle = all.some((t) => indicatorWords(t)) ? (codes ? "  (c hides the codes)" : "  (c shows the codes)") : "";
  return [{ text: `Risk indicators${toggle}`, bold: true }, ...all.map((t) => ({ text: `  ${indicatorText(t, codes)}` }))];
}

type AuditLike = { action: string; entityType: string; entityId?: string | null; actor?: { type?: string; memberId?: string | null; apiKeyId?: string | null } | null; detail?: unknown };

/** Who acted on an audit entry: the member's email (or name) when known, else their ID; Caravan for the system. */
export function auditActorText(e: AuditLike, members: readonly Named[] = []): string {
  const id = e.actor?.memberId;
  if (id) {
    const m = members.find((x) => x.id === id);
    return m ? (m.email ?? m.name ?? id) : id;
  }
  if (e.actor?.apiKeyId) return `key ${e.actor.apiKeyId}`;
  return "Caravan";
}

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

/**
 * An audit entry of a transfer (or of its case) as the transfer's history tells it: what happened in words, with
 * the case or report it names (`caseId`, `reportId`). Unknown actions read as their name without the prefix.
 */
export function transferAuditText(e: AuditLike): { text: string; caseId: string | null; reportId: string | null } {
  const d = (e.detail && typeof e.detail === "object" ? e.detail : {}) as Record<string, unknown>;
  const caseId = str(d.caseId) ?? (e.entityType === "Case" ? (e.entityId ?? null) : null);
  const reportId = str(d.reportId);
  const reason = str(d.reason);
  const stage = str(d.stage);
  const via = str(d.provider) ? ` (${d.provider})` : "";
  let text: string;
  switch (e.action) {
    case "transfer.created":
      text = `created${str(d.state) ? ` (${d.state})` : ""}`;
      break;
    case "transfer.held":
      text = `held${stage ? ` at ${stage}` : ""}${d.unscreened === true ? ": screening did not run" : ""}${reason ? ` for ${rejectionWords(reason)}` : ""}${via}`;
      break;
    case "transfer.rejected":
      text = `rejected${reason ? ` for ${rejectionWords(reason)}` : ""}${stage ? ` at ${stage}` : ""}${via}`;
      break;
    case "transfer.resumed":
      text = `resumed${d.screenAgain === true ? " to be screened again" : d.unscreened === true ? " WITHOUT screening" : ""}`;
      break;
    case "transfer.retried":
      text = "retried (queued again)";
      break;
    case "transfer.accepted":
      text = `accepted${via}`;
      break;
    case "transfer.completed":
      text = `completed${via}`;
      break;
    case "transfer.failed":
      text = `failed${reason ? ` (${reason})` : ""}${via}`;
      break;
    case "transfer.cancelled":
      text = `cancelled${reason ? ` (${reason})` : ""}`;
      break;
    case "case.str_drafted":
      text = `suspicion report ${reportId ?? ""} drafted (Reports shows it)`.replace("  ", " ");
      break;
    case "case.resolved":
      text = `resolved the case${str(d.resolution) ? ` as ${d.resolution}` : ""}${d.approveUnscreened === true ? " (approved unscreened)" : ""}`;
      break;
    default:
      text = e.action.replace(/^(transfer|case)\./, "").replace(/_/g, " ");
  }
  if (reportId && e.action !== "case.str_drafted") text += ` · report ${reportId} (Reports shows it)`;
  return { text, caseId, reportId };
}
