// Transfers, end to end against a real server and the sandbox provider_b network over real HTTP: one verdict in the
// list and the detail, the list item's provider and originator-side Travel Rule status, cancellation of an outgoing
// transfer no provider has taken once it expires (with transfer.cancelled), VASPs found by discovery in VASP search,
// the stated refusal on provider_c's callback paths, and the OpenAPI document's callbacks, bodies and examples.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { withDb } from "../support/db.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, expectOk } from "../support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { BOB, JANE, RICHARD } from "../support/persons.ts";
import { janeToRichard, ORIGIN_ADDR } from "../support/transfers.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "spec-gaps.db");
let S: ChildServer;
let peer: ProviderBPeer;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerLive: string;
let ownerEmail: string;
let customerId: string;
let providerBId: string;
const seed = randomSeedBase64();
const CARAVAN = "CARAVAN-1";
const SENDER = "kimchi-exchange";
// The same addresses as the OpenAPI document's create example, so that example can be sent as it is.
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const HOLD_ADDR = "0x" + "4e".repeat(20);

// 1 ETH: 3,200 USD at the snapshot rate, above the 1,000 USD fallback threshold.
const body = (beneficiaryAddress: string, extra: Record<string, unknown> = {}) => janeToRichard(customerId, beneficiaryAddress, extra);

async function create(beneficiaryAddress: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await call("/api/v2/transfers", { method: "POST", key: owner, json: body(beneficiaryAddress, extra), headers: { "Idempotency-Key": crypto.randomUUID() } });
  expect(r.status).toBe(202);
  return r.body.data.id;
}

async function detail(id: string) {
  const r = await call(`/api/v2/transfers/${id}`, { key: owner });
  expectOk(r);
  return r.body.data;
}

async function listItem(id: string) {
  const r = await call(`/api/v2/transfers?search=${id}`, { key: owner });
  expectOk(r);
  expect(r.body.data).toHaveLength(1);
  return r.body.data[0];
}

/** Polls the transfer until `done` (bounded: a hang guard). */
async function until(id: string, done: (t: any) => boolean, tries = 400): Promise<any> {
  for (let i = 0; i < tries; i++) {
    const t = await detail(id);
    if (done(t)) return t;
    await Bun.sleep(100);
  }
  throw new Error(`transfer ${id} stuck in ${(await detail(id)).state}`);
}

const sql = <T>(f: (d: Database) => T): T => withDb(db, f);

const events = (id: string) => sql((d) => (d.query("SELECT type FROM events WHERE entity_id = ? ORDER BY seq").all(id) as { type: string }[]).map((e) => e.type));

beforeAll(async () => {
  peer = await startProviderBPeer({
    vasps: [{ entityId: SENDER, name: "Kimchi", legalName: "Kimchi Exchange Co., Ltd.", country: "KR", customers: { richard: [RICHARD] }, wallets: [{ address: BENE_ADDR, customer: "richard" }] }],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  ownerLive = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", PROVIDER_B_ALLOWED_IPS: "127.0.0.1" });
  const credentials = { apiUrl: peer.url, vaspEntityId: CARAVAN, privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const key of [owner, ownerLive]) expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: ownerLive, json: { enabled: true } })).status).toBe(200);
  providerBId = (await call("/api/v2/providers/provider_b", { key: owner })).body.data.callbackPaths[0].path.split("/")[7];
  expect(providerBId).toMatch(/^prv_/);
  peer.registerCaravan({ entityId: CARAVAN, publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url, legalName: "Caravan Test VASP", country: "NL" });
  const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
  customerId = c.body.data.id;
  expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
  const w = await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } });
  expect(w.status).toBe(201);
  await cli("wallets", "attest", "--id", w.body.data.id, "--note", "x", "--member", ownerEmail);
  // A rule on a transfer attribute alone (no integration is called): transfers to HOLD_ADDR are held for review.
  const rule = await call("/api/v2/rules", {
    method: "POST",
    key: owner,
    json: { name: "Hold one address", category: "aml", stage: "precheck", action: "require_review", condition: { rules: [{ type: "if", action: "require_review", field: "beneficiaryAddress", operator: "eq", value: HOLD_ADDR }] } },
  });
  expect(rule.status).toBe(201);
});

