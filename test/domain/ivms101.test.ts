// Table tests of the IVMS101 person validator: exact issue paths and messages for each rule, plus the name and country readers.
import { test, expect, describe, setDefaultTimeout } from "bun:test";
import {
  COUNTRY_CODES,
  isCountryCode,
  personNames,
  personsCountry,
  validateIdentityBody,
  validatePersons,
  type Issue,
  type Person,
} from "../../src/domain/ivms101/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

// ---- fixtures (fresh objects each call, so a case may mutate its own copy) ----

function minimalNatural(primary = "Doe", secondary?: string) {
  const id: Record<string, unknown> = { primaryIdentifier: primary, nameIdentifierType: "LEGL" };
  if (secondary !== undefined) id.secondaryIdentifier = secondary;
  return { naturalPerson: { name: { nameIdentifier: [id] } } } as { naturalPerson: any };
}

function fullNatural() {
  return {
    naturalPerson: {
      name: {
        nameIdentifier: [
          { primaryIdentifier: "Smith", secondaryIdentifier: "Alice Jane", nameIdentifierType: "LEGL" },
          { primaryIdentifier: "Jones", nameIdentifierType: "MAID" },
          { primaryIdentifier: "Ally", nameIdentifierType: "ALIA" },
        ],
        localNameIdentifier: [{ primaryIdentifier: "Смит", secondaryIdentifier: "Алиса", nameIdentifierType: "LEGL" }],
        phoneticNameIdentifier: [{ primaryIdentifier: "Smit", nameIdentifierType: "BIRT" }],
      },
      geographicAddress: [
        {
          addressType: "HOME",
          department: "Flat services",
          subDepartment: "North wing",
          streetName: "Baker Street",
          buildingNumber: "221B",
          buildingName: "Baker House",
          floor: "2",
          postBox: "PO 12",
          room: "4",
          postCode: "NW1 6XE",
          townName: "London",
          townLocationName: "Marylebone",
          districtName: "Westminster",
          countrySubDivision: "England",
          country: "GB",
        },
        { addressType: "BIZZ", addressLine: ["1 Rue de Rivoli", "Paris"], townName: "Paris", country: "FR" },
      ],
      nationalIdentification: { nationalIdentifier: "123456789", nationalIdentifierType: "CCPT", countryOfIssue: "GB" },
      customerIdentification: "cus-0001",
      dateAndPlaceOfBirth: { dateOfBirth: "1990-02-28", placeOfBirth: "Manchester" },
      countryOfResidence: "GB",
    },
  } as { naturalPerson: any };
}

function legal() {
  return {
    legalPerson: {
      name: {
        nameIdentifier: [
          { legalPersonName: "Acme Trading Limited", legalPersonNameIdentifierType: "LEGL" },
          { legalPersonName: "Acme", legalPersonNameIdentifierType: "TRAD" },
        ],
        localNameIdentifier: [{ legalPersonName: "Acme Trádála Teoranta", legalPersonNameIdentifierType: "LEGL" }],
      },
      geographicAddress: [{ addressType: "GEOG", addressLine: ["1 Main Street"], townName: "Dublin", country: "IE" }],
      customerNumber: "C-77",
      nationalIdentification: { nationalIdentifier: "5493001KJTIIGC8Y1R12", nationalIdentifierType: "LEIX" },
      countryOfRegistration: "IE",
    },
  } as { legalPerson: any };
}

/** One minimal natural person, edited by `edit`. */
function natural(edit: (np: any) => void) {
  const p = minimalNatural();
  edit(p.naturalPerson);
  return [p];
}

/** One legal person, edited by `edit`. */
function legalWith(edit: (lp: any) => void) {
  const p = legal();
  edit(p.legalPerson);
  return [p];
}

/** One minimal natural person holding one address, edited by `edit`. */
function withAddress(edit: (a: any) => void) {
  return natural((np) => {
    const a = { addressType: "HOME", streetName: "High Street", buildingNumber: "1", townName: "Leeds", country: "GB" };
    edit(a);
    np.geographicAddress = [a];
  });
}

const issue = (path: string, message: string): Issue => ({ path, message });
const N = "persons[0].naturalPerson";
const L = "persons[0].legalPerson";
const COUNTRY = "must be an ISO 3166-1 alpha-2 country code in upper case, such as GB or US";

interface Case {
  name: string;
  persons: unknown;
  today?: string;
  issues: Issue[];
}

// ---- valid lists ----

