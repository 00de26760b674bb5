// The API contract restates the values and limits it publishes (it imports nothing from the server): each one must
// be the value the server's own rules use, so a change on one side without the other fails here.
import { test, expect } from "bun:test";
import * as api from "../../src/api/index.ts";
import * as cases from "../../src/domain/cases.ts";
import * as rules from "../../src/domain/rules/types.ts";
import * as thresholds from "../../src/domain/thresholds.ts";
import * as webhooks from "../../src/domain/webhooks.ts";
import * as reports from "../../src/domain/reports/report.ts";
import * as transfers from "../../src/domain/transfers.ts";
import { IDENTITY_STATUSES } from "../../src/domain/ivms101/codes.ts";
import { NOTES_MAX } from "../../src/domain/providers/catalog.ts";
import { ERRORS } from "../../src/domain/errors.ts";
import type { BodyOf } from "../../src/http/kit.ts";

const pick = <T extends Record<string, unknown>>(o: T, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

test("error codes: the contract's list is the catalogue's, in the same order", () => {
  expect([...api.ERROR_CODES]).toEqual(Object.keys(ERRORS) as never);
});

test("transfers and customers: states, protocols, reject reasons and identity statuses are the domain's", () => {
  expect([...api.TRANSFER_STATES]).toEqual([...transfers.TRANSFER_STATES]);
  expect([...api.PROTOCOLS]).toEqual([...transfers.PROTOCOLS]);
  expect([...api.REJECT_REASONS]).toEqual([...transfers.REJECT_REASONS]);
  expect([...api.IDENTITY_STATUSES]).toEqual([...IDENTITY_STATUSES]);
});

test("cases: types, categories, priorities, statuses, resolutions and limits are the domain's", () => {
  expect([...api.CASE_TYPES]).toEqual([...cases.CASE_TYPES]);
  expect([...api.CASE_CATEGORIES]).toEqual([...cases.CASE_CATEGORIES]);
  expect([...api.CASE_PRIORITIES]).toEqual([...cases.CASE_PRIORITIES]);
  expect([...api.CASE_STATUSES]).toEqual([...cases.CASE_STATUSES]);
  expect([...api.CASE_RESOLUTIONS]).toEqual([...cases.CASE_RESOLUTIONS]);
  expect(api.CASE_LIMITS).toEqual(cases.CASE_LIMITS);
});

test("rules: every choice and limit is the domain's", () => {
  for (const k of ["RULE_CATEGORIES", "RULE_STAGES", "RULE_ACTIONS", "RULE_SEVERITIES", "THRESHOLD_OPERATORS", "BRANCH_TYPES", "BRANCH_OPERATORS", "SUBJECT_MATCHES"] as const)
    expect({ k, v: [...api[k]] }).toEqual({ k, v: [...rules[k]] });
  expect(api.RULE_LIMITS).toEqual(pick(rules.LIMITS, Object.keys(api.RULE_LIMITS)) as never);
});

test("thresholds: currency codes, types and limits are the domain's", () => {
  expect([...api.CURRENCY_CODES].sort()).toEqual([...thresholds.CURRENCY_CODES].sort());
  expect(api.THRESHOLD_LIMITS).toEqual(pick(thresholds.LIMITS, Object.keys(api.THRESHOLD_LIMITS)) as never);
  expect(["tr", "str"]).toEqual([...thresholds.THRESHOLD_TYPES]);
});

test("webhooks: event types, statuses and limits are the domain's", () => {
  expect<string[]>([...api.EVENT_TYPES]).toEqual([...webhooks.EVENT_TYPES]);
  expect<string[]>([...api.SUBSCRIBABLE_EVENTS]).toEqual([...webhooks.SUBSCRIBABLE_EVENTS]);
  expect([...api.WEBHOOK_STATUSES]).toEqual([...webhooks.WEBHOOK_STATUSES]);
  expect([...api.DELIVERY_STATUSES]).toEqual([...webhooks.DELIVERY_STATUSES]);
  expect(api.WEBHOOK_LIMITS).toEqual(pick(webhooks.LIMITS, Object.keys(api.WEBHOOK_LIMITS)) as never);
});

test("reports and provider settings: kinds, statuses and limits are the domain's", () => {
  expect([...api.REPORT_KINDS]).toEqual([...reports.REPORT_KINDS]);
  expect([...api.REPORT_STATUSES]).toEqual([...reports.REPORT_STATUSES]);
  expect(api.REPORT_LIMITS).toEqual(pick(reports.REPORT_LIMITS, Object.keys(api.REPORT_LIMITS)) as never);
  expect(api.PROVIDER_NOTES_MAX).toBe(NOTES_MAX);
});

test("a route's body type: the contract's static type when the kit checks the schema, the reader's type when the route reads it", () => {
  const validated: BodyOf<typeof api.FileReport> = { reference: "FIU-1" };
  // @ts-expect-error a field the contract does not name (`bun run check` fails if this line type-checks)
  const extra: BodyOf<typeof api.FileReport> = { reference: "FIU-1", other: 1 };
  const own: BodyOf<typeof api.CreateCase, number> = 42;
  const none: BodyOf<undefined> = "anything";
  expect([validated.reference, extra.reference, own, none]).toEqual(["FIU-1", "FIU-1", 42, "anything"]);
});