afterAll(async () => {
  await S?.stop();
  await peer?.stop();
});

let held: string;
let carried: string;

describe("one verdict everywhere", () => {
  test("a transfer held by a field rule (no integration check): the list's status and the detail's compliance.status are both pending", async () => {
    held = await create(HOLD_ADDR);
    const t = await until(held, (x) => x.state === "held");
    expect(t.compliance.total).toBe(0);
    expect(t.compliance.status).toBe("pending");
    expect((await listItem(held)).status).toBe("pending");
  });

  test("a transfer carried to completion: approved in the list and in the detail", async () => {
    carried = await create(BENE_ADDR);
    const t = await until(carried, (x) => x.state === "awaiting_counterparty");
    expect(t.compliance.status).toBe("approved");
    expect((await listItem(carried)).status).toBe("approved");
  });
});

describe("Transfer, list item", () => {
  test("provider is { id (the provider's prv_ ID), name, displayName, protocol } as the cascade attempts show it; null while none carries it", async () => {
    const item = await listItem(carried);
    const d = await detail(carried);
    const attempt = d.cascade.attempts.at(-1);
    expect(item.provider).toEqual({ id: providerBId, name: "provider_b", displayName: attempt.displayName, protocol: "provider_b" });
    expect(attempt).toMatchObject({ provider: "provider_b", protocol: "provider_b" });
    expect(item.provider.displayName).not.toBe("provider_b");
    expect((await listItem(held)).provider).toBeNull();
  });

  test("travelRule.status is the originator side's status: ours on an outgoing transfer", async () => {
    const item = await listItem(carried);
    const d = await detail(carried);
    expect(item.travelRule).toMatchObject({ protocol: "provider_b", status: d.status.ours });
  });

  test("an incoming transfer shows the originator's (their) status in travelRule.status, not ours", async () => {
    const before = (await call("/api/v2/transfers?direction=incoming&limit=1", { key: owner })).body.meta.total;
    const reply = await peer.sendIncomingTransfer({ fromEntityId: SENDER, toCaravanEnv: "test", providerId: providerBId, asset: "ETH", network: "ethereum", amount: "1", tradePrice: "3200", address: ORIGIN_ADDR, originatorPersons: [BOB], beneficiaryPersons: [JANE] });
    expect(reply.status).toBe(200);
    const r = await call("/api/v2/transfers?direction=incoming&limit=1", { key: owner });
    expect(r.body.meta.total).toBe(before + 1);
    const item = r.body.data[0];
    const d = await detail(item.id);
    // Verified by Caravan (ours accepted) while the originating VASP has not reported its transaction (theirs pending).
    expect(d.status).toEqual({ ours: "accepted", theirs: "pending" });
    expect(item.travelRule.status).toBe("pending");
    expect(item.provider).toEqual({ id: providerBId, name: "provider_b", displayName: item.provider.displayName, protocol: "provider_b" });
  });
});