const valid: Case[] = [
  { name: "a minimal natural person", persons: [minimalNatural()], issues: [] },
  { name: "a full natural person using every field", persons: [fullNatural()], today: "2026-11-23", issues: [] },
  { name: "a legal person with two natural-person representatives", persons: [legal(), fullNatural(), minimalNatural("Roe", "Richard")], issues: [] },
  { name: "a legal person alone", persons: [legal()], issues: [] },
  { name: "20 persons: a legal person and 19 representatives", persons: [legal(), ...Array.from({ length: 19 }, () => minimalNatural())], issues: [] },
  {
    name: "a legal person identified by RAID with its registration authority",
    persons: legalWith((lp) => { lp.nationalIdentification = { nationalIdentifier: "12345678", nationalIdentifierType: "RAID", registrationAuthority: "RA000585" }; }),
    issues: [],
  },
  { name: "empty optional name and address arrays", persons: natural((np) => { np.name.localNameIdentifier = []; np.geographicAddress = []; }), issues: [] },
  { name: "a date of birth the day before today", persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "2026-11-22", placeOfBirth: "York" }; }), today: "2026-11-23", issues: [] },
  { name: "29 February of a leap year", persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "2000-02-29", placeOfBirth: "York" }; }), issues: [] },
  { name: "a future date of birth when no today is given (C2 not checked)", persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "2999-01-01", placeOfBirth: "York" }; }), issues: [] },
  { name: "an address with streetName and buildingName only (C8)", persons: withAddress((a) => { delete a.buildingNumber; a.buildingName = "Rose Cottage"; }), issues: [] },
  { name: "a 100-character name in a local script (code points counted)", persons: natural((np) => { np.name.localNameIdentifier = [{ primaryIdentifier: "𠀀".repeat(100), nameIdentifierType: "LEGL" }]; }), issues: [] },
];

// ---- the persons list ----

const list: Case[] = [
  { name: "persons is not an array", persons: { naturalPerson: {} }, issues: [issue("persons", "persons must be an array of 1 to 20 IVMS101 persons")] },
  { name: "0 persons", persons: [], issues: [issue("persons", "persons must hold at least 1 person")] },
  {
    name: "21 persons",
    persons: [legal(), ...Array.from({ length: 20 }, () => minimalNatural())],
    issues: [issue("persons", "persons must hold at most 20 persons, not 21")],
  },
  { name: "an element that is not an object", persons: [null], issues: [issue("persons[0]", "persons[0] must be an object holding naturalPerson or legalPerson")] },
  { name: "an element with neither person", persons: [{}], issues: [issue("persons[0]", "persons[0] must hold naturalPerson or legalPerson")] },
  {
    name: "an element with both persons",
    persons: [{ ...minimalNatural(), ...legal() }],
    issues: [issue("persons[0]", "persons[0] must hold either naturalPerson or legalPerson, not both")],
  },
  {
    name: "an element with a key besides the person",
    persons: [{ ...minimalNatural(), accountNumber: ["acc-1"] }],
    issues: [issue("persons[0].accountNumber", "accountNumber is not a known field; allowed here: naturalPerson, legalPerson")],
  },
  {
    name: "two natural persons",
    persons: [minimalNatural(), minimalNatural()],
    issues: [issue("persons[1]", "persons[1] is a second natural person; more than one natural person is allowed only as representatives following a legal person")],
  },
  {
    name: "a legal person that is not first",
    persons: [minimalNatural(), legal()],
    issues: [issue("persons[1]", "persons[1] is a legal person, which must be the first person; its natural-person representatives follow it")],
  },
  {
    name: "two legal persons",
    persons: [legal(), minimalNatural(), legal()],
    issues: [issue("persons[2]", "persons[2] is a second legal person; only one is allowed, and the persons after it must be its natural-person representatives")],
  },
];

// ---- natural person ----

