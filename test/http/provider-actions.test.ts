// PATCH actions on provider-carried transfers (Part 1 "reject" body, Part 3 provider_e held incoming decisions): the
// reject body is checked before a provider's flow is asked, so an invalid reject never reaches the provider, and a
// valid one keeps its free-text details on the rejection (sealed, masked without pii:view, out of the audit log).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { person } from "../support/persons.ts";
import { PATH } from "../../src/adapters/providers/provider_e/wire.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
let s: Suite;
let analyst: string;

const incoming = () => ({ from: "BENEFVASP", originatorPersons: [person("Roe", "Richard", "DE")], beneficiaryPersons: [person("Doe", "Jane")], originatorAddress: "0x" + "11".repeat(20), beneficiaryAddress: ORIGIN_ADDR });
const byExternal = async (externalId: string) => (await s.call(`/api/v2/transfers?direction=incoming&search=${externalId}`, { key: s.owner })).body.data[0];
const patch = (id: string, json: Record<string, unknown>) => s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json });
const decisionsSent = () => s.bridge.requests.filter((r) => r.path === PATH.permission).length;

beforeAll(async () => {
  s = await startProviderESuite(dir, { allow: "BENEFVASP", bridge: { vasps: [{ code: "BENEFVASP", name: "Bene Exchange", addresses: ["0x" + "22".repeat(20)] }] } });
  analyst = (await s.newKey("--env", "test", "--role", "analyst")).key;
});

afterAll(async () => {
  await s?.stop();
});

/** An incoming provider_e transfer held for review (verdict pending): nothing decided at the provider yet. */
async function heldIncoming(): Promise<{ id: string; pid: string }> {
  const rule = await s.call("/api/v2/rules", { method: "POST", key: s.owner, json: { name: "Review every counterparty", category: "aml", stage: "postcheck", action: "require_review" } });
  expect(rule.status).toBe(201);
  try {
    const r = await s.bridge.sendPermissionRequest(incoming());
    expect(r.status).toBe(200);
    const id = (await byExternal(r.transferId)).id;
    const t = await s.until(id, (x) => x.state === "held");
    expect(s.bridge.transfers.get(r.transferId)!.data.permission_status).toBeNull();
    return { id, pid: r.transferId };
  } finally {
    expect((await s.call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: s.owner, json: { isActive: false } })).status).toBe(200);
  }
}

test("held incoming provider_e reject with an invalid body → 400 (MISSING_REQUIRED_FIELD / VALIDATION_ERROR), nothing sent to the bridge, still held", async () => {
  const { id, pid } = await heldIncoming();
  const before = decisionsSent();

  const noReason = await patch(id, { action: "reject", status: "rejected" });
  expect(noReason.status).toBe(400);
  expect(noReason.body.code).toBe("MISSING_REQUIRED_FIELD");
  expect(noReason.body.details.field).toBe("reason");

  const badReason = await patch(id, { action: "reject", status: "rejected", reason: "NOT_A_REASON" });
  expect(badReason.status).toBe(400);
  expect(badReason.body.code).toBe("VALIDATION_ERROR");
  expect(badReason.body.details.validationErrors.some((e: string) => e.startsWith("reason:"))).toBe(true);

  const noStatus = await patch(id, { action: "reject", reason: "OTHER" });
  expect(noStatus.status).toBe(400);
  expect(noStatus.body.code).toBe("VALIDATION_ERROR");
  expect(noStatus.body.details.validationErrors.some((e: string) => e.startsWith("status:"))).toBe(true);

  const otherStatus = await patch(id, { action: "reject", status: "accepted", reason: "OTHER" });
  expect(otherStatus.status).toBe(400);
  expect(otherStatus.body.code).toBe("VALIDATION_ERROR");

  const longDetails = await patch(id, { action: "reject", status: "rejected", reason: "OTHER", details: "x".repeat(501) });
  expect(longDetails.status).toBe(400);
  expect(longDetails.body.code).toBe("VALIDATION_ERROR");
  expect(longDetails.body.details.validationErrors.some((e: string) => e.startsWith("details:"))).toBe(true);

  const badHash = await patch(id, { action: "accept", txHash: "0x1234" });
  expect(badHash.status).toBe(400);
  expect(badHash.body.code).toBe("VALIDATION_ERROR");

  expect(decisionsSent()).toBe(before);
  expect(s.bridge.transfers.get(pid)!.data.permission_status).toBeNull();
  const t = await s.until(id, () => true);
  expect(t.state).toBe("held");
  expect(t.rejection).toBeNull();
});

test("held incoming provider_e reject with a valid body: REJECTED sent, rejected with the reason; details kept (masked for an analyst, out of the audit log)", async () => {
  const { id, pid } = await heldIncoming();
  const details = `Adverse media on the originator ${crypto.randomUUID()}`;
  const r = await patch(id, { action: "reject", status: "rejected", reason: "HIGH_RISK", details });
  expect(r.status).toBe(200);
  expect(r.body.data.state).toBe("rejected");
  expect(r.body.meta).toMatchObject({ action: "reject", previousState: "held" });
  expect(s.bridge.transfers.get(pid)!.data.permission_status).toBe("REJECTED");

  const owner = await s.call(`/api/v2/transfers/${id}`, { key: s.owner });
  expect(owner.body.data.rejection).toEqual({ reason: "HIGH_RISK", details });
  const masked = await s.call(`/api/v2/transfers/${id}`, { key: analyst });
  expect(masked.status).toBe(200);
  expect(masked.body.data.rejection).toEqual({ reason: "HIGH_RISK", details: "***" });
  expect(JSON.stringify(masked.body)).not.toContain(details);

  const audit = await s.call(`/api/v2/audit-log?entityId=${id}&limit=200`, { key: s.owner });
  expect(audit.status).toBe(200);
  expect(audit.body.data.some((e: { action: string }) => e.action === "transfer.rejected")).toBe(true);
  expect(JSON.stringify(audit.body)).not.toContain(details);
});
