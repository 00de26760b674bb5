// Transfers: create an outgoing one, act on one (accept, reject, retry), the list, the detail and the create receipt.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Decimal, Iso, Nullable, OneOf } from "./common.ts";
import { JANE, Person, RICHARD } from "./persons.ts";

export const TRANSFER_STATES = ["created", "queued", "processing", "exchanging", "awaiting_counterparty", "accepted", "rejected", "cancelled", "completed", "failed", "held"] as const;
export type TransferState = (typeof TRANSFER_STATES)[number];
/** The compliance verdict (`status` in the list, `compliance.status` in the detail). */
export const VERDICTS = ["pending", "approved", "rejected"] as const;
export type Verdict = (typeof VERDICTS)[number];
export const PROTOCOLS = ["provider_a", "provider_b", "provider_c", "provider_d", "provider_e"] as const;
export const REJECT_REASONS = ["BENE_NOT_FOUND", "BENE_NAME_MISMATCH", "SANCTIONS_MATCH", "HIGH_RISK", "COMPLIANCE_POLICY", "INVALID_DATA", "EXPIRED", "OTHER"] as const;
export const TRANSFER_ACTIONS = ["accept", "reject", "retry"] as const;

// ---- requests ----
export const CreateTransfer = Body({
  asset: Type.String({ maxLength: 20, description: "Asset symbol; must be enabled in the environment" }),
  amount: Type.String({ pattern: "^(0|[1-9][0-9]*)(\\.[0-9]+)?$", description: "Decimal string" }),
  network: Type.String({ maxLength: 50 }),
  originatorCustomerId: Type.String(),
  originatorAddress: Type.Optional(Type.String({ maxLength: 200, description: "A wallet registered to the originator customer" })),
  beneficiaryAddress: Type.String({ maxLength: 200, description: "A destination tag may follow as ?memo=, ?dt= or ?tag=" }),
  originator: Type.Object({ originatorPersons: Type.Array(Person, { minItems: 1 }) }, { additionalProperties: false }),
  beneficiary: Type.Optional(Type.Object({ beneficiaryPersons: Type.Array(Person) }, { additionalProperties: false })),
  preferredProtocol: Type.Optional(OneOf(PROTOCOLS)),
  isUnhostedWallet: Type.Optional(Type.Boolean()),
});
export type CreateTransfer = Static<typeof CreateTransfer>;

export const AcceptTransfer = Body({ action: Type.Literal("accept"), txHash: Type.Optional(Type.String({ pattern: "^(0x)?[0-9a-fA-F]{64}$" })) });
export const RejectTransfer = Body({
  action: Type.Literal("reject"),
  status: Type.Literal("rejected"),
  reason: OneOf(REJECT_REASONS),
  details: Type.Optional(Type.String({ maxLength: 500 })),
});
export const RetryTransfer = Body({ action: Type.Literal("retry"), reason: Type.String() });
/** PATCH /transfers/:id: one action. */
export const PatchTransfer = Type.Union([AcceptTransfer, RejectTransfer, RetryTransfer]);
export type PatchTransfer = Static<typeof PatchTransfer>;

/** POST /transfers/:id/information-requests: one action on a transfer's information requests. */
export const InformationRequestAction = Body({
  action: OneOf(["request", "reply", "post", "review", "retry"]),
  idempotencyKey: Type.Optional(Type.String({ pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", description: "a UUID; request, reply, post" })),
  fields: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        "request: geographic_address, national_identification, date_and_place_of_birth (lists), customer_identification, country_of_residence (true), other_cdd_info (text)",
    }),
  ),
  requestId: Type.Optional(Type.String({ description: "reply: the received request's message ID" })),
  information: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "reply, post: a JSON object of at most 50 KB" })),
  reviewedMessageIds: Type.Optional(Type.Array(Type.String(), { description: "review: every unreviewed message" })),
  note: Type.Optional(Type.String({ description: "review" })),
  messageId: Type.Optional(Type.String({ description: "retry: a failed message" })),
});
export type InformationRequestAction = Static<typeof InformationRequestAction>;

