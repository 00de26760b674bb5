// provider_a, the rows of Part 3's tables the other provider_a tests leave out, end to end: a real Caravan server and
// the sandbox provider_a network over real HTTP (its `update(txId, …)` drives the provider-side statuses), events
// signed by the `standardwebhooks` package. Covers the callback's 503 rows (disabled, no credentials,
// INVALID_CONFIGURATION, UNKNOWN_TRANSFER, a failed provider read, TRANSFER_BINDING_MISMATCH, TRANSFER_FAILED), the
// provider-side status table row by row in both directions, a memo through discovery, the incoming refusals before
// creation, and polling against a provider that is down.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { withDb } from "../support/db.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { CARAVAN, ETH, newWebhookSecret, providerAHelpers } from "../support/provider_a.ts";
import { JANE, RICHARD, person } from "../support/persons.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startProviderAPeer, type ProviderAPeer, type SandboxVaspA } from "../../src/sandbox/provider_a/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "pa-rows.db");
let S: ChildServer;
let peer: ProviderAPeer;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerEmail: string;
const { customer, wallet, createOutgoing, get, until, patch, incomingId } = providerAHelpers({ call, cli }, () => ({ owner, ownerEmail }));
let live: string;
let providerId: string;
let noTestCredentials: { status: number; body: unknown };
const SECRET = newWebhookSecret();

/** What a silent beneficiary VASP supplies itself later (differs from the request's beneficiary persons we append). */
const RICHARD_KYC = person("Roe", "Richard Paul", "DE");

const A = {
  origin: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  silent: "0x52908400098527886E0F7030069857D2E4169EE7",
  mine: "0xa1e4380a3b1f749673e270229993ee55f35663b4",
  unverifiedCustomer: "0x7afd56c7c93f56ab5fd0c6f9b7f8e5c8e1f0a4c2",
  sender: "0x0000000000000000000000000000000000000abc",
  xrp: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
};

const vasp = (did: string, behaviour: SandboxVaspA["behaviour"], wallets: SandboxVaspA["wallets"]): SandboxVaspA => ({
  did,
  name: did.slice(8),
  behaviour,
  customers: { richard: [RICHARD] },
  wallets,
});

let jane: string;
let rita: string;

const callbackUrl = (env = "test") => `${S.url}/api/system/trp/provider_a/${env}/${providerId}`;

async function create(beneficiaryAddress: string, extra: Record<string, unknown> = {}) {
  return createOutgoing({ beneficiaryAddress, originatorCustomerId: jane, originatorPersons: [JANE], beneficiaryPersons: [RICHARD], extra });
}

const peerTx = (id: string) => peer.transfers.get(id)!;
const hash = (byte: string) => "0x" + byte.repeat(32);

/** An event Caravan's callback receives, signed by the `standardwebhooks` package; the answer's status and body. */
async function deliver(txId: string, opts: { message?: string; url?: string; id?: string } = {}) {
  const raw = JSON.stringify({ message: opts.message ?? "notification.transfer.updated", payload: { id: txId, for: CARAVAN }, version: "1.0.0" });
  const headers = peer.webhooks.signed({ url: "", secret: SECRET, did: CARAVAN }, opts.id ?? `msg_${crypto.randomUUID()}`, raw, Date.now());
  const r = await fetch(opts.url ?? callbackUrl(), { method: "POST", headers, body: raw });
  return { status: r.status, body: await r.json() };
}

/** The history entry of the transfer's last hold, read from the database file. */
function lastHold(id: string): { reason?: string } | undefined {
  return withDb(db, (file) => {
    const row = file.query("SELECT history FROM transfers WHERE id = ?").get(id) as { history: string };
    return (JSON.parse(row.history) as { type: string; detail?: { reason?: string } }[]).filter((h) => h.type === "held").at(-1)?.detail;
  });
}

async function caseOf(id: string): Promise<Record<string, unknown> | undefined> {
  for (let i = 0; i < 100; i++) {
    const cases = await call("/api/v2/cases?limit=100", { key: owner });
    const c = cases.body.data.find((x: { transferIds: string[] }) => x.transferIds.includes(id));
    if (c) return c;
    await Bun.sleep(100);
  }
  return undefined;
}

