// Part 1 "PATCH /api/v2/transfers/{id}" bodies, checked in the route before the transfer actor is asked
// (src/http/transfers/patch.ts): each refusal with its code and details, each valid body as its typed action.
import { test, expect, describe } from "bun:test";
import { validateAction } from "../../src/http/transfers/patch.ts";
import { ApiError } from "../../src/domain/errors.ts";

function refusal(body: unknown): ApiError {
  try {
    validateAction(body);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error(`expected a refusal of ${JSON.stringify(body)}`);
}

const HASH = "0x" + "ab".repeat(32);

describe("the body and its action", () => {
  test("a body that is not a JSON object → 400 INVALID_REQUEST with action null and the allowed actions", () => {
    for (const body of [undefined, null, "accept", 3, ["accept"]]) {
      const e = refusal(body);
      expect([e.code, e.status]).toEqual(["INVALID_REQUEST", 400]);
      expect(e.details).toEqual({ action: null, allowedActions: ["accept", "reject", "retry"] });
    }
  });
  test("no action → INVALID_REQUEST 'An action is required'; an unknown one is named", () => {
    expect(refusal({}).message).toBe("An action is required");
    const e = refusal({ action: "cancel" });
    expect([e.code, e.message]).toEqual(["INVALID_REQUEST", 'Unknown action "cancel"']);
    expect(e.details).toEqual({ action: "cancel", allowedActions: ["accept", "reject", "retry"] });
  });
});

describe("accept", () => {
  test("a well-formed txHash is kept; none, an empty one or a non-string is ignored (null)", () => {
    expect(validateAction({ action: "accept", txHash: HASH })).toEqual({ action: "accept", txHash: HASH });
    for (const txHash of [undefined, "", 42, null]) expect(validateAction({ action: "accept", txHash })).toEqual({ action: "accept", txHash: null });
  });
  test("a malformed txHash → 400 VALIDATION_ERROR", () => {
    const e = refusal({ action: "accept", txHash: "0x1234" });
    expect([e.code, e.status]).toEqual(["VALIDATION_ERROR", 400]);
    expect(e.details).toEqual({ validationErrors: ["txHash: must be a 32-byte hexadecimal hash"] });
  });
});

describe("reject", () => {
  test("a missing reason → 400 MISSING_REQUIRED_FIELD naming the field", () => {
    const e = refusal({ action: "reject", status: "rejected" });
    expect([e.code, e.status]).toEqual(["MISSING_REQUIRED_FIELD", 400]);
    expect(e.details).toEqual({ field: "reason" });
  });
  test("every other problem at once → VALIDATION_ERROR listing each", () => {
    const e = refusal({ action: "reject", reason: "BECAUSE", details: "x".repeat(501) });
    expect(e.code).toBe("VALIDATION_ERROR");
    expect(e.details!.validationErrors).toEqual([
      "status: is required",
      "reason: must be one of BENE_NOT_FOUND, BENE_NAME_MISMATCH, SANCTIONS_MATCH, HIGH_RISK, COMPLIANCE_POLICY, INVALID_DATA, EXPIRED, OTHER",
      "details: must be at most 500 characters",
    ]);
    expect(refusal({ action: "reject", status: "pending", reason: "OTHER", details: 5 }).details!.validationErrors).toEqual(["status: must be rejected", "details: must be text"]);
  });
  test("details of exactly 500 characters (counted as characters, not bytes) are accepted", () => {
    const details = "é".repeat(500);
    expect(validateAction({ action: "reject", status: "rejected", reason: "HIGH_RISK", details })).toEqual({ action: "reject", reason: "HIGH_RISK", details });
    expect(validateAction({ action: "reject", status: "rejected", reason: "OTHER" })).toEqual({ action: "reject", reason: "OTHER", details: null });
  });
});

describe("retry", () => {
  test("a missing or empty reason is left to the actor (the state is checked first): reason null", () => {
    for (const reason of [undefined, null, ""]) expect(validateAction({ action: "retry", reason })).toEqual({ action: "retry", reason: null });
  });
  test("a reason that is not text → VALIDATION_ERROR", () => {
    const e = refusal({ action: "retry", reason: 7 });
    expect(e.code).toBe("VALIDATION_ERROR");
    expect(e.details).toEqual({ validationErrors: ["reason: must be a string"] });
  });
  test("a reason is kept as given", () => {
    expect(validateAction({ action: "retry", reason: "provider back up" })).toEqual({ action: "retry", reason: "provider back up" });
  });
});
