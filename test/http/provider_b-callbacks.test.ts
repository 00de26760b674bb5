// provider_b callbacks end to end: a real Caravan server and the sandbox provider_b network as originating VASP, over real
// HTTP with real crypto_box payloads (Part 3 "provider_b callbacks", "provider_b transfers" Incoming, Authentication 3).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { withDb } from "../support/db.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess, withMember } from "../support/cli.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { callCaravan, type CallbackContext, type CallbackTarget } from "../../src/sandbox/provider_b/callbacks.ts";
import { openPayload, publicKeyBase64, randomSeedBase64, sealPayload } from "../../src/adapters/providers/provider_b/crypto.ts";
import { HEADER, buildTransferMessage, callbackPath, toWirePersons, type CallbackEndpoint } from "../../src/adapters/providers/provider_b/wire.ts";
import type { Person } from "../../src/domain/ivms101/types.ts";
import { BOB, JANE, RICHARD, person } from "../support/persons.ts";
import { decodeEventData } from "../../src/adapters/storage/event-data.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "pb-callbacks.db");
let S: ChildServer;
let peer: ProviderBPeer;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerLive: string;
let ownerEmail: string;
let providerId: string;
const seed = randomSeedBase64();
const CARAVAN = "CARAVAN-1";
const SENDER = "kimchi-exchange";
const OTHER = "other-vasp";
let target: CallbackTarget;
let otherTarget: CallbackTarget;
let ctx: CallbackContext;


// Addresses (EIP-55 vectors and repeated bytes; the registry stores the checksummed form).
const evm = (byte: string) => "0x" + byte.repeat(20);
const JANE_ETH = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const UNVERIFIED_WALLET = evm("2b");
const UNVERIFIED_IDENTITY = evm("3c");
const BLOCKED = evm("4d");
const DEACTIVATED = evm("5e");
const UNKNOWN_ADDR = evm("6f");
const JANE_XRP = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const DENIED_ADDR = "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB";

let jane: string;

async function customer(name: string, status: "verified" | "unverified" | "blocked", persons: Person[]): Promise<string> {
  const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name } });
  expect(c.status).toBe(201);
  const id = c.body.data.id;
  const r = await call(`/api/v2/customers/${id}/travel-rule-identity`, { method: "PUT", key: owner, json: { status, persons } });
  expect(r.status).toBe(200);
  return id;
}

async function wallet(customerId: string, network: string, address: string, verify: boolean): Promise<string> {
  const w = await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network, address } });
  expect(w.status).toBe(201);
  // Part 1: verification follows ownership proofs; an officer's attestation is one (README "Wallet ownership proofs").
  if (verify) await cli("wallets", "attest", "--id", w.body.data.id, "--note", "x", "--member", ownerEmail);
  return w.body.data.id;
}

/** Incoming transfers of the test environment, newest first (the first page). */
async function incoming(): Promise<{ id: string; externalId: string; state: string }[]> {
  const r = await call("/api/v2/transfers?direction=incoming&limit=10", { key: owner });
  expect(r.status).toBe(200);
  return r.body.data;
}

/** How many incoming transfers the test environment holds. */
async function count(): Promise<number> {
  const r = await call("/api/v2/transfers?direction=incoming&limit=1", { key: owner });
  expect(r.status).toBe(200);
  return r.body.meta.total;
}

async function detail(id: string) {
  const r = await call(`/api/v2/transfers/${id}`, { key: owner });
  expect(r.status).toBe(200);
  return r.body.data;
}

function events(entityId: string): { type: string; data: Record<string, unknown> }[] {
  const d = new Database(db, { readonly: true });
  try {
    return (d.query("SELECT type, data FROM events WHERE entity_id = ? ORDER BY seq").all(entityId) as { type: string; data: string | Uint8Array }[]).map((e) => ({ type: e.type, data: JSON.parse(decodeEventData(e.data)) }));
  } finally {
    d.close();
  }
}

function send(extra: Partial<Parameters<ProviderBPeer["sendIncomingTransfer"]>[0]> = {}) {
  return peer.sendIncomingTransfer({ ...target, asset: "ETH", network: "ethereum", amount: "1", tradePrice: "3200", address: JANE_ETH, originatorPersons: [BOB], beneficiaryPersons: [JANE], ...extra });
}

/** Status and body of an answer, the body untyped (refusals are `{ errorType }` whatever the endpoint's answer type). */
const sr = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body as unknown });

