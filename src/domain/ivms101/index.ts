// IVMS101 persons of a customer's Travel Rule identity: types, pure validation and readers.
export { validatePersons, validateIdentityBody, MAX_PERSONS } from "./validate.ts";
export type { Issue, ValidateOptions } from "./validate.ts";
export { personNames, personsCountry } from "./persons.ts";
export { COUNTRY_CODES, isCountryCode } from "./countries.ts";
export {
  ADDRESS_TYPES,
  IDENTITY_STATUSES,
  LEGAL_PERSON_NAME_TYPES,
  LEGAL_PERSON_NATIONAL_IDENTIFIER_TYPES,
  NATIONAL_IDENTIFIER_TYPES,
  NATURAL_PERSON_NAME_TYPES,
} from "./codes.ts";
export type {
  Address,
  CountryCode,
  IdentityBody,
  IdentityStatus,
  LegalPerson,
  LegalPersonNameId,
  LegalPersonNationalIdentification,
  LegalPersonNationalIdentifierTypeCode,
  LocalLegalPersonNameId,
  LocalNaturalPersonNameId,
  NationalIdentification,
  NaturalPerson,
  NaturalPersonNameId,
  Person,
} from "./types.ts";
