// Pure validation of IVMS101 persons and of the Travel Rule identity body, naming every problem with its path.
import {
  ADDRESS_TYPES,
  IDENTITY_STATUSES,
  LEGAL_PERSON_NAME_TYPES,
  LEGAL_PERSON_NATIONAL_IDENTIFIER_TYPES,
  NATIONAL_IDENTIFIER_TYPES,
  NATURAL_PERSON_NAME_TYPES,
} from "./codes.ts";
import { isCountryCode } from "./countries.ts";

export interface Issue {
  /** Where the problem is, e.g. `persons[0].naturalPerson.name.nameIdentifier[1].nameIdentifierType`; `""` is the whole body. */
  path: string;
  message: string;
}

export interface ValidateOptions {
  /**
   * Today's date, `YYYY-MM-DD`, for IVMS101 C2 (date of birth in the past). Domain code reads no clock:
   * without it a date of birth is only checked to be a real date.
   */
  today?: string;
}

export const MAX_PERSONS = 20;

// Maximum lengths are the IVMS101 datatypes (Max16Text, Max35Text, Max50Text, Max70Text, Max100Text).
// Their character-set regexes (Latin letters, digits, apostrophe, space) are not applied: real legal
// names hold hyphens, dots and accents, and the standard's own examples break that pattern.
const ADDRESS_TEXT_FIELDS = {
  department: 50,
  subDepartment: 70,
  streetName: 70,
  buildingNumber: 16,
  buildingName: 35,
  floor: 70,
  postBox: 16,
  room: 70,
  postCode: 16,
  townName: 35,
  townLocationName: 35,
  districtName: 35,
  countrySubDivision: 35,
} as const;
const ADDRESS_FIELDS = ["addressType", ...Object.keys(ADDRESS_TEXT_FIELDS), "addressLine", "country"];
const MAX_ADDRESS_LINES = 7;
const ADDRESS_LINE_LENGTH = 70;
const NAME_LENGTH = 100;
const CUSTOMER_ID_LENGTH = 50;
const NATIONAL_IDENTIFIER_LENGTH = 35;
const PLACE_OF_BIRTH_LENGTH = 70;

// IVMS101 datatype RegistrationAuthority; C10 asks for a code on the GLEIF list, which only its format can check offline.
const REGISTRATION_AUTHORITY = /^RA[0-9]{6}$/;
// IVMS101 datatype LEIText (ISO 17442), required by C11.
const LEI = /^[0-9A-Z]{18}[0-9]{2}$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

// Names a caller may send by habit (IVMS101.2023 or the other person type), pointed at the field Caravan uses.
const NAME_ID_HINTS = { naturalPersonNameIdentifierType: "nameIdentifierType" };
const NATURAL_HINTS = { customerNumber: "customerIdentification" };
const LEGAL_HINTS = { customerIdentification: "customerNumber" };

type Json = Record<string, unknown>;

interface Ctx {
  issues: Issue[];
  today: string | undefined;
}

export function validatePersons(persons: unknown, options: ValidateOptions = {}): Issue[] {
  const ctx = context(options);
  checkPersons(ctx, "persons", persons);
  return ctx.issues;
}

export function validateIdentityBody(body: unknown, options: ValidateOptions = {}): Issue[] {
  const ctx = context(options);
  if (!isRecord(body)) {
    add(ctx, "", "the request body must be a JSON object with status and persons");
    return ctx.issues;
  }
  knownFields(ctx, "", body, ["status", "persons"]);
  code(ctx, body, "", "status", IDENTITY_STATUSES, true);
  const persons = get(body, "persons");
  if (persons === undefined || persons === null) add(ctx, "persons", "persons is required");
  else checkPersons(ctx, "persons", persons);
  return ctx.issues;
}

function context(options: ValidateOptions): Ctx {
  if (options.today !== undefined && !isRealDate(options.today)) {
    throw new RangeError(`today must be a real date written YYYY-MM-DD, got ${JSON.stringify(options.today)}`);
  }
  return { issues: [], today: options.today };
}

// ---- persons list ----

