// IVMS101 in both published editions. Counterparties send either the 2020 edition (`originatorPersons`,
// `nameIdentifierType`) or the 2023 one (`originatorPerson`, `naturalPersonNameIdentifierType`,
// `customerIdentification`); Caravan's own model is the 2020 spelling. Conversion goes through the `ivms101`
// package (Notabene's reference library), so both directions are the library's, not ours.
import { convertFrom2023, convertTo2023, type IVMS101_2020 } from "ivms101/legacy";
import type { Person } from "./types.ts";

export type Edition = "2020" | "2023";

/** The IVMS101 `payloadVersion` code of the 2023 edition. */
export const PAYLOAD_VERSION_2023 = "101.2023";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** One side of a message (originator or beneficiary) read in the 2020 spelling. */
export interface Side {
  persons: Person[];
  accountNumber: string[];
}

export type Read<T> = { ok: true; value: T; edition: Edition } | { ok: false; path: string };

/** Which edition a message or one side of it is written in; `null` when it names neither. */
export function editionOf(message: unknown): Edition | null {
  if (!isRec(message)) return null;
  const meta = message.payloadMetadata;
  if (isRec(meta) && meta.payloadVersion === PAYLOAD_VERSION_2023) return "2023";
  for (const [sideKey, v2020, v2023] of SIDES) {
    const side = message[sideKey];
    if (!isRec(side)) continue;
    if (side[v2023] !== undefined) return "2023";
    if (side[v2020] !== undefined) return "2020";
  }
  return null;
}

const SIDES = [
  ["originator", "originatorPersons", "originatorPerson"],
  ["beneficiary", "beneficiaryPersons", "beneficiaryPerson"],
] as const;

// The package's 2020 types name a natural person's customer identifier `customerNumber`; the IVMS101 2020
// text (and Caravan's API) calls it `customerIdentification`. Local and phonetic names carry the 2023 type key
// too, which the package's converter leaves alone.
function person2023To2020(person: Rec): Person {
  const wrapped = convertFrom2023({
    originator: { originatorPerson: [person as never] },
    beneficiary: { beneficiaryPerson: [] },
  } as never) as IVMS101_2020.IVMS101;
  const out = wrapped.originator.originatorPersons[0] as unknown as Rec;
  const np = out.naturalPerson;
  if (isRec(np)) {
    if (np.customerNumber !== undefined) {
      np.customerIdentification = np.customerNumber;
      delete np.customerNumber;
    }
    const name = np.name;
    if (isRec(name)) {
      for (const key of ["localNameIdentifier", "phoneticNameIdentifier"]) {
        const list = name[key];
        if (!Array.isArray(list)) continue;
        name[key] = list.map((n) => {
          if (!isRec(n) || n.naturalPersonNameIdentifierType === undefined) return n;
          const { naturalPersonNameIdentifierType, ...rest } = n;
          return { ...rest, nameIdentifierType: naturalPersonNameIdentifierType };
        });
      }
      if (name.localNameIdentifier === undefined) delete name.localNameIdentifier;
      if (name.phoneticNameIdentifier === undefined) delete name.phoneticNameIdentifier;
    }
  }
  return dropUndefined(out) as Person;
}

function person2020To2023(person: Person): Rec {
  const p = structuredClone(person) as Rec;
  const np = p.naturalPerson;
  if (isRec(np) && np.customerIdentification !== undefined) {
    np.customerNumber = np.customerIdentification;
    delete np.customerIdentification;
  }
  const wrapped = convertTo2023({
    originator: { originatorPersons: [p as never] },
    beneficiary: { beneficiaryPersons: [] },
  } as never);
  const out = wrapped.originator.originatorPerson[0] as unknown as Rec;
  const onp = out.naturalPerson;
  // The converter spreads the 2020 person, so its `customerNumber` stays beside `customerIdentification`.
  if (isRec(onp)) delete onp.customerNumber;
  if (isRec(onp) && isRec(onp.name)) {
    const name = onp.name;
    // The converter copies the 2020 key beside the 2023 one; a 2023 reader knows only the latter.
    if (Array.isArray(name.nameIdentifier)) {
      name.nameIdentifier = name.nameIdentifier.map((n) => {
        if (!isRec(n)) return n;
        const { nameIdentifierType, ...rest } = n;
        return rest.naturalPersonNameIdentifierType === undefined ? { ...rest, naturalPersonNameIdentifierType: nameIdentifierType } : rest;
      });
    }
    for (const key of ["localNameIdentifier", "phoneticNameIdentifier"]) {
      const list = name[key];
      if (!Array.isArray(list)) continue;
      name[key] = list.map((n) => {
        if (!isRec(n) || n.nameIdentifierType === undefined) return n;
        const { nameIdentifierType, ...rest } = n;
        return { ...rest, naturalPersonNameIdentifierType: nameIdentifierType };
      });
    }
  }
  return dropUndefined(out) as Rec;
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (!isRec(v)) return v;
  const out: Rec = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = dropUndefined(x);
  return out;
}

