// A suspicion report's filing life as pure decisions (docs/reports.md): draft → pending_review → submitted → filed, and
// edits (a report in review goes back to draft). The reports actor (src/actors/reports.ts) decides each step here
// against the report as it is; storage only writes the report the step decided (and seals its content).
import {
  hasCjk,
  isFilingReady,
  jurisdictionOut,
  nextStatus,
  normaliseJurisdiction,
  resolveReportType,
  textLength,
  validateEdit,
  type LifeRefusal,
  type RegulatoryData,
  type ReportAction,
  type ReportStatus,
} from "./report.ts";

/** A report's opened content: what is sealed at rest. */
export interface ReportContent {
  narrative: string | null;
  riskIndicators: string[];
  regulatoryData: RegulatoryData;
}

/** What an edit may change (CLI `reports edit`, `PATCH /api/v2/reports/:id`). */
export interface ReportChange {
  narrative?: string;
  fields?: Record<string, string>;
  riskIndicators?: string[];
  /** Sets or changes where the report is filed (any case; UK for GB). */
  jurisdiction?: string;
  reference?: string;
}

/** What a step needs to know of the report. */
export interface ReportFacts {
  id: string;
  reportNumber: string;
  status: ReportStatus;
  jurisdiction: string;
  filingReady: boolean;
  generatedBy: string;
  submittedBy: string | null;
  lastEditedBy: string | null;
}

/** What the content decides of a report beyond itself: readiness, the PDF's length limit and its script. */
export interface ContentFacts {
  filingReady: boolean;
  textLength: number;
  hasCjk: boolean;
}

export function contentFacts(jurisdiction: string, c: ReportContent): ContentFacts {
  return {
    filingReady: isFilingReady(resolveReportType(jurisdiction), c.narrative, c.regulatoryData),
    textLength: textLength(c.narrative, c.riskIndicators, c.regulatoryData),
    hasCjk: hasCjk(c.narrative, ...c.riskIndicators, ...Object.values(c.regulatoryData)),
  };
}

/** The fields a step sets on the report (absent: unchanged). */
export interface ReportStepFields extends Partial<ContentFacts> {
  status: ReportStatus;
  updatedAt: string;
  jurisdiction?: string;
  submittedAt?: string | null;
  submittedBy?: string | null;
  approvedAt?: string;
  approvedBy?: string;
  filedAt?: string;
  filedBy?: string;
  filingReference?: string;
  lastEditedBy?: string;
}

/** One decided step: the fields it sets, the new content to seal (an edit), and its audit entry. */
export interface ReportStep {
  set: ReportStepFields;
  content?: ReportContent;
  audit: { action: "str.updated" | "str.submitted" | "str.approved" | "str.filed"; detail: Record<string, unknown> };
}

export type StepRefusal = LifeRefusal | { code: "INVALID_EDIT"; message: string };

const AUDIT_ACTION = { edit: "str.updated", submit: "str.submitted", approve: "str.approved", file: "str.filed" } as const;

/**
 * Decides one step of the life by `by.memberId`, at `at` (ISO 8601): the status it leads to (four eyes and readiness
 * included: `nextStatus`), what it sets and what its audit entry says. An edit opens the content through `content`
 * (only an edit needs it). `viaConsole`: the member acts through a console session (else on the host's CLI).
 */
export function decideStep(
  r: ReportFacts,
  action: ReportAction,
  by: { memberId: string; viaConsole: boolean },
  o: ReportChange,
  at: string,
  content: () => ReportContent,
): { ok: true; step: ReportStep } | { ok: false; refusal: StepRefusal } {
  const jurisdiction = o.jurisdiction !== undefined && action === "edit" ? normaliseJurisdiction(o.jurisdiction) : r.jurisdiction;
  const type = resolveReportType(jurisdiction ?? r.jurisdiction);
  const next = nextStatus(
    { status: r.status, filingReady: r.filingReady, submittedBy: r.submittedBy, draftedBy: r.generatedBy, lastEditedBy: r.lastEditedBy },
    action,
    by.memberId,
    { reference: o.reference },
  );
  if (!next.ok) return next;
  const set: ReportStepFields = { status: next.status, updatedAt: at };
  // A step is an officer's: through a console session, or on the host's CLI as a named member.
  const detail: Record<string, unknown> = { reportNumber: r.reportNumber, from: r.status, to: next.status, via: by.viaConsole ? "console" : "cli" };
  let changed: ReportContent | undefined;
  if (action === "edit") {
    const errors = validateEdit(type, o);
    if (errors.length) return { ok: false, refusal: { code: "INVALID_EDIT", message: errors.join("; ") } };
    const c = content();
    const data = { ...c.regulatoryData };
    for (const [k, v] of Object.entries(o.fields ?? {})) v.trim() ? (data[k] = v) : delete data[k];
    changed = { narrative: o.narrative !== undefined ? o.narrative : c.narrative, riskIndicators: o.riskIndicators ?? c.riskIndicators, regulatoryData: data };
    Object.assign(set, contentFacts(jurisdiction!, changed));
    if (jurisdiction !== r.jurisdiction) {
      set.jurisdiction = jurisdiction!;
      detail.jurisdiction = { from: jurisdictionOut(r.jurisdiction), to: jurisdiction };
    }
    // Field keys only: values are personal data and stay out of the audit log.
    detail.fields = Object.keys(o.fields ?? {});
    detail.narrative = o.narrative !== undefined;
    detail.riskIndicators = o.riskIndicators !== undefined;
    if (r.status === "pending_review") (set.submittedAt = null), (set.submittedBy = null);
    set.lastEditedBy = by.memberId;
  } else if (action === "submit") {
    set.submittedAt = at;
    set.submittedBy = by.memberId;
  } else if (action === "approve") {
    set.approvedAt = at;
    set.approvedBy = by.memberId;
  } else if (action === "file") {
    const ref = o.reference!.trim();
    set.filedAt = at;
    set.filedBy = by.memberId;
    set.filingReference = ref;
    detail.filingReference = ref;
  }
  return { ok: true, step: { set, ...(changed ? { content: changed } : {}), audit: { action: AUDIT_ACTION[action], detail } } };
}
