// provider_a: every PATCH refusal reason of Part 3's provider_a table end to end, the counterparty IVMS101 checks that
// hold a transfer (INVALID_PEER_IDENTITY, PII_ACCOUNT_MISMATCH, UNSUPPORTED_AGENT_CHAIN), `retry` before and after the
// provider took a transfer, and the callback's 429 (a second server with a small company budget). A real Caravan
// server and the sandbox provider_a network over real HTTP; Standard Webhooks signed by the `standardwebhooks` package.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { CARAVAN, ETH, newWebhookSecret, providerAHelpers } from "../support/provider_a.ts";
import { JANE, RICHARD, person } from "../support/persons.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startProviderAPeer, type ProviderAPeer, type SandboxVaspA } from "../../src/sandbox/provider_a/index.ts";
import type { Person } from "../../src/domain/ivms101/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "pa-patch.db");
let S: ChildServer;
let peer: ProviderAPeer;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerEmail: string;
const { customer, wallet, createOutgoing, get, until, patch, incomingId } = providerAHelpers({ call, cli }, () => ({ owner, ownerEmail }));
let jane: string;
let carol: string;
let rita: string;
let una: string;
const SECRET = newWebhookSecret();
const credentials = (url: string) => ({ apiUrl: url, clientId: "caravan-client", clientSecret: "s3cret", vaspDid: CARAVAN, webhookSecret: SECRET });

const CAROL = person("Unverified", "Carol");
/** Not a valid IVMS101 person: a natural person without a name identifier. */
const NAMELESS = { naturalPerson: { name: { nameIdentifier: [] } } } as unknown as Person;

const A = {
  origin: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  bene: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  silent: "0x52908400098527886E0F7030069857D2E4169EE7",
  wrongAccount: "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
  nameless: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
  sender: "0x0000000000000000000000000000000000000abc",
  mine: "0xa1e4380a3b1f749673e270229993ee55f35663b4",
  una: "0x7afd56c7c93f56ab5fd0c6f9b7f8e5c8e1f0a4c2",
};

const vasp = (did: string, behaviour: SandboxVaspA["behaviour"], address: string, persons: Person[], extra: Partial<SandboxVaspA> = {}): SandboxVaspA => ({
  did,
  name: did.slice(8),
  behaviour,
  customers: { c: persons },
  wallets: [{ address, customer: "c" }],
  ...extra,
});

async function create(beneficiaryAddress: string, originatorCustomerId = jane) {
  return createOutgoing({ beneficiaryAddress, originatorCustomerId, originatorPersons: [JANE], beneficiaryPersons: [RICHARD] });
}

const hash = (byte: string) => "0x" + byte.repeat(32);
const peerTx = (id: string) => peer.transfers.get(id)!;
const calls = (route: string, txId: string) => peer.requests.filter((q) => q.route === route && q.path.includes(encodeURIComponent(txId))).length;

/** A refusal: 400 INVALID_REQUEST with the reason in `error` and `details.reason`, the transfer unchanged. */
async function refused(id: string, body: Record<string, unknown>, reason: string) {
  const before = await get(id);
  const r = await patch(id, body);
  expectError(r, 400, "INVALID_REQUEST");
  expect(r.body.error).toBe(reason);
  expect(r.body.details.reason).toBe(reason);
  const after = await get(id);
  expect({ state: after.state, status: after.status, txHash: after.txHash, compliance: after.compliance.status }).toEqual({
    state: before.state,
    status: before.status,
    txHash: before.txHash,
    compliance: before.compliance.status,
  });
}

/** Why the transfer was last held (the history entry's reason, read from the database file). */
function holdReason(id: string): string | undefined {
  const file = new Database(db, { readonly: true });
  try {
    const row = file.query("SELECT history FROM transfers WHERE id = ?").get(id) as { history: string };
    return (JSON.parse(row.history) as { type: string; detail?: { reason?: string } }[]).filter((h) => h.type === "held").at(-1)?.detail?.reason;
  } finally {
    file.close();
  }
}

async function hasCase(id: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const cases = await call("/api/v2/cases?limit=100", { key: owner });
    if (cases.body.data.some((c: { transferIds: string[] }) => c.transferIds.includes(id))) return true;
    await Bun.sleep(100);
  }
  return false;
}

