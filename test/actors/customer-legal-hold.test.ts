// The customer actor's legal hold (the command the CLI's `customers hold` sends): on the server's own runtime, a hold
// refuses the erasure until it is released, each request is written and audited, and an unknown customer is refused.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { startService, type RunningService } from "../../src/services.ts";
import { newId } from "../../src/domain/ids.ts";
import type { Outcome } from "../../src/actors/customer.ts";

const dir = tempDir();
let svc: RunningService;
let companyId: string;
const ask = (customerId: string, msg: Record<string, unknown>) =>
  svc.runtime.ask<Outcome<any>>(`customer:${customerId}`, { ...msg, companyId, environment: "test", actor: { type: "system" } });

beforeAll(async () => {
  svc = await startService({ dbPath: join(dir, "hold.db"), host: "127.0.0.1", port: 0, logLevel: "silent", env: {} });
  companyId = (await svc.tenancy.requireCompany("default")).id;
});
afterAll(async () => {
  await svc?.stop();
});

test("setLegalHold: the erasure is refused while held and works once released; every request is audited", async () => {
  const cus = newId("cus", Date.now());
  expect(await ask(cus, { type: "create", input: { externalId: null, name: null, metadata: null, hasMetadata: false } })).toMatchObject({ ok: true });
  expect(await ask(cus, { type: "setLegalHold", hold: true })).toEqual({ ok: true, data: { id: cus, environment: "test", legalHold: true } });
  expect(await ask(cus, { type: "setLegalHold", hold: true })).toMatchObject({ ok: true, data: { legalHold: true } });
  expect(svc.storage.stmt("SELECT legal_hold, version FROM customers WHERE id = ?").get(cus)).toEqual({ legal_hold: 1, version: 3 });
  expect(await ask(cus, { type: "erase", reason: "asked" })).toMatchObject({ ok: false, code: "LEGAL_HOLD" });

  expect(await ask(cus, { type: "setLegalHold", hold: false })).toEqual({ ok: true, data: { id: cus, environment: "test", legalHold: false } });
  expect(await ask(cus, { type: "erase", reason: "asked" })).toMatchObject({ ok: true, data: { id: cus } });

  const audit = svc.storage.stmt("SELECT action, actor_type, member_id, detail FROM audit_log WHERE entity_id = ? ORDER BY seq").all(cus);
  expect(audit).toEqual([
    { action: "customer.created", actor_type: "system", member_id: null, detail: JSON.stringify({ externalId: false }) },
    { action: "customer.legal_hold_set", actor_type: "system", member_id: null, detail: "{}" },
    { action: "customer.legal_hold_set", actor_type: "system", member_id: null, detail: "{}" },
    { action: "customer.legal_hold_released", actor_type: "system", member_id: null, detail: "{}" },
    { action: "customer.erased", actor_type: "system", member_id: null, detail: "{}" },
  ]);
});

test("setLegalHold: an unknown customer is refused", async () => {
  const cus = newId("cus", Date.now());
  expect(await ask(cus, { type: "setLegalHold", hold: true })).toMatchObject({ ok: false, code: "CUSTOMER_NOT_FOUND" });
});