const naturalCases: Case[] = [
  { name: "natural person not an object", persons: [{ naturalPerson: "Alice" }], issues: [issue(N, "naturalPerson must be an object")] },
  { name: "name missing", persons: natural((np) => { delete np.name; }), issues: [issue(`${N}.name`, "name is required")] },
  { name: "name not an object", persons: natural((np) => { np.name = "Alice Smith"; }), issues: [issue(`${N}.name`, "name must be an object")] },
  { name: "nameIdentifier missing", persons: natural((np) => { np.name = {}; }), issues: [issue(`${N}.name.nameIdentifier`, "nameIdentifier is required")] },
  { name: "nameIdentifier empty", persons: natural((np) => { np.name.nameIdentifier = []; }), issues: [issue(`${N}.name.nameIdentifier`, "nameIdentifier must hold at least one entry")] },
  { name: "nameIdentifier not an array", persons: natural((np) => { np.name.nameIdentifier = { primaryIdentifier: "Doe" }; }), issues: [issue(`${N}.name.nameIdentifier`, "nameIdentifier must be an array")] },
  {
    name: "primaryIdentifier missing",
    persons: natural((np) => { delete np.name.nameIdentifier[0].primaryIdentifier; }),
    issues: [issue(`${N}.name.nameIdentifier[0].primaryIdentifier`, "primaryIdentifier is required")],
  },
  {
    name: "primaryIdentifier blank",
    persons: natural((np) => { np.name.nameIdentifier[0].primaryIdentifier = "   "; }),
    issues: [issue(`${N}.name.nameIdentifier[0].primaryIdentifier`, "primaryIdentifier must not be empty")],
  },
  {
    name: "primaryIdentifier over 100 characters",
    persons: natural((np) => { np.name.nameIdentifier[0].primaryIdentifier = "a".repeat(101); }),
    issues: [issue(`${N}.name.nameIdentifier[0].primaryIdentifier`, "primaryIdentifier must be at most 100 characters")],
  },
  {
    name: "primaryIdentifier not a string",
    persons: natural((np) => { np.name.nameIdentifier[0].primaryIdentifier = 42; }),
    issues: [issue(`${N}.name.nameIdentifier[0].primaryIdentifier`, "primaryIdentifier must be a string")],
  },
  {
    name: "secondaryIdentifier null",
    persons: natural((np) => { np.name.nameIdentifier[0].secondaryIdentifier = null; }),
    issues: [issue(`${N}.name.nameIdentifier[0].secondaryIdentifier`, "secondaryIdentifier must not be null; leave it out when there is none")],
  },
  {
    name: "secondaryIdentifier over 100 characters",
    persons: natural((np) => { np.name.nameIdentifier[0].secondaryIdentifier = "b".repeat(101); }),
    issues: [issue(`${N}.name.nameIdentifier[0].secondaryIdentifier`, "secondaryIdentifier must be at most 100 characters")],
  },
  {
    name: "nameIdentifierType not a code (a LEGL name is present)",
    persons: natural((np) => { np.name.nameIdentifier.push({ primaryIdentifier: "Al", nameIdentifierType: "NICK" }); }),
    issues: [issue(`${N}.name.nameIdentifier[1].nameIdentifierType`, "nameIdentifierType must be one of ALIA, BIRT, MAID, LEGL, MISC")],
  },
  {
    name: "C6: no LEGL name",
    persons: natural((np) => { np.name.nameIdentifier[0].nameIdentifierType = "ALIA"; }),
    issues: [issue(`${N}.name.nameIdentifier`, "nameIdentifier must include the person's legal name, one with nameIdentifierType LEGL (IVMS101 C6)")],
  },
  {
    name: "C6 is not satisfied by a LEGL local name",
    persons: natural((np) => {
      np.name.nameIdentifier[0].nameIdentifierType = "MISC";
      np.name.localNameIdentifier = [{ primaryIdentifier: "Доу", nameIdentifierType: "LEGL" }];
    }),
    issues: [issue(`${N}.name.nameIdentifier`, "nameIdentifier must include the person's legal name, one with nameIdentifierType LEGL (IVMS101 C6)")],
  },
  {
    name: "a bad local name identifier",
    persons: natural((np) => { np.name.localNameIdentifier = [{ primaryIdentifier: "", nameIdentifierType: "legl" }]; }),
    issues: [
      issue(`${N}.name.localNameIdentifier[0].primaryIdentifier`, "primaryIdentifier must not be empty"),
      issue(`${N}.name.localNameIdentifier[0].nameIdentifierType`, "nameIdentifierType must be one of ALIA, BIRT, MAID, LEGL, MISC"),
    ],
  },
  {
    name: "phoneticNameIdentifier not an array",
    persons: natural((np) => { np.name.phoneticNameIdentifier = "Doh"; }),
    issues: [issue(`${N}.name.phoneticNameIdentifier`, "phoneticNameIdentifier must be an array")],
  },
  {
    name: "IVMS101.2023 naturalPersonNameIdentifierType instead of nameIdentifierType",
    persons: natural((np) => { np.name.nameIdentifier[0] = { primaryIdentifier: "Doe", naturalPersonNameIdentifierType: "LEGL" }; }),
    issues: [
      issue(`${N}.name.nameIdentifier[0].naturalPersonNameIdentifierType`, "naturalPersonNameIdentifierType is not a known field; did you mean nameIdentifierType?"),
      issue(`${N}.name.nameIdentifier[0].nameIdentifierType`, "nameIdentifierType is required"),
      issue(`${N}.name.nameIdentifier`, "nameIdentifier must include the person's legal name, one with nameIdentifierType LEGL (IVMS101 C6)"),
    ],
  },
  {
    name: "customerIdentification over 50 characters",
    persons: natural((np) => { np.customerIdentification = "c".repeat(51); }),
    issues: [issue(`${N}.customerIdentification`, "customerIdentification must be at most 50 characters")],
  },
  {
    name: "customerNumber on a natural person",
    persons: natural((np) => { np.customerNumber = "c-1"; }),
    issues: [issue(`${N}.customerNumber`, "customerNumber is not a known field; did you mean customerIdentification?")],
  },
];

// ---- countries ----

