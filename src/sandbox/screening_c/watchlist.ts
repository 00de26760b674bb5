// The sandbox screening_c vendor's embedded watch list (fictional names only) and its fuzzy-ish name matching.
//
// Matching: a name is normalised (Unicode NFKD, accents removed, lower case, anything but letters and digits splits
// tokens). Two tokens match when their edit distance is at most floor(length × fuzziness / 3) of the longer one (so
// fuzziness 0 is exact, 0.6 allows one typo in a 5-letter token, 1.0 two in a 6-letter one). An entry is a hit when every
// token of the shorter name (search term, or the entry's name or alias) matches a different token of the longer one, in
// any order, and the shorter has at least two tokens or both have one. Score: 1 minus the edits per character, times the
// share of the longer name's tokens matched, rounded to two decimals (higher is closer; no verdict is derived from it).

export type HitType = "sanction" | "pep" | "adverse-media" | "adverse-media-financial-crime" | "warning" | "fitness-probity";

export interface WatchEntry {
  id: string;
  name: string;
  aka: string[];
  entityType: "person" | "company";
  types: HitType[];
  sources: string[];
}

/** Every name here is invented for the sandbox; none refers to a real person or company. */
export const WATCHLIST: readonly WatchEntry[] = [
  { id: "SBX1VK0001", name: "Viktor Krasnov", aka: ["Victor Krasnoff"], entityType: "person", types: ["sanction"], sources: ["sandbox-sanctions-list"] },
  { id: "SBX1NO0002", name: "Natalia Oblonskaya", aka: ["Natalya Oblonskaia"], entityType: "person", types: ["sanction", "pep"], sources: ["sandbox-sanctions-list", "sandbox-pep-register"] },
  { id: "SBX1HR0003", name: "Hassan Al-Rashidi", aka: ["Hasan Alrashidi"], entityType: "person", types: ["sanction"], sources: ["sandbox-sanctions-list"] },
  { id: "SBX1IV0004", name: "Ilse Vandermeer", aka: [], entityType: "person", types: ["pep"], sources: ["sandbox-pep-register"] },
  { id: "SBX1CW0005", name: "Chen Weiliang", aka: ["Weiliang Chen"], entityType: "person", types: ["pep"], sources: ["sandbox-pep-register"] },
  { id: "SBX1MD0006", name: "Marco Dellarosa", aka: ["Marco Della Rosa"], entityType: "person", types: ["adverse-media", "adverse-media-financial-crime"], sources: ["sandbox-news"] },
  { id: "SBX1JF0007", name: "Juliana Ferreira-Castro", aka: [], entityType: "person", types: ["adverse-media", "warning"], sources: ["sandbox-news", "sandbox-regulator-warnings"] },
  { id: "SBX1BD0008", name: "Borislav Draganov", aka: [], entityType: "person", types: ["warning", "fitness-probity"], sources: ["sandbox-regulator-warnings"] },
  { id: "SBX1NT0009", name: "Nightfall Trading FZE", aka: ["Nightfall Trading"], entityType: "company", types: ["sanction"], sources: ["sandbox-sanctions-list"] },
  { id: "SBX1OS0010", name: "Orion Shipping Holdings", aka: [], entityType: "company", types: ["sanction", "adverse-media"], sources: ["sandbox-sanctions-list", "sandbox-news"] },
];

export function tokens(name: string): string[] {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "");
}

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** Edits needed to match `name` against `term`, or null when it is no match at this fuzziness. */
function matchCost(term: string[], name: string[], fuzziness: number): { edits: number; chars: number; share: number } | null {
  const [short, long] = term.length <= name.length ? [term, name] : [name, term];
  if (short.length === 0 || (short.length < 2 && long.length > 1)) return null;
  const used = new Set<number>();
  let edits = 0;
  let chars = 0;
  for (const t of short) {
    let best: { j: number; d: number } | null = null;
    for (let j = 0; j < long.length; j++) {
      if (used.has(j)) continue;
      const d = distance(t, long[j]);
      const allowed = Math.floor((Math.max(t.length, long[j].length) * fuzziness) / 3);
      if (d <= allowed && (!best || d < best.d)) best = { j, d };
    }
    if (!best) return null;
    used.add(best.j);
    edits += best.d;
    chars += Math.max(t.length, long[best.j].length);
  }
  return { edits, chars, share: short.length / long.length };
}

export interface Match {
  entry: WatchEntry;
  score: number;
  exact: boolean;
}

/** The entries of the entity type that match the term, best first. */
export function search(term: string, fuzziness: number, entityType: string | undefined, list: readonly WatchEntry[] = WATCHLIST): Match[] {
  const q = tokens(term);
  const out: Match[] = [];
  for (const entry of list) {
    if (entityType && entityType !== entry.entityType) continue;
    let best: Match | null = null;
    for (const name of [entry.name, ...entry.aka]) {
      const cost = matchCost(q, tokens(name), fuzziness);
      if (!cost) continue;
      const score = Math.round((1 - cost.edits / cost.chars) * cost.share * 100) / 100;
      if (!best || score > best.score) best = { entry, score, exact: cost.edits === 0 && cost.share === 1 };
    }
    if (best) out.push(best);
  }
  return out.sort((a, b) => b.score - a.score || a.entry.id.localeCompare(b.entry.id));
}
