// provider_e's pure rules (Part 3 "provider_e transfers", incoming): the originator-sent beneficiary persons match the
// verified identity by type and name, ignoring case, spaces and punctuation (the shared name matching of
// domain/provider_b/names.ts, given and family names in either order, local names too); a single legal person is
// matched with the identity's first person. The permission callback token compares in constant time.
import { test, expect } from "bun:test";
import { beneficiaryNamesMatch, permissionToken, tokenMatches } from "../../src/domain/provider_e/rules.ts";
import type { Person } from "../../src/domain/ivms101/index.ts";
import { person } from "../support/persons.ts";

const legal = (name: string, local?: string): Person =>
  ({ legalPerson: { name: { nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: "LEGL" }], ...(local ? { localNameIdentifier: [{ legalPersonName: local, legalPersonNameIdentifierType: "LEGL" }] } : {}) } } }) as Person;
const localOnly = (family: string, given: string): Person =>
  ({ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "X", secondaryIdentifier: "Y", nameIdentifierType: "LEGL" }], localNameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] } } }) as Person;

test("natural persons: case, spaces, punctuation and name order ignored; another name or type does not match", () => {
  const identity = [person("O'Brien-Smith", "Jane Ann")];
  expect(beneficiaryNamesMatch([person("obrien smith", "JANE-ANN")], identity)).toBe(true);
  expect(beneficiaryNamesMatch([person("Jane Ann", "O'Brien Smith")], identity)).toBe(true);
  expect(beneficiaryNamesMatch([person("Doe", "Jane")], identity)).toBe(false);
  expect(beneficiaryNamesMatch([legal("O'Brien-Smith Jane Ann")], identity)).toBe(false);
  // Accents are letters: a dropped accent is another name.
  expect(beneficiaryNamesMatch([person("Muller", "Jan")], [person("Müller", "Jan")])).toBe(false);
});

test("every person sent must match one of the identity's; nothing sent or no identity never matches", () => {
  const identity = [person("Doe", "Jane"), person("Roe", "Richard")];
  expect(beneficiaryNamesMatch([person("Roe", "Richard"), person("Doe", "Jane")], identity)).toBe(true);
  expect(beneficiaryNamesMatch([person("Doe", "Jane"), person("Lee", "Bob")], identity)).toBe(false);
  expect(beneficiaryNamesMatch([], identity)).toBe(false);
  expect(beneficiaryNamesMatch([person("Doe", "Jane")], [])).toBe(false);
});

test("a single legal person is matched with the identity's first person only", () => {
  expect(beneficiaryNamesMatch([legal("ACME Holdings, Ltd.")], [legal("Acme Holdings Ltd"), person("Doe", "Jane")])).toBe(true);
  expect(beneficiaryNamesMatch([legal("Acme Holdings Ltd")], [person("Doe", "Jane"), legal("Acme Holdings Ltd")])).toBe(false);
  // Empty names never match each other.
  expect(beneficiaryNamesMatch([legal("")], [legal("")])).toBe(false);
});

test("local names (localNameIdentifier) are names too, on either side", () => {
  expect(beneficiaryNamesMatch([person("山田", "太郎")], [localOnly("山田", "太郎")])).toBe(true);
  expect(beneficiaryNamesMatch([localOnly("Doe", "Jane")], [person("Doe", "Jane")])).toBe(true);
  expect(beneficiaryNamesMatch([legal("Acme KK", "株式会社アクメ")], [legal("株式会社 アクメ")])).toBe(true);
});

test("the permission token matches only itself", () => {
  const key = "11".repeat(32);
  const t = permissionToken(key, "trf_1");
  expect(tokenMatches(key, "trf_1", t)).toBe(true);
  expect(tokenMatches(key, "trf_1", t.slice(0, -1))).toBe(false);
  expect(tokenMatches(key, "trf_1", t.slice(0, -1) + (t.endsWith("0") ? "1" : "0"))).toBe(false);
  expect(tokenMatches(key, "trf_2", t)).toBe(false);
  expect(tokenMatches("22".repeat(32), "trf_1", t)).toBe(false);
});