const countries: Case[] = [
  { name: "countryOfResidence XX", persons: natural((np) => { np.countryOfResidence = "XX"; }), issues: [issue(`${N}.countryOfResidence`, `countryOfResidence ${COUNTRY}`)] },
  { name: "countryOfResidence USA (alpha-3)", persons: natural((np) => { np.countryOfResidence = "USA"; }), issues: [issue(`${N}.countryOfResidence`, `countryOfResidence ${COUNTRY}`)] },
  { name: "countryOfResidence lower case gb", persons: natural((np) => { np.countryOfResidence = "gb"; }), issues: [issue(`${N}.countryOfResidence`, "countryOfResidence must be upper case: GB")] },
  {
    name: "countryOfResidence uk",
    persons: natural((np) => { np.countryOfResidence = "uk"; }),
    issues: [issue(`${N}.countryOfResidence`, "countryOfResidence must be an ISO 3166-1 alpha-2 country code: the United Kingdom is GB")],
  },
  { name: "countryOfResidence a number", persons: natural((np) => { np.countryOfResidence = 826; }), issues: [issue(`${N}.countryOfResidence`, `countryOfResidence ${COUNTRY}`)] },
  { name: "address country missing", persons: withAddress((a) => { delete a.country; }), issues: [issue(`${N}.geographicAddress[0].country`, "country is required")] },
  { name: "address country ZZ", persons: withAddress((a) => { a.country = "ZZ"; }), issues: [issue(`${N}.geographicAddress[0].country`, `country ${COUNTRY}`)] },
  {
    name: "countryOfIssue EU (not an ISO 3166-1 code)",
    persons: natural((np) => { np.nationalIdentification = { nationalIdentifier: "X1", nationalIdentifierType: "IDCD", countryOfIssue: "EU" }; }),
    issues: [issue(`${N}.nationalIdentification.countryOfIssue`, `countryOfIssue ${COUNTRY}`)],
  },
  { name: "countryOfRegistration XX", persons: legalWith((lp) => { lp.countryOfRegistration = "XX"; }), issues: [issue(`${L}.countryOfRegistration`, `countryOfRegistration ${COUNTRY}`)] },
];

// ---- address ----

const A = `${N}.geographicAddress[0]`;
const addresses: Case[] = [
  { name: "geographicAddress not an array", persons: natural((np) => { np.geographicAddress = { country: "GB" }; }), issues: [issue(`${N}.geographicAddress`, "geographicAddress must be an array")] },
  { name: "an address that is not an object", persons: natural((np) => { np.geographicAddress = ["221B Baker Street"]; }), issues: [issue(A, "geographicAddress[0] must be an object")] },
  { name: "addressType missing", persons: withAddress((a) => { delete a.addressType; }), issues: [issue(`${A}.addressType`, "addressType is required")] },
  { name: "addressType not a code", persons: withAddress((a) => { a.addressType = "WORK"; }), issues: [issue(`${A}.addressType`, "addressType must be one of HOME, BIZZ, GEOG")] },
  // The API's request shape (Part 1) is an address of addressType and country: townName is optional there.
  { name: "townName missing is accepted", persons: withAddress((a) => { delete a.townName; }), issues: [] },
  {
    name: "an address of addressType and country alone (the spec's request shape) is accepted",
    persons: withAddress((a) => { for (const k of Object.keys(a)) if (k !== "addressType" && k !== "country") delete a[k]; }),
    issues: [],
  },
  { name: "townName over 35 characters", persons: withAddress((a) => { a.townName = "t".repeat(36); }), issues: [issue(`${A}.townName`, "townName must be at most 35 characters")] },
  { name: "buildingNumber over 16 characters", persons: withAddress((a) => { a.buildingNumber = "9".repeat(17); }), issues: [issue(`${A}.buildingNumber`, "buildingNumber must be at most 16 characters")] },
  { name: "postCode not a string", persons: withAddress((a) => { a.postCode = 12345; }), issues: [issue(`${A}.postCode`, "postCode must be a string")] },
  { name: "postcode spelt as in the ivms101 package", persons: withAddress((a) => { a.postcode = "LS1 1AA"; }), issues: [issue(`${A}.postcode`, "postcode is not a known field; did you mean postCode?")] },
  {
    name: "C8: neither addressLine nor street with building",
    persons: withAddress((a) => { delete a.buildingNumber; }),
    issues: [issue(A, "geographicAddress[0] must have addressLine, or streetName together with buildingName or buildingNumber (IVMS101 C8)")],
  },
  {
    name: "C8: an empty addressLine does not count",
    persons: withAddress((a) => { delete a.streetName; a.addressLine = []; }),
    issues: [issue(A, "geographicAddress[0] must have addressLine, or streetName together with buildingName or buildingNumber (IVMS101 C8)")],
  },
  {
    name: "8 address lines",
    persons: withAddress((a) => { a.addressLine = Array.from({ length: 8 }, (_, i) => `line ${i}`); }),
    issues: [issue(`${A}.addressLine`, "addressLine must hold at most 7 entries")],
  },
  {
    name: "an address line not a string, one over 70 characters",
    persons: withAddress((a) => { a.addressLine = ["1 High Street", 2, "x".repeat(71)]; }),
    issues: [
      issue(`${A}.addressLine[1]`, "addressLine[1] must be a string"),
      issue(`${A}.addressLine[2]`, "addressLine[2] must be at most 70 characters"),
    ],
  },
];