function checkPersons(ctx: Ctx, path: string, value: unknown): void {
  if (!Array.isArray(value)) {
    add(ctx, path, `${label(path)} must be an array of 1 to ${MAX_PERSONS} IVMS101 persons`);
    return;
  }
  if (value.length === 0) add(ctx, path, `${label(path)} must hold at least 1 person`);
  if (value.length > MAX_PERSONS) add(ctx, path, `${label(path)} must hold at most ${MAX_PERSONS} persons, not ${value.length}`);
  const kinds = value.map((v, i) => checkPerson(ctx, item(path, i), v));
  // The identity is one customer: a natural person alone, or a legal person (KYB) followed by the
  // natural persons who represent it. Elements of unknown kind already have an issue and are skipped.
  kinds.forEach((kind, i) => {
    if (i === 0) return;
    const p = item(path, i);
    if (kind === "legal") {
      add(ctx, p, kinds[0] === "legal"
        ? `${label(p)} is a second legal person; only one is allowed, and the persons after it must be its natural-person representatives`
        : `${label(p)} is a legal person, which must be the first person; its natural-person representatives follow it`);
    } else if (kind === "natural" && kinds[0] === "natural") {
      add(ctx, p, `${label(p)} is a second natural person; more than one natural person is allowed only as representatives following a legal person`);
    }
  });
}

function checkPerson(ctx: Ctx, path: string, value: unknown): "natural" | "legal" | undefined {
  if (!isRecord(value)) {
    add(ctx, path, `${label(path)} must be an object holding naturalPerson or legalPerson`);
    return undefined;
  }
  knownFields(ctx, path, value, ["naturalPerson", "legalPerson"]);
  const natural = get(value, "naturalPerson");
  const legal = get(value, "legalPerson");
  if (natural !== undefined) checkNaturalPerson(ctx, at(path, "naturalPerson"), natural);
  if (legal !== undefined) checkLegalPerson(ctx, at(path, "legalPerson"), legal);
  if (natural !== undefined && legal !== undefined) {
    add(ctx, path, `${label(path)} must hold either naturalPerson or legalPerson, not both`);
    return undefined;
  }
  if (natural === undefined && legal === undefined) {
    add(ctx, path, `${label(path)} must hold naturalPerson or legalPerson`);
    return undefined;
  }
  return natural !== undefined ? "natural" : "legal";
}

// ---- natural person ----

function checkNaturalPerson(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, [
    "name", "geographicAddress", "nationalIdentification", "customerIdentification", "dateAndPlaceOfBirth", "countryOfResidence",
  ], NATURAL_HINTS);
  const name = required(ctx, o, path, "name");
  if (name !== undefined) checkNaturalName(ctx, at(path, "name"), name);
  checkAddresses(ctx, o, path);
  const nationalId = optional(ctx, o, path, "nationalIdentification");
  if (nationalId !== undefined) checkNationalIdentification(ctx, at(path, "nationalIdentification"), nationalId, false);
  text(ctx, o, path, "customerIdentification", CUSTOMER_ID_LENGTH, false);
  const birth = optional(ctx, o, path, "dateAndPlaceOfBirth");
  if (birth !== undefined) checkDateAndPlaceOfBirth(ctx, at(path, "dateAndPlaceOfBirth"), birth);
  country(ctx, o, path, "countryOfResidence", false);
}

function checkNaturalName(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, ["nameIdentifier", "localNameIdentifier", "phoneticNameIdentifier"]);
  const ids = array(ctx, o, path, "nameIdentifier", true);
  ids?.forEach((v, i) => checkNaturalNameId(ctx, item(at(path, "nameIdentifier"), i), v));
  // IVMS101 C6 LegalNamePresentNaturalPerson; it does not apply to local or phonetic names.
  if (ids && ids.length > 0 && !ids.some((v) => isRecord(v) && get(v, "nameIdentifierType") === "LEGL")) {
    add(ctx, at(path, "nameIdentifier"), "nameIdentifier must include the person's legal name, one with nameIdentifierType LEGL (IVMS101 C6)");
  }
  for (const key of ["localNameIdentifier", "phoneticNameIdentifier"]) {
    array(ctx, o, path, key, false)?.forEach((v, i) => checkNaturalNameId(ctx, item(at(path, key), i), v));
  }
}