/** A call with a valid sender's headers and any body bytes (bodies the sandbox helpers would not send). */
async function raw(endpoint: CallbackEndpoint, method: string, body: string | undefined, headers: Record<string, string> = {}, base = S.url, env = "test") {
  const vasp = peer.directory.vasp(SENDER);
  const res = await fetch(base + callbackPath(env, providerId, endpoint), {
    method,
    headers: { "CF-Connecting-IP": "127.0.0.1", [HEADER.origin]: `code:${SENDER}`, [HEADER.pubKey]: vasp.publicKeyBase64, "content-type": "application/json", ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json as any, headers: res.headers };
}

beforeAll(async () => {
  peer = await startProviderBPeer({
    vasps: [
      {
        entityId: SENDER,
        name: "Kimchi",
        legalName: "Kimchi Exchange Co., Ltd.",
        country: "KR",
        customers: { richard: [RICHARD] },
        wallets: [{ address: BENE_ADDR, customer: "richard" }, { address: DENIED_ADDR, customer: "richard" }],
        deny: [{ address: DENIED_ADDR, reasonType: "SANCTION_LIST" }],
      },
      { entityId: OTHER, country: "DE" },
    ],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  ownerLive = (await newKey("--env", "live", "--role", "owner")).key;
  // The suite plays the operator's proxy on loopback (as cloudflared would): CF-Connecting-IP is read only from it.
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", PROVIDER_B_ALLOWED_IPS: "127.0.0.1", CARAVAN_TRUSTED_PROXIES: "127.0.0.1" });
  const credentials = { apiUrl: peer.url, vaspEntityId: CARAVAN, privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const key of [owner, ownerLive]) expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  // The one switch needs live credentials and a live key (Part 2).
  expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: ownerLive, json: { enabled: true } })).status).toBe(200);
  const p = await call("/api/v2/providers/provider_b", { key: owner });
  providerId = p.body.data.callbackPaths[0].path.split("/")[7];
  expect(providerId).toMatch(/^prv_/);
  peer.registerCaravan({ entityId: CARAVAN, publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url, legalName: "Caravan Test VASP", country: "NL" });
  target = { fromEntityId: SENDER, toCaravanEnv: "test", providerId };
  otherTarget = { fromEntityId: OTHER, toCaravanEnv: "test", providerId };
  ctx = { directory: peer.directory, connectingIp: () => "127.0.0.1", now: Date.now };

  jane = await customer("Jane Doe", "verified", [JANE]);
  await wallet(jane, "ethereum", JANE_ETH, true);
  await wallet(jane, "ripple", `${JANE_XRP}?dt=1001`, true);
  await wallet(await customer("Una Verified", "verified", [person("Verified", "Una")]), "ethereum", UNVERIFIED_WALLET, false);
  await wallet(await customer("Ivo Pending", "unverified", [person("Pending", "Ivo")]), "ethereum", UNVERIFIED_IDENTITY, true);
  await wallet(await customer("Bo Blocked", "blocked", [person("Blocked", "Bo")]), "ethereum", BLOCKED, true);
  const gone = await customer("Dee Activated", "verified", [person("Activated", "Dee")]);
  await wallet(gone, "ethereum", DEACTIVATED, true);
  expect((await call(`/api/v2/customers/${gone}/deactivate`, { method: "POST", key: owner, json: { reason: "closed" } })).status).toBe(200);
});

afterAll(async () => {
  await S?.stop();
  await peer?.stop();
});