// ---- national identification and date of birth ----

const NI = `${N}.nationalIdentification`;
const LNI = `${L}.nationalIdentification`;
const identification: Case[] = [
  {
    name: "natural person nationalIdentifierType not a code",
    persons: natural((np) => { np.nationalIdentification = { nationalIdentifier: "X1", nationalIdentifierType: "PASS" }; }),
    issues: [issue(`${NI}.nationalIdentifierType`, "nationalIdentifierType must be one of ARNU, CCPT, RAID, DRLC, FIIN, TXID, SOCS, IDCD, LEIX, MISC")],
  },
  {
    name: "nationalIdentifier missing and over-long registrationAuthority",
    persons: natural((np) => { np.nationalIdentification = { nationalIdentifierType: "TXID", registrationAuthority: "RA12345" }; }),
    issues: [
      issue(`${NI}.nationalIdentifier`, "nationalIdentifier is required"),
      issue(`${NI}.registrationAuthority`, "registrationAuthority must be a code from the GLEIF Registration Authorities List, RA followed by 6 digits such as RA000001 (IVMS101 C10)"),
    ],
  },
  {
    name: "nationalIdentifier over 35 characters",
    persons: natural((np) => { np.nationalIdentification = { nationalIdentifier: "1".repeat(36), nationalIdentifierType: "SOCS" }; }),
    issues: [issue(`${NI}.nationalIdentifier`, "nationalIdentifier must be at most 35 characters")],
  },
  {
    name: "C11 on a natural person's LEI",
    persons: natural((np) => { np.nationalIdentification = { nationalIdentifier: "not-an-lei", nationalIdentifierType: "LEIX" }; }),
    issues: [issue(`${NI}.nationalIdentifier`, "nationalIdentifier must be an LEI: 20 characters, 18 upper-case letters or digits then 2 check digits (IVMS101 C11)")],
  },
  {
    name: "C7: a legal person identified by passport",
    persons: legalWith((lp) => { lp.nationalIdentification = { nationalIdentifier: "P123", nationalIdentifierType: "CCPT", registrationAuthority: "RA000585" }; }),
    issues: [issue(`${LNI}.nationalIdentifierType`, "nationalIdentifierType of a legal person must be one of RAID, MISC, LEIX, TXID (IVMS101 C7)")],
  },
  {
    name: "C9: a legal person's countryOfIssue",
    persons: legalWith((lp) => { lp.nationalIdentification.countryOfIssue = "IE"; }),
    issues: [issue(`${LNI}.countryOfIssue`, "countryOfIssue must not be given for a legal person (IVMS101 C9)")],
  },
  {
    name: "C9: registrationAuthority missing for RAID",
    persons: legalWith((lp) => { lp.nationalIdentification = { nationalIdentifier: "12345678", nationalIdentifierType: "RAID" }; }),
    issues: [issue(`${LNI}.registrationAuthority`, "registrationAuthority is required when nationalIdentifierType is not LEIX (IVMS101 C9)")],
  },
  {
    name: "C9: registrationAuthority given for LEIX",
    persons: legalWith((lp) => { lp.nationalIdentification.registrationAuthority = "RA000585"; }),
    issues: [issue(`${LNI}.registrationAuthority`, "registrationAuthority must not be given when nationalIdentifierType is LEIX (IVMS101 C9)")],
  },
  {
    name: "C10: registrationAuthority in the wrong form",
    persons: legalWith((lp) => { lp.nationalIdentification = { nationalIdentifier: "T-1", nationalIdentifierType: "TXID", registrationAuthority: "ra000585" }; }),
    issues: [issue(`${LNI}.registrationAuthority`, "registrationAuthority must be a code from the GLEIF Registration Authorities List, RA followed by 6 digits such as RA000001 (IVMS101 C10)")],
  },
  {
    name: "C11: a malformed LEI",
    persons: legalWith((lp) => { lp.nationalIdentification.nationalIdentifier = "5493001KJTIIGC8Y1RAB"; }),
    issues: [issue(`${LNI}.nationalIdentifier`, "nationalIdentifier must be an LEI: 20 characters, 18 upper-case letters or digits then 2 check digits (IVMS101 C11)")],
  },
  {
    name: "dateOfBirth not a real date (no 29 February in 2023)",
    persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "2023-02-29", placeOfBirth: "York" }; }),
    issues: [issue(`${N}.dateAndPlaceOfBirth.dateOfBirth`, "dateOfBirth must be a real date written YYYY-MM-DD")],
  },
  {
    name: "dateOfBirth in another format",
    persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "01/02/1990", placeOfBirth: "York" }; }),
    issues: [issue(`${N}.dateAndPlaceOfBirth.dateOfBirth`, "dateOfBirth must be a real date written YYYY-MM-DD")],
  },
  {
    name: "C2: dateOfBirth today",
    persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "2026-11-23", placeOfBirth: "York" }; }),
    today: "2026-11-23",
    issues: [issue(`${N}.dateAndPlaceOfBirth.dateOfBirth`, "dateOfBirth must be a date in the past (IVMS101 C2)")],
  },
  {
    name: "C2: dateOfBirth in the future",
    persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "2030-01-01", placeOfBirth: "York" }; }),
    today: "2026-11-23",
    issues: [issue(`${N}.dateAndPlaceOfBirth.dateOfBirth`, "dateOfBirth must be a date in the past (IVMS101 C2)")],
  },
  {
    name: "placeOfBirth missing",
    persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "1990-01-01" }; }),
    issues: [issue(`${N}.dateAndPlaceOfBirth.placeOfBirth`, "placeOfBirth is required")],
  },
  {
    name: "dateAndPlaceOfBirth null",
    persons: natural((np) => { np.dateAndPlaceOfBirth = null; }),
    issues: [issue(`${N}.dateAndPlaceOfBirth`, "dateAndPlaceOfBirth must not be null; leave it out when there is none")],
  },
];

