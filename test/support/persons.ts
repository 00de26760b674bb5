// The natural persons the end-to-end and actor tests send as IVMS 101 parties: one builder and the named ones.
import type { CountryCode, Person } from "../../src/domain/ivms101/index.ts";

/**
 * A natural person with one legal name (`primaryIdentifier` the family name, `secondaryIdentifier` the given name) and a
 * country of residence (`null`: none). `extra` adds fields to `naturalPerson` (for example `dateAndPlaceOfBirth`).
 */
export function person(family: string, given: string, country: string | null = "NL", extra: Record<string, unknown> = {}): Person {
  return {
    naturalPerson: {
      name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] },
      ...(country === null ? {} : { countryOfResidence: country as CountryCode }),
      ...extra,
    },
  } as Person;
}

export const JANE = person("Doe", "Jane");
export const RICHARD = person("Roe", "Richard", "DE");
export const BOB = person("Lee", "Bob", "KR");
/** On the screening_c sandbox's watch list (a sanction). */
export const VIKTOR = person("Krasnov", "Viktor", "CY");