describe("incoming transfer (POST v1/beneficiary/transfer)", () => {
  test("verified: an incoming transfer awaiting_counterparty, approved, from the sender's X-Request-Origin; the answer sealed for the sender", async () => {
    const before = await count();
    const reply = await send();
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ result: "verified", transferId: reply.transferId });
    expect(reply.body!.reasonType).toBeUndefined();
    // PROVIDERS.md: the answer copies Originator, OriginatingVASP and Beneficiary and adds BeneficiaryVASP.
    expect(reply.payloadError).toBeUndefined();
    expect(reply.ivms101!.Originator!.originatorPersons).toEqual(toWirePersons([BOB]));
    expect(reply.ivms101!.Beneficiary!.accountNumber).toEqual([JANE_ETH]);
    expect(reply.ivms101!.BeneficiaryVASP!.beneficiaryVASP.legalPerson).toEqual({
      name: { nameIdentifier: [{ legalPersonName: "Caravan Test VASP", legalPersonNameIdentifierType: "LEGL" }] },
      countryOfRegistration: "NL",
    });
    const list = await incoming();
    expect(await count()).toBe(before + 1);
    const t = await detail(list[0]!.id);
    expect(t).toMatchObject({
      direction: "incoming",
      state: "awaiting_counterparty",
      asset: "ETH",
      amount: "1",
      network: "ethereum",
      originator: { vaspId: `code:${SENDER}`, vaspName: "Kimchi Exchange Co., Ltd.", address: `sandbox-${SENDER}-hot-wallet` },
      beneficiary: { vaspId: CARAVAN, address: JANE_ETH },
      status: { ours: "accepted", theirs: "pending" },
      rejection: null,
      compliance: { status: "approved" },
      txHash: null,
    });
    expect(t.cascade.provider).toBe("provider_b");
    expect(t.cascade.externalId).toMatch(/^provider_b-inbound:pbr_[0-9a-z]{26}$/);
    expect(list[0]!.externalId).toBe(t.cascade.externalId);
    // Screening ran at postcheck (no rule applied): compliance.screening_complete follows the creation.
    expect(events(t.id).map((e) => e.type)).toEqual(["transfer.created", "compliance.screening_complete"]);
    expect(events(t.id)[0]!.data).toMatchObject({ direction: "incoming", state: "awaiting_counterparty", originatingVaspId: `code:${SENDER}`, beneficiaryVaspId: CARAVAN });
    // The sender is recorded as a counterparty seen in a transfer.
    const v = await call("/api/v2/vasps/search?q=kimchi", { key: owner });
    expect(v.body.data).toContainEqual(expect.objectContaining({ id: `code:${SENDER}`, source: "transfer_history" }));
  });

  test("names are matched ignoring case, spacing, punctuation and order", async () => {
    const reply = await send({ beneficiaryPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: " JANE ", secondaryIdentifier: "d.o.e", nameIdentifierType: "LEGL" }] } } }] });
    expect(reply.body).toMatchObject({ result: "verified" });
  });

  test("a destination tag: the account number carries it as address:tag; another tag is not the wallet", async () => {
    const ok = await send({ asset: "XRP", network: "ripple", amount: "100", address: JANE_XRP, tag: "1001" });
    expect(ok.body).toMatchObject({ result: "verified" });
    expect(ok.ivms101!.Beneficiary!.accountNumber).toEqual([`${JANE_XRP}:1001`]);
    const t = await detail((await incoming())[0]!.id);
    expect(t.beneficiary.address).toBe(`${JANE_XRP}?dt=1001`);
    const other = await send({ asset: "XRP", network: "ripple", amount: "100", address: JANE_XRP, tag: "1002" });
    expect(other.body).toMatchObject({ result: "denied", reasonType: "NOT_FOUND_ADDRESS" });
  });

  test("an originator address with CodeVASP's spelling of the post code (postcode) is read as IVMS101's postCode: verified and created", async () => {
    const m = buildTransferMessage({ originatorPersons: [BOB], originatorAccount: "x", beneficiaryPersons: [JANE], beneficiaryAccount: JANE_ETH, originatingVasp: { legalName: "Kimchi", country: "KR" } }) as any;
    m.ivms101.Originator.originatorPersons[0].naturalPerson.geographicAddress = [{ addressType: "HOME", streetName: "Teheran-ro", buildingNumber: "152", postcode: "06236", townName: "Seoul", country: "KR" }];
    const before = await count();
    const reply = await send({ message: m });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ result: "verified" });
    expect(await count()).toBe(before + 1);
  });

  test("without a network the asset's networks are searched", async () => {
    const reply = await send({ network: undefined });
    expect(reply.body).toMatchObject({ result: "verified" });
  });

  // Every reasonType Caravan can cause before creating a transfer (Part 3 table); none creates a transfer.
  const originatorMissing = () => {
    const m = buildTransferMessage({ originatorPersons: [BOB], originatorAccount: "x", beneficiaryPersons: [JANE], beneficiaryAccount: JANE_ETH, originatingVasp: { legalName: "Kimchi", country: "KR" } });
    delete (m.ivms101 as Record<string, unknown>).Originator;
    return m;
  };
  test.each([
    ["an asset Caravan does not know", "NOT_SUPPORTED_SYMBOL", { asset: "NOPE" }],
    ["an asset on a network it does not exist on", "NOT_SUPPORTED_SYMBOL", { asset: "ETH", network: "bitcoin" }],
    ["a network Caravan does not support", "NOT_SUPPORTED_SYMBOL", { network: "dogechain" }],
    ["an address no wallet has", "NOT_FOUND_ADDRESS", { address: UNKNOWN_ADDR }],
    ["a wallet without an ownership proof", "NOT_KYC_USER", { address: UNVERIFIED_WALLET, beneficiaryPersons: [person("Verified", "Una")] }],
    ["an identity not verified", "NOT_KYC_USER", { address: UNVERIFIED_IDENTITY, beneficiaryPersons: [person("Pending", "Ivo")] }],
    ["a deactivated customer", "NOT_KYC_USER", { address: DEACTIVATED, beneficiaryPersons: [person("Activated", "Dee")] }],
    ["a blocked identity", "SANCTION_LIST", { address: BLOCKED, beneficiaryPersons: [person("Blocked", "Bo")] }],
    ["another beneficiary name", "INPUT_NAME_MISMATCHED", { beneficiaryPersons: [person("Doe", "John")] }],
    ["no originator", "LACK_OF_INFORMATION", { message: originatorMissing() }],
    ["invalid originator persons", "LACK_OF_INFORMATION", { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [] } } } as unknown as Person] }],
    ["no beneficiary person", "LACK_OF_INFORMATION", { beneficiaryPersons: [] }],
    ["more decimals than the asset has", "LACK_OF_INFORMATION", { amount: "0.0000000000000000001" }],
    ["an address field that is not the account number's", "NOT_FOUND_ADDRESS", { message: buildTransferMessage({ originatorPersons: [BOB], originatorAccount: "x", beneficiaryPersons: [JANE], beneficiaryAccount: UNKNOWN_ADDR, originatingVasp: { legalName: "Kimchi", country: "KR" } }) }],
  ] as const)("denied: %s → %s, no transfer created", async (_name, reasonType, extra) => {
    const before = await count();
    const reply = await send(extra as never);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ result: "denied", reasonType, transferId: reply.transferId, beneficiaryVasp: {} });
    expect(await count()).toBe(before);
  });
});

