// provider_b outgoing, end to end: a real Caravan server and the sandbox provider_b network over real HTTP,
// with real Ed25519 signatures and crypto_box payloads (Part 3 "provider_b transfers → Outgoing", discovery).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { tempDir } from "../support/tmp.ts";
import { withDb } from "../support/db.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { RICHARD } from "../support/persons.ts";
import { janeToRichard, ORIGIN_ADDR } from "../support/transfers.ts";
import { actorStates } from "../support/actor-state.ts";
import { ROUTES } from "../../src/api/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "pb-out.db");
let S: ChildServer;
let peer: ProviderBPeer;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let customerId: string;
const seed = randomSeedBase64();
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const DENIED_ADDR = "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB";
const UNKNOWN_ADDR = "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb";


// 1 ETH: 3,200 USD at the snapshot rate, above the 1,000 USD FATF fallback.
const transferBody = (beneficiaryAddress: string, extra: Record<string, unknown> = {}) => janeToRichard(customerId, beneficiaryAddress, extra);

async function create(beneficiaryAddress: string, key = crypto.randomUUID(), extra: Record<string, unknown> = {}) {
  return call("/api/v2/transfers", { method: "POST", key: owner, json: transferBody(beneficiaryAddress, extra), headers: { "Idempotency-Key": key } });
}

/** Polls the transfer until its state leaves the given ones (bounded). */
async function settle(id: string, passing: string[] = ["queued", "processing"], rounds = 200) {
  for (let i = 0; i < rounds; i++) {
    const r = await call(`/api/v2/transfers/${id}`, { key: owner });
    if (!passing.includes(r.body.data.state)) return r.body.data;
    await Bun.sleep(100);
  }
  throw new Error(`transfer ${id} did not settle`);
}

beforeAll(async () => {
  peer = await startProviderBPeer({
    vasps: [
      {
        entityId: "VASP-BENE",
        name: "Bene Exchange",
        country: "DE",
        customers: { richard: [RICHARD] },
        wallets: [{ address: BENE_ADDR, customer: "richard" }, { address: DENIED_ADDR, customer: "richard" }],
        deny: [{ address: DENIED_ADDR, reasonType: "SANCTION_LIST" }],
      },
    ],
  });
  expect((await (await import("../support/server.ts")).runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  owner = (await newKey("--env", "test", "--role", "owner")).key;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" });
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const k of [owner, live]) expect((await call("/api/v2/providers/provider_b", { method: "PUT", key: k, json: { credentials } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url });
  const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
  customerId = c.body.data.id;
  expect((await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } })).status).toBe(201);
  await cli("migrate");
});

afterAll(async () => {
  await S?.stop();
  await peer?.stop();
});

