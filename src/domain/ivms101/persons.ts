// Reading a valid person list: display/screening names and the country that decides jurisdiction rules.
import type { LegalPerson, NaturalPerson, Person } from "./types.ts";

/**
 * One name per person, in order: a natural person's legal (LEGL) name as "Primary, Secondary"
 * (family name first, as IVMS101 splits it), or just "Primary" when there is no secondary identifier;
 * a legal person's LEGL name. Aliases and local/phonetic names are left out.
 */
export function personNames(persons: Person[]): string[] {
  return persons.map((p) => (p.naturalPerson ? naturalName(p.naturalPerson) : legalName(p.legalPerson)));
}

/**
 * The country of the customer the list describes, from its first person only (the natural person, or
 * the legal person whose representatives follow; a representative's residence never decides):
 * countryOfResidence or countryOfRegistration, else the first address's country, else null.
 */
export function personsCountry(persons: Person[]): string | null {
  const first = persons[0];
  if (!first) return null;
  if (first.naturalPerson) {
    return first.naturalPerson.countryOfResidence ?? first.naturalPerson.geographicAddress?.[0]?.country ?? null;
  }
  return first.legalPerson.countryOfRegistration ?? first.legalPerson.geographicAddress?.[0]?.country ?? null;
}

function naturalName(person: NaturalPerson): string {
  const ids = person.name.nameIdentifier;
  // IVMS101 C6 guarantees a LEGL name in a validated person; the fallback keeps this total anyway.
  const id = ids.find((n) => n.nameIdentifierType === "LEGL") ?? ids[0];
  if (!id) return "";
  const primary = id.primaryIdentifier.trim();
  const secondary = id.secondaryIdentifier?.trim();
  return secondary ? `${primary}, ${secondary}` : primary;
}

function legalName(person: LegalPerson): string {
  const ids = person.name.nameIdentifier;
  // IVMS101 C5 guarantees a LEGL name in a validated person.
  const id = ids.find((n) => n.legalPersonNameIdentifierType === "LEGL") ?? ids[0];
  return id ? id.legalPersonName.trim() : "";
}

/** Every country any person names (residence, registration, address), in order, once each. */
export function personsCountries(persons: Person[]): string[] {
  const out = new Set<string>();
  for (const p of persons) {
    const np = p.naturalPerson;
    const lp = p.legalPerson;
    if (np?.countryOfResidence) out.add(np.countryOfResidence);
    if (lp?.countryOfRegistration) out.add(lp.countryOfRegistration);
    for (const a of (np ?? lp)?.geographicAddress ?? []) if (a.country) out.add(a.country);
  }
  return [...out];
}
