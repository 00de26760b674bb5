// The scene the console's end-to-end tests work in, on either engine: provider_b and screening_c configured in both
// environments and switched on, Caravan registered with the provider_b sandbox, a customer with a verified identity
// and a wallet, and a rule that holds a transfer to a watch-listed name for review (test/console-e2e.test.ts on
// SQLite, test/console-postgres-e2e.test.ts on PostgreSQL).
import { expect } from "bun:test";
import type { apiClient } from "./api.ts";
import type { ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { publicKeyBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { SANDBOX_API_KEY } from "../../src/sandbox/screening_c/index.ts";
import { JANE, VIKTOR } from "./persons.ts";

export const ORIGIN_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
export const VIKTOR_ADDR = "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb";

type Call = ReturnType<typeof apiClient>["call"];

/** Sets the scene up over the API; answers the customer's and the rule's IDs. */
export async function setUpHeldScene(o: { call: Call; owner: string; live: string; serverUrl: string; peer: ProviderBPeer; seed: string; entityId: string }): Promise<{ customerId: string; ruleId: string }> {
  const { call, owner, live } = o;
  const credentials = { apiUrl: o.peer.url, vaspEntityId: o.entityId, privateKey: o.seed, legalName: "Caravan Test VASP", country: "NL" };
  // Settings are per environment; enabling is a live-key change (Part 2), as in test/http/screening-checkpoints.test.ts.
  for (const key of [owner, live]) {
    expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
    expect((await call("/api/v2/integrations/screening_c", { method: "PUT", key, json: { credentials: { apiKey: SANDBOX_API_KEY } } })).status).toBe(201);
  }
  for (const path of ["/api/v2/providers/provider_b", "/api/v2/integrations/screening_c"])
    expect((await call(path, { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  const C = (await call("/api/v2/integrations/screening_c", { key: owner })).body.data.id;
  o.peer.registerCaravan({ entityId: o.entityId, publicKeyBase64: publicKeyBase64(o.seed), callbackBaseUrl: o.serverUrl, legalName: "Caravan Test VASP", country: "NL" });
  const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
  expect(c.status).toBe(201);
  const customerId = c.body.data.id as string;
  expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
  expect((await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } })).status).toBe(201);
  const rule = await call("/api/v2/rules", {
    method: "POST",
    key: owner,
    json: {
      name: "Watch-list name hit",
      category: "sanctions",
      stage: "precheck",
      action: "require_review",
      condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "require_review" }] },
    },
  });
  expect({ status: rule.status, body: rule.status === 201 ? null : rule.body }).toEqual({ status: 201, body: null });
  return { customerId, ruleId: rule.body.data.id };
}

/** A transfer to the watch-listed beneficiary (the rule holds it at precheck and opens a case): POST it, answer its ID. */
export async function postHeldTransfer(call: Call, owner: string, customerId: string, amount: string): Promise<string> {
  const r = await call("/api/v2/transfers", {
    method: "POST",
    key: owner,
    headers: { "Idempotency-Key": crypto.randomUUID() },
    json: {
      asset: "ETH",
      amount,
      network: "ethereum",
      originatorCustomerId: customerId,
      originatorAddress: ORIGIN_ADDR,
      beneficiaryAddress: VIKTOR_ADDR,
      originator: { originatorPersons: [JANE] },
      beneficiary: { beneficiaryPersons: [VIKTOR] },
    },
  });
  expect(r.status).toBe(202);
  return r.body.data.id;
}