describe("cancelled and transfer.cancelled", () => {
  test("an outgoing transfer no provider has taken is cancelled at its expiresAt, with transfer.cancelled; one a provider took is left alone", async () => {
    // The clock is the machine's: the transfers' expiry is moved into the past in the database file instead of waiting 24 hours.
    const past = new Date(Date.now() - 60_000).toISOString();
    sql((d) => d.query("UPDATE transfers SET expires_at = ? WHERE id IN (?, ?)").run(past, held, carried));
    const t = await until(held, (x) => x.state === "cancelled", 300);
    expect(t.expiresAt).toBe(past);
    expect(t.rejection).toBeNull();
    expect(events(held)).toContain("transfer.cancelled");
    const audit = sql((d) => d.query("SELECT action, detail FROM audit_log WHERE entity_id = ? AND action = 'transfer.cancelled'").all(held) as { action: string; detail: string }[]);
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.detail)).toMatchObject({ reason: "EXPIRED", previousState: "held" });
    // The sweep that cancelled it read the other one too: a provider took that one, so it is unchanged.
    expect((await detail(carried)).state).toBe("awaiting_counterparty");
    expect(events(carried)).not.toContain("transfer.cancelled");
    expect((await listItem(held)).state).toBe("cancelled");
    expect((await call(`/api/v2/transfers?state=cancelled&search=${held}`, { key: owner })).body.data.map((x: any) => x.id)).toEqual([held]);
  });

  test("a cancelled transfer is final: reject and retry are refused", async () => {
    const reject = await call(`/api/v2/transfers/${held}`, { method: "PATCH", key: owner, json: { action: "reject", status: "rejected", reason: "OTHER" } });
    expectError(reject, 400, "INVALID_REQUEST");
    const retry = await call(`/api/v2/transfers/${held}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "again" } });
    expectError(retry, 400, "INVALID_TRANSFER_STATE");
  });
});

describe("VASP search", () => {
  test("a VASP that wallet discovery resolved and a transfer then named is searchable with source transfer_history", async () => {
    // Discovery ran for `carried` (recorded as discovery) and its VASP then took it: transfer_history wins.
    const r = await call(`/api/v2/vasps/search?q=${SENDER}`, { key: owner });
    expectOk(r);
    expect(r.body.data).toContainEqual({ id: SENDER, name: expect.any(String), source: "transfer_history" });
  });
});

describe("provider_c callback paths", () => {
  test("a provider_c callback path listed in callbackPaths answers 503 PROVIDER_NOT_SUPPORTED, not a bare 404; another provider ID is 404 NOT_FOUND", async () => {
    const credentials = { apiUrl: "https://node.example", apiToken: "t", trustAnchorAddress: "0x" + "11".repeat(20), trustAnchorPrivateKey: "22".repeat(32), webhookSecret: "s" };
    expect((await call("/api/v2/providers/provider_c", { method: "PUT", key: owner, json: { credentials } })).status).toBe(201);
    const p = await call("/api/v2/providers/provider_c", { key: owner });
    const path = p.body.data.callbackPaths[0].path as string;
    expect(path).toMatch(/^\/api\/system\/trp\/provider_c\/test\/prv_[0-9a-z]+\/incoming$/);
    const res = await fetch(S.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(await res.json()).toMatchObject({ error: "Provider unavailable", code: "PROVIDER_NOT_SUPPORTED" });
    const other = await fetch(S.url + `/api/system/trp/provider_c/test/prv_other/incoming`, { method: "POST", body: "{}" });
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: "Not found", code: "NOT_FOUND" });
  });
});

describe("the OpenAPI document", () => {
  const WRITE_ROUTES = [
    "post /api/v2/customers",
    "post /api/v2/customers/{id}/deactivate",
    "post /api/v2/customers/{id}/erase",
    "put /api/v2/customers/{id}/travel-rule-identity",
    "post /api/v2/wallets",
    "post /api/v2/wallets/verify",
    "patch /api/v2/wallets/{id}",
    "post /api/v2/transfers",
    "patch /api/v2/transfers/{id}",
    "post /api/v2/transfers/{id}/information-requests",
    "post /api/v2/thresholds",
    "patch /api/v2/thresholds/{id}",
    "post /api/v2/rules",
    "patch /api/v2/rules/{id}",
    "post /api/v2/webhooks",
    "patch /api/v2/webhooks/{id}",
    "post /api/v2/cases",
    "patch /api/v2/cases/{id}",
    "post /api/v2/cases/{id}/notes",
    "post /api/v2/cases/{id}/resolve",
    "put /api/v2/providers/{name}",
    "patch /api/v2/providers/{name}",
    "put /api/v2/integrations/{name}",
    "patch /api/v2/integrations/{name}",
  ];
  let doc: any;

  beforeAll(async () => {
    const r = await fetch(S.url + "/api/v2/openapi.json");
    expect(r.status).toBe(200);
    doc = await r.json();
  });

  test("lists every callback route: provider_a's, provider_b's, the six provider_e callbacks, provider_c's and provider_d's", () => {
    const paths = Object.keys(doc.paths);
    for (const event of ["permission-request", "address-validation", "txid", "cancel", "cdd", "permission"])
      expect(doc.paths[`/api/system/trp/provider_e/{environment}/{providerId}/${event}`]?.post?.tags).toEqual(["callbacks"]);
    expect(paths).toContain("/api/system/trp/provider_a/{environment}/{providerId}");
    expect(paths.filter((p) => p.startsWith("/api/system/trp/provider_b/")).length).toBeGreaterThanOrEqual(5);
    expect(doc.paths["/api/system/trp/provider_c/{environment}/{providerId}/incoming"].post.summary).toContain("PROVIDER_NOT_SUPPORTED");
    expect(doc.paths["/api/system/trp/provider_d/{environment}/{providerId}"].post.summary).toContain("TRP v3");
    for (const what of ["version", "uptime", "extensions", "identity"]) expect(doc.paths[`/api/system/trp/provider_d/{environment}/{providerId}/${what}`].get).toBeDefined();
  });

  test("POST /api/v2/transfers carries its request body schema (required fields, preferredProtocol values) and an example", () => {
    const rb = doc.paths["/api/v2/transfers"].post.requestBody.content["application/json"];
    expect(rb.schema.required).toEqual(["asset", "amount", "network", "originatorCustomerId", "beneficiaryAddress", "originator"]);
    expect(rb.schema.properties.preferredProtocol.enum).toEqual(["provider_a", "provider_b", "provider_c", "provider_d", "provider_e"]);
    expect(Object.keys(rb.example).every((k) => k in rb.schema.properties)).toBe(true);
  });

  test("every write route carries a request body schema and one example; routes without a body say so", () => {
    for (const route of WRITE_ROUTES) {
      const [method, path] = route.split(" ");
      const op = doc.paths[path!]?.[method!];
      expect({ route, hasBody: !!op?.requestBody }).toEqual({ route, hasBody: true });
      const content = op.requestBody.content["application/json"];
      expect({ route, schema: typeof content.schema, example: content.example !== undefined && content.example !== null }).toEqual({ route, schema: "object", example: true });
    }
    expect(doc.paths["/api/v2/customers/{id}/reactivate"].post["x-request-body"]).toBe("none");
  });

  test("the create example, with a real customer ID, is accepted as it is: 202 queued", async () => {
    const example = structuredClone(doc.paths["/api/v2/transfers"].post.requestBody.content["application/json"].example);
    example.originatorCustomerId = customerId;
    const r = await call("/api/v2/transfers", { method: "POST", key: owner, json: example, headers: { "Idempotency-Key": crypto.randomUUID() } });
    expect(r.status).toBe(202);
    expect(r.body.data.state).toBe("queued");
  });

  test("the rule, threshold and integration examples are accepted as they are", async () => {
    const ex = (path: string, method: string) => doc.paths[path][method].requestBody.content["application/json"].example;
    const rule = await call("/api/v2/rules", { method: "POST", key: owner, json: ex("/api/v2/rules", "post") });
    expect(rule.status).toBe(201);
    expect((await call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: owner, json: ex("/api/v2/rules/{id}", "patch") })).status).toBe(200);
    const threshold = await call("/api/v2/thresholds", { method: "POST", key: ownerLive, json: ex("/api/v2/thresholds", "post") });
    expect(threshold.status).toBe(201);
    expect((await call(`/api/v2/thresholds/${threshold.body.data.id}`, { method: "PATCH", key: ownerLive, json: ex("/api/v2/thresholds/{id}", "patch") })).status).toBe(200);
    expect((await call("/api/v2/integrations/screening_c", { method: "PUT", key: owner, json: ex("/api/v2/integrations/{name}", "put") })).status).toBe(201);
  });

  test("the customer and case examples are accepted as they are", async () => {
    const c = doc.paths["/api/v2/customers"].post.requestBody.content["application/json"].example;
    const made = await call("/api/v2/customers", { method: "POST", key: owner, json: { ...c, externalId: `${c.externalId}-${crypto.randomUUID()}` } });
    expect(made.status).toBe(201);
    const k = doc.paths["/api/v2/cases"].post.requestBody.content["application/json"].example;
    expect((await call("/api/v2/cases", { method: "POST", key: owner, json: k })).status).toBe(201);
  });
});