async function incomingCount(txId: string): Promise<number> {
  const r = await call(`/api/v2/transfers?direction=incoming&limit=100`, { key: owner });
  return r.body.data.filter((x: { externalId: string }) => x.externalId === `provider_a-inbound:${txId}`).length;
}

type Incoming = Parameters<ProviderAPeer["sendIncoming"]>[0];
/** An incoming transfer from `from` (the authorizing one by default) to Rita's verified wallet. */
async function incoming(extra: Partial<Incoming> = {}) {
  const sent = await peer.sendIncoming({ from: "did:web:orig.example", to: CARAVAN, asset: ETH, amount: "2", beneficiaryAddress: A.mine, originatorAddress: A.sender, originatorPersons: [RICHARD], ...extra });
  return { txId: sent.id, status: sent.status };
}

/** An outgoing transfer to the silent VASP whose own beneficiary data arrived: authorized by us, `awaiting_counterparty`. */
async function authorizedOutgoing(): Promise<{ id: string; txId: string }> {
  const id = await create(A.silent);
  const t = await until(id, ["exchanging"]);
  const txId = t.cascade.externalId as string;
  await peer.update(txId, { beneficiaryPersons: [RICHARD_KYC] });
  const a = await until(id, ["awaiting_counterparty"]);
  expect(a.status.ours).toBe("accepted");
  return { id, txId };
}