type Incoming = Parameters<ProviderAPeer["sendIncoming"]>[0];
/** An incoming transfer from a quiet originating VASP (it never answers our authorization on its own). */
async function incoming(extra: Partial<Incoming> = {}) {
  const sent = await peer.sendIncoming({ from: "did:web:quiet.example", to: CARAVAN, asset: ETH, amount: "2", beneficiaryAddress: A.mine, originatorAddress: A.sender, originatorPersons: [RICHARD], ...extra });
  return { txId: sent.id, id: await incomingId(sent.id), status: sent.status };
}

/** An incoming transfer held by a flag at the provider (verdict pending), the flag then cleared without an event. */
async function heldIncoming(extra: Partial<Incoming> = {}) {
  const t = await incoming(extra);
  await until(t.id, ["awaiting_counterparty"]);
  await peer.update(t.txId, { flags: ["MANUAL_REVIEW"] });
  const held = await until(t.id, ["held"]);
  // Verdict pending (shown as null while no check ran).
  expect([null, "pending"]).toContain(held.compliance.status);
  await peer.update(t.txId, { flags: [] }, { silent: true });
  return t;
}

beforeAll(async () => {
  peer = await startProviderAPeer({
    vasps: [
      vasp("did:web:bene.example", "authorize", A.bene, [RICHARD]),
      vasp("did:web:silent.example", "silent", A.silent, [RICHARD]),
      vasp("did:web:wrong-account.example", "authorize", A.wrongAccount, [RICHARD], { wrongAccount: true }),
      vasp("did:web:nameless.example", "authorize", A.nameless, [NAMELESS]),
      vasp("did:web:quiet.example", "silent", A.sender, [RICHARD]),
    ],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_PROVIDER_A_AUTH_URL: peer.url, CARAVAN_PROVIDER_A_API_ORIGINS: peer.url });
  for (const key of [owner, live]) expect((await call("/api/v2/providers/provider_a", { method: "PUT", key, json: { credentials: credentials(peer.url) } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  const providerId = String((await call("/api/v2/providers/provider_a", { key: owner })).body.data.callbackPaths[0].path).split("/").at(-1)!;
  peer.registerCaravan({ did: CARAVAN, name: "Caravan", clientId: "caravan-client", clientSecret: "s3cret", webhookUrl: `${S.url}/api/system/trp/provider_a/test/${providerId}`, webhookSecret: SECRET });
  jane = await customer("Jane Doe", "verified", [JANE]);
  expect((await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId: jane, network: "ethereum", address: A.origin } })).status).toBe(201);
  carol = await customer("Carol Unverified", "unverified", [CAROL]);
  rita = await customer("Rita Recipient", "verified", [person("Recipient", "Rita")]);
  await wallet(rita, A.mine);
  una = await customer("Una Later", "verified", [person("Later", "Una")]);
  await wallet(una, A.una);
});

afterAll(async () => {
  await S?.stop();
  await peer?.stop();
});

describe("PATCH on outgoing provider_a transfers (accept with txHash)", () => {
  test("LOCAL_APPROVAL_REQUIRED while exchanging; TRANSFER_NOT_AUTHORIZED once authorized by us but not by the beneficiary VASP", async () => {
    const id = await create(A.silent);
    const t = await until(id, ["exchanging"]);
    // The silent VASP has not acted and the data is what we sent: nothing is screened or authorized yet.
    expect(calls("authorize", t.cascade.externalId)).toBe(0);
    await refused(id, { action: "accept", txHash: hash("11") }, "LOCAL_APPROVAL_REQUIRED");
    // The beneficiary VASP supplies its own data (without authorizing): screened, approved, authorized by us.
    await peer.update(t.cascade.externalId, { beneficiaryPersons: [person("Roe", "Rick", "DE")] });
    const waiting = await until(id, ["awaiting_counterparty"]);
    expect(waiting.status.ours).toBe("accepted");
    expect(waiting.status.theirs).not.toBe("accepted");
    await refused(id, { action: "accept", txHash: hash("11") }, "TRANSFER_NOT_AUTHORIZED");
    expect(calls("settle", t.cascade.externalId)).toBe(0);
  });

  test("SETTLEMENT_PENDING when the provider does not show the settlement; the tried hash is kept (another is TX_HASH_CONFLICT), the same one completes", async () => {
    const id = await create(A.bene);
    const t = await until(id, ["accepted"]);
    const txId = t.cascade.externalId;
    // The provider answers the settle without settling.
    peer.setFault("settle", { kind: "answer", status: 202, body: { message: "Transfer settlement accepted" } }, 1);
    await refused(id, { action: "accept", txHash: hash("aa") }, "SETTLEMENT_PENDING");
    expect(peerTx(txId).settlementId).toBeUndefined();
    await refused(id, { action: "accept", txHash: hash("bb") }, "TX_HASH_CONFLICT");
    expect(calls("settle", txId)).toBe(1);
    const r = await patch(id, { action: "accept", txHash: hash("aa") });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ state: "completed", txHash: hash("aa") });
    expect(peerTx(txId).settlementId).toBe(hash("aa"));
  });

  test("TX_HASH_CONFLICT when the provider shows another settlement", async () => {
    const id = await create(A.bene);
    const t = await until(id, ["accepted"]);
    await peer.update(t.cascade.externalId, { settlement: { id: hash("cc") } }, { silent: true });
    await refused(id, { action: "accept", txHash: hash("dd") }, "TX_HASH_CONFLICT");
    expect(calls("settle", t.cascade.externalId)).toBe(0);
  });

  test("TRANSFER_BINDING_MISMATCH when the provider's transfer differs (amount)", async () => {
    const id = await create(A.bene);
    const t = await until(id, ["accepted"]);
    peerTx(t.cascade.externalId).amount = "5";
    await refused(id, { action: "accept", txHash: hash("ee") }, "TRANSFER_BINDING_MISMATCH");
    expect(calls("settle", t.cascade.externalId)).toBe(0);
  });

  test("reject of an outgoing provider_a transfer: LOCAL_APPROVAL_REQUIRED", async () => {
    const id = await create(A.silent);
    await until(id, ["exchanging"]);
    await refused(id, { action: "reject", status: "rejected", reason: "OTHER" }, "LOCAL_APPROVAL_REQUIRED");
  });
});