function checkNaturalNameId(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, ["primaryIdentifier", "secondaryIdentifier", "nameIdentifierType"], NAME_ID_HINTS);
  text(ctx, o, path, "primaryIdentifier", NAME_LENGTH, true);
  text(ctx, o, path, "secondaryIdentifier", NAME_LENGTH, false);
  code(ctx, o, path, "nameIdentifierType", NATURAL_PERSON_NAME_TYPES, true);
}

function checkDateAndPlaceOfBirth(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, ["dateOfBirth", "placeOfBirth"]);
  const date = required(ctx, o, path, "dateOfBirth");
  const p = at(path, "dateOfBirth");
  if (date !== undefined) {
    if (typeof date !== "string" || !isRealDate(date)) add(ctx, p, "dateOfBirth must be a real date written YYYY-MM-DD");
    // IVMS101 C2 DateInPast. Dates in this form compare correctly as strings.
    else if (ctx.today !== undefined && !(date < ctx.today)) add(ctx, p, "dateOfBirth must be a date in the past (IVMS101 C2)");
  }
  text(ctx, o, path, "placeOfBirth", PLACE_OF_BIRTH_LENGTH, true);
}

// ---- legal person ----

function checkLegalPerson(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, [
    "name", "geographicAddress", "customerNumber", "nationalIdentification", "countryOfRegistration",
  ], LEGAL_HINTS);
  const name = required(ctx, o, path, "name");
  if (name !== undefined) checkLegalName(ctx, at(path, "name"), name);
  checkAddresses(ctx, o, path);
  text(ctx, o, path, "customerNumber", CUSTOMER_ID_LENGTH, false);
  const nationalId = optional(ctx, o, path, "nationalIdentification");
  if (nationalId !== undefined) checkNationalIdentification(ctx, at(path, "nationalIdentification"), nationalId, true);
  country(ctx, o, path, "countryOfRegistration", false);
}

function checkLegalName(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, ["nameIdentifier", "localNameIdentifier", "phoneticNameIdentifier"]);
  const ids = array(ctx, o, path, "nameIdentifier", true);
  ids?.forEach((v, i) => checkLegalNameId(ctx, item(at(path, "nameIdentifier"), i), v));
  // IVMS101 C5 LegalNamePresentLegalPerson; it does not apply to local or phonetic names.
  if (ids && ids.length > 0 && !ids.some((v) => isRecord(v) && get(v, "legalPersonNameIdentifierType") === "LEGL")) {
    add(ctx, at(path, "nameIdentifier"), "nameIdentifier must include the registered legal name, one with legalPersonNameIdentifierType LEGL (IVMS101 C5)");
  }
  for (const key of ["localNameIdentifier", "phoneticNameIdentifier"]) {
    array(ctx, o, path, key, false)?.forEach((v, i) => checkLegalNameId(ctx, item(at(path, key), i), v));
  }
}

function checkLegalNameId(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, ["legalPersonName", "legalPersonNameIdentifierType"]);
  text(ctx, o, path, "legalPersonName", NAME_LENGTH, true);
  code(ctx, o, path, "legalPersonNameIdentifierType", LEGAL_PERSON_NAME_TYPES, true);
}

// ---- shared components ----

function checkAddresses(ctx: Ctx, o: Json, path: string): void {
  array(ctx, o, path, "geographicAddress", false)?.forEach((v, i) => checkAddress(ctx, item(at(path, "geographicAddress"), i), v));
}