// ---- legal person ----

const legalCases: Case[] = [
  { name: "legal person name missing", persons: legalWith((lp) => { delete lp.name; }), issues: [issue(`${L}.name`, "name is required")] },
  {
    name: "C5: no LEGL legal name",
    persons: legalWith((lp) => { lp.name.nameIdentifier = [{ legalPersonName: "Acme", legalPersonNameIdentifierType: "TRAD" }]; }),
    issues: [issue(`${L}.name.nameIdentifier`, "nameIdentifier must include the registered legal name, one with legalPersonNameIdentifierType LEGL (IVMS101 C5)")],
  },
  {
    name: "legalPersonNameIdentifierType not a code",
    persons: legalWith((lp) => { lp.name.nameIdentifier[1].legalPersonNameIdentifierType = "ALIA"; }),
    issues: [issue(`${L}.name.nameIdentifier[1].legalPersonNameIdentifierType`, "legalPersonNameIdentifierType must be one of LEGL, SHRT, TRAD")],
  },
  {
    name: "legalPersonName missing",
    persons: legalWith((lp) => { delete lp.name.nameIdentifier[0].legalPersonName; }),
    issues: [issue(`${L}.name.nameIdentifier[0].legalPersonName`, "legalPersonName is required")],
  },
  {
    name: "a natural-person name shape inside a legal person",
    persons: legalWith((lp) => { lp.name.nameIdentifier = [{ primaryIdentifier: "Acme", nameIdentifierType: "LEGL" }]; }),
    issues: [
      issue(`${L}.name.nameIdentifier[0].primaryIdentifier`, "primaryIdentifier is not a known field; allowed here: legalPersonName, legalPersonNameIdentifierType"),
      issue(`${L}.name.nameIdentifier[0].nameIdentifierType`, "nameIdentifierType is not a known field; allowed here: legalPersonName, legalPersonNameIdentifierType"),
      issue(`${L}.name.nameIdentifier[0].legalPersonName`, "legalPersonName is required"),
      issue(`${L}.name.nameIdentifier[0].legalPersonNameIdentifierType`, "legalPersonNameIdentifierType is required"),
      issue(`${L}.name.nameIdentifier`, "nameIdentifier must include the registered legal name, one with legalPersonNameIdentifierType LEGL (IVMS101 C5)"),
    ],
  },
  {
    name: "customerIdentification on a legal person",
    persons: legalWith((lp) => { lp.customerIdentification = "C-77"; }),
    issues: [issue(`${L}.customerIdentification`, "customerIdentification is not a known field; did you mean customerNumber?")],
  },
  {
    name: "customerNumber over 50 characters",
    persons: legalWith((lp) => { lp.customerNumber = "n".repeat(51); }),
    issues: [issue(`${L}.customerNumber`, "customerNumber must be at most 50 characters")],
  },
];

// ---- unknown fields and several problems at once ----

