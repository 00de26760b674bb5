// provider_e, the last spec points (Part 3 "provider_e transfers", Part 2 case history): `reject` on an outgoing
// transfer the provider has, not held, is cancelled at the provider first (signed), as a blocking screening does,
// and refused unchanged when the provider refuses; an officer's rejection of a held transfer's case, which leaves it
// held, is recorded `transfer_not_updated` with `reject_refused`.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { person } from "../support/persons.ts";
import { PATH } from "../../src/adapters/providers/provider_e/wire.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const WAIT_ADDR = "0x" + "5c".repeat(20);
let s: Suite;

const patch = (id: string, json: Record<string, unknown>) => s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json });
const cancels = () => s.bridge.requests.filter((r) => r.path === PATH.cancel).length;

beforeAll(async () => {
  s = await startProviderESuite(dir, {
    allow: "BENEFVASP WAITVASP",
    bridge: {
      vasps: [
        { code: "BENEFVASP", name: "Bene Exchange", addresses: [BENE_ADDR] },
        { code: "WAITVASP", name: "Waiting Exchange", addresses: [WAIT_ADDR], decision: "none" },
      ],
    },
  });
});

afterAll(async () => {
  await s?.stop();
});

test("reject on an outgoing provider_e transfer awaiting the counterparty → cancelled at the provider (signed), then rejected with the caller's reason", async () => {
  const id = await s.create(BENE_ADDR);
  const t = await s.until(id, (x) => ["awaiting_counterparty", "failed", "rejected"].includes(x.state));
  expect(t.state).toBe("awaiting_counterparty");
  const before = cancels();
  const r = await patch(id, { action: "reject", status: "rejected", reason: "COMPLIANCE_POLICY", details: "Customer withdrew the order" });
  expect(r.status).toBe(200);
  expect(r.body.data.state).toBe("rejected");
  expect(r.body.meta).toMatchObject({ action: "reject", previousState: "awaiting_counterparty" });
  expect(cancels()).toBe(before + 1);
  // The bridge takes a cancel only with a signature verifying under our directory key.
  const at = s.bridge.transfers.get(t.cascade.externalId)!.data;
  expect(at.permission_status).toBe("CANCELED");
  expect(at.cancel_signature).toMatch(/^[0-9a-f]{128}$/);
  const after = await s.until(id, () => true);
  expect(after.rejection).toMatchObject({ reason: "COMPLIANCE_POLICY" });
  expect(after.status.ours).toBe("rejected");
});

test("reject on an exchanging provider_e transfer the provider refuses to cancel → 400 INVALID_REQUEST with the provider's code, unchanged", async () => {
  const id = await s.create(WAIT_ADDR);
  const t = await s.until(id, (x) => x.state === "exchanging" && x.cascade.externalId !== null);
  s.bridge.setRouteFault(PATH.cancel, { status: 500 });
  try {
    const r = await patch(id, { action: "reject", status: "rejected", reason: "OTHER" });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("INVALID_REQUEST");
    expect(r.body.error).toContain("HTTP_500");
  } finally {
    s.bridge.setRouteFault(PATH.cancel, null);
  }
  expect((await s.until(id, () => true)).state).toBe("exchanging");
  expect(s.bridge.transfers.get(t.cascade.externalId)!.data.permission_status).toBeNull();
  // With the provider back, the same reject cancels it there and rejects it here.
  const again = await patch(id, { action: "reject", status: "rejected", reason: "OTHER" });
  expect(again.status).toBe(200);
  expect(again.body.data.state).toBe("rejected");
  expect(s.bridge.transfers.get(t.cascade.externalId)!.data.permission_status).toBe("CANCELED");
});

test("a held provider_e transfer's case resolved as rejected leaves it held: history transfer_not_updated with reject_refused", async () => {
  const rule = await s.call("/api/v2/rules", { method: "POST", key: s.owner, json: { name: "Review every counterparty", category: "aml", stage: "postcheck", action: "require_review" } });
  expect(rule.status).toBe(201);
  let id: string;
  try {
    const r = await s.bridge.sendPermissionRequest({ from: "BENEFVASP", originatorPersons: [person("Roe", "Richard", "DE")], beneficiaryPersons: [person("Doe", "Jane")], originatorAddress: "0x" + "11".repeat(20), beneficiaryAddress: ORIGIN_ADDR });
    expect(r.status).toBe(200);
    id = (await s.call(`/api/v2/transfers?direction=incoming&search=${r.transferId}`, { key: s.owner })).body.data[0].id;
    await s.until(id, (x) => x.state === "held");
  } finally {
    expect((await s.call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: s.owner, json: { isActive: false } })).status).toBe(200);
  }
  const cases = (await s.call("/api/v2/cases?hasTransfer=true&limit=200", { key: s.owner })).body.data as { id: string; transferIds: string[] }[];
  const c = cases.find((x) => x.transferIds.includes(id))!;
  expect(c).toBeDefined();
  const resolved = await s.call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: s.owner, json: { resolution: "rejected", resolutionNote: "Not ours to carry" } });
  expect(resolved.status).toBe(200);
  let entries: { action: string; field: string | null; newValue: string | null }[] = [];
  for (let i = 0; i < 200 && !entries.some((h) => h.action.startsWith("transfer_")); i++) {
    entries = (await s.call(`/api/v2/cases/${c.id}/history?limit=100`, { key: s.owner })).body.data;
    await Bun.sleep(50);
  }
  const outcome = entries.filter((h) => h.action.startsWith("transfer_"));
  expect(outcome).toEqual([expect.objectContaining({ action: "transfer_not_updated", newValue: "reject_refused" })]);
  expect((await s.until(id, () => true)).state).toBe("held");
});