describe("the beneficiary VASP's IVMS101 checked before screening (outgoing holds)", () => {
  test("its account numbers do not include the address: held, PII_ACCOUNT_MISMATCH, a case, nothing authorized; retry is LOCAL_APPROVAL_REQUIRED", async () => {
    const id = await create(A.wrongAccount);
    const t = await until(id, ["held"]);
    expect(holdReason(id)).toBe("PII_ACCOUNT_MISMATCH");
    expect([null, "pending"]).toContain(t.compliance.status);
    expect(await hasCase(id)).toBe(true);
    expect(calls("authorize", t.cascade.externalId)).toBe(0);
    await refused(id, { action: "retry", reason: "again" }, "LOCAL_APPROVAL_REQUIRED");
  });

  test("not a valid person group: held, INVALID_PEER_IDENTITY", async () => {
    const id = await create(A.nameless);
    const t = await until(id, ["held"]);
    expect(holdReason(id)).toBe("INVALID_PEER_IDENTITY");
    expect(calls("authorize", t.cascade.externalId)).toBe(0);
  });
});

describe("retry", () => {
  test("failed before the provider took it (no verified identity): retry queues it again and provider_a carries it", async () => {
    const id = await create(A.bene, carol);
    const t = await until(id, ["failed"]);
    expect(t.cascade.attempts.at(-1)).toMatchObject({ provider: "provider_a", error: "VERIFIED_ORIGINATOR_REQUIRED" });
    expect((await call(`/api/v2/customers/${carol}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [CAROL] } })).status).toBe(200);
    const r = await patch(id, { action: "retry", reason: "identity verified" });
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ action: "retry", previousState: "failed" });
    const carried = await until(id, ["accepted"]);
    expect(carried.cascade.provider).toBe("provider_a");
    const created = [...peer.transfers.values()].filter((x) => x.ref === id);
    expect(created.length).toBe(1);
    expect(peer.persons(created[0].id, "originator")).toEqual([CAROL]);
  });

  test("failed after creation started (submission_unknown): retry is LOCAL_APPROVAL_REQUIRED and nothing is resent", async () => {
    peer.setFault("create", { kind: "dropAnswer" }, 1);
    const id = await create(A.silent);
    const t = await until(id, ["failed"]);
    expect(t.cascade.attempts.at(-1).status).toBe("submission_unknown");
    await refused(id, { action: "retry", reason: "again" }, "LOCAL_APPROVAL_REQUIRED");
    await Bun.sleep(200);
    expect([...peer.transfers.values()].filter((x) => x.ref === id).length).toBe(1);
  });
});

describe("incoming: the originator's IVMS101 checked before screening (holds)", () => {
  test("not a valid person group: held, INVALID_PEER_IDENTITY, a case, nothing authorized; accept is refused with INVALID_PEER_IDENTITY", async () => {
    const t = await incoming({ originatorPersons: [NAMELESS] });
    const held = await until(t.id, ["held"]);
    expect(holdReason(t.id)).toBe("INVALID_PEER_IDENTITY");
    expect([null, "pending"]).toContain(held.compliance.status);
    expect(await hasCase(t.id)).toBe(true);
    expect(calls("authorize", t.txId)).toBe(0);
    await refused(t.id, { action: "accept" }, "INVALID_PEER_IDENTITY");
    expect(calls("authorize", t.txId)).toBe(0);
  });

  test("its account numbers do not include the originator address: held, PII_ACCOUNT_MISMATCH; accept is refused with PII_ACCOUNT_MISMATCH", async () => {
    const t = await incoming({ originatorAccountNumber: ["0x0000000000000000000000000000000000000999"] });
    await until(t.id, ["held"]);
    expect(holdReason(t.id)).toBe("PII_ACCOUNT_MISMATCH");
    expect(calls("authorize", t.txId)).toBe(0);
    await refused(t.id, { action: "accept" }, "PII_ACCOUNT_MISMATCH");
  });

  test("a custodian joins the agent chain after creation: held, UNSUPPORTED_AGENT_CHAIN; accept is refused with UNSUPPORTED_AGENT_CHAIN", async () => {
    const t = await incoming();
    await until(t.id, ["awaiting_counterparty"]);
    peerTx(t.txId).agents.push({ "@id": "did:web:custodian.example", for: "did:web:quiet.example", role: "Custodian" });
    expect(await peer.notify(t.txId)).toBe(200);
    await until(t.id, ["held"]);
    expect(holdReason(t.id)).toBe("UNSUPPORTED_AGENT_CHAIN");
    expect(await hasCase(t.id)).toBe(true);
    await refused(t.id, { action: "accept" }, "UNSUPPORTED_AGENT_CHAIN");
  });
});

describe("PATCH on incoming provider_a transfers (accept, reject)", () => {
  test("LOCAL_APPROVAL_REQUIRED: accept when not held; accept after the originator information changed since screening", async () => {
    const t = await incoming();
    await until(t.id, ["awaiting_counterparty"]);
    await refused(t.id, { action: "accept" }, "LOCAL_APPROVAL_REQUIRED");
    const h = await heldIncoming();
    await peer.update(h.txId, { originatorPersons: [person("Roe", "Robert", "DE")] }, { silent: true });
    await refused(h.id, { action: "accept" }, "LOCAL_APPROVAL_REQUIRED");
    expect(calls("authorize", h.txId)).toBe(1); // the first authorization only, before the hold
  });

  test("VERIFIED_BENEFICIARY_IDENTITY_REQUIRED: the beneficiary customer's identity is no longer verified", async () => {
    const h = await heldIncoming({ beneficiaryAddress: A.una });
    expect((await call(`/api/v2/customers/${una}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "unverified", persons: [person("Later", "Una")] } })).status).toBe(200);
    await refused(h.id, { action: "accept" }, "VERIFIED_BENEFICIARY_IDENTITY_REQUIRED");
  });

  test("AUTHORIZATION_PENDING: the provider does not show our authorization when read back; once it does, accept moves it", async () => {
    const h = await heldIncoming();
    // The provider accepts the authorization (202) without recording it yet.
    peer.setFault("authorize", { kind: "answer", status: 202, body: { message: "Transfer authorization accepted" } }, 1);
    peer.vaspAgent(h.txId, "beneficiary")!.status = "PROCESSING";
    await refused(h.id, { action: "accept" }, "AUTHORIZATION_PENDING");
    const ok = await patch(h.id, { action: "accept" });
    expect(ok.status).toBe(200);
    expect(ok.body.data.state).toBe("awaiting_counterparty");
  });

  test("ALREADY_SETTLED: reject when the provider shows a settlement", async () => {
    const h = await heldIncoming();
    await peer.update(h.txId, { settlement: { id: hash("77") } }, { silent: true });
    await refused(h.id, { action: "reject", status: "rejected", reason: "OTHER" }, "ALREADY_SETTLED");
    expect(calls("reject", h.txId)).toBe(0);
  });

  test("TRANSFER_BINDING_MISMATCH: accept when the provider's transfer names another beneficiary address", async () => {
    const h = await heldIncoming();
    peerTx(h.txId).agents.find((a) => a.role === "SettlementAddress")!["@id"] = `did:pkh:eip155:1:${A.una}`;
    await refused(h.id, { action: "accept" }, "TRANSFER_BINDING_MISMATCH");
  });

  test("an incoming transfer takes no txHash: LOCAL_APPROVAL_REQUIRED", async () => {
    const h = await heldIncoming();
    await refused(h.id, { action: "accept", txHash: hash("99") }, "LOCAL_APPROVAL_REQUIRED");
  });
});

