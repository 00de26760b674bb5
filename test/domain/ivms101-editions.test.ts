// IVMS101 editions: a counterparty's 2023 message is read in Caravan's 2020 spelling through the ivms101 package,
// and Caravan's persons are written in the 2023 spelling for a provider that documents it.
import { describe, expect, test } from "bun:test";
import { validate } from "ivms101";
import { editionOf, personsTo2023, readMessage, readSide } from "../../src/domain/ivms101/editions.ts";
import { validatePersons } from "../../src/domain/ivms101/index.ts";

// Written from the IVMS101.2023 text and Notabene's published examples, not produced by our encoder.
const message2023 = {
  originator: {
    originatorPerson: [{
      naturalPerson: {
        name: { nameIdentifier: [{ primaryIdentifier: "Nordmann", secondaryIdentifier: "Ola", naturalPersonNameIdentifierType: "LEGL" }] },
        customerIdentification: "c-77",
        countryOfResidence: "NO",
      },
    }],
    accountNumber: ["0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
  },
  beneficiary: {
    beneficiaryPerson: { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", naturalPersonNameIdentifierType: "LEGL" }] } } },
  },
  payloadMetadata: { payloadVersion: "101.2023" },
};

describe("IVMS101 editions", () => {
  test("a 2023 message is recognised by its payload version or its person keys", () => {
    expect(editionOf(message2023)).toBe("2023");
    expect(editionOf({ originator: { originatorPerson: [] } })).toBe("2023");
    expect(editionOf({ originator: { originatorPersons: [] } })).toBe("2020");
    expect(editionOf({})).toBeNull();
  });

  test("a 2023 message reads as valid 2020 persons (name type, customer identification)", () => {
    const read = readMessage(message2023);
    if (!read.ok) throw new Error(read.path);
    expect(read.edition).toBe("2023");
    const originator = read.value.originator!;
    expect(originator.accountNumber).toEqual(["0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"]);
    expect(originator.persons).toEqual([{
      naturalPerson: {
        name: { nameIdentifier: [{ primaryIdentifier: "Nordmann", secondaryIdentifier: "Ola", nameIdentifierType: "LEGL" }] },
        customerIdentification: "c-77",
        countryOfResidence: "NO",
      },
    }]);
    expect(validatePersons(originator.persons)).toEqual([]);
    // A single beneficiaryPerson object (as a decrypted read shows it) is a list of one.
    expect(read.value.beneficiary!.persons).toHaveLength(1);
    expect(read.value.beneficiary!.persons[0]!.naturalPerson!.name.nameIdentifier[0]!.nameIdentifierType).toBe("LEGL");
  });

  test("a 2020 side is read unchanged", () => {
    const persons = [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", nameIdentifierType: "LEGL" }] } } }];
    const read = readSide({ beneficiaryPersons: persons, accountNumber: ["a"] }, "beneficiary");
    expect(read).toEqual({ ok: true, edition: "2020", value: { persons: persons as never, accountNumber: ["a"] } });
  });

  test("a side in neither shape is refused with the field path", () => {
    expect(readSide({ originatorPerson: [{ naturalPerson: { name: "x" } }] }, "originator")).toEqual({
      ok: false,
      path: "originator.originatorPerson[0].naturalPerson.name.nameIdentifier",
    });
    expect(readSide({ beneficiaryPersons: "x" }, "beneficiary")).toEqual({ ok: false, path: "beneficiary.beneficiaryPersons" });
    expect(readSide({}, "beneficiary")).toEqual({ ok: false, path: "beneficiary.beneficiaryPersons" });
  });

  test("persons written in the 2023 spelling pass the ivms101 package's 2023 validation", () => {
    const persons = [{
      naturalPerson: {
        name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" as const }] },
        customerIdentification: "c-1",
        countryOfResidence: "NL" as const,
      },
    }];
    const out = personsTo2023(persons as never);
    expect(out[0]).toEqual({
      naturalPerson: {
        name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", naturalPersonNameIdentifierType: "LEGL" }] },
        customerIdentification: "c-1",
        countryOfResidence: "NL",
      },
    });
    const message = { originator: { originatorPerson: out, accountNumber: ["x"] }, beneficiary: { beneficiaryPerson: out }, payloadMetadata: { payloadVersion: "101.2023" } };
    expect(() => validate(message as never)).not.toThrow();
  });
});
