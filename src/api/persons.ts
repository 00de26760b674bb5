// IVMS101 persons as requests carry them: `{ naturalPerson }` or `{ legalPerson }`. The service checks each person in
// depth (name identifiers, dates, countries); this schema states the outer shape a client builds.
import { Type, type Static } from "@sinclair/typebox";
import { OneOf } from "./common.ts";

const NAME_TYPES = ["LEGL", "ALIA", "BIRT", "MAID", "MISC"] as const;
const open = { additionalProperties: true } as const;

const NameIdentifier = Type.Object(
  { primaryIdentifier: Type.String(), secondaryIdentifier: Type.Optional(Type.String()), nameIdentifierType: OneOf(NAME_TYPES) },
  open,
);
const NaturalPerson = Type.Object(
  {
    name: Type.Object({ nameIdentifier: Type.Array(NameIdentifier, { minItems: 1 }) }, open),
    countryOfResidence: Type.Optional(Type.String({ maxLength: 2 })),
    geographicAddress: Type.Optional(Type.Array(Type.Object({ addressType: Type.Optional(Type.String()), country: Type.Optional(Type.String({ maxLength: 2 })) }, open))),
  },
  open,
);
const LegalPerson = Type.Object(
  {
    name: Type.Object(
      { nameIdentifier: Type.Array(Type.Object({ legalPersonName: Type.String(), legalPersonNameIdentifierType: Type.Optional(Type.String()) }, open), { minItems: 1 }) },
      open,
    ),
    countryOfRegistration: Type.Optional(Type.String({ maxLength: 2 })),
  },
  open,
);

/** An IVMS101 person. */
export const Person = Type.Union([
  Type.Object({ naturalPerson: NaturalPerson }, { additionalProperties: false }),
  Type.Object({ legalPerson: LegalPerson }, { additionalProperties: false }),
]);
export type Person = Static<typeof Person>;

export const JANE = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" as const }] }, countryOfResidence: "NL" } };
export const RICHARD = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Roe", secondaryIdentifier: "Richard", nameIdentifierType: "LEGL" as const }] }, countryOfResidence: "DE" } };
