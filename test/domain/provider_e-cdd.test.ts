// provider_e information requests, the pure rules (Part 1 "Information requests", Part 3 "→ Information requests").
import { test, expect } from "bun:test";
import { directionFits, draftAnswer, fieldsKey, maskDeep, MAX_INFORMATION_BYTES, readCddAction, reviewRefusal, type CddRecord } from "../../src/domain/provider_e/cdd.ts";

const rec = (r: Partial<CddRecord>): CddRecord => ({ id: "m", wireId: "w", direction: "inbound", type: "REQUEST_CDD", status: "received", inReplyToId: null, idempotencyKey: null, sealed: "", createdAt: "", reviewedAt: null, ...r });
const KEY = "0f8fad5b-d9cb-469f-a165-70867728950e";

test("request fields: at least one of the listed items, lists of their fields, flags true, other_cdd_info text", () => {
  expect(readCddAction({ action: "request", idempotencyKey: KEY, fields: { country_of_residence: true } }).ok).toBe(true);
  for (const fields of [{}, { country_of_residence: false }, { geographic_address: [] }, { geographic_address: ["street"] }, { other_cdd_info: "" }, { passport: true }]) {
    const r = readCddAction({ action: "request", idempotencyKey: KEY, fields });
    expect(r.ok, JSON.stringify(fields)).toBe(false);
  }
});

test("information: a JSON object of at most 50 KB (50 × 1024 bytes of JSON)", () => {
  const at = (n: number) => readCddAction({ action: "post", idempotencyKey: KEY, information: { t: "x".repeat(n - 8) } });
  expect(at(MAX_INFORMATION_BYTES).ok).toBe(true);
  expect(at(MAX_INFORMATION_BYTES + 1).ok).toBe(false);
  expect(readCddAction({ action: "post", idempotencyKey: KEY, information: [1] }).ok).toBe(false);
});

test("the same fields in another order are the same request", () => {
  expect(fieldsKey({ geographic_address: ["country", "town_name"], customer_identification: true })).toBe(fieldsKey({ customer_identification: true, geographic_address: ["town_name", "country"] }));
  expect(fieldsKey({ country_of_residence: true })).not.toBe(fieldsKey({ customer_identification: true }));
});

test("direction: incoming asks and receives answers; outgoing receives requests and replies or posts", () => {
  expect(directionFits("incoming", "request", false)).toBe(true);
  expect(directionFits("incoming", "reply", false)).toBe(false);
  expect(directionFits("outgoing", "post", false)).toBe(true);
  expect(directionFits("outgoing", "REQUEST_CDD", true)).toBe(true);
  expect(directionFits("outgoing", "RESPOND_CDD", true)).toBe(false);
  expect(directionFits("incoming", "REQUEST_CDD", true)).toBe(false);
});

test("review: every unreviewed message listed, then delivery, then answers", () => {
  const req = rec({ id: "r1" });
  expect(reviewRefusal([req], [])?.code).toBe("CDD_REVIEW_CHANGED");
  expect(reviewRefusal([req], ["r1"])?.code).toBe("CDD_RESPONSE_REQUIRED");
  const reply = rec({ id: "a1", direction: "outbound", type: "RESPOND_CDD", status: "queued", inReplyToId: "r1" });
  expect(reviewRefusal([req, reply], ["r1"])?.code).toBe("CDD_DELIVERY_PENDING");
  expect(reviewRefusal([req, { ...reply, status: "sent" }], ["r1"])).toBeNull();
});

test("the draft answer comes from the identity's first person; what it lacks is missing", () => {
  const identity = [{ naturalPerson: { name: { nameIdentifier: [] }, geographicAddress: [{ addressType: "HOME", townName: "Utrecht", country: "NL" }], customerIdentification: "C-1" } }] as never;
  expect(draftAnswer({ geographic_address: ["town_name", "street_name"], customer_identification: true, date_and_place_of_birth: ["date_of_birth"], other_cdd_info: "why?" }, identity)).toEqual({
    information: { geographic_address: { town_name: "Utrecht" }, customer_identification: "C-1" },
    missing: ["date_and_place_of_birth", "other_cdd_info"],
  });
});

test("masking keeps the shape and hides every text and number", () => {
  expect(maskDeep({ a: "Jane", b: [1, true], c: { d: null } })).toEqual({ a: "***", b: ["***", true], c: { d: null } });
});