describe("connection", () => {
  test("the connection test reads the signed directory: success true", async () => {
    const r = await call("/api/v2/providers/provider_b/test", { method: "POST", key: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(true);
    const signed = peer.requests.filter((q) => q.route === "vasps" && q.fromEntityId === "CARAVAN-1");
    expect(signed.length).toBeGreaterThan(0);
  });
});

describe("outgoing", () => {
  test("above the threshold: 202 queued, sent to the discovered VASP, accepted, then completed by accept with txHash", async () => {
    const r = await create(BENE_ADDR);
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ state: "queued", routing: "queued", compliance: "pending", originatorStatus: "pending", beneficiaryStatus: null });
    // The 202 answer the OpenAPI document describes (the contract's schema of a queued create).
    expect(Value.Check(ROUTES["POST /api/v2/transfers"].answers![202]!.answer!, r.body)).toBe(true);
    expect(r.body.data.expiresAt).toMatch(/Z$/);
    expect(r.body.meta.jobId).toStartWith("job_");
    const id = r.body.data.id;
    const t = await settle(id);
    expect(t.state).toBe("awaiting_counterparty");
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    expect(t.beneficiary.vaspId).toBe("VASP-BENE");
    expect(t.cascade.provider).toBe("provider_b");
    expect(t.cascade.externalId).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.cascade.attempts.at(-1)).toMatchObject({ provider: "provider_b", protocol: "provider_b", status: "sent", externalId: t.cascade.externalId, order: 1 });
    // The sandbox VASP decrypted what Caravan sealed for it and saw the USD valuation.
    const received = peer.transfers.get(t.cascade.externalId)!;
    expect(received.fromEntityId).toBe("CARAVAN-1");
    expect(received.tradeCurrency).toBe("USD");
    expect(received.isExceedingThreshold).toBe(true);
    expect(Number(received.tradePrice)).toBeGreaterThan(1000);

    const accepted = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "accept", txHash: "0x" + "ab".repeat(32) } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ state: "completed", txHash: "0x" + "ab".repeat(32) });
    expect(accepted.body.meta).toMatchObject({ action: "accept", previousState: "awaiting_counterparty" });
    expect(peer.requests.some((q) => q.route === "txid" && q.status === 200)).toBe(true);
    // A different hash after one was tried is refused, the transfer unchanged.
    const other = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "accept", txHash: "0x" + "cd".repeat(32) } });
    expectError(other, 400, "INVALID_REQUEST");
  });

  test("reject on a provider_b transfer is 400 INVALID_REQUEST", async () => {
    const id = (await create(BENE_ADDR)).body.data.id;
    await settle(id);
    const r = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "reject", status: "rejected", reason: "OTHER" } });
    expectError(r, 400, "INVALID_REQUEST");
  });

  test("an address on the VASP's deny list: denied → rejected with the provider's reasonType", async () => {
    const id = (await create(DENIED_ADDR)).body.data.id;
    const t = await settle(id);
    expect(t.state).toBe("rejected");
    expect(t.rejection.reason).toBe("SANCTION_LIST");
    expect(t.status.theirs).toBe("rejected");
  });

  test("an address no VASP owns: discovery NOT_FOUND_ADDRESS → attempt vasp_not_found, no other provider → failed", async () => {
    const id = (await create(UNKNOWN_ADDR)).body.data.id;
    const t = await settle(id);
    expect(t.state).toBe("failed");
    expect(t.cascade.attempts.map((a: { status: string }) => a.status)).toContain("vasp_not_found");
  });

  test("a transport error on the authorization request: attempt submission_unknown, transfer failed", async () => {
    peer.setFault("transfer", { kind: "status", status: 500 });
    try {
      const id = (await create(BENE_ADDR)).body.data.id;
      const t = await settle(id);
      expect(t.state).toBe("failed");
      expect(t.cascade.attempts.at(-1)).toMatchObject({ status: "submission_unknown", provider: "provider_b" });
      expect(t.cascade.attempts.at(-1).error).toBe("provider_b request failed (CODE_SERVER_INTERNAL_ERROR)");
      // Part 3: the provider may have taken it; a retry never sends it again.
      const sent = peer.requests.filter((q) => q.route === "transfer").length;
      const r = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "try again" } });
      expectError(r, 400, "INVALID_REQUEST");
      expect(r.body.error).toContain("submission unknown");
      expect((await settle(id)).state).toBe("failed");
      expect(peer.requests.filter((q) => q.route === "transfer").length).toBe(sent);
    } finally {
      peer.clearFaults();
    }
  });

  test("a submission_unknown transfer blocks its customer's erasure until, a day unchanged and past its expiry, it is cancelled without resending; then the erasure completes", async () => {
    const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Erin Unknown" } });
    const erin = c.body.data.id as string;
    const addr = "0x" + "3c".repeat(20);
    expect((await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId: erin, network: "ethereum", address: addr } })).status).toBe(201);
    peer.setFault("transfer", { kind: "status", status: 500 });
    let id: string;
    try {
      id = (await create(BENE_ADDR, crypto.randomUUID(), { originatorCustomerId: erin, originatorAddress: addr })).body.data.id;
      const t = await settle(id);
      expect(t.state).toBe("failed");
      expect(t.cascade.attempts.at(-1)).toMatchObject({ status: "submission_unknown", provider: "provider_b" });
    } finally {
      peer.clearFaults();
    }
    const sent = peer.requests.filter((q) => q.route === "transfer").length;
    // Neither retry (never resent) nor reject (provider_b) moves it.
    expectError(await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "again" } }), 400, "INVALID_REQUEST");
    expectError(await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "reject", status: "rejected", reason: "OTHER" } }), 400, "INVALID_REQUEST");
    const erase = () => call(`/api/v2/customers/${erin}/erase`, { method: "POST", key: owner, json: { reason: "data-subject erasure request" } });
    const refused = await erase();
    expectError(refused, 409, "IN_FLIGHT");
    expect(refused.body.details.activeTransferIds).toEqual([id]);
    // Unchanged a day and past its expiry (the row made older in the database file): the expiry sweep cancels it.
    withDb(db, (d) => d.run("UPDATE transfers SET updated_at = ?, expires_at = ? WHERE id = ?", [new Date(Date.now() - 25 * 3600_000).toISOString(), new Date(Date.now() - 60_000).toISOString(), id]));
    const t = await settle(id, ["failed"], 400);
    expect(t.state).toBe("cancelled");
    expect(t.rejection).toBeNull();
    expect(peer.requests.filter((q) => q.route === "transfer").length).toBe(sent);
    const erased = await erase();
    expect(erased.status).toBe(200);
    expect(erased.body.data.id).toBe(erin);
  });

  test("a stale receiver key: INVALID_RECEIVER_PUBLIC_KEY → the key is re-read and the request sent once more", async () => {
    peer.setFault("transfer", { kind: "invalidReceiverPublicKey" }, 1);
    const id = (await create(BENE_ADDR)).body.data.id;
    const t = await settle(id);
    expect(t.state).toBe("awaiting_counterparty");
    const tries = peer.requests.filter((q) => q.route === "transfer" && q.path.includes("VASP-BENE")).slice(-2);
    expect(tries.map((q) => q.status)).toEqual([422, 200]);
  });

  test("preferredProtocol provider_b without an originatorAddress is refused with the reason", async () => {
    const body = transferBody(BENE_ADDR, { preferredProtocol: "provider_b" });
    delete (body as Record<string, unknown>).originatorAddress;
    const r = await call("/api/v2/transfers", { method: "POST", key: owner, json: body, headers: { "Idempotency-Key": crypto.randomUUID() } });
    expectError(r, 400, "VALIDATION_ERROR");
    expect(r.body.error).toContain("originatorAddress is required");
    expect(r.body.details).toEqual({ schemaName: "create-transfer" });
  });

  test("discovery pending is asked again at least 11 s later, then carried", async () => {
    peer.setDiscoveryPending(1);
    const started = Date.now();
    const id = (await create(BENE_ADDR)).body.data.id;
    let t;
    try {
      t = await settle(id);
    } finally {
      // Every later discovery session would be pending once too (11 s more per transfer in the tests after this one).
      peer.setDiscoveryPending(0);
    }
    expect(t.state).toBe("awaiting_counterparty");
    const asks = peer.requests.filter((q) => q.route === "discoveryResult").slice(-2);
    expect(asks.length).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
  });
});

describe("provider connection", () => {
  test("the connection's actor keeps the directory it read: transfers within a minute read it from the peer at most once", async () => {
    const reads = () => peer.requests.filter((q) => q.route === "vasps" && q.fromEntityId === "CARAVAN-1").length;
    const before = reads();
    for (let i = 0; i < 3; i++) expect((await settle((await create(BENE_ADDR)).body.data.id)).state).toBe("awaiting_counterparty");
    expect(reads() - before).toBeLessThanOrEqual(1);
    const st = [...actorStates(db, "connection:%:test:provider_b").values()][0] ?? null;
    expect(st.health).toBe("up");
    expect(st.directory.vasps.map((v: { vaspId: string }) => v.vaspId)).toContain("VASP-BENE");
  });
});
