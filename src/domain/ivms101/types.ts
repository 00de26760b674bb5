// TypeScript shape of a valid IVMS101 person as Caravan accepts it: the ivms101 package's IVMS101 2020 types, adjusted where the standard or our API differs.
import type {
  Address as Ivms101Address,
  NationalIdentification as Ivms101NationalIdentification,
  NationalIdentifierTypeCode,
} from "ivms101";
import type { IVMS101_2020 } from "ivms101/legacy";
import type { CountryCode } from "./countries.ts";
import type { IdentityStatus, LegalPersonNationalIdentifierTypeCode } from "./codes.ts";

// The API uses the IVMS101 2020 field names (`nameIdentifierType`, `originatorPersons`), so the
// package's 2020 types are the base. Changes, each to match the standard text or our stricter rules:
// - countries exclude "XX" (our rule; C3 itself allows it);
// - the address post code is `postCode` (IVMS101 element name; the package spells it `postcode`);
// - a natural person's customer identifier is `customerIdentification`, as in the IVMS101 2020
//   NaturalPerson structure (the package's 2020 type calls it `customerNumber`, the legal person's name);
// - a legal person's national identification has C7 types and no countryOfIssue (C9).

export type { CountryCode, IdentityStatus, LegalPersonNationalIdentifierTypeCode };

export type NaturalPersonNameId = IVMS101_2020.NaturalPersonNameId;
export type LocalNaturalPersonNameId = IVMS101_2020.LocalNaturalPersonNameId;
export type LegalPersonNameId = IVMS101_2020.LegalPersonNameId;
export type LocalLegalPersonNameId = IVMS101_2020.LocalLegalPersonNameId;

export interface Address extends Omit<Ivms101Address, "postcode" | "country"> {
  postCode?: string;
  country: CountryCode;
}

export interface NationalIdentification<C extends NationalIdentifierTypeCode = NationalIdentifierTypeCode>
  extends Omit<Ivms101NationalIdentification<C>, "countryOfIssue"> {
  countryOfIssue?: CountryCode;
}

export interface LegalPersonNationalIdentification
  extends Omit<Ivms101NationalIdentification<LegalPersonNationalIdentifierTypeCode>, "countryOfIssue"> {
  countryOfIssue?: never;
}

export interface NaturalPerson
  extends Omit<IVMS101_2020.NaturalPerson, "customerNumber" | "geographicAddress" | "nationalIdentification" | "countryOfResidence"> {
  geographicAddress?: Address[];
  nationalIdentification?: NationalIdentification;
  customerIdentification?: string;
  countryOfResidence?: CountryCode;
}

export interface LegalPerson
  extends Omit<IVMS101_2020.LegalPerson, "geographicAddress" | "nationalIdentification" | "countryOfRegistration"> {
  geographicAddress?: Address[];
  nationalIdentification?: LegalPersonNationalIdentification;
  countryOfRegistration?: CountryCode;
}

/** One element of `persons` / `originatorPersons` / `beneficiaryPersons`: exactly one of the two keys. */
export type Person =
  | { naturalPerson: NaturalPerson; legalPerson?: never }
  | { legalPerson: LegalPerson; naturalPerson?: never };

/** Body of `PUT /api/v2/customers/:id/travel-rule-identity`. */
export interface IdentityBody {
  status: IdentityStatus;
  persons: Person[];
}