const unknownAndMany: Case[] = [
  {
    name: "unknown fields at person level and deep in an address and a name",
    persons: natural((np) => {
      np.nickname = "Jo";
      np.name.nameIdentifier[0].middleName = "Q";
      np.geographicAddress = [{ addressType: "HOME", addressLine: ["1 A Road"], townName: "Bath", country: "GB", latitude: 51.38 }];
      np.dateAndPlaceOfBirth = { dateOfBirth: "1990-01-01", placeOfBirth: "Bath", timeOfBirth: "12:00" };
    }),
    issues: [
      issue(`${N}.nickname`, "nickname is not a known field; allowed here: name, geographicAddress, nationalIdentification, customerIdentification, dateAndPlaceOfBirth, countryOfResidence"),
      issue(`${N}.name.nameIdentifier[0].middleName`, "middleName is not a known field; allowed here: primaryIdentifier, secondaryIdentifier, nameIdentifierType"),
      issue(`${A}.latitude`, "latitude is not a known field; allowed here: addressType, department, subDepartment, streetName, buildingNumber, buildingName, floor, postBox, room, postCode, townName, townLocationName, districtName, countrySubDivision, addressLine, country"),
      issue(`${N}.dateAndPlaceOfBirth.timeOfBirth`, "timeOfBirth is not a known field; allowed here: dateOfBirth, placeOfBirth"),
    ],
  },
  {
    name: "a field name in the wrong case",
    persons: natural((np) => { np.CountryOfResidence = "GB"; }),
    issues: [issue(`${N}.CountryOfResidence`, "CountryOfResidence is not a known field; did you mean countryOfResidence?")],
  },
  {
    name: "an own __proto__ key is refused, not followed",
    persons: [JSON.parse('{"naturalPerson":{"name":{"nameIdentifier":[{"primaryIdentifier":"Doe","nameIdentifierType":"LEGL"}]},"__proto__":{"countryOfResidence":"XX"}}}')],
    issues: [issue(`${N}.__proto__`, "__proto__ is not a known field; allowed here: name, geographicAddress, nationalIdentification, customerIdentification, dateAndPlaceOfBirth, countryOfResidence")],
  },
  {
    name: "several problems across several persons, all reported",
    persons: [
      legalWith((lp) => {
        lp.countryOfRegistration = "uk";
        lp.nationalIdentification = { nationalIdentifier: "T-1", nationalIdentifierType: "TXID" };
      })[0],
      natural((np) => {
        np.name.nameIdentifier[0].nameIdentifierType = "FULL";
        np.geographicAddress = [{ addressType: "HOME", townName: "Cork", country: "ie" }];
      })[0],
      minimalNatural(),
      legal(),
    ],
    today: "2026-11-23",
    issues: [
      issue(`${L}.nationalIdentification.registrationAuthority`, "registrationAuthority is required when nationalIdentifierType is not LEIX (IVMS101 C9)"),
      issue(`${L}.countryOfRegistration`, "countryOfRegistration must be an ISO 3166-1 alpha-2 country code: the United Kingdom is GB"),
      issue("persons[1].naturalPerson.name.nameIdentifier[0].nameIdentifierType", "nameIdentifierType must be one of ALIA, BIRT, MAID, LEGL, MISC"),
      issue("persons[1].naturalPerson.name.nameIdentifier", "nameIdentifier must include the person's legal name, one with nameIdentifierType LEGL (IVMS101 C6)"),
      issue("persons[1].naturalPerson.geographicAddress[0].country", "country must be upper case: IE"),
      issue("persons[3]", "persons[3] is a second legal person; only one is allowed, and the persons after it must be its natural-person representatives"),
    ],
  },
];

const groups: Record<string, Case[]> = {
  "valid persons": valid,
  "persons list": list,
  "natural person": naturalCases,
  "country codes": countries,
  "address": addresses,
  "national identification and birth": identification,
  "legal person": legalCases,
  "unknown fields and many problems": unknownAndMany,
};

for (const [group, cases] of Object.entries(groups)) {
  describe(`validatePersons: ${group}`, () => {
    for (const c of cases) {
      test(c.name, () => {
        expect(validatePersons(c.persons, c.today === undefined ? {} : { today: c.today })).toEqual(c.issues);
      });
    }
  });
}

// ---- the identity body ----

const bodyCases: { name: string; body: unknown; issues: Issue[] }[] = [
  { name: "a verified natural person", body: { status: "verified", persons: [fullNatural()] }, issues: [] },
  { name: "a blocked legal person with a representative", body: { status: "blocked", persons: [legal(), minimalNatural()] }, issues: [] },
  { name: "an unverified identity", body: { status: "unverified", persons: [minimalNatural()] }, issues: [] },
  { name: "a body that is not an object", body: [minimalNatural()], issues: [issue("", "the request body must be a JSON object with status and persons")] },
  { name: "a null body", body: null, issues: [issue("", "the request body must be a JSON object with status and persons")] },
  {
    name: "an empty object",
    body: {},
    issues: [issue("status", "status is required"), issue("persons", "persons is required")],
  },
  { name: "a status that is not one of the three", body: { status: "pending", persons: [minimalNatural()] }, issues: [issue("status", "status must be one of verified, unverified, blocked")] },
  { name: "status in the wrong case", body: { status: "Verified", persons: [minimalNatural()] }, issues: [issue("status", "status must be one of verified, unverified, blocked")] },
  {
    name: "an unknown top-level field",
    body: { status: "verified", persons: [minimalNatural()], customerId: "cus_1" },
    issues: [issue("customerId", "customerId is not a known field; allowed here: status, persons")],
  },
  {
    name: "persons problems are reported with their paths",
    body: { status: "verified", persons: [{ naturalPerson: { name: { nameIdentifier: [] } } }] },
    issues: [issue("persons[0].naturalPerson.name.nameIdentifier", "nameIdentifier must hold at least one entry")],
  },
  { name: "persons empty", body: { status: "verified", persons: [] }, issues: [issue("persons", "persons must hold at least 1 person")] },
  {
    name: "IVMS101 transfer wrapping instead of persons",
    body: { status: "verified", originator: { originatorPersons: [minimalNatural()] } },
    issues: [
      issue("originator", "originator is not a known field; allowed here: status, persons"),
      issue("persons", "persons is required"),
    ],
  },
];

