// The IVMS101 inside provider_e's `private_info`, read in every spelling peers use: the camelCase IVMS101 JSON of the
// 2020 edition (`originatorPersons`, `nameIdentifier`) or of the 2023 edition (`originatorPerson`,
// `naturalPersonNameIdentifierType`), and a snake_case rendering of either (`originator_persons`, `natural_person`,
// `name_identifiers`, as protobuf-style IVMS101 renders it). Snake_case is mapped to camelCase here; the editions are
// read through `../ivms101/editions.ts`. Pure: no I/O.
import { readSide, type Edition } from "../ivms101/editions.ts";
import type { Person } from "../ivms101/index.ts";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** snake_case keys whose camelCase IVMS101 name is not their plain camelCase form (plural lists, acronyms). */
const IRREGULAR: Record<string, string> = {
  name_identifiers: "nameIdentifier",
  local_name_identifiers: "localNameIdentifier",
  phonetic_name_identifiers: "phoneticNameIdentifier",
  geographic_addresses: "geographicAddress",
  address_lines: "addressLine",
  account_numbers: "accountNumber",
  originating_vasp: "originatingVASP",
  beneficiary_vasp: "beneficiaryVASP",
  intermediary_vasp: "intermediaryVASP",
  transfer_path: "transferPath",
};

/** Enumeration values as protobuf-style renderings spell them (`NATURAL_PERSON_NAME_TYPE_CODE_LEGL` → `LEGL`). */
const ENUM_PREFIXES = ["NATURAL_PERSON_NAME_TYPE_CODE_", "LEGAL_PERSON_NAME_TYPE_CODE_", "NATIONAL_IDENTIFIER_TYPE_CODE_", "ADDRESS_TYPE_CODE_"];
const ENUM_KEYS = new Set(["nameIdentifierType", "legalPersonNameIdentifierType", "nationalIdentifierType", "addressType", "naturalPersonNameIdentifierType"]);

/** One snake_case key in camelCase (keys without `_` are returned unchanged). */
export function camelKey(key: string): string {
  if (!key.includes("_")) return key;
  return IRREGULAR[key] ?? key.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A snake_case IVMS101 value in camelCase, keys at every level; enumeration values without their type prefix. */
export function snakeToCamel(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeToCamel);
  if (!isRec(v)) return v;
  const out: Rec = {};
  for (const [k, x] of Object.entries(v)) {
    const key = camelKey(k);
    let value = snakeToCamel(x);
    if (ENUM_KEYS.has(key) && typeof value === "string") {
      const prefix = ENUM_PREFIXES.find((p) => (value as string).startsWith(p));
      if (prefix) value = (value as string).slice(prefix.length);
    }
    out[key] = value;
  }
  return out;
}

export interface PrivateInfoRead {
  originatorPersons: Person[];
  originatorAccounts: string[];
  beneficiaryPersons: Person[];
  beneficiaryAccounts: string[];
  edition: Edition;
  spelling: "camelCase" | "snake_case";
}

export type PrivateInfoResult = { ok: true; value: PrivateInfoRead } | { ok: false; path: string };

/** Whether any key of the message (two levels down is enough) is snake_case. */
function isSnake(v: Rec): boolean {
  for (const [k, x] of Object.entries(v)) {
    if (k.includes("_")) return true;
    if (isRec(x) && Object.keys(x).some((y) => y.includes("_"))) return true;
  }
  return false;
}

/**
 * The decrypted `private_info`: both parties' persons and account numbers in Caravan's model (IVMS101 2020,
 * camelCase), or the field path that does not fit (never its value). Fields not needed are ignored. Top-level keys
 * may also be PascalCase (`Originator`, `Beneficiary`), as some peers write the IVMS101 message.
 */
export function readPrivateInfo(v: unknown): PrivateInfoResult {
  if (!isRec(v)) return { ok: false, path: "private_info" };
  const spelling = isSnake(v) ? "snake_case" : "camelCase";
  const msg = (spelling === "snake_case" ? snakeToCamel(v) : v) as Rec;
  const pick = (k: string) => msg[k] ?? msg[k[0].toUpperCase() + k.slice(1)];
  const o = readSide(pick("originator"), "originator");
  if (!o.ok) return { ok: false, path: `private_info.${o.path}` };
  const b = readSide(pick("beneficiary"), "beneficiary");
  if (!b.ok) return { ok: false, path: `private_info.${b.path}` };
  return {
    ok: true,
    value: {
      originatorPersons: o.value.persons,
      originatorAccounts: o.value.accountNumber,
      beneficiaryPersons: b.value.persons,
      beneficiaryAccounts: b.value.accountNumber,
      edition: o.edition === "2023" || b.edition === "2023" ? "2023" : "2020",
      spelling,
    },
  };
}
