// Part 1 "POST /api/v2/transfers" decided without I/O: the originator checks, the preferred protocol, the threshold
// outcome and the expiry (src/domain/transfers/create.ts).
import { test, expect, describe } from "bun:test";
import { decideCreate, EXPIRY_MS, readsCapabilities, type CreateFacts, type ProviderVerdict } from "../../src/domain/transfers/create.ts";
import type { CreateTransferInput } from "../../src/domain/transfers.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const input: CreateTransferInput = {
  asset: "USDC",
  amount: "1500.25",
  network: "ethereum",
  originatorCustomerId: "cus_1",
  originatorAddress: null,
  beneficiaryAddress: "0xabc",
  originatorPersons: [],
  beneficiaryPersons: [],
  preferredProtocol: null,
  isUnhostedWallet: false,
};
const threshold = { amount: "1000", currency: "EUR", jurisdiction: "EU", regulation: "TFR" };
const none: ProviderVerdict[] = [{ provider: "provider_b", ok: false, reason: "provider_b is not enabled" }];
const carried: ProviderVerdict[] = [{ provider: "provider_a", ok: false, reason: "provider_a is not enabled" }, { provider: "provider_b", ok: true }];

function facts(over: Omit<Partial<CreateFacts>, "input"> & { value?: string; input?: Partial<CreateTransferInput> } = {}): CreateFacts {
  const { value, input: i, ...rest } = over;
  return {
    input: { ...input, ...i },
    customer: { id: "cus_1", status: "active" },
    originatorWallet: null,
    capabilities: () => carried,
    valuation: { fxRateId: "fx_1", value: value ?? "1400.00" },
    threshold,
    now: NOW,
    ...rest,
  };
}

const refusal = (f: CreateFacts) => {
  const d = decideCreate(f);
  if (d.ok) throw new Error("expected a refusal");
  expect(d.code).toBe("VALIDATION_ERROR");
  expect(d.details).toEqual({ schemaName: "create-transfer" });
  return d.message;
};

describe("the originator", () => {
  test("an unknown originator customer → VALIDATION_ERROR", () => {
    expect(refusal(facts({ customer: undefined }))).toBe("The originator customer is unknown in this environment");
  });
  test("a deactivated originator customer → VALIDATION_ERROR", () => {
    expect(refusal(facts({ customer: { id: "cus_1", status: "deactivated" } }))).toBe("The originator customer is deactivated");
  });
  test("an originatorAddress registered to no one or to another customer → VALIDATION_ERROR", () => {
    const other = { customerId: "cus_2" };
    for (const w of [undefined, other]) expect(refusal(facts({ originatorWallet: w }))).toBe("originatorAddress is not a wallet registered to the originator customer");
  });
  test("an originatorAddress registered to the originator is accepted", () => {
    expect(decideCreate(facts({ originatorWallet: { customerId: "cus_1" } })).ok).toBe(true);
  });
});

describe("the threshold outcome", () => {
  test("below the threshold → completed, no expiry, thresholdInfo and fxRateId recorded", () => {
    const d = decideCreate(facts({ value: "999.99", capabilities: () => none }));
    expect(d).toEqual({
      ok: true,
      outcome: "completed",
      thresholdInfo: { amount: "1500.25", asset: "USDC", threshold: "1000", thresholdCurrency: "EUR", jurisdiction: "EU", regulation: "TFR" },
      fxRateId: "fx_1",
      expiresAt: null,
    });
  });
  test("at the threshold exactly → queued, expiring 24 hours after creation", () => {
    const d = decideCreate(facts({ value: "1000" }));
    expect(d.ok && d.outcome).toBe("queued");
    expect(d.ok && d.expiresAt).toBe(new Date(NOW + EXPIRY_MS).toISOString());
    expect(d.ok && d.expiresAt).toBe("2026-03-02T10:00:00.000Z");
  });
  test("decimal comparison, not floating point: 1000.0000000000000000001 is above 1000", () => {
    const above = decideCreate(facts({ value: "1000.0000000000000000001" }));
    expect(above.ok && above.outcome).toBe("queued");
    const below = decideCreate(facts({ value: "999.9999999999999999999", capabilities: () => none }));
    expect(below.ok && below.outcome).toBe("completed");
  });
  test("at or above the threshold with no provider able to carry it → VALIDATION_ERROR naming the reasons", () => {
    expect(refusal(facts({ capabilities: () => none }))).toBe("No enabled provider is able to carry the transfer (provider_b is not enabled)");
  });
  test("below the threshold without a preferred protocol the providers are not asked", () => {
    let asked = 0;
    const d = decideCreate(facts({ value: "10", capabilities: () => (asked++, none) }));
    expect(d.ok).toBe(true);
    expect(asked).toBe(0);
  });
});

describe("preferredProtocol", () => {
  test("a preferred protocol that cannot carry it is refused even below the threshold", () => {
    const f = facts({ value: "10", input: { preferredProtocol: "provider_a" } });
    expect(refusal(f)).toBe("preferredProtocol provider_a cannot carry the transfer: provider_a is not enabled");
  });
  test("a preferred protocol missing from the verdicts is refused as not enabled", () => {
    expect(refusal(facts({ input: { preferredProtocol: "provider_e" } }))).toBe("preferredProtocol provider_e cannot carry the transfer: not enabled");
  });
  test("a capable preferred protocol is accepted; the providers are asked once", () => {
    let asked = 0;
    const d = decideCreate(facts({ input: { preferredProtocol: "provider_b" }, capabilities: () => (asked++, carried) }));
    expect(d.ok && d.outcome).toBe("queued");
    expect(asked).toBe(1);
  });
});

describe("readsCapabilities: the providers' verdicts are read before deciding exactly when the decision asks for them", () => {
  for (const [value, preferredProtocol, reads] of [
    ["10", null, false],
    ["999.9999999999999999999", null, false],
    ["1000", null, true],
    ["1400.00", null, true],
    ["10", "provider_b", true],
  ] as const) {
    test(`value ${value}, preferred protocol ${preferredProtocol ?? "none"}: ${reads ? "read" : "not read"}`, () => {
      const f = facts({ value, input: { preferredProtocol } });
      expect(readsCapabilities(f)).toBe(reads);
      let asked = 0;
      decideCreate({ ...f, capabilities: () => (asked++, carried) });
      expect(asked > 0).toBe(reads);
    });
  }
});
