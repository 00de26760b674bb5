// The name a screening vendor searches for one IVMS101 person (Part 3 "screening_c screening", name construction). Pure.
import type { Person } from "../ivms101/types.ts";

/** At most this many characters (Unicode code points) are searched; a longer name fails its screening without a request. */
export const MAX_SEARCH_TERM_CHARS = 255;

/**
 * A natural person's name is its first name identifier, secondary then primary identifier ("Given Family");
 * a legal person's is its first legal name. Parts are trimmed and joined by one space; an empty part is left out.
 * The identifier's type (LEGL, ALIA, …) does not matter: the first one listed is used, as Part 3 says.
 */
export function screeningName(person: Person): string {
  if (person.naturalPerson) {
    const id = person.naturalPerson.name?.nameIdentifier?.[0];
    if (!id) return "";
    return [id.secondaryIdentifier, id.primaryIdentifier]
      .map((part) => (typeof part === "string" ? part.trim() : ""))
      .filter((part) => part !== "")
      .join(" ");
  }
  const legal = person.legalPerson?.name?.nameIdentifier?.[0];
  return typeof legal?.legalPersonName === "string" ? legal.legalPersonName.trim() : "";
}

/** Length in characters as a person counts them (code points, so "Ł" or an emoji is one), not UTF-16 units. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export type SearchTermCheck = { ok: true; term: string } | { ok: false; code: "EMPTY_NAME" | "NAME_TOO_LONG" };

/** The `search_term` of a name: trimmed, not empty, at most 255 characters. */
export function searchTerm(name: string): SearchTermCheck {
  const term = name.trim();
  if (term === "") return { ok: false, code: "EMPTY_NAME" };
  if (charCount(term) > MAX_SEARCH_TERM_CHARS) return { ok: false, code: "NAME_TOO_LONG" };
  return { ok: true, term };
}
