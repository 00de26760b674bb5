// provider_a end to end: a real Caravan server and the sandbox provider_a network over real HTTP, OAuth tokens,
// Standard Webhooks signed by the `standardwebhooks` package (Part 3 "provider_a transfers", discovery table,
// "provider_a callback", PATCH table).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { withDb } from "../support/db.ts";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { CARAVAN, ETH, newWebhookSecret, providerAHelpers } from "../support/provider_a.ts";
import { JANE, RICHARD, person } from "../support/persons.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startProviderAPeer, type ProviderAPeer, type SandboxVaspA } from "../../src/sandbox/provider_a/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "pa.db");
let S: ChildServer;
let peer: ProviderAPeer;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerEmail: string;
const { customer, wallet, createOutgoing, get, until, patch } = providerAHelpers({ call, cli }, () => ({ owner, ownerEmail }));
let providerId: string;
const SECRET = newWebhookSecret();

// Checksummed EVM addresses (the registry's canonical form).
const A = {
  origin: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  bene: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  reject: "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
  flag: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
  silent: "0x52908400098527886E0F7030069857D2E4169EE7",
  unconfirmed: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  custodian: "0xde709f2102306220921060314715629080e2fb77",
  own: "0x27b1fdb04752bbc536007a920d24acb045561c26",
  unknown: "0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c",
  mine: "0xa1e4380a3b1f749673e270229993ee55f35663b4",
  unverifiedWallet: "0x7afd56c7c93f56ab5fd0c6f9b7f8e5c8e1f0a4c2",
};

const vasp = (did: string, behaviour: SandboxVaspA["behaviour"], address: string, extra: Partial<SandboxVaspA> = {}): SandboxVaspA => ({
  did,
  name: did.slice(8),
  behaviour,
  customers: { richard: [RICHARD] },
  wallets: [{ address, customer: "richard" }],
  ...extra,
});

let jane: string;
let carol: string;

const callbackUrl = (env = "test", id = providerId) => `${S.url}/api/system/trp/provider_a/${env}/${id}`;

async function create(beneficiaryAddress: string, extra: Record<string, unknown> = {}, originatorCustomerId = jane) {
  // The request's originator differs from the verified identity: provider_a sends the identity.
  return createOutgoing({ beneficiaryAddress, originatorCustomerId, originatorPersons: [person("Other", "Name")], beneficiaryPersons: [RICHARD], extra });
}

const peerTx = (id: string) => peer.transfers.get(id)!;