describe("txid and cancellation", () => {
  test("txid: accepted with txHash; the same again normal; another txid TXID_ALREADY_EXISTS; another sender UNKNOWN_TRANSFER_ID", async () => {
    const v = await send();
    const id = (await incoming())[0]!.id;
    const txid = "0x" + "ab".repeat(32);
    expect((await peer.sendTxid({ ...target, transferId: v.transferId, txid, vout: "0" })).body).toEqual({ transferId: v.transferId, result: "normal" });
    const t = await detail(id);
    expect(t).toMatchObject({ state: "accepted", txHash: txid, status: { ours: "accepted", theirs: "accepted" } });
    expect(t.acceptedAt).toBeString();
    expect((await peer.sendTxid({ ...target, transferId: v.transferId, txid, vout: "0" })).body).toEqual({ transferId: v.transferId, result: "normal" });
    expect((await peer.sendTxid({ ...target, transferId: v.transferId, txid, vout: "1" })).body).toEqual({ transferId: v.transferId, result: "error", reasonType: "TXID_ALREADY_EXISTS" });
    expect((await peer.sendTxid({ ...target, transferId: v.transferId, txid: "0x" + "cd".repeat(32), vout: "0" })).body).toEqual({ transferId: v.transferId, result: "error", reasonType: "TXID_ALREADY_EXISTS" });
    expect((await peer.sendTxid({ ...otherTarget, transferId: v.transferId, txid, vout: "0" })).body).toEqual({ transferId: v.transferId, result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
    expect((await peer.sendTxid({ ...target, transferId: crypto.randomUUID(), txid })).body).toMatchObject({ result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
    expect((await detail(id)).txHash).toBe(txid);
    expect(events(id).map((e) => e.type)).toEqual(["transfer.created", "compliance.screening_complete", "transfer.accepted"]);
  });

  test("txid of a denied request: UNKNOWN_TRANSFER_ID (no verified transfer)", async () => {
    const d = await send({ beneficiaryPersons: [person("Doe", "John")] });
    expect(d.body!.result).toBe("denied");
    expect((await peer.sendTxid({ ...target, transferId: d.transferId, txid: "0xab" })).body).toMatchObject({ result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
  });

  test("cancellation before the transaction: rejected ORIGINATOR_CANCELED; repeated normal; another sender UNKNOWN_TRANSFER_ID", async () => {
    const v = await send();
    const id = (await incoming())[0]!.id;
    expect((await peer.sendCancel({ ...otherTarget, transferId: v.transferId })).body).toEqual({ transferId: v.transferId, result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
    expect((await detail(id)).state).toBe("awaiting_counterparty");
    expect((await peer.sendCancel({ ...target, transferId: v.transferId, reasonType: "UNKNOWN" })).body).toEqual({ transferId: v.transferId, result: "normal" });
    const t = await detail(id);
    expect(t).toMatchObject({ state: "rejected", rejection: { reason: "ORIGINATOR_CANCELED" }, status: { theirs: "rejected" } });
    expect((await peer.sendCancel({ ...target, transferId: v.transferId })).body).toEqual({ transferId: v.transferId, result: "normal" });
    expect((await detail(id)).state).toBe("rejected");
    expect(events(id).map((e) => e.type)).toEqual(["transfer.created", "compliance.screening_complete", "transfer.rejected"]);
    // A transaction reported after the cancellation is not recorded.
    expect((await peer.sendTxid({ ...target, transferId: v.transferId, txid: "0xab" })).body).toMatchObject({ result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
  });

  test("cancellation after the transaction: failed ORIGINATOR_CANCELED", async () => {
    const v = await send();
    const id = (await incoming())[0]!.id;
    await peer.sendTxid({ ...target, transferId: v.transferId, txid: "0x" + "ef".repeat(32) });
    expect((await peer.sendCancel({ ...target, transferId: v.transferId })).body).toEqual({ transferId: v.transferId, result: "normal" });
    expect(await detail(id)).toMatchObject({ state: "failed", rejection: { reason: "ORIGINATOR_CANCELED" }, txHash: "0x" + "ef".repeat(32) });
    expect(events(id).map((e) => e.type)).toEqual(["transfer.created", "compliance.screening_complete", "transfer.accepted", "transfer.failed"]);
  });

  test("failed after a cancellation following the transaction: it blocks its customer's erasure until, a day unchanged, it is cancelled; then the erasure completes", async () => {
    const erin = await customer("Erin Incoming", "verified", [person("Incoming", "Erin")]);
    const addr = evm("7a");
    await wallet(erin, "ethereum", addr, true);
    const v = await send({ address: addr, beneficiaryPersons: [person("Incoming", "Erin")] });
    expect(v.body).toMatchObject({ result: "verified" });
    const id = (await incoming())[0]!.id;
    await peer.sendTxid({ ...target, transferId: v.transferId, txid: "0x" + "e1".repeat(32) });
    expect((await peer.sendCancel({ ...target, transferId: v.transferId })).body).toMatchObject({ result: "normal" });
    expect((await detail(id)).state).toBe("failed");
    // provider_b: reject is refused and an incoming transfer is never queued again.
    expectError(await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "reject", status: "rejected", reason: "OTHER" } }), 400, "INVALID_REQUEST");
    expectError(await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "again" } }), 400, "INVALID_REQUEST");
    const erase = () => call(`/api/v2/customers/${erin}/erase`, { method: "POST", key: owner, json: { reason: "data-subject erasure request" } });
    const refused = await erase();
    expectError(refused, 409, "IN_FLIGHT");
    expect(refused.body.details.activeTransferIds).toEqual([id]);
    // A day without change (the row made older in the database file): the expiry sweep (every 10 s) cancels it.
    withDb(db, (d) => d.run("UPDATE transfers SET updated_at = ? WHERE id = ?", [new Date(Date.now() - 25 * 3600_000).toISOString(), id]));
    let t = await detail(id);
    for (let i = 0; i < 300 && t.state === "failed"; i++) {
      await Bun.sleep(100);
      t = await detail(id);
    }
    expect(t).toMatchObject({ state: "cancelled", txHash: "0x" + "e1".repeat(32) });
    expect(events(id).map((e) => e.type).at(-1)).toBe("transfer.cancelled");
    const erased = await erase();
    expect(erased.status).toBe(200);
    expect(erased.body.data.id).toBe(erin);
  });

  test("cancellation of a denied request: normal, nothing to change; of an unknown transferId: UNKNOWN_TRANSFER_ID", async () => {
    const d = await send({ address: UNKNOWN_ADDR });
    expect((await peer.sendCancel({ ...target, transferId: d.transferId })).body).toEqual({ transferId: d.transferId, result: "normal" });
    const id = crypto.randomUUID();
    expect((await peer.sendCancel({ ...target, transferId: id })).body).toEqual({ transferId: id, result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
  });
});

describe("VerifyAddress (nothing recorded)", () => {
  test.each([
    ["Jane's verified wallet", { address: JANE_ETH }, { result: "valid" }],
    ["with matching persons", { address: JANE_ETH, beneficiaryPersons: [person("jane", "DOE")] }, { result: "valid" }],
    ["with other persons", { address: JANE_ETH, beneficiaryPersons: [person("Doe", "John")] }, { result: "invalid", reasonType: "INPUT_NAME_MISMATCHED" }],
    ["an unknown address", { address: UNKNOWN_ADDR }, { result: "invalid", reasonType: "NOT_FOUND_ADDRESS" }],
    ["an unverified wallet", { address: UNVERIFIED_WALLET }, { result: "invalid", reasonType: "NOT_KYC_USER" }],
    ["a blocked identity", { address: BLOCKED }, { result: "invalid", reasonType: "SANCTION_LIST" }],
    ["an unknown asset", { address: JANE_ETH, currency: "NOPE" }, { result: "invalid", reasonType: "NOT_SUPPORTED_SYMBOL" }],
  ] as const)("%s", async (_n, extra, expected) => {
    const before = await count();
    const r = await peer.verifyAddress({ ...target, currency: "ETH", network: "ethereum", ...extra } as never);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...expected, beneficiaryVaspEntityId: CARAVAN } as never);
    expect(await count()).toBe(before);
  });
});

describe("status and transaction questions: only the company's outgoing transfers to the sender", () => {
  let outgoingId: string;
  let providerTransferId: string;
  const txHash = "0x" + "12".repeat(32);

  async function outgoing(beneficiaryAddress: string) {
    const r = await call("/api/v2/transfers", {
      method: "POST",
      key: owner,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      json: {
        asset: "ETH",
        amount: "1",
        network: "ethereum",
        originatorCustomerId: jane,
        originatorAddress: JANE_ETH,
        beneficiaryAddress,
        originator: { originatorPersons: [JANE] },
        beneficiary: { beneficiaryPersons: [RICHARD] },
      },
    });
    expect(r.status).toBe(202);
    for (let i = 0; i < 200; i++) {
      const t = await detail(r.body.data.id);
      if (!["queued", "processing"].includes(t.state)) return t;
      await Bun.sleep(100);
    }
    throw new Error("outgoing transfer did not settle");
  }

  beforeAll(async () => {
    const t = await outgoing(BENE_ADDR);
    expect(t.state).toBe("awaiting_counterparty");
    outgoingId = t.id;
    providerTransferId = t.cascade.externalId;
  });

  test("POST v1/vasp/transfer/status: pending, then processing once the transaction is reported", async () => {
    expect((await peer.askStatus({ ...target, transferId: providerTransferId })).body).toEqual({ transferId: providerTransferId, status: "pending" });
    const a = await call(`/api/v2/transfers/${outgoingId}`, { method: "PATCH", key: owner, json: { action: "accept", txHash } });
    expect(a.status).toBe(200);
    expect((await peer.askStatus({ ...target, transferId: providerTransferId })).body).toEqual({ transferId: providerTransferId, status: "processing", txid: txHash });
  });

  test("POST v1/vasp/transfer/status: a denied outgoing transfer is canceled", async () => {
    const t = await outgoing(DENIED_ADDR);
    expect(t.state).toBe("rejected");
    expect((await peer.askStatus({ ...target, transferId: t.cascade.externalId })).body).toMatchObject({ status: "canceled" });
  });

  test("POST v1/vasp/transfer/status: another sender, an unknown transfer, or an incoming one → 503 UNKNOWN_TRANSFER_ID", async () => {
    for (const r of [
      await peer.askStatus({ ...otherTarget, transferId: providerTransferId }),
      await peer.askStatus({ ...target, transferId: crypto.randomUUID() }),
      await peer.askStatus({ ...target, transferId: (await send()).transferId }),
    ]) expect(sr(r)).toEqual({ status: 503, body: { errorType: "UNKNOWN_TRANSFER_ID" } });
  });

  test("POST v1/verification/tx: valid for the transaction to that address from that sender, else invalid", async () => {
    expect((await peer.verificationTx({ ...target, txid: txHash, beneficiaryAddress: BENE_ADDR })).body).toEqual({ result: "valid" });
    expect((await peer.verificationTx({ ...target, txid: txHash.toUpperCase().replace("0X", "0x"), beneficiaryAddress: BENE_ADDR.toLowerCase() })).body).toEqual({ result: "valid" });
    expect((await peer.verificationTx({ ...target, txid: txHash, beneficiaryAddress: UNKNOWN_ADDR })).body).toEqual({ result: "invalid" });
    expect((await peer.verificationTx({ ...target, txid: "0x" + "99".repeat(32), beneficiaryAddress: BENE_ADDR })).body).toEqual({ result: "invalid" });
    expect((await peer.verificationTx({ ...otherTarget, txid: txHash, beneficiaryAddress: BENE_ADDR })).body).toEqual({ result: "invalid" });
  });

  test("PUT v1/verification/tx: the originator's data for the caller's matching beneficiary; recorded and replayed", async () => {
    const transferId = crypto.randomUUID();
    const r = await peer.requestTransferData({ ...target, transferId, txid: txHash, beneficiaryAddress: BENE_ADDR, beneficiaryPersons: [RICHARD] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ result: "normal", transferId, currency: "ETH", amount: "1", tradeCurrency: "USD", isExceedingThreshold: "true" });
    expect(Number(r.body!.tradePrice)).toBeGreaterThan(1000);
    expect(r.ivms101!.Originator).toEqual({ originatorPersons: toWirePersons([JANE]), accountNumber: [JANE_ETH] });
    expect(r.ivms101!.OriginatingVASP!.originatingVASP.legalPerson.name.nameIdentifier[0]!.legalPersonName).toBe("Caravan Test VASP");
    const again = await peer.requestTransferData({ ...target, transferId, txid: txHash, beneficiaryAddress: BENE_ADDR, beneficiaryPersons: [RICHARD] });
    expect({ ...again.body, payload: undefined }).toEqual({ ...r.body, payload: undefined });
    expect(again.ivms101).toEqual(r.ivms101);
    const other = await peer.requestTransferData({ ...target, transferId, txid: txHash, beneficiaryAddress: BENE_ADDR, beneficiaryPersons: [BOB] });
    expect(sr(other)).toEqual({ status: 503, body: { errorType: "DUPLICATE_TRANSFER_ID" } });
  });

  test("PUT v1/verification/tx: NOT_FOUND_TXID, or LACK_OF_INFORMATION when the beneficiary data does not match", async () => {
    const a = await peer.requestTransferData({ ...target, txid: "0x" + "77".repeat(32), beneficiaryAddress: BENE_ADDR, beneficiaryPersons: [RICHARD] });
    expect(a.body).toMatchObject({ result: "error", reasonType: "NOT_FOUND_TXID" });
    expect(a.body!.payload).toBeUndefined();
    const b = await peer.requestTransferData({ ...target, txid: txHash, beneficiaryAddress: BENE_ADDR, beneficiaryPersons: [BOB] });
    expect(b.body).toMatchObject({ result: "error", reasonType: "LACK_OF_INFORMATION" });
    const c = await peer.requestTransferData({ ...otherTarget, txid: txHash, beneficiaryAddress: BENE_ADDR, beneficiaryPersons: [RICHARD] });
    expect(c.body).toMatchObject({ result: "error", reasonType: "NOT_FOUND_TXID" });
  });
});

describe("idempotency", () => {
  test("the same request again: the first answer, re-encrypted for the sender's current key; one transfer", async () => {
    const transferId = crypto.randomUUID();
    const first = await send({ transferId });
    expect(first.body!.result).toBe("verified");
    const total = await count();
    const again = await send({ transferId });
    expect({ ...again.body, payload: undefined }).toEqual({ ...first.body, payload: undefined });
    expect(again.body!.payload).not.toBe(first.body!.payload);
    expect(again.ivms101).toEqual(first.ivms101);
    // The sender rotates its key: the same request sealed under the new key is still the same request, and the
    // recorded answer is sealed for the new key.
    const oldKey = peer.directory.vasp(SENDER).publicKeyBase64;
    const newKey = peer.rotateKey(SENDER);
    expect(newKey).not.toBe(oldKey);
    const rotated = await send({ transferId });
    expect(rotated.status).toBe(200);
    expect(rotated.payloadError).toBeUndefined();
    expect(rotated.ivms101).toEqual(first.ivms101);
    expect(openPayload(rotated.body!.payload!, publicKeyBase64(seed), peer.directory.vasp(SENDER).seedBase64).ok).toBe(true);
    expect(await count()).toBe(total);
  });

  test("a denial is recorded too: the same request denied again, even once the reason is gone", async () => {
    const transferId = crypto.randomUUID();
    const first = await send({ transferId, beneficiaryPersons: [person("Doe", "John")] });
    expect(first.body).toMatchObject({ result: "denied", reasonType: "INPUT_NAME_MISMATCHED" });
    expect((await send({ transferId, beneficiaryPersons: [person("Doe", "John")] })).body).toEqual(first.body);
  });

  test("the same transferId with other content: 503 DUPLICATE_TRANSFER_ID; from another sender it is another request", async () => {
    const transferId = crypto.randomUUID();
    expect((await send({ transferId })).body!.result).toBe("verified");
    const total = await count();
    const dup = await send({ transferId, amount: "2" });
    expect(sr(dup)).toEqual({ status: 503, body: { errorType: "DUPLICATE_TRANSFER_ID" } });
    expect(await count()).toBe(total);
    // Records are by sender: the other VASP's request with that transferId is its own.
    const other = await peer.sendIncomingTransfer({ ...otherTarget, transferId, asset: "ETH", network: "ethereum", amount: "2", address: JANE_ETH, originatorPersons: [BOB], beneficiaryPersons: [JANE] });
    expect(other.body!.result).toBe("verified");
    expect(await count()).toBe(total + 1);
  });

  test("concurrent duplicates: one transfer; the others REQUEST_IN_PROGRESS or the same answer", async () => {
    const transferId = crypto.randomUUID();
    const before = await count();
    const replies = await Promise.all(Array.from({ length: 8 }, () => send({ transferId })));
    for (const r of replies) {
      if (r.status === 200) expect(r.body).toMatchObject({ result: "verified", transferId });
      else expect(sr(r)).toEqual({ status: 503, body: { errorType: "REQUEST_IN_PROGRESS" } });
    }
    expect(replies.some((r) => r.status === 200)).toBe(true);
    expect(await count()).toBe(before + 1);
    expect((await send({ transferId })).body).toMatchObject({ result: "verified" });
    expect(await count()).toBe(before + 1);
  });
});

describe("refusals", () => {
  test("403 FORBIDDEN from an address not in PROVIDER_B_ALLOWED_IPS, or without CF-Connecting-IP, health included", async () => {
    for (const r of [
      await peer.health({ ...target, connectingIp: "198.51.100.1" }),
      await send({ connectingIp: "198.51.100.1" }),
      await peer.health({ ...target, headers: { "CF-Connecting-IP": null } }),
      await peer.health({ ...target, connectingIp: "127.0.0.1, 198.51.100.1" }),
    ]) expect(sr(r)).toEqual({ status: 403, body: { errorType: "FORBIDDEN" } });
  });

  test("health: 200 {} without sender headers", async () => {
    const r = await peer.health(target);
    expect(sr(r)).toEqual({ status: 200, body: {} });
    expect((await peer.health({ ...target, toCaravanEnv: "live" })).status).toBe(200);
  });

  test("413 MESSAGE_TOO_LARGE over 256 KiB; 256 KiB exactly is read", async () => {
    const pad = (size: number) => {
      const head = '{"pad":"';
      return head + "x".repeat(size - head.length - 2) + '"}';
    };
    const over = await raw("v1/beneficiary/transfer", "POST", pad(256 * 1024 + 1));
    expect(sr(over)).toEqual({ status: 413, body: { errorType: "MESSAGE_TOO_LARGE" } });
    const at = await raw("v1/beneficiary/transfer", "POST", pad(256 * 1024));
    expect(sr(at)).toEqual({ status: 422, body: { errorType: "MISSING_REQUIRED_MSG_FIELD" } });
    // The size is checked after the source address.
    const both = await raw("v1/beneficiary/transfer", "POST", pad(256 * 1024 + 1), { "CF-Connecting-IP": "198.51.100.1" });
    expect(both.status).toBe(403);
  });

  test.each([
    ["no X-Request-Origin", { [HEADER.origin]: null }],
    ["a malformed X-Request-Origin", { [HEADER.origin]: "kimchi exchange" }],
    ["no X-Code-Req-PubKey", { [HEADER.pubKey]: null }],
    ["an X-Code-Req-PubKey that is not a key", { [HEADER.pubKey]: "bm90IGEga2V5" }],
  ])("422 MISSING_REQUIRED_MSG_FIELD: %s", async (_n, headers) => {
    const r = await send({ headers });
    expect(sr(r)).toEqual({ status: 422, body: { errorType: "MISSING_REQUIRED_MSG_FIELD" } });
  });

  test.each([
    ["a body that is not JSON", "v1/beneficiary/transfer", "POST", "{not json"],
    ["no body", "v1/beneficiary/transfer", "POST", undefined],
    ["a JSON array", "v1/beneficiary/transfer/txid", "POST", "[]"],
    ["a missing transferId", "v1/beneficiary/transfer", "POST", JSON.stringify({ currency: "ETH", amount: "1", payload: "x" })],
    ["an amount that is not a decimal", "v1/beneficiary/transfer", "POST", JSON.stringify({ transferId: "t", currency: "ETH", amount: "1e3", payload: "x" })],
    ["a number where text is required", "v1/beneficiary/transfer/txid", "POST", JSON.stringify({ transferId: "t", txid: 5 })],
    ["a vout that is not an index", "v1/beneficiary/transfer/txid", "POST", JSON.stringify({ transferId: "t", txid: "0xab", vout: "-1" })],
    ["a status other than canceled", "v1/vasp/transfer/status", "PUT", JSON.stringify({ transferId: "t", status: "done" })],
    ["a status question without transferId", "v1/vasp/transfer/status", "POST", "{}"],
    ["a verification without beneficiaryAddress", "v1/verification/tx", "POST", JSON.stringify({ txid: "0xab" })],
    ["a transfer-data request without payload", "v1/verification/tx", "PUT", JSON.stringify({ transferId: "t", txid: "0xab", beneficiaryAddress: "a" })],
    ["an address check without currency", "v1/beneficiary/VerifyAddress", "POST", JSON.stringify({ payload: "x" })],
  ] as const)("422 MISSING_REQUIRED_MSG_FIELD: %s", async (_n, endpoint, method, body) => {
    const r = await raw(endpoint, method, body);
    expect(sr(r)).toEqual({ status: 422, body: { errorType: "MISSING_REQUIRED_MSG_FIELD" } });
  });

  test("422 INVALID_RECEIVER_PUBLIC_KEY when X-Code-Req-Remote-PubKey is not the company's key; ours is accepted", async () => {
    const r = await send({ headers: { [HEADER.remotePubKey]: publicKeyBase64(randomSeedBase64()) } });
    expect(sr(r)).toEqual({ status: 422, body: { errorType: "INVALID_RECEIVER_PUBLIC_KEY" } });
    const garbled = await peer.askStatus({ ...target, transferId: "t", headers: { [HEADER.remotePubKey]: "???" } });
    expect(sr(garbled)).toEqual({ status: 422, body: { errorType: "INVALID_RECEIVER_PUBLIC_KEY" } });
    expect((await send({ headers: { [HEADER.remotePubKey]: publicKeyBase64(seed) } })).status).toBe(200);
  });

  test("503 VASP_BACKEND_INTERNAL_ERROR: a payload that does not decrypt, or sealed for another key", async () => {
    const vasp = peer.directory.vasp(SENDER);
    const message = buildTransferMessage({ originatorPersons: [BOB], originatorAccount: "x", beneficiaryPersons: [JANE], beneficiaryAccount: JANE_ETH, originatingVasp: vasp });
    for (const payload of ["bm90IGEgYm94", sealPayload(message, publicKeyBase64(randomSeedBase64()), vasp.seedBase64), "%%%"]) {
      const before = await count();
      const r = await send({ payload });
      expect(sr(r)).toEqual({ status: 503, body: { errorType: "VASP_BACKEND_INTERNAL_ERROR" } });
      expect(await count()).toBe(before);
    }
    const v = await peer.verifyAddress({ ...target, currency: "ETH", address: JANE_ETH, payload: "bm90IGEgYm94" });
    expect(v.status).toBe(503);
  });

  test("503 VASP_BACKEND_INTERNAL_ERROR: another providerId, or the provider disabled (health included)", async () => {
    for (const r of [await peer.health({ ...target, providerId: "prv_00000000000000000000000000" }), await send({ providerId: "prv_00000000000000000000000000" })])
      expect(sr(r)).toEqual({ status: 503, body: { errorType: "VASP_BACKEND_INTERNAL_ERROR" } });
    expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: ownerLive, json: { enabled: false } })).status).toBe(200);
    try {
      for (const r of [await peer.health(target), await send(), await peer.sendTxid({ ...target, transferId: "t", txid: "0xab" })])
        expect(sr(r)).toEqual({ status: 503, body: { errorType: "VASP_BACKEND_INTERNAL_ERROR" } });
    } finally {
      expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: ownerLive, json: { enabled: true } })).status).toBe(200);
    }
    expect((await peer.health(target)).status).toBe(200);
  });

  test("404 { error: Not found, code: NOT_FOUND } exactly, for any other path or method under /api/system/trp", async () => {
    const base = `/api/system/trp/provider_b/test/connections/${providerId}`;
    const cases: [string, string][] = [
      ["GET", `${base}/v1/unknown`],
      ["GET", `${base}/v1/beneficiary/transfer`],
      ["DELETE", `${base}/v1/vasp/transfer/status`],
      ["POST", `${base}/v1/vasp/health`],
      ["GET", `/api/system/trp/provider_b/staging/connections/${providerId}/v1/vasp/health`],
      ["GET", `/api/system/trp/provider_x/test/${providerId}`],
      ["POST", "/api/system/trp"],
      ["GET", "/api/system/trp/"],
      ["OPTIONS", `${base}/v1/beneficiary/transfer`],
    ];
    for (const [method, path] of cases) {
      const res = await fetch(S.url + path, { method, headers: { "CF-Connecting-IP": "127.0.0.1" } });
      expect({ method, path, status: res.status, body: await res.json() }).toEqual({ method, path, status: 404, body: { error: "Not found", code: "NOT_FOUND" } });
    }
  });

  test("callbacks need no API key and the API's 64 KiB limit does not apply to them", async () => {
    const big = await raw("v1/beneficiary/transfer", "POST", JSON.stringify({ pad: "x".repeat(100_000) }), { "x-api-key": "nonsense" });
    expect(big.status).toBe(422);
  });
});