beforeAll(async () => {
  peer = await startProviderAPeer({
    vasps: [
      vasp("did:web:silent.example", "silent", [{ address: A.silent, customer: "richard" }]),
      vasp("did:web:orig.example", "authorize", [{ address: A.sender, customer: "richard" }]),
      vasp("did:web:quiet.example", "silent", [{ address: "0x0000000000000000000000000000000000000abd", customer: "richard" }]),
      vasp("did:web:ripple.example", "authorize", [{ address: A.xrp, memo: "12345", customer: "richard" }]),
      vasp("did:web:third.example", "authorize", [{ address: "0x0000000000000000000000000000000000000abe", customer: "richard" }]),
    ],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_PROVIDER_A_AUTH_URL: peer.url, CARAVAN_PROVIDER_A_API_ORIGINS: peer.url });
  // The live environment first, with a signing secret that does not fit its format (INVALID_CONFIGURATION on use);
  // the switch needs saved credentials and a live key.
  const bad = { apiUrl: peer.url, clientId: "caravan-client", clientSecret: "s3cret", vaspDid: CARAVAN, webhookSecret: "not-a-signing-secret" };
  expect((await call("/api/v2/providers/provider_a", { method: "PUT", key: live, json: { credentials: bad } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  const p = await call("/api/v2/providers/provider_a", { key: live });
  providerId = String(p.body.data.callbackPaths[0].path).split("/").at(-1)!;
  // Enabled, but no credentials for the test environment yet: its callback is unavailable.
  noTestCredentials = await deliver("tx_any");
  const credentials = { apiUrl: peer.url, clientId: "caravan-client", clientSecret: "s3cret", vaspDid: CARAVAN, webhookSecret: SECRET };
  expect([200, 201]).toContain((await call("/api/v2/providers/provider_a", { method: "PUT", key: owner, json: { credentials } })).status);
  peer.registerCaravan({ did: CARAVAN, name: "Caravan", clientId: "caravan-client", clientSecret: "s3cret", webhookUrl: callbackUrl(), webhookSecret: SECRET });
  jane = await customer("Jane Doe", "verified", [JANE]);
  await wallet(jane, A.origin);
  rita = await customer("Rita Recipient", "verified", [person("Recipient", "Rita")]);
  await wallet(rita, A.mine);
});

afterAll(async () => {
  await S?.stop();
  await peer?.stop();
});

describe("callback 503 rows", () => {
  test("no credentials for the path's environment: 503 Provider unavailable (posted while only live credentials were saved)", () => {
    expect(noTestCredentials).toEqual({ status: 503, body: { error: "Provider unavailable" } });
  });

  test("disabled: callbacks answer 503 Provider unavailable and change nothing, actions on its transfers are refused; re-enabled, the redelivery is processed", async () => {
    const { id, txId } = await authorizedOutgoing();
    await peer.update(txId, { agent: { role: "BENEFICIARY", status: "AUTHORIZED" } }, { silent: true });
    expect((await call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: false } })).status).toBe(200);
    try {
      const msg = `msg_${crypto.randomUUID()}`;
      expect(await deliver(txId, { id: msg })).toEqual({ status: 503, body: { error: "Provider unavailable" } });
      expect((await get(id)).state).toBe("awaiting_counterparty");
      const refused = await patch(id, { action: "accept", txHash: hash("71") });
      expectError(refused, 400, "INVALID_REQUEST");
      expect((await get(id)).state).toBe("awaiting_counterparty");
      expect(peerTx(txId).settlementId).toBeUndefined();
      // A create naming it is refused while it is disabled.
      const c = await call("/api/v2/transfers", { method: "POST", key: owner, headers: { "Idempotency-Key": crypto.randomUUID() }, json: { asset: "ETH", amount: "1", network: "ethereum", originatorCustomerId: jane, beneficiaryAddress: A.silent, beneficiary: { beneficiaryPersons: [RICHARD] }, preferredProtocol: "provider_a" } });
      expectError(c, 400, "VALIDATION_ERROR");
      expect((await call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
      // The same message, redelivered: it was not recorded as processed, so it is processed now.
      expect(await deliver(txId, { id: msg })).toEqual({ status: 200, body: { received: true } });
      expect((await get(id)).state).toBe("accepted");
    } finally {
      await call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: true } });
    }
  });

  test("UNKNOWN_TRANSFER: an entity transfer between two other VASPs, or one naming us as originator with a reference we never made; nothing created, not recorded", async () => {
    const theirs = await peer.sendIncoming({ from: "did:web:orig.example", to: "did:web:third.example", asset: ETH, amount: "1", beneficiaryAddress: "0x0000000000000000000000000000000000000abe", originatorPersons: [RICHARD] });
    // Caravan is not an agent of it: the network sent nothing; an event about it is posted anyway, and the read
    // answers the transfer as it stands between the two other VASPs (the network would not show it to us: answered here).
    expect(theirs.status).toBeNull();
    const between = (agents: object[]) => ({
      transfer: {
        "@id": theirs.id, status: "PENDING", ref: "their-ref", asset: ETH, amount: "1",
        originator: { "@id": "did:web:orig.example:customers:1" }, beneficiary: { "@id": "did:pkh:eip155:1:0x0000000000000000000000000000000000000abe" },
        agents,
      },
    });
    peer.setFault("get", { kind: "answer", body: between([
      { "@id": "did:web:orig.example", for: "did:web:orig.example:customers:1", role: "VASP", status: "PROCESSING" },
      { "@id": "did:web:third.example", for: "did:pkh:eip155:1:0x0000000000000000000000000000000000000abe", role: "VASP", status: "PROCESSING" },
      { "@id": "did:pkh:eip155:1:0x0000000000000000000000000000000000000abe", for: "did:web:third.example", role: "SettlementAddress" },
    ]) }, 2);
    const msg = `msg_${crypto.randomUUID()}`;
    expect(await deliver(theirs.id, { id: msg })).toEqual({ status: 503, body: { error: "UNKNOWN_TRANSFER" } });
    // Not recorded as processed: the redelivery reads the provider again and answers the same.
    const reads = peer.requests.filter((q) => q.route === "get").length;
    expect(await deliver(theirs.id, { id: msg })).toEqual({ status: 503, body: { error: "UNKNOWN_TRANSFER" } });
    expect(peer.requests.filter((q) => q.route === "get").length).toBe(reads + 1);
    expect(await incomingCount(theirs.id)).toBe(0);

    const ours = await peer.sendIncoming({
      from: CARAVAN,
      to: "did:web:orig.example",
      asset: ETH,
      amount: "1",
      beneficiaryAddress: A.sender,
      originatorPersons: [JANE],
    });
    expect(ours.status).toBe(503);
    expect(await deliver(ours.id)).toEqual({ status: 503, body: { error: "UNKNOWN_TRANSFER" } });
  });

  test("a transfer answer in a shape we do not understand: 503 provider_a request failed (INVALID_RESPONSE), logged with the field path and never the data; nothing created", async () => {
    const txId = crypto.randomUUID();
    // Notabene's read of a transfer to us, but the originator's name identifiers are not a list.
    const unreadable = {
      transfer: {
        "@id": txId,
        status: "PENDING",
        direction: "INCOMING",
        ref: "their-ref-1",
        asset: ETH,
        amount: "2",
        originator: { "@id": `did:pkh:eip155:1:${A.sender}`, originatorPerson: [{ naturalPerson: { name: { nameIdentifier: "Zebulon Quux" } } }], accountNumber: [A.sender] },
        beneficiary: { "@id": `did:pkh:eip155:1:${A.mine}` },
        agents: [
          { "@id": "did:web:orig.example", for: `did:pkh:eip155:1:${A.sender}`, role: "VASP", status: "AUTHORIZED" },
          { "@id": CARAVAN, for: `did:pkh:eip155:1:${A.mine}`, role: "VASP", status: "PROCESSING" },
          { "@id": `did:pkh:eip155:1:${A.mine}`, for: CARAVAN, role: "SettlementAddress" },
        ],
      },
    };
    peer.setFault("get", { kind: "answer", body: unreadable }, 1);
    expect(await deliver(txId)).toEqual({ status: 503, body: { error: "provider_a request failed (INVALID_RESPONSE)" } });
    expect(await incomingCount(txId)).toBe(0);
    const logged = await S.untilOutput("transfer.originator.originatorPerson[0].naturalPerson.name.nameIdentifier");
    expect(logged).toContain("transfer.originator.originatorPerson[0].naturalPerson.name.nameIdentifier");
    expect(logged).not.toContain("Zebulon");
  });

  test("the provider read fails: 503 provider_a request failed (HTTP_500), not recorded; the redelivery is processed", async () => {
    peer.webhooks.retries = 0;
    peer.setFault("get", { kind: "status", status: 500 }, 1);
    const { txId, status } = await incoming({ from: "did:web:quiet.example" });
    peer.webhooks.retries = 3;
    expect(status).toBe(503);
    expect(peer.webhooks.deliveries.filter((d) => d.txId === txId).map((d) => d.status)).toEqual([503]);
    expect(await incomingCount(txId)).toBe(0);
    const msg = peer.webhooks.sent.find((m) => m.txId === txId)!;
    expect(await peer.webhooks.redeliver(msg.id)).toBe(200);
    expect(await incomingCount(txId)).toBe(1);
    // Its body, seen on a fresh failure of the read.
    peer.setFault("get", { kind: "status", status: 500 }, 1);
    expect(await deliver(txId)).toEqual({ status: 503, body: { error: "provider_a request failed (HTTP_500)" } });
  });

  test("TRANSFER_BINDING_MISMATCH: the provider's transfer no longer matches ours (amount); the transfer is unchanged", async () => {
    const id = await create(A.silent);
    const t = await until(id, ["exchanging"]);
    const tx = peerTx(t.cascade.externalId);
    tx.amount = "1.5";
    expect(await deliver(tx.id)).toEqual({ status: 503, body: { error: "TRANSFER_BINDING_MISMATCH" } });
    expect((await get(id)).state).toBe("exchanging");
    tx.amount = "1";
    expect(await deliver(tx.id)).toEqual({ status: 200, body: { received: true } });
  });

  test("INVALID_CONFIGURATION: saved settings that do not fit their format answer 503 with the code (checked on use)", async () => {
    // The live environment's signing secret is not `whsec_…` (saved in beforeAll; saving checks nothing).
    const { txId } = await incoming({ from: "did:web:quiet.example" });
    expect(await deliver(txId, { url: callbackUrl("live") })).toEqual({ status: 503, body: { error: "INVALID_CONFIGURATION" } });
  });
});