function checkAddress(ctx: Ctx, path: string, value: unknown): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, ADDRESS_FIELDS);
  code(ctx, o, path, "addressType", ADDRESS_TYPES, true);
  for (const [key, max] of Object.entries(ADDRESS_TEXT_FIELDS)) {
    // IVMS101 makes townName [1..1], but the API's request shape is an address of addressType and
    // country alone (Part 1, "Person shapes used in requests"): the spec wins, townName is optional.
    text(ctx, o, path, key, max, false);
  }
  const lines = array(ctx, o, path, "addressLine", false, MAX_ADDRESS_LINES);
  lines?.forEach((v, i) => checkText(ctx, item(at(path, "addressLine"), i), v, ADDRESS_LINE_LENGTH));
  country(ctx, o, path, "country", true);
  // IVMS101 C8 ValidAddress, applied once the address gives street-level detail: an address of
  // addressType and country alone is the API's request shape (Part 1) and is accepted.
  const has = (key: string) => isFilled(get(o, key));
  const streetLevel = ["streetName", "buildingName", "buildingNumber", "addressLine", "postBox", "floor", "room"].some(has);
  if (streetLevel && !(lines && lines.length > 0) && !(has("streetName") && (has("buildingName") || has("buildingNumber")))) {
    add(ctx, path, `${label(path)} must have addressLine, or streetName together with buildingName or buildingNumber (IVMS101 C8)`);
  }
}

function checkNationalIdentification(ctx: Ctx, path: string, value: unknown, legalPerson: boolean): void {
  const o = record(ctx, path, value);
  if (!o) return;
  knownFields(ctx, path, o, ["nationalIdentifier", "nationalIdentifierType", "countryOfIssue", "registrationAuthority"]);
  const idOk = text(ctx, o, path, "nationalIdentifier", NATIONAL_IDENTIFIER_LENGTH, true);
  const type = legalPerson
    ? code(ctx, o, path, "nationalIdentifierType", LEGAL_PERSON_NATIONAL_IDENTIFIER_TYPES, true,
      "nationalIdentifierType of a legal person must be one of RAID, MISC, LEIX, TXID (IVMS101 C7)")
    : code(ctx, o, path, "nationalIdentifierType", NATIONAL_IDENTIFIER_TYPES, true);
  // IVMS101 C11 ValidLEI names legal persons, but an LEI has one format whoever holds it.
  if (type === "LEIX" && idOk && !LEI.test(get(o, "nationalIdentifier") as string)) {
    add(ctx, at(path, "nationalIdentifier"), "nationalIdentifier must be an LEI: 20 characters, 18 upper-case letters or digits then 2 check digits (IVMS101 C11)");
  }
  if (legalPerson) {
    // IVMS101 C9 CompleteNationalIdentifierLegalPerson.
    if (get(o, "countryOfIssue") !== undefined) {
      add(ctx, at(path, "countryOfIssue"), "countryOfIssue must not be given for a legal person (IVMS101 C9)");
    }
  } else {
    country(ctx, o, path, "countryOfIssue", false);
  }
  const authority = get(o, "registrationAuthority");
  const authorityPath = at(path, "registrationAuthority");
  if (legalPerson && type === "LEIX" && authority !== undefined) {
    add(ctx, authorityPath, "registrationAuthority must not be given when nationalIdentifierType is LEIX (IVMS101 C9)");
  } else if (legalPerson && type !== undefined && type !== "LEIX" && authority === undefined) {
    add(ctx, authorityPath, "registrationAuthority is required when nationalIdentifierType is not LEIX (IVMS101 C9)");
  } else if (authority !== undefined && (typeof authority !== "string" || !REGISTRATION_AUTHORITY.test(authority))) {
    add(ctx, authorityPath, "registrationAuthority must be a code from the GLEIF Registration Authorities List, RA followed by 6 digits such as RA000001 (IVMS101 C10)");
  }
}

// ---- field helpers: each adds its own issue and returns the value only when usable ----

function add(ctx: Ctx, path: string, message: string): void {
  ctx.issues.push({ path, message });
}