beforeAll(async () => {
  peer = await startProviderAPeer({
    vasps: [
      vasp("did:web:bene.example", "authorize", A.bene),
      vasp("did:web:reject.example", "reject", A.reject),
      vasp("did:web:flag.example", "flag", A.flag),
      vasp("did:web:silent.example", "silent", A.silent),
      vasp("did:web:unconfirmed.example", "authorize", A.unconfirmed, { unconfirmed: true }),
      vasp("did:web:custodied.example", "authorize", A.custodian, { custodian: true }),
      { did: CARAVAN, name: "Caravan", behaviour: "silent", customers: {}, wallets: [{ address: A.own, customer: "x" }] },
      vasp("did:web:orig.example", "authorize", "0x0000000000000000000000000000000000000abc"),
    ],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_PROVIDER_A_AUTH_URL: peer.url, CARAVAN_PROVIDER_A_API_ORIGINS: peer.url });
  const credentials = { apiUrl: peer.url, clientId: "caravan-client", clientSecret: "s3cret", vaspDid: CARAVAN, webhookSecret: SECRET };
  for (const key of [owner, live]) expect((await call("/api/v2/providers/provider_a", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  const p = await call("/api/v2/providers/provider_a", { key: owner });
  providerId = String(p.body.data.callbackPaths[0].path).split("/").at(-1)!;
  expect(providerId).toMatch(/^prv_/);
  peer.registerCaravan({ did: CARAVAN, name: "Caravan", clientId: "caravan-client", clientSecret: "s3cret", webhookUrl: callbackUrl(), webhookSecret: SECRET });
  jane = await customer("Jane Doe", "verified", [JANE]);
  await wallet(jane, A.origin, true);
  carol = await customer("Carol Unverified", "unverified", [person("Unverified", "Carol")]);
});

afterAll(async () => {
  await S?.stop();
  await peer?.stop();
});

describe("connection and OAuth", () => {
  test("connection test: a token from the auth origin with apiUrl as audience, the entity lookup returns the same entity", async () => {
    const before = peer.tokensIssued();
    const r = await call("/api/v2/providers/provider_a/test", { method: "POST", key: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(true);
    expect(peer.tokensIssued()).toBe(before + 1);
    const lookup = peer.requests.filter((q) => q.route === "entity").at(-1)!;
    expect(lookup.path).toBe(`/entities/${encodeURIComponent(CARAVAN)}`);
    expect(lookup.status).toBe(200);
  });

  test("a revoked token: the 401 is retried once with a new token, nothing else is retried", async () => {
    peer.revokeTokens();
    const before = peer.tokensIssued();
    const id = await create(A.unknown);
    await until(id, ["failed"]);
    // One new token after the 401; the discovery was answered.
    expect(peer.tokensIssued()).toBe(before + 1);
    const discoveries = peer.requests.filter((q) => q.route === "discover" && q.path.includes(encodeURIComponent(A.unknown)));
    expect(discoveries.map((q) => q.status)).toEqual([401, 200]);
  });
});

describe("discovery table", () => {
  test("NOT_FOUND: no VASP here (attempt vasp_not_found); with no other provider the transfer fails", async () => {
    const id = await create(A.unknown);
    const t = await until(id, ["failed"]);
    expect(t.cascade.attempts[0]).toMatchObject({ provider: "provider_a", status: "vasp_not_found" });
    expect([...peer.transfers.values()].some((x) => x.ref === id)).toBe(false);
  });

  test("a network not sent through provider_a: no VASP here, nothing asked", async () => {
    const addr = "0x0000000000000000000000000000000000000def";
    const before = peer.requests.length;
    const r = await call("/api/v2/transfers", {
      method: "POST",
      key: owner,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      json: { asset: "FTM", amount: "100000", network: "fantom", originatorCustomerId: jane, beneficiaryAddress: addr, originator: { originatorPersons: [JANE] }, beneficiary: { beneficiaryPersons: [RICHARD] } },
    });
    expect(r.status).toBe(202);
    const t = await until(r.body.data.id, ["failed"]);
    expect(t.cascade.attempts[0]).toMatchObject({ provider: "provider_a", status: "vasp_not_found" });
    expect(peer.requests.slice(before).some((q) => q.route === "discover")).toBe(false);
  });

  for (const [label, address] of [
    ["UNCONFIRMED", A.unconfirmed],
    ["a custodian", A.custodian],
    ["the company's own entity", A.own],
  ] as const) {
    test(`${label}: routing stops, transfer failed, no customer data sent`, async () => {
      const id = await create(address);
      const t = await until(id, ["failed"]);
      expect(t.cascade.attempts.at(-1)).toMatchObject({ provider: "provider_a", status: "error" });
      expect([...peer.transfers.values()].some((x) => x.ref === id)).toBe(false);
    });
  }

  test("a refusal (4xx other than 429): routing stops", async () => {
    peer.setFault("discover", { kind: "status", status: 400 }, 1);
    const id = await create(A.bene);
    const t = await until(id, ["failed"]);
    expect(t.cascade.attempts.at(-1).error).toContain("provider_a request failed (HTTP_400)");
  });

  test("an answer about another address: routing stops", async () => {
    peer.setFault("discover", { kind: "answer", body: { address: A.unknown, asset: "ETH-ETHEREUM", status: "CONFIRMED", owner: { did: "did:web:bene.example", name: "b" }, custodian: null } }, 1);
    const id = await create(A.bene);
    await until(id, ["failed"]);
    expect([...peer.transfers.values()].some((x) => x.ref === id)).toBe(false);
  });

  test("5xx: asked again at least 11 seconds later, then found", async () => {
    peer.setFault("discover", { kind: "status", status: 503 }, 1);
    const id = await create(A.bene);
    const t = await until(id, ["exchanging", "awaiting_counterparty", "accepted"]);
    const asks = peer.requests.filter((q) => q.route === "discover" && q.path.includes(encodeURIComponent(A.bene)));
    expect(asks.at(-2)!.status).toBe(503);
    expect(t.cascade.provider).toBe("provider_a");
  });
});

describe("outgoing flow", () => {
  test("create with our ID as ref, the verified identity appended as originator, beneficiary screened, authorized, accepted, settled by accept with txHash", async () => {
    const id = await create(A.bene, { originatorAddress: A.origin });
    const t = await until(id, ["accepted"]);
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    expect(t.beneficiary.vaspId).toBe("did:web:bene.example");
    const tx = peerTx(t.cascade.externalId);
    expect(tx.ref).toBe(id);
    expect(tx.asset).toBe(ETH);
    // Part 3 Outgoing 2: the customer's verified identity, never the request's originator.
    expect(peer.persons(tx.id, "originator")).toEqual([JANE]);
    expect(peer.accounts(tx.id, "originator")).toEqual([A.origin]);
    // Sent in the 2023 edition, as Notabene documents its append (the network refuses anything else).
    expect(Object.keys(tx.pii.originator!)).toContain("originatorPerson");
    expect(JSON.stringify(tx.pii.originator)).toContain('"naturalPersonNameIdentifierType":"LEGL"');
    // TAP parties and TAIP-5 agents: our VASP for the originator, the settlement address as the beneficiary VASP's.
    expect(peer.vaspAgent(tx.id, "originator")!["@id"]).toBe(CARAVAN);
    expect(tx.agents.find((a) => a.role === "SettlementAddress")!["@id"]).toBe(`did:pkh:eip155:1:${A.bene}`);
    expect(peer.vaspAgent(tx.id, "originator")!.status).toBe("AUTHORIZED");

    const hash = "0x" + "ab".repeat(32);
    const r = await patch(id, { action: "accept", txHash: hash });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ state: "completed", txHash: hash });
    expect(peerTx(t.cascade.externalId).settlementId).toBe(hash);
    // A tried hash is kept: another one is TX_HASH_CONFLICT.
    const other = await patch(id, { action: "accept", txHash: "0x" + "cd".repeat(32) });
    expectError(other, 400, "INVALID_REQUEST");
    expect(other.body.error).toBe("TX_HASH_CONFLICT");
  });

  test("accept with txHash while still exchanging (nothing authorized yet): LOCAL_APPROVAL_REQUIRED, unchanged (TRANSFER_NOT_AUTHORIZED: provider_a-patch.test.ts)", async () => {
    const id = await create(A.silent);
    const t = await until(id, ["exchanging"]);
    const r = await patch(id, { action: "accept", txHash: "0x" + "11".repeat(32) });
    expectError(r, 400, "INVALID_REQUEST");
    expect(r.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
    expect((await get(id)).state).toBe(t.state);
  });

  test("an outgoing provider_a transfer cannot be rejected by the service", async () => {
    const id = await create(A.silent);
    await until(id, ["exchanging"]);
    const r = await patch(id, { action: "reject", status: "rejected", reason: "OTHER" });
    expectError(r, 400, "INVALID_REQUEST");
    expect((await get(id)).state).toBe("exchanging");
  });

  test("beneficiary VASP REJECTED: rejected, status.theirs rejected", async () => {
    const id = await create(A.reject);
    const t = await until(id, ["rejected"]);
    expect(t.status.theirs).toBe("rejected");
  });

  test("FLAGGED: held, verdict pending, a case; resolving the case approved → awaiting_counterparty without calling the provider; authorized at the next event", async () => {
    const id = await create(A.flag);
    const held = await until(id, ["held"]);
    // Verdict pending (shown as null while no check ran).
    expect([null, "pending"]).toContain(held.compliance.status);
    const txId = held.cascade.externalId;
    let caseId: string | undefined;
    for (let i = 0; i < 100 && !caseId; i++) {
      const cases = await call("/api/v2/cases?limit=100", { key: owner });
      caseId = cases.body.data.find((c: { transferIds: string[] }) => c.transferIds.includes(id))?.id;
      if (!caseId) await Bun.sleep(100);
    }
    expect(caseId).toBeDefined();
    const authorizesBefore = peer.requests.filter((q) => q.route === "authorize").length;
    const resolved = await call(`/api/v2/cases/${caseId}/resolve`, { method: "POST", key: owner, json: { resolution: "approved", resolutionNote: "checked" } });
    expect(resolved.status).toBe(200);
    const t = await until(id, ["awaiting_counterparty"]);
    expect(t.compliance.status).toBe("approved");
    expect(peer.requests.filter((q) => q.route === "authorize").length).toBe(authorizesBefore);
    // The network clears the flag and the beneficiary authorizes: the next event authorizes and accepts.
    await peer.update(txId, { status: "PENDING", agent: { role: "BENEFICIARY", status: "AUTHORIZED" } });
    await until(id, ["accepted"]);
    expect(peer.requests.filter((q) => q.route === "authorize").length).toBe(authorizesBefore + 1);
  });

  test("originator without a verified identity: stops before creation at the provider (VERIFIED_ORIGINATOR_REQUIRED)", async () => {
    const id = await create(A.bene, {}, carol);
    const t = await until(id, ["failed"]);
    expect(t.cascade.attempts.at(-1)).toMatchObject({ provider: "provider_a", status: "error", error: "VERIFIED_ORIGINATOR_REQUIRED" });
    expect([...peer.transfers.values()].some((x) => x.ref === id)).toBe(false);
  });

  test("a lost answer after creation started: failed, submission_unknown, retry does not resend; a later event binds and resumes it", async () => {
    peer.setFault("create", { kind: "dropAnswer" }, 1);
    const id = await create(A.silent);
    const t = await until(id, ["failed"]);
    expect(t.cascade.attempts.at(-1).status).toBe("submission_unknown");
    const created = [...peer.transfers.values()].filter((x) => x.ref === id);
    expect(created.length).toBe(1);
    const retry = await patch(id, { action: "retry", reason: "try again" });
    expectError(retry, 400, "INVALID_REQUEST");
    expect(retry.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
    expect([...peer.transfers.values()].filter((x) => x.ref === id).length).toBe(1);
    // The provider's event binds it (found by our reference), appends the missing IVMS101 and resumes the flow.
    expect(await peer.notify(created[0].id)).toBe(200);
    const bound = await until(id, ["exchanging", "awaiting_counterparty", "accepted"]);
    expect(bound.cascade.externalId).toBe(created[0].id);
    expect(bound.cascade.provider).toBe("provider_a");
    expect(peer.persons(created[0].id, "originator")).toEqual([JANE]);
  });
});

describe("incoming flow", () => {
  let rita: string;
  let ritaAddr: string;
  let unverifiedAddr: string;
  beforeAll(async () => {
    rita = await customer("Rita Recipient", "verified", [person("Recipient", "Rita")]);
    ritaAddr = await wallet(rita, A.mine, true);
    unverifiedAddr = await wallet(rita, A.unverifiedWallet, false);
  });

  const incoming = async (address: string, extra: Record<string, unknown> = {}) =>
    peer.sendIncoming({ from: "did:web:orig.example", to: CARAVAN, asset: ETH, amount: "2.5", beneficiaryAddress: address, originatorAddress: "0x0000000000000000000000000000000000000abc", originatorPersons: [RICHARD], ...extra });

  async function byProviderId(txId: string) {
    const r = await call(`/api/v2/transfers?direction=incoming&limit=100`, { key: owner });
    return r.body.data.find((t: { externalId: string }) => t.externalId === `provider_a-inbound:${txId}`);
  }

  test("verified wallet: created exchanging, relationship confirmed, identity appended, originator screened, authorized, accepted, completed with the settlement's hash", async () => {
    const sent = await incoming(ritaAddr, { beneficiaryPersons: [person("RECIPIENT", "rita")] });
    expect(sent.status).toBe(200);
    const found = await byProviderId(sent.id);
    expect(found).toBeDefined();
    const t = await until(found.id, ["accepted"]);
    expect(t.direction).toBe("incoming");
    // The relationship from the address (a did:pkh: CAIP-10 account) to our entity.
    expect(peer.relationships.some((r) => r.from === `did:pkh:eip155:1:${ritaAddr}` && r.to === CARAVAN && r.entity === CARAVAN)).toBe(true);
    expect(peer.persons(sent.id, "beneficiary")).toEqual([person("Recipient", "Rita")]);
    // An incoming transfer takes no txHash from the caller.
    const refused = await patch(found.id, { action: "accept", txHash: "0x" + "22".repeat(32) });
    expectError(refused, 400, "INVALID_REQUEST");
    const hash = "0x" + "33".repeat(32);
    await peer.update(sent.id, { status: "SETTLED", settlement: { id: hash } });
    const done = await until(found.id, ["completed"]);
    expect(done.txHash).toBe(hash);
  });

  test("an originating VASP on the IVMS101 2020 edition: its persons are read the same way (checked, screened, authorized, accepted)", async () => {
    const sent = await incoming(ritaAddr, { edition: "2020", beneficiaryPersons: [person("Recipient", "Rita")] });
    expect(sent.status).toBe(200);
    // On the wire: the 2020 spelling, in the party object of the decrypted read.
    expect(Object.keys(peerTx(sent.id).pii.originator!)).toContain("originatorPersons");
    const found = await byProviderId(sent.id);
    const t = await until(found.id, ["accepted", "held"]);
    expect(t.state).toBe("accepted");
    expect(peer.vaspAgent(sent.id, "beneficiary")!.status).toBe("AUTHORIZED");
  });

  test("an unverified wallet: 503 BENEFICIARY_WALLET_NOT_VERIFIED, nothing created; once verified, the redelivery is processed", async () => {
    peer.webhooks.retries = 0;
    const sent = await incoming(unverifiedAddr);
    peer.webhooks.retries = 3;
    expect(sent.status).toBe(503);
    expect(await byProviderId(sent.id)).toBeUndefined();
    const w = (await call(`/api/v2/wallets?customerId=${rita}&limit=100`, { key: owner })).body.data.find((x: { address: string }) => x.address === unverifiedAddr);
    await cli("wallets", "attest", "--id", w.id, "--note", "x", "--member", ownerEmail);
    const msg = peer.webhooks.sent.filter((m) => m.txId === sent.id).at(-1)!;
    expect(await peer.webhooks.redeliver(msg.id)).toBe(200);
    expect(await byProviderId(sent.id)).toBeDefined();
  });

  test("the originator names another beneficiary: BENEFICIARY_NAME_MISMATCH, nothing sent", async () => {
    peer.webhooks.retries = 0;
    const relationshipsBefore = peer.relationships.length;
    const sent = await incoming(ritaAddr, { beneficiaryPersons: [person("Somebody", "Else")] });
    peer.webhooks.retries = 3;
    expect(sent.status).toBe(503);
    const t = await byProviderId(sent.id);
    expect(t.state).toBe("exchanging");
    expect(peer.relationships.length).toBe(relationshipsBefore);
    expect(peer.persons(sent.id, "beneficiary")).toEqual([person("Somebody", "Else")]);
  });

  test("flagged incoming: held; reject sends COMPLIANCE_POLICIES (SANCTION_SCREENING for SANCTIONS_MATCH) and rejects", async () => {
    for (const [reason, sentReason] of [["OTHER", "COMPLIANCE_POLICIES"], ["SANCTIONS_MATCH", "SANCTION_SCREENING"]]) {
      const sent = await incoming(ritaAddr);
      const t0 = await until((await byProviderId(sent.id)).id, ["awaiting_counterparty", "accepted"]);
      await peer.update(sent.id, { status: "FLAGGED" });
      await until(t0.id, ["held"]);
      const r = await patch(t0.id, { action: "reject", status: "rejected", reason });
      expect(r.status).toBe(200);
      expect(r.body.data.state).toBe("rejected");
      expect(peerTx(sent.id).rejectReason).toBe(sentReason);
    }
  });

  test("held incoming: accept while flagged is LOCAL_APPROVAL_REQUIRED; once cleared, accept authorizes, reads back and moves to awaiting_counterparty", async () => {
    // The originating VASP stays silent so the transfer waits for it after our authorization.
    peer.vasps.get("did:web:orig.example")!.behaviour = "silent";
    try {
      const sent = await incoming(ritaAddr);
      const id = (await byProviderId(sent.id)).id;
      await until(id, ["awaiting_counterparty"]);
      await peer.update(sent.id, { flags: ["MANUAL_REVIEW"] });
      const held = await until(id, ["held"]);
      expect([null, "pending"]).toContain(held.compliance.status);
      const refused = await patch(id, { action: "accept" });
      expectError(refused, 400, "INVALID_REQUEST");
      expect(refused.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
      await peer.update(sent.id, { flags: [] }, { silent: true });
      const ok = await patch(id, { action: "accept" });
      expect(ok.status).toBe(200);
      expect(ok.body.data).toMatchObject({ state: "awaiting_counterparty" });
      expect((await get(id)).compliance.status).toBe("approved");
    } finally {
      peer.vasps.get("did:web:orig.example")!.behaviour = "authorize";
    }
  });

  test("a custodian in the agent chain: UNSUPPORTED_AGENT_CHAIN, nothing created", async () => {
    peer.webhooks.retries = 0;
    const sent = await incoming(ritaAddr, { extraAgents: [{ "@id": "did:web:custodian.example", for: "did:web:orig.example", role: "Custodian" }] });
    peer.webhooks.retries = 3;
    expect(sent.status).toBe(503);
    expect(await byProviderId(sent.id)).toBeUndefined();
  });
});

describe("callback statuses (in their order of checks)", () => {
  let txId: string;
  beforeAll(async () => {
    txId = (await peer.sendIncoming({ from: "did:web:orig.example", to: CARAVAN, asset: ETH, amount: "1", beneficiaryAddress: A.mine, originatorPersons: [RICHARD] })).id;
  });

  const body = (o: Record<string, unknown> = {}) => JSON.stringify({ message: "notification.transfer.updated", payload: { id: txId, for: CARAVAN }, version: "1.0.0", ...o });
  const post = (raw: string, headers: Record<string, string>, url = callbackUrl()) => fetch(url, { method: "POST", headers, body: raw });
  const signed = (raw: string, id = `msg_${crypto.randomUUID()}`, ts = Date.now(), secret = SECRET) => peer.webhooks.signed({ url: "", secret, did: CARAVAN }, id, raw, ts, secret);
  const answer = async (r: Response) => ({ status: r.status, body: await r.json() });

  test("404 for another method or path", async () => {
    expect(await answer(await fetch(callbackUrl(), { method: "GET" }))).toEqual({ status: 404, body: { error: "Not found", code: "NOT_FOUND" } });
    expect(await answer(await post(body(), signed(body()), `${callbackUrl()}/extra`))).toEqual({ status: 404, body: { error: "Not found", code: "NOT_FOUND" } });
  });

  test("503 Provider unavailable for another providerId", async () => {
    expect(await answer(await post(body(), signed(body()), callbackUrl("test", "prv_other")))).toEqual({ status: 503, body: { error: "Provider unavailable" } });
  });

  test("413 over 256 KiB", async () => {
    const raw = body({ pad: "x".repeat(256 * 1024) });
    expect(await answer(await post(raw, signed(raw)))).toEqual({ status: 413, body: { error: "Body too large" } });
  });

  test("401: missing, wrong, another secret, stale or future timestamp", async () => {
    const raw = body();
    const wrongSecret = "whsec_" + btoa("another secret of 32 bytes......");
    for (const h of [
      { "content-type": "application/json" },
      { ...signed(raw), "svix-signature": "v1,AAAA" },
      signed(raw, undefined, Date.now(), wrongSecret),
      signed(raw, undefined, Date.now() - 6 * 60_000),
      signed(raw, undefined, Date.now() + 6 * 60_000),
    ])
      expect(await answer(await post(raw, h))).toEqual({ status: 401, body: { error: "Invalid signature" } });
    // A signed body changed afterwards (forged) is refused as well.
    expect((await post(body({ message: "notification.transfer.forged" }), signed(raw))).status).toBe(401);
  });

  test("several signatures in the header (rotation): one valid is enough", async () => {
    const raw = body({ message: "something.else" });
    const h = signed(raw);
    h["svix-signature"] = `v1,${btoa("not it")} ${h["svix-signature"]}`;
    expect(await answer(await post(raw, h))).toEqual({ status: 200, body: { ignored: true } });
  });

  test("400 Invalid JSON, 400 Invalid event or entity (version, entity, transfer ID)", async () => {
    expect(await answer(await post("{not json", signed("{not json")))).toEqual({ status: 400, body: { error: "Invalid JSON" } });
    for (const raw of [body({ version: "2.0.0" }), JSON.stringify({ message: "notification.transfer.updated", payload: { id: txId, for: "did:web:other.example" }, version: "1.0.0" }), JSON.stringify({ message: "notification.transfer.updated", payload: { for: CARAVAN }, version: "1.0.0" })])
      expect(await answer(await post(raw, signed(raw)))).toEqual({ status: 400, body: { error: "Invalid event or entity" } });
    // Each refusal is logged with the field that failed.
    // The last refusal's line is written while answering: wait for it rather than read the log a moment early.
    const logged = await S.untilOutput(`"msg":"provider_a event not understood","path":"payload.id"`);
    for (const path of ["version", "payload.for", "payload.id"]) expect(logged).toContain(`"msg":"provider_a event not understood","path":"${path}"`);
  });

  test("200 ignored for another message; 200 received, and a repeated delivery does nothing", async () => {
    const other = body({ message: "notification.entity.updated" });
    expect(await answer(await post(other, signed(other)))).toEqual({ status: 200, body: { ignored: true } });
    const raw = body();
    const id = `msg_${crypto.randomUUID()}`;
    expect(await answer(await post(raw, signed(raw, id)))).toEqual({ status: 200, body: { received: true } });
    const reads = peer.requests.filter((q) => q.route === "get").length;
    expect(await answer(await post(raw, signed(raw, id)))).toEqual({ status: 200, body: { received: true } });
    expect(peer.requests.filter((q) => q.route === "get").length).toBe(reads);
  });

  test("duplicate and out-of-order deliveries are harmless", async () => {
    peer.webhooks.duplicates = true;
    peer.webhooks.paused = true;
    const sent = await peer.sendIncoming({ from: "did:web:orig.example", to: CARAVAN, asset: ETH, amount: "3", beneficiaryAddress: A.mine, originatorPersons: [RICHARD] });
    await peer.notify(sent.id);
    const statuses = await peer.webhooks.flushReversed();
    peer.webhooks.duplicates = false;
    expect(statuses.every((s) => s === 200)).toBe(true);
    const r = await call(`/api/v2/transfers?direction=incoming&limit=100`, { key: owner });
    expect(r.body.data.filter((t: { externalId: string }) => t.externalId === `provider_a-inbound:${sent.id}`).length).toBe(1);
  });
});

describe("polling and the exchange stall (croner sweeps; rows made older in the database file)", () => {
  test("exchanging 15 minutes without change → failed, later events answer 503; a transfer unchanged five minutes is polled; the stalled one blocks its customer's erasure until, a day unchanged and past its expiry, it is cancelled", async () => {
    // Its own customer, whose erasure waits for it.
    const erin = await customer("Erin Stalled", "verified", [person("Stalled", "Erin")]);
    const stalled = await create(A.silent, {}, erin);
    await until(stalled, ["exchanging"]);
    const polled = await create(A.silent);
    const p = await until(polled, ["exchanging"]);
    // The silent VASP authorizes without telling Caravan: only a poll can see it.
    await peer.update(p.cascade.externalId, { agent: { role: "BENEFICIARY", status: "AUTHORIZED" }, beneficiaryPersons: [RICHARD] }, { silent: true });
    const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    // With a busy timeout: the server's sweeps write every second, and a lock met without one fails at once.
    withDb(db, (file) => {
      file.run("UPDATE transfers SET updated_at = ? WHERE id = ?", [ago(16), stalled]);
      file.run("UPDATE transfers SET updated_at = ? WHERE id = ?", [ago(6), polled]);
    });
    // Both sweeps run once a minute (second 0 and second 30): wait up to a little over a minute for each.
    const failed = await until(stalled, ["failed"], 700);
    expect(failed.cascade.attempts.at(-1).status).toBe("sent");
    // Polled meanwhile, never authorized on the data we appended ourselves (the silent VASP never supplied its own).
    expect(peer.requests.filter((q) => q.route === "authorize" && q.path.includes(encodeURIComponent(failed.cascade.externalId))).length).toBe(0);
    const moved = await until(polled, ["accepted"], 700);
    expect(moved.status.theirs).toBe("accepted");
    // A failed provider_a transfer: events answer 503 and it cannot be retried.
    expect(await peer.notify(failed.cascade.externalId)).toBe(503);
    expectError(await patch(stalled, { action: "retry", reason: "again" }), 400, "INVALID_REQUEST");
    // Nor can an outgoing provider_a transfer be rejected: nothing moves it, and its customer's erasure waits for it.
    expectError(await patch(stalled, { action: "reject", status: "rejected", reason: "OTHER" }), 400, "INVALID_REQUEST");
    const erase = () => call(`/api/v2/customers/${erin}/erase`, { method: "POST", key: owner, json: { reason: "data-subject erasure request" } });
    const refused = await erase();
    expectError(refused, 409, "IN_FLIGHT");
    expect(refused.body.details.activeTransferIds).toEqual([stalled]);
    // Unchanged a day and past its expiry: the expiry sweep (every 10 s) cancels it, and the erasure completes.
    withDb(db, (file) => file.run("UPDATE transfers SET updated_at = ?, expires_at = ? WHERE id = ?", [ago(25 * 60), ago(1), stalled]));
    const closed = await until(stalled, ["cancelled"], 400);
    expect(closed.rejection).toBeNull();
    // A later event finds it final and changes nothing.
    await peer.notify(failed.cascade.externalId);
    expect((await get(stalled)).state).toBe("cancelled");
    const erased = await erase();
    expect(erased.status).toBe(200);
    expect(erased.body.data.id).toBe(erin);
  }, 150_000);
});