export const transferExamples = {
  create: {
    asset: "ETH",
    amount: "1.25",
    network: "ethereum",
    originatorCustomerId: "cus_01jd0000000000000000000000",
    originatorAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    originator: { originatorPersons: [JANE] },
    beneficiary: { beneficiaryPersons: [RICHARD] },
    preferredProtocol: "provider_b",
  },
  patch: { action: "accept", txHash: "0x" + "ab".repeat(32) },
  informationRequest: { action: "request", idempotencyKey: "4b0f9c4e-8a51-4a0e-9a57-3c1f1d2b7e10", fields: { country_of_residence: true } },
};

// ---- answers ----
const Direction = OneOf(["incoming", "outgoing"]);
const State = OneOf(TRANSFER_STATES);

/** One screening of a check's raw answer: the vendor's response for one party's name or address. */
export const Screening = Type.Object({ party: Type.Optional(Type.String()), kind: Type.Optional(Type.String()), status: Type.Optional(Type.String()), response: Type.Optional(Type.Unknown()) });
export type Screening = Static<typeof Screening>;
/** A check's `response`: one vendor answer per screened subject (null without pii:view). */
export const CheckResponse = Nullable(Type.Object({ screenings: Type.Optional(Type.Array(Screening)) }));
export type CheckResponse = Static<typeof CheckResponse>;

const ListParty = Answer({ name: Nullable(Type.String()), vaspId: Nullable(Type.String()), vaspName: Nullable(Type.String()), address: Nullable(Type.String()) });
export type ListParty = Static<typeof ListParty>;

export const TransferListItem = Answer({
  id: Type.String({ pattern: "^trf_[0-9a-z]{26}$" }),
  direction: Direction,
  state: State,
  status: OneOf(VERDICTS),
  asset: Type.String(),
  amount: Decimal,
  network: Type.String(),
  blockchainType: Nullable(Type.String()),
  originator: ListParty,
  beneficiary: ListParty,
  travelRule: Answer({ protocol: Type.String(), matchedAt: Nullable(Iso), status: Nullable(Type.String()) }),
  screening: Answer({ sanctions: Answer({ status: Nullable(Type.String()), provider: Nullable(Type.String()) }) }),
  compliance: Answer({ checks: Type.Array(Answer({ name: Nullable(Type.String()), status: OneOf(["passed", "failed", "pending"]), response: CheckResponse })) }),
  provider: Nullable(Answer({ id: Nullable(Type.String()), name: Type.String(), displayName: Type.String(), protocol: Type.String() })),
  externalId: Nullable(Type.String()),
  createdAt: Iso,
});
export type TransferListItem = Static<typeof TransferListItem>;

export const Check = Answer({
  id: Type.String(),
  integration: Type.String(),
  displayName: Type.String(),
  type: Type.String(),
  stage: Type.Optional(Type.String()),
  status: OneOf(["pending", "success", "error", "skipped"]),
  response: CheckResponse,
  error: Type.Optional(Nullable(Type.String())),
  durationMs: Nullable(Type.Number()),
});
export type Check = Static<typeof Check>;

const DetailParty = Answer({ address: Nullable(Type.String()), vaspId: Nullable(Type.String()), vaspName: Nullable(Type.String()) });

/** What every answer about one transfer starts with. */
const core = {
  id: Type.String({ pattern: "^trf_[0-9a-z]{26}$" }),
  direction: Direction,
  state: State,
  asset: Type.String(),
  amount: Decimal,
  network: Type.String(),
};