describe("validateIdentityBody", () => {
  for (const c of bodyCases) {
    test(c.name, () => {
      expect(validateIdentityBody(c.body)).toEqual(c.issues);
    });
  }

  test("applies C2 with the given today", () => {
    const body = { status: "verified", persons: natural((np) => { np.dateAndPlaceOfBirth = { dateOfBirth: "2026-12-01", placeOfBirth: "York" }; }) };
    expect(validateIdentityBody(body)).toEqual([]);
    expect(validateIdentityBody(body, { today: "2026-11-23" })).toEqual([
      issue("persons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth", "dateOfBirth must be a date in the past (IVMS101 C2)"),
    ]);
  });
});

describe("options", () => {
  for (const today of ["2026-02-30", "23/11/2026", "2026-11-23T00:00:00Z"]) {
    test(`a malformed today (${today}) is a programming error and throws`, () => {
      expect(() => validatePersons([minimalNatural()], { today })).toThrow(RangeError);
    });
  }
});

// ---- country list ----

describe("country codes", () => {
  test("the list holds the 249 ISO 3166-1 alpha-2 codes, each once, upper case", () => {
    expect(COUNTRY_CODES.length).toBe(249);
    expect(new Set(COUNTRY_CODES).size).toBe(249);
    expect(COUNTRY_CODES.every((c) => /^[A-Z]{2}$/.test(c))).toBe(true);
  });

  const table: [unknown, boolean][] = [
    ["GB", true], ["US", true], ["AX", true], ["SS", true], ["XK", false], ["XX", false],
    ["UK", false], ["EU", false], ["gb", false], ["GBR", false], ["", false], [null, false], ["__proto__", false],
  ];
  for (const [code, known] of table) {
    test(`isCountryCode(${JSON.stringify(code)}) is ${known}`, () => {
      expect(isCountryCode(code)).toBe(known);
    });
  }

  test("every listed code is accepted as a country of residence", () => {
    const refused = COUNTRY_CODES.filter((c) => validatePersons(natural((np) => { np.countryOfResidence = c; })).length > 0);
    expect(refused).toEqual([]);
  });
});

// ---- readers ----

describe("personNames", () => {
  const cases: { name: string; persons: Person[]; names: string[] }[] = [
    { name: "a natural person: legal name, family name first", persons: [fullNatural()], names: ["Smith, Alice Jane"] },
    { name: "a natural person without a secondary identifier", persons: [minimalNatural("Madonna")], names: ["Madonna"] },
    {
      name: "the LEGL name even when an alias comes first",
      persons: natural((np) => { np.name.nameIdentifier.unshift({ primaryIdentifier: "Ace", nameIdentifierType: "ALIA" }); }),
      names: ["Doe"],
    },
    { name: "a legal person's LEGL name, then its representatives", persons: [legal(), minimalNatural("Roe", "Richard")], names: ["Acme Trading Limited", "Roe, Richard"] },
    {
      name: "the LEGL legal name even when a trading name comes first",
      persons: legalWith((lp) => { lp.name.nameIdentifier.reverse(); }),
      names: ["Acme Trading Limited"],
    },
    { name: "no persons", persons: [], names: [] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(validatePersons(c.persons).length === 0 || c.persons.length === 0).toBe(true);
      expect(personNames(c.persons)).toEqual(c.names);
    });
  }
});

describe("personsCountry", () => {
  const cases: { name: string; persons: Person[]; country: string | null }[] = [
    { name: "a natural person's countryOfResidence", persons: [fullNatural()], country: "GB" },
    {
      name: "else the first address's country",
      persons: [(() => { const p = fullNatural(); delete p.naturalPerson.countryOfResidence; p.naturalPerson.geographicAddress.reverse(); return p; })()],
      country: "FR",
    },
    { name: "a natural person with neither", persons: [minimalNatural()], country: null },
    { name: "a legal person's countryOfRegistration", persons: legalWith((lp) => { lp.countryOfRegistration = "LU"; }), country: "LU" },
    { name: "else the legal person's address country", persons: legalWith((lp) => { delete lp.countryOfRegistration; }), country: "IE" },
    {
      name: "a representative's country never decides",
      persons: [legalWith((lp) => { delete lp.countryOfRegistration; delete lp.geographicAddress; })[0], fullNatural()],
      country: null,
    },
    { name: "no persons", persons: [], country: null },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(validatePersons(c.persons).length === 0 || c.persons.length === 0).toBe(true);
      expect(personsCountry(c.persons)).toBe(c.country);
    });
  }
});
