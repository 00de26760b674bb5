// Cases: open, change, notes, history and resolution; the list item and the detail as answered.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Iso, MemberRef, Nullable, OneOf } from "./common.ts";

export const CASE_TYPES = ["compliance_review", "sanctions_hit", "provider_rejection", "manual_escalation", "threshold_breach", "kyc_failure"] as const;
export const CASE_CATEGORIES = ["aml", "sanctions", "kyc", "fraud", "threshold"] as const;
export const CASE_PRIORITIES = ["low", "medium", "high"] as const;
export const CASE_STATUSES = ["open", "closed"] as const;
export const CASE_RESOLUTIONS = ["approved", "rejected"] as const;
export const CASE_LIMITS = { title: 200, description: 2000, note: 5000, resolutionNote: 2000, search: 100 } as const;

// ---- requests ----
export const CreateCase = Body({
  title: Type.String({ minLength: 1, maxLength: CASE_LIMITS.title }),
  type: OneOf(CASE_TYPES),
  description: Type.Optional(Nullable(Type.String({ maxLength: CASE_LIMITS.description }))),
  category: Type.Optional(OneOf(CASE_CATEGORIES)),
  priority: Type.Optional(OneOf(CASE_PRIORITIES)),
  transferId: Type.Optional(Nullable(Type.String())),
  ruleId: Type.Optional(Nullable(Type.String())),
  assigneeId: Type.Optional(Nullable(Type.String())),
});
export type CreateCase = Static<typeof CreateCase>;
export const PatchCase = Body(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: CASE_LIMITS.title })),
    description: Type.Optional(Nullable(Type.String({ maxLength: CASE_LIMITS.description }))),
    type: Type.Optional(OneOf(CASE_TYPES)),
    category: Type.Optional(OneOf(CASE_CATEGORIES)),
    priority: Type.Optional(OneOf(CASE_PRIORITIES)),
    assigneeId: Type.Optional(Nullable(Type.String({ description: "a member ID; null unassigns" }))),
    ruleId: Type.Optional(Nullable(Type.String())),
    transferId: Type.Optional(Nullable(Type.String())),
  },
  { minProperties: 1 },
);
export type PatchCase = Static<typeof PatchCase>;
export const AddNote = Body({ content: Type.String({ minLength: 1, maxLength: CASE_LIMITS.note }) });
export type AddNote = Static<typeof AddNote>;
export const ResolveCase = Body({
  resolution: OneOf(CASE_RESOLUTIONS),
  resolutionNote: Type.Optional(Nullable(Type.String({ maxLength: CASE_LIMITS.resolutionNote }))),
  approveUnscreened: Type.Optional(Type.Boolean({ description: "Caravan's addition: approve a transfer whose screening could not run without screening it again (audited); otherwise approval screens it again first" })),
});
export type ResolveCase = Static<typeof ResolveCase>;

export const caseExamples = {
  create: { title: "Unusual outgoing volume", type: "compliance_review", priority: "medium", description: "Three transfers above 10,000 USD in an hour" },
  patch: { priority: "high" },
  note: { content: "Called the customer; the source of funds is documented." },
  resolve: { resolution: "approved", resolutionNote: "Name match is a false positive (different date of birth)" },
};

// ---- answers ----
export const CaseListItem = Answer({
  id: Type.String({ pattern: "^cas_[0-9a-z]{26}$" }),
  caseNumber: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  type: Type.String(),
  category: Type.String(),
  priority: OneOf(CASE_PRIORITIES),
  status: OneOf(CASE_STATUSES),
  resolution: Nullable(OneOf(CASE_RESOLUTIONS)),
  resolutionNote: Nullable(Type.String()),
  assigneeId: Nullable(Type.String()),
  assignee: Nullable(MemberRef),
  ruleId: Nullable(Type.String()),
  transferIds: Type.Array(Type.String()),
  source: Type.String(),
  noteCount: Type.Integer({ minimum: 0 }),
  createdById: Nullable(Type.String()),
  createdAt: Iso,
  updatedAt: Iso,
});
export type CaseListItem = Static<typeof CaseListItem>;

export const CaseNote = Answer({ id: Type.String(), content: Type.String(), authorId: Type.Optional(Nullable(Type.String())), author: Type.Optional(Nullable(MemberRef)), createdAt: Iso });
export type CaseNote = Static<typeof CaseNote>;

export const CaseHistoryEntry = Answer({
  id: Type.String(),
  action: Type.String(),
  field: Nullable(Type.String()),
  oldValue: Nullable(Type.String()),
  newValue: Nullable(Type.String()),
  userId: Type.Optional(Nullable(Type.String())),
  user: Nullable(MemberRef),
  createdAt: Iso,
});
export type CaseHistoryEntry = Static<typeof CaseHistoryEntry>;

/** A linked transfer in a case's detail (for a key that may read transfers). */
export const CaseTransfer = Answer({
  id: Type.String(),
  externalId: Nullable(Type.String()),
  direction: Type.String(),
  state: Type.String(),
  complianceStatus: Type.String(),
  amount: Type.String(),
  asset: Type.String(),
  network: Type.String(),
  createdAt: Iso,
});

export const CaseDetail = Type.Composite([
  CaseListItem,
  Answer({
    resolvedAt: Nullable(Iso),
    resolvedById: Type.Optional(Nullable(Type.String())),
    createdBy: Nullable(MemberRef),
    resolvedBy: Nullable(MemberRef),
    rule: Nullable(Answer({ id: Type.String(), name: Type.String(), category: Type.String(), action: Type.String(), severity: Type.String() })),
    transfers: Type.Optional(Type.Array(CaseTransfer)),
    notes: Type.Array(CaseNote),
    history: Type.Array(CaseHistoryEntry),
    historyCount: Type.Integer({ minimum: 0 }),
  }),
]);
export type CaseDetail = Static<typeof CaseDetail>;

/** A key without cases:read gets this receipt instead of the case. */
export const CaseReceipt = Answer({ id: Type.String(), caseNumber: Type.String(), status: OneOf(CASE_STATUSES) });

/** `meta.transferAction` of a resolution: what became of the case's first linked held transfer. */
export const TransferAction = Nullable(
  Type.Union([
    Type.Object({ transferId: Type.String(), result: Type.Literal("queued") }),
    Type.Object({ transferId: Type.String(), result: Type.Literal("skipped"), reason: Type.String() }),
  ]),
);
export type TransferAction = Static<typeof TransferAction>;
