// IVMS101 code lists at run time, each checked at compile time against the ivms101 package's union type.
import type {
  AddressTypeCode,
  LegalPersonNameTypeCode,
  NationalIdentifierTypeCode,
  NaturalPersonNameTypeCode,
} from "ivms101";

/** `true` when the list `L` names every member of `T`; otherwise an object naming the missing ones. */
export type ListsAll<T, L extends readonly unknown[]> = [Exclude<T, L[number]>] extends [never]
  ? true
  : { missing: Exclude<T, L[number]> };
export type Assert<T extends true> = T;

// The package exports these code lists only as types, so the values are repeated here; `satisfies`
// refuses a code the package does not know and ListsAll refuses a list that misses one.
export const NATURAL_PERSON_NAME_TYPES = ["ALIA", "BIRT", "MAID", "LEGL", "MISC"] as const satisfies readonly NaturalPersonNameTypeCode[];
export type NaturalNameTypesComplete = Assert<ListsAll<NaturalPersonNameTypeCode, typeof NATURAL_PERSON_NAME_TYPES>>;

export const LEGAL_PERSON_NAME_TYPES = ["LEGL", "SHRT", "TRAD"] as const satisfies readonly LegalPersonNameTypeCode[];
export type LegalNameTypesComplete = Assert<ListsAll<LegalPersonNameTypeCode, typeof LEGAL_PERSON_NAME_TYPES>>;

export const ADDRESS_TYPES = ["HOME", "BIZZ", "GEOG"] as const satisfies readonly AddressTypeCode[];
export type AddressTypesComplete = Assert<ListsAll<AddressTypeCode, typeof ADDRESS_TYPES>>;

export const NATIONAL_IDENTIFIER_TYPES = [
  "ARNU", "CCPT", "RAID", "DRLC", "FIIN", "TXID", "SOCS", "IDCD", "LEIX", "MISC",
] as const satisfies readonly NationalIdentifierTypeCode[];
export type NationalIdentifierTypesComplete = Assert<ListsAll<NationalIdentifierTypeCode, typeof NATIONAL_IDENTIFIER_TYPES>>;

// IVMS101 C7 ValidNationalIdentifierLegalPerson. The package's own legal-entity list also admits FIIN,
// which C7 does not, and its LegalEntityNationalIdentifierTypeCode type is `Omit<>` of a string union
// (not a union of codes), so neither is used.
export const LEGAL_PERSON_NATIONAL_IDENTIFIER_TYPES = ["RAID", "MISC", "LEIX", "TXID"] as const satisfies readonly NationalIdentifierTypeCode[];
export type LegalPersonNationalIdentifierTypeCode = (typeof LEGAL_PERSON_NATIONAL_IDENTIFIER_TYPES)[number];

export const IDENTITY_STATUSES = ["verified", "unverified", "blocked"] as const;
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];
