// provider_b beneficiary name matching (Part 3 "provider_b transfers", Incoming): case, spacing, punctuation and name order ignored; pure.
import type { LegalPerson, NaturalPerson, Person } from "../ivms101/types.ts";

// Part 3: "compare beneficiary persons (the first person, and each representative for a company) with the identity
// ignoring case, spacing and punctuation, given and family names in either order". Accents are letters, not
// punctuation: "Müller" and "Muller" are different names (a counterparty that drops accents is asked to send them).

/** NFKC, lower case, without white space, punctuation, symbols or control characters: "O'Brien-Smith, Jr." → "obriensmithjr". */
export function foldName(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/[\p{P}\p{S}\p{Z}\p{C}\s]/gu, "");
}

type NameId = { primaryIdentifier: string; secondaryIdentifier?: string };

/**
 * Each name of a natural person folded in both orders (family+given and given+family); empty names dropped. Both
 * sides take both orders, so a whole name written in one field ("Jane Doe") matches either split of it.
 */
function naturalForms(p: NaturalPerson): Set<string> {
  const both = new Set<string>();
  const ids: NameId[] = [...(p.name?.nameIdentifier ?? []), ...(p.name?.localNameIdentifier ?? [])];
  for (const n of ids) {
    const primary = typeof n.primaryIdentifier === "string" ? n.primaryIdentifier : "";
    const secondary = typeof n.secondaryIdentifier === "string" ? n.secondaryIdentifier : "";
    const a = foldName(primary + secondary);
    const b = foldName(secondary + primary);
    if (a) both.add(a);
    if (b) both.add(b);
  }
  return both;
}

function legalForms(p: LegalPerson): Set<string> {
  const out = new Set<string>();
  for (const n of [...(p.name?.nameIdentifier ?? []), ...(p.name?.localNameIdentifier ?? [])]) {
    const f = typeof n.legalPersonName === "string" ? foldName(n.legalPersonName) : "";
    if (f) out.add(f);
  }
  return out;
}

/**
 * Whether a person sent by a counterparty names the same person as one of the identity: both natural or both
 * legal, and some name of one equals some name of the other once folded, a natural person's in either order.
 */
export function samePerson(sent: Person, known: Person): boolean {
  if (sent.naturalPerson && known.naturalPerson) {
    const s = naturalForms(sent.naturalPerson);
    for (const k of naturalForms(known.naturalPerson)) if (s.has(k)) return true;
    return false;
  }
  if (sent.legalPerson && known.legalPerson) {
    const s = legalForms(sent.legalPerson);
    for (const k of legalForms(known.legalPerson)) if (s.has(k)) return true;
  }
  return false;
}

/**
 * Part 3: the beneficiary persons sent match the customer's verified identity when the first person matches the
 * identity's first person and, for a company (a legal person followed by its representatives), each further
 * person sent matches one of the identity's representatives. For a natural person only the first is compared.
 */
export function beneficiaryMatches(sent: readonly Person[], identity: readonly Person[]): boolean {
  const [first, ...rest] = sent;
  const [known, ...representatives] = identity;
  if (!first || !known || !samePerson(first, known)) return false;
  if (!known.legalPerson) return true;
  return rest.every((p) => representatives.some((r) => samePerson(p, r)));
}