describe("provider-side status table (through the sandbox's update)", () => {
  const HOLDING = ["FLAGGED", "FLAGGED-SETTLEMENT", "FROZEN", "REVERTED", "REVERT-REQUESTED", "REVERT-AUTHORIZED", "REVERT-REJECTED", "REVERT-FLAGGED"];

  test(`outgoing: ${HOLDING.join(", ")} and any flag → held, verdict pending, a provider_rejection case; retry refused`, async () => {
    const changes: { label: string; change: Parameters<ProviderAPeer["update"]>[1] }[] = [
      ...HOLDING.map((status) => ({ label: status, change: { status } })),
      { label: "flag AML_ALERT", change: { flags: ["AML_ALERT"] } },
    ];
    await Promise.all(
      changes.map(async ({ label, change }) => {
        const id = await create(A.silent);
        const t = await until(id, ["exchanging"]);
        await peer.update(t.cascade.externalId, change);
        const held = await until(id, ["held"]);
        expect({ label, verdict: held.compliance.status ?? "pending" }).toEqual({ label, verdict: "pending" });
        expect({ label, reason: lastHold(id)?.reason }).toEqual({ label, reason: "PROVIDER_FLAGGED" });
        const c = await caseOf(id);
        expect({ label, type: c?.type }).toEqual({ label, type: "provider_rejection" });
        const retry = await patch(id, { action: "retry", reason: "again" });
        expectError(retry, 400, "INVALID_REQUEST");
        expect(retry.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
      }),
    );
  });

  test("incoming, once accepted: FROZEN and REVERT-REQUESTED → held with a case; accept is LOCAL_APPROVAL_REQUIRED while the provider shows it", async () => {
    for (const status of ["FROZEN", "REVERT-REQUESTED"]) {
      const { txId } = await incoming();
      const id = await incomingId(txId);
      await until(id, ["accepted"]);
      await peer.update(txId, { status });
      const held = await until(id, ["held"]);
      expect(held.compliance.status ?? "pending").toBe("pending");
      expect(lastHold(id)?.reason).toBe("PROVIDER_FLAGGED");
      expect((await caseOf(id))?.type).toBe("provider_rejection");
      const r = await patch(id, { action: "accept" });
      expectError(r, 400, "INVALID_REQUEST");
      expect(r.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
    }
  });

  test("the transfer REJECTED (the counterparty's agent still pending): rejected, status.theirs rejected, COUNTERPARTY_REJECTED", async () => {
    const id = await create(A.silent);
    const t = await until(id, ["exchanging"]);
    await peer.update(t.cascade.externalId, { status: "REJECTED" });
    const r = await until(id, ["rejected"]);
    expect(r.status.theirs).toBe("rejected");
    expect(r.rejection.reason).toBe("COUNTERPARTY_REJECTED");
  });

  test("incoming: the originating VASP REJECTED after our authorization → rejected, status.theirs rejected", async () => {
    const { txId } = await incoming({ from: "did:web:quiet.example" });
    const id = await incomingId(txId);
    await until(id, ["awaiting_counterparty"]);
    await peer.update(txId, { agent: { role: "ORIGINATOR", status: "REJECTED" } });
    const r = await until(id, ["rejected"]);
    expect(r.status.theirs).toBe("rejected");
    expect(r.rejection.reason).toBe("COUNTERPARTY_REJECTED");
  });

  for (const status of ["SETTLED", "CLEARED"])
    test(`outgoing, after our authorization: the transfer ${status} → status.theirs accepted, accepted; accept with that hash reads it back → completed`, async () => {
      const { id, txId } = await authorizedOutgoing();
      const h = hash(status === "SETTLED" ? "a1" : "a2");
      await peer.update(txId, { status, settlement: { id: h } });
      const t = await until(id, ["accepted"]);
      expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
      const settles = peer.requests.filter((q) => q.route === "settle").length;
      const r = await patch(id, { action: "accept", txHash: h });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ state: "completed", txHash: h });
      // Already settled at the provider with that hash: nothing is sent again.
      expect(peer.requests.filter((q) => q.route === "settle").length).toBe(settles);
    });

  test("outgoing: the beneficiary VASP's data changes after our acceptance → held again for an officer, a case", async () => {
    const { id, txId } = await authorizedOutgoing();
    await peer.update(txId, { beneficiaryPersons: [person("Roe", "Rick", "DE")] });
    await until(id, ["held"]);
    expect(lastHold(id)?.reason).toBe("COUNTERPARTY_INFORMATION_CHANGED");
    expect(await caseOf(id)).toBeDefined();
  });

  test("incoming, once accepted: CLEARED with a settlement → completed with its ID as txHash; SETTLED without a settlement does not complete", async () => {
    const { txId } = await incoming();
    const id = await incomingId(txId);
    await until(id, ["accepted"]);
    expect(await peer.update(txId, { status: "SETTLED" })).toBe(200);
    expect((await get(id)).state).toBe("accepted");
    const h = hash("c3");
    await peer.update(txId, { status: "CLEARED", settlement: { id: h } });
    const done = await until(id, ["completed"]);
    expect(done.txHash).toBe(h);
  });
});