describe("callback 429 (company budget, a second server)", () => {
  test("signed callbacks over the budget: 429 RATE_LIMITED with Retry-After; unsigned ones answer 401 and do not count", async () => {
    const db2 = join(dir, "pa-429.db");
    expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db2 })).code).toBe(0);
    const second = apiClient(db2, () => S2.url);
    const key = (await second.newKey("--env", "test", "--role", "owner")).key;
    // A budget of 8 requests a minute: the setup below spends four of them.
    const S2: ChildServer = await startServer({
      CARAVAN_DB: db2,
      CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
      CARAVAN_PROVIDER_A_AUTH_URL: peer.url,
      CARAVAN_PROVIDER_A_API_ORIGINS: peer.url,
      CARAVAN_RATE_LIMITS: "company=8/60,vasp_search=120/60",
    });
    try {
      // Credentials in both environments, enabled with a live key (Part 2).
      const live = (await second.newKey("--env", "live", "--role", "owner")).key;
      for (const k of [key, live]) expect((await second.call("/api/v2/providers/provider_a", { method: "PUT", key: k, json: { credentials: credentials(peer.url) } })).status).toBe(201);
      expect((await second.call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
      const providerId = String((await second.call("/api/v2/providers/provider_a", { key })).body.data.callbackPaths[0].path).split("/").at(-1)!;
      const url = `${S2.url}/api/system/trp/provider_a/test/${providerId}`;
      const raw = JSON.stringify({ message: "notification.entity.updated", payload: { id: "tx_1", for: CARAVAN }, version: "1.0.0" });
      const post = (headers: Record<string, string>) => fetch(url, { method: "POST", headers, body: raw });
      const signed = () => peer.webhooks.signed({ url, secret: SECRET, did: CARAVAN }, `msg_${crypto.randomUUID()}`, raw, Date.now());
      // Twenty forged deliveries (more than the whole budget): 401 each, none counted.
      for (let i = 0; i < 20; i++) {
        const r = await post({ ...signed(), "svix-signature": "v1,AAAA" });
        expect(r.status).toBe(401);
        await r.body?.cancel();
      }
      const statuses: number[] = [];
      let limited: Response | null = null;
      for (let i = 0; i < 20 && !limited; i++) {
        const r = await post(signed());
        statuses.push(r.status);
        if (r.status === 429) limited = r;
        else expect(await r.json()).toEqual({ ignored: true });
      }
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
      expect(limited).not.toBeNull();
      expect(await limited!.json()).toEqual({ error: "Rate limit exceeded", code: "RATE_LIMITED" });
      expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
      // Checked before the budget: a forged delivery is still 401, not 429.
      expect((await post({ ...signed(), "svix-signature": "v1,AAAA" })).status).toBe(401);
    } finally {
      await S2.stop();
    }
  });
});