export const TransferDetail = Answer({
  ...core,
  originator: DetailParty,
  beneficiary: DetailParty,
  status: Answer({ ours: Nullable(Type.String()), theirs: Nullable(Type.String()) }),
  rejection: Nullable(Answer({ reason: Type.String(), details: Nullable(Type.String()) })),
  compliance: Answer({ status: Nullable(OneOf(VERDICTS)), total: Type.Integer({ minimum: 0 }), checks: Type.Array(Check) }),
  cascade: Answer({
    provider: Nullable(Type.String()),
    externalId: Nullable(Type.String()),
    attempts: Type.Array(Answer({ provider: Type.String(), status: Type.String(), error: Type.Optional(Nullable(Type.String())) })),
  }),
  txHash: Nullable(Type.String()),
  messages: Type.Array(Answer({ type: Type.String(), direction: Type.String(), timestamp: Iso })),
  expiresAt: Type.Optional(Iso),
  acceptedAt: Type.Optional(Iso),
  completedAt: Type.Optional(Iso),
  createdAt: Iso,
});
export type TransferDetail = Static<typeof TransferDetail>;

/** 201 of a create: the transfer as decided at once (below the threshold: completed without an exchange). */
export const TransferCreated = Answer({
  ...core,
  originator: Answer({ address: Nullable(Type.String()), vasp: Answer({ id: Type.String(), name: Nullable(Type.String()) }), name: Nullable(Type.String()) }),
  beneficiary: Answer({ address: Type.String(), verified: Type.Boolean() }),
  compliance: Type.String(),
  routing: Type.String(),
  thresholdInfo: Answer({ amount: Decimal, asset: Type.String(), threshold: Decimal, thresholdCurrency: Type.String(), jurisdiction: Type.String(), regulation: Type.String() }),
  fxRateId: Nullable(Type.String()),
  createdAt: Iso,
});
export type TransferCreated = Static<typeof TransferCreated>;

/** 202 of a create: queued for screening and the Travel Rule exchange (`meta.jobId`, `meta.message`). */
export const TransferQueued = Answer({
  ...core,
  originator: Answer({ address: Nullable(Type.String()), vasp: Answer({ id: Type.String(), name: Nullable(Type.String()) }), name: Type.Optional(Nullable(Type.String())) }),
  beneficiary: Answer({ address: Type.String(), verified: Type.Boolean(), name: Type.Optional(Nullable(Type.String())) }),
  originatorStatus: Type.String(),
  beneficiaryStatus: Nullable(Type.String()),
  compliance: Type.String(),
  routing: Type.String(),
  createdAt: Iso,
  expiresAt: Nullable(Iso),
});
export type TransferQueued = Static<typeof TransferQueued>;

/** 200 of a create whose Idempotency-Key was used before: the transfer it created (`meta.idempotent: true`); nothing new. */
export const TransferIdempotent = Answer({ id: Type.String({ pattern: "^trf_[0-9a-z]{26}$" }), state: State, createdAt: Iso });
export type TransferIdempotent = Static<typeof TransferIdempotent>;

/** The answer of an action: the transfer's state after it. */
export const TransferActed = Answer({ id: Type.String(), state: State, status: Answer({ ours: Nullable(Type.String()), theirs: Nullable(Type.String()) }), txHash: Nullable(Type.String()) });
export type TransferActed = Static<typeof TransferActed>;

/**
 * `GET /api/v2/transfers/:id/valuation` (Caravan's operator route, for the console): the value in fiat the threshold
 * decision used, as recorded at creation (amount, currency, rate, its source and time), and that decision. Null
 * parts: nothing was priced (no threshold decision recorded, or the pricing failed).
 */
export const TransferValuation = Answer({
  transferId: Type.String(),
  amount: Type.String(),
  asset: Type.String(),
  valuation: Nullable(
    Answer({ fxRateId: Type.String(), value: Type.String(), currency: Type.String(), rate: Type.String(), source: Type.String(), rateAsOf: Iso, valuedAt: Iso }),
  ),
  threshold: Nullable(
    Answer({ amount: Nullable(Type.String()), currency: Nullable(Type.String()), jurisdiction: Nullable(Type.String()), regulation: Nullable(Type.String()) }),
  ),
});
export type TransferValuation = Static<typeof TransferValuation>;