describe("discovery and incoming rows", () => {
  test("a memo: discovery asks XRP-RIPPLE for `address:memo`; the transfer is created with the memo and carried end to end", async () => {
    const id = await create(`${A.xrp}?dt=12345`, { asset: "XRP", network: "ripple", amount: "50000" });
    const t = await until(id, ["accepted"]);
    const ask = peer.requests.filter((q) => q.route === "discover").at(-1)!;
    const q = new URL(ask.path, peer.url).searchParams;
    expect({ asset: q.get("asset"), address: q.get("address") }).toEqual({ asset: "XRP-RIPPLE", address: `${A.xrp}:12345` });
    const tx = peerTx(t.cascade.externalId);
    // The settlement address as a did:pkh: CAIP-10 agent of the beneficiary VASP, the memo as Notabene's memoTag.
    expect({ address: tx.agents.find((a) => a.role === "SettlementAddress")!["@id"], memo: tx.memoTag }).toEqual({ address: `did:pkh:xrpl:0:${A.xrp}`, memo: "12345" });
    expect(t.beneficiary.vaspId).toBe("did:web:ripple.example");
  });

  test("incoming: created exchanging with transfer.created; the originator's beneficiary names match in either order, any case and punctuation; steps in order", async () => {
    const start = peer.requests.length;
    const { txId, status } = await incoming({ beneficiaryPersons: [person("rita", "RECIPIENT.")] });
    expect(status).toBe(200);
    const id = await incomingId(txId);
    const t = await until(id, ["accepted"]);
    // Found in the list by externalId `provider_a-inbound:<provider id>` (incomingId); the provider's ID on the cascade.
    expect(t.direction).toBe("incoming");
    expect(t.cascade.externalId).toBe(txId);
    const { types, history } = withDb(db, (d) => ({
      types: (d.query("SELECT type FROM events WHERE entity_id = ? ORDER BY seq").all(id) as { type: string }[]).map((e) => e.type),
      history: JSON.parse((d.query("SELECT history FROM transfers WHERE id = ?").get(id) as { history: string }).history) as { type: string; to?: string }[],
    }));
    expect(types[0]).toBe("transfer.created");
    // Relationship confirmed and our identity appended before our authorization (steps 4, 5).
    // The relationship names the address, not the transfer: the one declared while this transfer was processed.
    const order = peer.requests.slice(start).filter((q) => q.path.includes(encodeURIComponent(txId)) || (q.route === "relationships" && (q.body as { from?: string })?.from?.toLowerCase() === `did:pkh:eip155:1:${A.mine}`.toLowerCase())).map((q) => q.route);
    expect(order.indexOf("relationships")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("relationships")).toBeLessThan(order.indexOf("append"));
    expect(order.indexOf("append")).toBeLessThan(order.indexOf("authorize"));
    expect(history.some((h) => h.type === "held")).toBe(false);
  });

  test("a verified wallet whose customer's identity is not verified: 503 BENEFICIARY_WALLET_NOT_VERIFIED, nothing created", async () => {
    const una = await customer("Una Unverified", "unverified", [person("Unverified", "Una")]);
    await wallet(una, A.unverifiedCustomer);
    peer.webhooks.retries = 0;
    const { txId, status } = await incoming({ beneficiaryAddress: A.unverifiedCustomer });
    peer.webhooks.retries = 3;
    expect(status).toBe(503);
    expect(await deliver(txId)).toEqual({ status: 503, body: { error: "BENEFICIARY_WALLET_NOT_VERIFIED" } });
    expect(await incomingCount(txId)).toBe(0);
  });

  test("an asset the service does not know: 503 UNSUPPORTED_ASSET, nothing created", async () => {
    peer.webhooks.retries = 0;
    const { txId, status } = await incoming({ asset: "eip155:1/erc20:0x000000000000000000000000000000000000dead" });
    peer.webhooks.retries = 3;
    expect(status).toBe(503);
    expect(await deliver(txId)).toEqual({ status: 503, body: { error: "UNSUPPORTED_ASSET" } });
    expect(await incomingCount(txId)).toBe(0);
  });

  test("PATCH while the provider is unreachable: 400 INVALID_REQUEST `provider_a request failed (HTTP_503)`, the transfer unchanged", async () => {
    const { id, txId } = await authorizedOutgoing();
    await peer.update(txId, { agent: { role: "BENEFICIARY", status: "AUTHORIZED" } });
    await until(id, ["accepted"]);
    peer.setFault("get", { kind: "status", status: 503 }, 1);
    const r = await patch(id, { action: "accept", txHash: hash("d4") });
    expectError(r, 400, "INVALID_REQUEST");
    expect(r.body.error).toBe("provider_a request failed (HTTP_503)");
    expect((await get(id)).state).toBe("accepted");
    expect(peerTx(txId).settlementId).toBeUndefined();
  });
});