function at(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function item(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** The last segment of a path, the name a message speaks of. */
function label(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1);
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own properties only, so `constructor` or a `__proto__` key never reads through the prototype. */
function get(o: Json, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function isFilled(value: unknown): boolean {
  return typeof value === "string" && value.trim() !== "";
}

function record(ctx: Ctx, path: string, value: unknown): Json | undefined {
  if (isRecord(value)) return value;
  add(ctx, path, `${label(path)} must be an object`);
  return undefined;
}

function knownFields(ctx: Ctx, path: string, o: Json, allowed: readonly string[], hints: Record<string, string> = {}): void {
  for (const key of Object.keys(o)) {
    if (allowed.includes(key)) continue;
    const hint = (Object.hasOwn(hints, key) ? hints[key] : undefined) ?? allowed.find((a) => a.toLowerCase() === key.toLowerCase());
    add(ctx, at(path, key), hint
      ? `${key} is not a known field; did you mean ${hint}?`
      : `${key} is not a known field; allowed here: ${allowed.join(", ")}`);
  }
}

/** A required field: missing or null is an issue. */
function required(ctx: Ctx, o: Json, path: string, key: string): unknown {
  const value = get(o, key);
  if (value === undefined || value === null) {
    add(ctx, at(path, key), `${key} is required`);
    return undefined;
  }
  return value;
}

/** An optional field: absent is fine, null is refused so that a typo'd empty value is not silently dropped. */
function optional(ctx: Ctx, o: Json, path: string, key: string): unknown {
  const value = get(o, key);
  if (value === null) {
    add(ctx, at(path, key), `${key} must not be null; leave it out when there is none`);
    return undefined;
  }
  return value;
}

function present(ctx: Ctx, o: Json, path: string, key: string, isRequired: boolean): unknown {
  return isRequired ? required(ctx, o, path, key) : optional(ctx, o, path, key);
}

function text(ctx: Ctx, o: Json, path: string, key: string, max: number, isRequired: boolean): boolean {
  const value = present(ctx, o, path, key, isRequired);
  return value !== undefined && checkText(ctx, at(path, key), value, max);
}

function checkText(ctx: Ctx, path: string, value: unknown, max: number): boolean {
  if (typeof value !== "string") add(ctx, path, `${label(path)} must be a string`);
  else if (value.trim() === "") add(ctx, path, `${label(path)} must not be empty`);
  // Code points, not UTF-16 units, so a local-script name is not cut short.
  else if ([...value].length > max) add(ctx, path, `${label(path)} must be at most ${max} characters`);
  else return true;
  return false;
}

function code<C extends string>(
  ctx: Ctx, o: Json, path: string, key: string, codes: readonly C[], isRequired: boolean, message?: string,
): C | undefined {
  const value = present(ctx, o, path, key, isRequired);
  if (value === undefined) return undefined;
  if ((codes as readonly unknown[]).includes(value)) return value as C;
  add(ctx, at(path, key), message ?? `${key} must be one of ${codes.join(", ")}`);
  return undefined;
}

function country(ctx: Ctx, o: Json, path: string, key: string, isRequired: boolean): void {
  const value = present(ctx, o, path, key, isRequired);
  if (value === undefined || isCountryCode(value)) return;
  const upper = typeof value === "string" ? value.toUpperCase() : "";
  let message = `${key} must be an ISO 3166-1 alpha-2 country code in upper case, such as GB or US`;
  if (isCountryCode(upper)) message = `${key} must be upper case: ${upper}`;
  else if (upper === "UK") message = `${key} must be an ISO 3166-1 alpha-2 country code: the United Kingdom is GB`;
  add(ctx, at(path, key), message);
}

function array(ctx: Ctx, o: Json, path: string, key: string, isRequired: boolean, max?: number): unknown[] | undefined {
  const value = present(ctx, o, path, key, isRequired);
  if (value === undefined) return undefined;
  const p = at(path, key);
  if (!Array.isArray(value)) {
    add(ctx, p, `${key} must be an array`);
    return undefined;
  }
  if (isRequired && value.length === 0) add(ctx, p, `${key} must hold at least one entry`);
  if (max !== undefined && value.length > max) add(ctx, p, `${key} must hold at most ${max} entries`);
  return value;
}

/** A real calendar date written YYYY-MM-DD (ISO 8601, the IVMS101 Date datatype). */
function isRealDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}
