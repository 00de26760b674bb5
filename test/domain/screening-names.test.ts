// Part 3 "screening_c screening", name construction: natural person → first name identifier, secondary then primary;
// legal person → first legal name; the search term is trimmed and at most 255 characters.
import { test, expect, setDefaultTimeout } from "bun:test";
import { charCount, MAX_SEARCH_TERM_CHARS, screeningName, searchTerm } from "../../src/domain/screening/names.ts";
import type { Person } from "../../src/domain/ivms101/types.ts";

setDefaultTimeout(60_000);

const natural = (...ids: { primaryIdentifier: string; secondaryIdentifier?: string; nameIdentifierType: "LEGL" | "ALIA" | "BIRT" }[]): Person =>
  ({ naturalPerson: { name: { nameIdentifier: ids } } }) as Person;
const legal = (...names: { legalPersonName: string; legalPersonNameIdentifierType: "LEGL" | "TRAD" | "SHRT" }[]): Person =>
  ({ legalPerson: { name: { nameIdentifier: names } } }) as Person;

test.each([
  ["secondary then primary", natural({ primaryIdentifier: "Krasnov", secondaryIdentifier: "Viktor", nameIdentifierType: "LEGL" }), "Viktor Krasnov"],
  ["primary alone when there is no secondary", natural({ primaryIdentifier: "Madonna", nameIdentifierType: "LEGL" }), "Madonna"],
  ["an empty secondary is left out", natural({ primaryIdentifier: "Cher", secondaryIdentifier: "  ", nameIdentifierType: "LEGL" }), "Cher"],
  ["parts trimmed, joined by one space", natural({ primaryIdentifier: "  Dellarosa ", secondaryIdentifier: " Marco  ", nameIdentifierType: "LEGL" }), "Marco Dellarosa"],
  [
    "the FIRST name identifier, whatever its type (not the LEGL one listed later)",
    natural({ primaryIdentifier: "Smith", secondaryIdentifier: "Johnny", nameIdentifierType: "ALIA" }, { primaryIdentifier: "Smith", secondaryIdentifier: "John", nameIdentifierType: "LEGL" }),
    "Johnny Smith",
  ],
  ["legal person: first legal name", legal({ legalPersonName: "Orion Shipping Holdings", legalPersonNameIdentifierType: "LEGL" }, { legalPersonName: "Orion", legalPersonNameIdentifierType: "SHRT" }), "Orion Shipping Holdings"],
  ["legal person: first listed even when a trading name", legal({ legalPersonName: " Nightfall ", legalPersonNameIdentifierType: "TRAD" }, { legalPersonName: "Nightfall Trading FZE", legalPersonNameIdentifierType: "LEGL" }), "Nightfall"],
] as const)("%s", (_label, person, expected) => {
  expect(screeningName(person)).toBe(expected);
});

test("no name identifier gives an empty name, which is not searched", () => {
  expect(screeningName(natural())).toBe("");
  expect(searchTerm("")).toEqual({ ok: false, code: "EMPTY_NAME" });
  expect(searchTerm("   ")).toEqual({ ok: false, code: "EMPTY_NAME" });
});

test("search term: trimmed; 255 characters pass, 256 fail with NAME_TOO_LONG", () => {
  expect(MAX_SEARCH_TERM_CHARS).toBe(255);
  expect(searchTerm("  Viktor Krasnov\t")).toEqual({ ok: true, term: "Viktor Krasnov" });
  expect(searchTerm("a".repeat(255))).toEqual({ ok: true, term: "a".repeat(255) });
  expect(searchTerm(` ${"a".repeat(255)} `)).toEqual({ ok: true, term: "a".repeat(255) });
  expect(searchTerm("a".repeat(256))).toEqual({ ok: false, code: "NAME_TOO_LONG" });
});

test("characters are counted as code points: 255 astral characters pass though their UTF-16 length is 510", () => {
  const name = "𝒜".repeat(255);
  expect(name.length).toBe(510);
  expect(charCount(name)).toBe(255);
  expect(searchTerm(name).ok).toBe(true);
  expect(searchTerm(name + "𝒜")).toEqual({ ok: false, code: "NAME_TOO_LONG" });
});
