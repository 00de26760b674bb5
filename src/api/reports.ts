// Suspicion reports: drafting, editing, review, filing (operator routes) and what the list, detail and readiness answer.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Iso, MemberRef, Nullable, OneOf } from "./common.ts";

export const REPORT_KINDS = ["suspicion"] as const;
export const REPORT_STATUSES = ["draft", "pending_review", "submitted", "filed"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const REPORT_LIMITS = { narrative: 100_000, fieldValue: 2_000, riskIndicators: 50, riskIndicator: 500, reference: 100 } as const;

// ---- requests ----
export const DraftReport = Body({ transferId: Type.String(), jurisdiction: Type.Optional(Type.String({ maxLength: 2 })) });
export type DraftReport = Static<typeof DraftReport>;
export const EditReport = Body(
  {
    narrative: Type.Optional(Type.String({ maxLength: REPORT_LIMITS.narrative })),
    fields: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: REPORT_LIMITS.fieldValue }))),
    riskIndicators: Type.Optional(Type.Array(Type.String({ maxLength: REPORT_LIMITS.riskIndicator }), { maxItems: REPORT_LIMITS.riskIndicators })),
    jurisdiction: Type.Optional(Type.String({ maxLength: 2 })),
  },
  { minProperties: 1 },
);
export type EditReport = Static<typeof EditReport>;
export const FileReport = Body({ reference: Type.String({ minLength: 1, maxLength: REPORT_LIMITS.reference }) });
export type FileReport = Static<typeof FileReport>;

// ---- answers ----
export const FilingDeadline = Answer({
  deadline: Iso,
  daysRemaining: Type.Integer(),
  isOverdue: Type.Boolean(),
  isApproaching: Type.Boolean(),
  source: Type.String(),
  daysConfigured: Type.Integer(),
  regulation: Nullable(Type.String()),
  regulatoryBody: Nullable(Type.String()),
});

export const ReportListItem = Answer({
  id: Type.String({ pattern: "^rpt_[0-9a-z]{26}$" }),
  kind: OneOf(REPORT_KINDS),
  label: Type.String(),
  reportTo: Nullable(Type.String()),
  reportNumber: Type.String(),
  transferId: Nullable(Type.String()),
  status: OneOf(REPORT_STATUSES),
  jurisdiction: Type.String({ pattern: "^[A-Z]{2}$", description: "Upper-case ISO 3166-1 alpha-2; ZZ while no jurisdiction is known (the officer sets one before filing)" }),
  detectionMethod: Type.String(),
  generatedBy: Nullable(Type.String()),
  generatedAt: Iso,
  filedAt: Nullable(Iso),
  filedBy: Nullable(Type.String()),
  filingReference: Nullable(Type.String()),
  filingReady: Type.Boolean(),
  filingDeadline: Nullable(FilingDeadline),
  createdAt: Iso,
  updatedAt: Iso,
  generatedByMember: Nullable(MemberRef),
  filedByMember: Nullable(MemberRef),
});
export type ReportListItem = Static<typeof ReportListItem>;

/** The detail: the list item plus its content (masked without pii:view). */
export const ReportDetail = Type.Composite([
  ReportListItem,
  Answer({ narrative: Nullable(Type.String()), riskIndicators: Type.Array(Type.String()), regulatoryData: Type.Record(Type.String(), Type.Unknown()) }),
]);
export type ReportDetail = Static<typeof ReportDetail>;

export const ReadinessField = Answer({ key: Type.String(), label: Type.String(), type: Type.String(), pii: Type.Boolean(), required: Type.Boolean() });
export type ReadinessField = Static<typeof ReadinessField>;

/** The jurisdiction's reporting threshold and, when the transfer's value is in its currency, whether it was reached. */
export const ReportingThreshold = Answer({
  countryCode: Type.String(),
  thresholdAmount: Type.String(),
  thresholdCurrency: Type.String(),
  value: Nullable(Type.String()),
  reached: Nullable(Type.Boolean()),
});
/** Who submitted or approved: the member, or only the ID of one no longer in the company. */
const Signer = Answer({ id: Type.String(), name: Type.Optional(Nullable(Type.String())), email: Type.Optional(Nullable(Type.String())) });

/** What a report still needs before it can be filed, and who submitted and approved it. */
export const ReportReadiness = Answer({
  id: Type.String(),
  reportNumber: Type.String(),
  status: OneOf(REPORT_STATUSES),
  jurisdiction: Type.String({ pattern: "^[A-Z]{2}$" }),
  filingReady: Type.Boolean(),
  missing: Answer({ fields: Type.Array(Type.String()), narrative: Type.Boolean(), labels: Type.Array(Type.String()) }),
  fields: Type.Array(ReadinessField),
  narrativeMinLength: Type.Integer({ minimum: 0 }),
  reportingThreshold: Nullable(ReportingThreshold),
  submittedBy: Nullable(Signer),
  submittedAt: Nullable(Iso),
  approvedBy: Nullable(Signer),
  approvedAt: Nullable(Iso),
});
export type ReportReadiness = Static<typeof ReportReadiness>;

/** 201 of a hand draft: the detail with its readiness. */
export const ReportDrafted = Type.Composite([ReportDetail, Answer({ readiness: ReportReadiness })]);
