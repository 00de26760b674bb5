// Names on a suspicion report as the identity gives them (IVMS101): every name identifier in the identity's order,
// with its type in words, the family and given names named, and the written order of the name's own script.
import type { Person } from "../ivms101/types.ts";
import { hasCjk } from "./report.ts";

const NATURAL_TYPES: Record<string, string> = { LEGL: "legal name", ALIA: "alias", BIRT: "name at birth", MAID: "maiden name", MISC: "other name" };
const LEGAL_TYPES: Record<string, string> = { LEGL: "legal name", SHRT: "short name", TRAD: "trading name" };

interface NaturalId {
  primaryIdentifier: string;
  secondaryIdentifier?: string;
  nameIdentifierType: string;
}
interface LegalId {
  legalPersonName: string;
  legalPersonNameIdentifierType: string;
}

/**
 * A natural person's name written out. IVMS101 splits it into `primaryIdentifier` (the family name, the part that
 * identifies) and `secondaryIdentifier` (given names); it does not order them for writing. Names in Chinese, Japanese
 * or Korean script are written family name first ("山田 太郎"), others given name first ("Jane van Dyke"); the parts
 * are named beside it so nothing depends on the reader's guess. Never "family, given".
 */
export function writtenName(primary: string, secondary: string | undefined): string {
  const p = primary.trim();
  const s = (secondary ?? "").trim();
  if (!s) return p;
  return hasCjk(p, s) ? `${p} ${s}` : `${s} ${p}`;
}

function naturalLines(ids: NaturalId[] | undefined, script: string): string[] {
  return (ids ?? []).map((n) => {
    const type = NATURAL_TYPES[n.nameIdentifierType] ?? n.nameIdentifierType;
    const parts = n.secondaryIdentifier?.trim() ? `family name ${n.primaryIdentifier.trim()}, given name ${n.secondaryIdentifier.trim()}` : `name ${n.primaryIdentifier.trim()}`;
    return `${writtenName(n.primaryIdentifier, n.secondaryIdentifier)} (${type}${script}; ${parts})`;
  });
}

function legalLines(ids: LegalId[] | undefined, script: string): string[] {
  return (ids ?? []).map((n) => `${n.legalPersonName.trim()} (${LEGAL_TYPES[n.legalPersonNameIdentifierType] ?? n.legalPersonNameIdentifierType}${script})`);
}

/** Every name of every person, in the identity's order: name identifiers, then local-script and phonetic ones. */
export function identityNameLines(persons: readonly Person[]): string[] {
  const out: string[] = [];
  for (const p of persons) {
    if (p.naturalPerson) {
      const n = p.naturalPerson.name as { nameIdentifier: NaturalId[]; localNameIdentifier?: NaturalId[]; phoneticNameIdentifier?: NaturalId[] };
      out.push(...naturalLines(n.nameIdentifier, ""), ...naturalLines(n.localNameIdentifier, ", local script"), ...naturalLines(n.phoneticNameIdentifier, ", phonetic"));
    } else if (p.legalPerson) {
      const n = p.legalPerson.name as { nameIdentifier: LegalId[]; localNameIdentifier?: LegalId[]; phoneticNameIdentifier?: LegalId[] };
      out.push(...legalLines(n.nameIdentifier, ""), ...legalLines(n.localNameIdentifier, ", local script"), ...legalLines(n.phoneticNameIdentifier, ", phonetic"));
    }
  }
  return out;
}

/** The one name a report field holds per person: the legal name (else the first), written in its script's order. */
export function reportNames(persons: readonly Person[]): string {
  return persons
    .map((p) => {
      if (p.naturalPerson) {
        const ids = p.naturalPerson.name.nameIdentifier as NaturalId[];
        const id = ids.find((n) => n.nameIdentifierType === "LEGL") ?? ids[0];
        return id ? writtenName(id.primaryIdentifier, id.secondaryIdentifier) : "";
      }
      const ids = (p.legalPerson?.name.nameIdentifier ?? []) as LegalId[];
      const id = ids.find((n) => n.legalPersonNameIdentifierType === "LEGL") ?? ids[0];
      return id ? id.legalPersonName.trim() : "";
    })
    .filter(Boolean)
    .join("; ");
}