describe("source list empty, company budget (other servers)", () => {
  const extra: ChildServer[] = [];
  afterAll(async () => {
    for (const s of extra) await s.stop();
  });

  test("PROVIDER_B_ALLOWED_IPS empty: every call refused with 403, health included", async () => {
    const s = await startServer({ CARAVAN_DB: join(dir, "empty-ips.db"), PROVIDER_B_ALLOWED_IPS: "" });
    extra.push(s);
    for (const [endpoint, method] of [["v1/vasp/health", "GET"], ["v1/beneficiary/transfer", "POST"], ["v1/verification/tx", "PUT"]] as const) {
      const r = await raw(endpoint, method, method === "GET" ? undefined : "{}", {}, s.url);
      expect(sr(r)).toEqual({ status: 403, body: { errorType: "FORBIDDEN" } });
    }
  });

  test("over the company budget: 429 RATE_LIMITED with Retry-After; refused sources do not count; the budget is shared with /api/v2", async () => {
    const budgetDb = join(dir, "budget.db");
    expect((await runCliInProcess(["migrate"], { CARAVAN_DB: budgetDb })).code).toBe(0);
    const out = await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "owner"], { CARAVAN_DB: budgetDb })), "--json"], { CARAVAN_DB: budgetDb });
    const key = JSON.parse(out.stdout.trim().split("\n").at(-1)!).key as string;
    const s = await startServer({ CARAVAN_DB: budgetDb, PROVIDER_B_ALLOWED_IPS: "127.0.0.1", CARAVAN_TRUSTED_PROXIES: "127.0.0.1", CARAVAN_RATE_LIMITS: "company=3/3600" });
    extra.push(s);
    for (let i = 0; i < 5; i++) expect((await raw("v1/vasp/health", "GET", undefined, { "CF-Connecting-IP": "198.51.100.1" }, s.url)).status).toBe(403);
    // No provider_b there: counted, then 503.
    for (let i = 0; i < 3; i++) expect((await raw("v1/vasp/health", "GET", undefined, {}, s.url)).status).toBe(503);
    const over = await raw("v1/vasp/health", "GET", undefined, {}, s.url);
    expect(sr(over)).toEqual({ status: 429, body: { errorType: "RATE_LIMITED" } });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const api = await fetch(`${s.url}/api/v2/customers`, { headers: { "x-api-key": key } });
    expect(api.status).toBe(429);
  });
});

describe("the sandbox's direct call helper", () => {
  test("callCaravan with an unsealed body where a payload is required: 422", async () => {
    const r = await callCaravan(ctx, target, "v1/beneficiary/transfer", "POST", { transferId: "t", currency: "ETH", amount: "1" });
    expect(sr(r)).toEqual({ status: 422, body: { errorType: "MISSING_REQUIRED_MSG_FIELD" } });
  });
});
