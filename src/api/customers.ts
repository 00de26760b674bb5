// Customers: create, deactivate, reactivate, erase, the attested Travel Rule identity, the list and the overview.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Iso, Nullable, OneOf } from "./common.ts";
import { JANE, Person } from "./persons.ts";

export const IDENTITY_STATUSES = ["verified", "unverified", "blocked"] as const;

// ---- requests ----
export const CreateCustomer = Body({
  externalId: Type.Optional(Nullable(Type.String({ maxLength: 255, description: "the caller's reference, unique per environment" }))),
  name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  metadata: Type.Optional(Type.Unknown({ description: "any JSON; stored sealed, never listed" })),
});
export type CreateCustomer = Static<typeof CreateCustomer>;
export const DeactivateCustomer = Body({ reason: Type.Optional(Nullable(Type.String())) });
export const EraseCustomer = Body({ reason: Type.String({ minLength: 1 }) });
export const SetIdentity = Body({ status: OneOf(IDENTITY_STATUSES), persons: Type.Array(Person, { minItems: 1, maxItems: 20 }) });
export type SetIdentity = Static<typeof SetIdentity>;

export const customerExamples = {
  create: { externalId: "cust-1001", name: "Jane Doe", metadata: { segment: "retail" } },
  deactivate: { reason: "Account closed at the customer's request" },
  erase: { reason: "Data-subject erasure request of 2026-11-02" },
  identity: { status: "verified", persons: [JANE] },
};

// ---- answers ----
/** A customer; `name` is masked to initials without pii:view. */
export const Customer = Answer({
  id: Type.String({ pattern: "^cus_[0-9a-z]{26}$" }),
  externalId: Nullable(Type.String()),
  name: Nullable(Type.String()),
  publicKey: Nullable(Type.String()),
  environment: OneOf(["test", "live"]),
  createdAt: Iso,
});
export type Customer = Static<typeof Customer>;

/** A customer in the list. */
export const CustomerListItem = Type.Composite([
  Customer,
  Answer({ walletCount: Type.Integer({ minimum: 0 }), updatedAt: Iso, deactivatedAt: Nullable(Iso), erasedAt: Nullable(Iso) }),
]);
export type CustomerListItem = Static<typeof CustomerListItem>;

/** One page of everything about a customer: identity state, wallets, latest transfers and cases (null: the key may not read that part). */
export const CustomerOverview = Answer({
  customer: Answer({
    id: Type.String(),
    externalId: Nullable(Type.String()),
    name: Nullable(Type.String()),
    identityStatus: Nullable(OneOf(IDENTITY_STATUSES)),
    identityCountry: Nullable(Type.String()),
    deactivatedAt: Nullable(Iso),
    erasedAt: Nullable(Iso),
    createdAt: Iso,
  }),
  wallets: Nullable(Type.Array(
    Answer({ id: Type.String(), network: Type.String(), address: Type.String(), label: Nullable(Type.String()), verified: Type.Boolean(), verifiedAt: Nullable(Iso), createdAt: Iso }),
  )),
  transfers: Nullable(Type.Array(
    Answer({
      id: Type.String(),
      direction: OneOf(["incoming", "outgoing"]),
      state: Type.String(),
      amount: Type.String(),
      asset: Type.String(),
      network: Type.String(),
      protocol: Nullable(Type.String()),
      createdAt: Iso,
    }),
  )),
  cases: Nullable(Type.Array(
    Answer({
      id: Type.String(),
      caseNumber: Type.String(),
      type: Type.String(),
      status: OneOf(["open", "closed"]),
      resolution: Nullable(OneOf(["approved", "rejected"])),
      priority: OneOf(["low", "medium", "high"]),
      transferIds: Type.Array(Type.String()),
      createdAt: Iso,
    }),
  )),
});
export type CustomerOverview = Static<typeof CustomerOverview>;