/**
 * Reads one side of a counterparty's IVMS101 message in either edition and answers it in the 2020 spelling.
 * `side` is the message's `originator` or `beneficiary` object. The 2023 edition's person list may arrive as a
 * single object (seen in decrypted reads); it is read as a list of one. Persons are not validated here: the
 * caller validates them with `validatePersons` so that its refusal names the field.
 */
export function readSide(side: unknown, which: "originator" | "beneficiary", path = which): Read<Side> {
  if (!isRec(side)) return { ok: false, path };
  const key2020 = which === "originator" ? "originatorPersons" : "beneficiaryPersons";
  const key2023 = which === "originator" ? "originatorPerson" : "beneficiaryPerson";
  const accounts = side.accountNumber === undefined ? [] : side.accountNumber;
  const accountList = typeof accounts === "string" ? [accounts] : accounts;
  if (!Array.isArray(accountList) || !accountList.every((a) => typeof a === "string")) return { ok: false, path: `${path}.accountNumber` };
  if (side[key2020] !== undefined) {
    const persons = side[key2020];
    if (!Array.isArray(persons) || !persons.every(isRec)) return { ok: false, path: `${path}.${key2020}` };
    return { ok: true, edition: "2020", value: { persons: persons as unknown as Person[], accountNumber: accountList as string[] } };
  }
  if (side[key2023] !== undefined) {
    const raw = side[key2023];
    const list = Array.isArray(raw) ? raw : [raw];
    if (!list.every(isRec)) return { ok: false, path: `${path}.${key2023}` };
    for (const [i, p] of list.entries()) {
      const np = (p as Rec).naturalPerson;
      if (np !== undefined && !(isRec(np) && isRec(np.name) && Array.isArray(np.name.nameIdentifier))) {
        return { ok: false, path: `${path}.${key2023}[${i}].naturalPerson.name.nameIdentifier` };
      }
    }
    try {
      return { ok: true, edition: "2023", value: { persons: list.map((p) => person2023To2020(p as Rec)), accountNumber: accountList as string[] } };
    } catch {
      return { ok: false, path: `${path}.${key2023}` };
    }
  }
  return { ok: false, path: `${path}.${key2020}` };
}

/** Both sides of a message, each optional: a side that is absent reads as `null`. */
export function readMessage(message: unknown): Read<{ originator: Side | null; beneficiary: Side | null }> {
  if (!isRec(message)) return { ok: false, path: "ivms101" };
  let edition: Edition = editionOf(message) ?? "2020";
  const out: { originator: Side | null; beneficiary: Side | null } = { originator: null, beneficiary: null };
  for (const which of ["originator", "beneficiary"] as const) {
    if (message[which] === undefined || message[which] === null) continue;
    const read = readSide(message[which], which);
    if (!read.ok) return read;
    out[which] = read.value;
    edition = read.edition;
  }
  return { ok: true, edition, value: out };
}

/** Persons in the 2023 spelling, for a provider that documents that edition. */
export const personsTo2023 = (persons: readonly Person[]): Rec[] => persons.map(person2020To2023);

/** Persons in the 2020 spelling from a 2023 list (or a 2020 one, returned unchanged). */
export function personsFrom(list: readonly unknown[], edition: Edition): Person[] {
  return edition === "2023" ? list.map((p) => person2023To2020(p as Rec)) : (list as Person[]);
}
