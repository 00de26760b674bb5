// The sandbox network's personal data, on Notabene's own `ivms101` package: what its member VASPs send is IVMS101
// 2023 (the package's default edition) unless a VASP is set to the 2020 one; what it accepts on append is checked
// against the package's 2023 schema. The network keeps a side as it was sent (either edition).
import { validate } from "ivms101";
import { convertFrom2023, convertTo2023 } from "ivms101/legacy";
import type { Person } from "../../domain/ivms101/index.ts";

export type Edition = "2020" | "2023";
type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** One side of an IVMS101 message as the network stores it: `{ originatorPerson[] | originatorPersons[], accountNumber[] }`. */
export type StoredSide = Rec;

const key = (side: "originator" | "beneficiary", edition: Edition) => (side === "originator" ? (edition === "2023" ? "originatorPerson" : "originatorPersons") : edition === "2023" ? "beneficiaryPerson" : "beneficiaryPersons");

/** The package's converter keeps the 2020 name type beside the 2023 one; a 2023 message carries only the latter. */
function strip2020Keys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip2020Keys);
  if (!isRec(v)) return v;
  const out: Rec = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (k === "nameIdentifierType" && "naturalPersonNameIdentifierType" in v) continue;
    out[k] = strip2020Keys(x);
  }
  return out;
}

/** A side written by a member VASP from its customers' records (kept in the 2020 spelling of Caravan's API). */
export function sideOf(side: "originator" | "beneficiary", persons: readonly Person[], accountNumber: string[], edition: Edition): StoredSide {
  if (edition === "2020") return { [key(side, "2020")]: structuredClone(persons), accountNumber };
  const converted = convertTo2023({
    originator: { originatorPersons: side === "originator" ? structuredClone(persons) : [] },
    beneficiary: { beneficiaryPersons: side === "beneficiary" ? structuredClone(persons) : [] },
  } as never) as unknown as Rec;
  const list = (converted[side] as Rec)[key(side, "2023")];
  return { [key(side, "2023")]: strip2020Keys(list), accountNumber };
}

/** A stored side's persons in the 2020 spelling (through the package's converter), for tests and the demo. */
export function personsOf(side: "originator" | "beneficiary", stored: StoredSide | undefined): Person[] | null {
  if (!stored) return null;
  if (stored[key(side, "2020")] !== undefined) return stored[key(side, "2020")] as Person[];
  const list = stored[key(side, "2023")];
  const back = convertFrom2023({
    originator: { originatorPerson: side === "originator" ? list : [] },
    beneficiary: { beneficiaryPerson: side === "beneficiary" ? list : [] },
  } as never) as unknown as Rec;
  // The package's 2020 types call a natural person's customer identifier `customerNumber`; IVMS101 2020 says `customerIdentification`.
  const rename = (v: unknown): unknown => (Array.isArray(v) ? v.map(rename) : isRec(v) ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k === "customerNumber" ? "customerIdentification" : k, rename(x)])) : v);
  return rename((back[side] as Rec)[key(side, "2020")]) as Person[];
}

/**
 * An appended `ivms101` object checked against the package's IVMS101 2023 schema: its shape and code lists. The
 * completeness rules that depend on the counterparty's jurisdiction (IVMS101's C-constraints, such as an
 * originator's address or date of birth) are not the network's to enforce here. Answers the first problem's path.
 */
export function appendProblem(ivms101: unknown): string | null {
  if (!isRec(ivms101)) return "ivms101";
  const sides = (["originator", "beneficiary"] as const).filter((s) => ivms101[s] !== undefined);
  if (sides.length === 0) return "ivms101";
  // Validated as a whole message: a side not sent is given empty, and only problems within the sides sent count.
  const message = {
    originator: ivms101.originator ?? { originatorPerson: [] },
    beneficiary: ivms101.beneficiary ?? { beneficiaryPerson: [] },
  };
  try {
    validate(message, { version: "2023" });
    return null;
  } catch (e) {
    const issues = ((e as { issues?: { code: string; path: PropertyKey[] }[] }).issues ?? safeIssues(e)).filter((i) => i.code !== "custom" && sides.includes(i.path[0] as never));
    if (issues.length === 0) return null;
    return ["ivms101", ...issues[0].path.map(String)].join(".");
  }
}

function safeIssues(e: unknown): { code: string; path: PropertyKey[] }[] {
  try {
    const parsed = JSON.parse((e as Error).message);
    return Array.isArray(parsed) ? parsed : [{ code: "invalid", path: [] }];
  } catch {
    return [{ code: "invalid", path: [] }];
  }
}