describe("polling against a provider that is down, the stall (croner sweeps; rows made older in the database file)", () => {
  test("a poll that cannot read the provider changes nothing and the transfer keeps polling; incoming completes on an event only; a stalled transfer's events answer 503 TRANSFER_FAILED", async () => {
    // Outgoing: the beneficiary VASP authorized without telling Caravan; the provider's reads fail for a while.
    const out = await authorizedOutgoing();
    await peer.update(out.txId, { agent: { role: "BENEFICIARY", status: "AUTHORIZED" } }, { silent: true });
    // Incoming, authorized by us: the originating VASP settled without telling Caravan.
    const inc = await incoming({ from: "did:web:quiet.example" });
    const incId = await incomingId(inc.txId);
    await until(incId, ["awaiting_counterparty"]);
    await peer.update(inc.txId, { status: "SETTLED", settlement: { id: hash("e5") } }, { silent: true });
    // A transfer left exchanging.
    const stalled = await create(A.silent);
    await until(stalled, ["exchanging"]);
    peer.setFault("get", { kind: "status", status: 503 });
    const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    // With a busy timeout: the server's sweeps write every second, and a lock met without one fails at once.
    withDb(db, (file) => {
      file.run("UPDATE transfers SET updated_at = ? WHERE id IN (?, ?)", [ago(6), out.id, incId]);
      file.run("UPDATE transfers SET updated_at = ? WHERE id = ?", [ago(16), stalled]);
    });
    const polled = (txId: string) => peer.requests.filter((q) => q.route === "get" && q.path.includes(encodeURIComponent(txId)));
    // Wait for the poll sweep to reach the provider (second 0 of a minute) and find it down.
    for (let i = 0; i < 700 && !polled(out.txId).some((q) => q.status === 503); i++) await Bun.sleep(100);
    expect(polled(out.txId).some((q) => q.status === 503)).toBe(true);
    expect((await get(out.id)).state).toBe("awaiting_counterparty");
    expect((await get(incId)).state).toBe("awaiting_counterparty");
    // The provider is back: the next poll moves both, and the incoming one stops at accepted (completed on an event only).
    peer.setFault("get", null);
    const moved = await until(out.id, ["accepted"], 700);
    expect(moved.status.theirs).toBe("accepted");
    const acc = await until(incId, ["accepted"], 700);
    expect(acc.txHash ?? null).toBeNull();
    expect(await deliver(inc.txId)).toEqual({ status: 200, body: { received: true } });
    expect((await get(incId)).state).toBe("completed");
    // The stall sweep (second 30): failed, later events answer 503 TRANSFER_FAILED, retry refused.
    const failed = await until(stalled, ["failed"], 700);
    expect(await deliver(failed.cascade.externalId)).toEqual({ status: 503, body: { error: "TRANSFER_FAILED" } });
    const retry = await patch(stalled, { action: "retry", reason: "again" });
    expectError(retry, 400, "INVALID_REQUEST");
    expect(retry.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
  }, 200_000);
});
