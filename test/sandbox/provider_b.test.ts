// The sandbox provider_b network over real HTTP: driven by ProviderBClient (Request API) and calling a stand-in Caravan (callbacks).
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { listen, type RunningServer } from "../../src/adapters/server/index.ts";
import { ProviderBClient, discoveryRequestId, type TransferAuthorization } from "../../src/adapters/providers/provider_b/client.ts";
import { openPayload, publicKeyBase64, randomSeedBase64, sealPayload, signRequest, verifyRequest } from "../../src/adapters/providers/provider_b/crypto.ts";
import { HEADER, accountNumber, buildRequestHeaders, buildTransferMessage, formatDatetime, fromWirePersons, parseNonce, readIvms101, toWirePersons } from "../../src/adapters/providers/provider_b/wire.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import type { Person } from "../../src/domain/ivms101/types.ts";

// Servers on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(30_000);

const natural = (family: string, given: string): Person => ({
  naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] }, countryOfResidence: "KR" },
});
const ALICE = natural("Kim", "Alice");
const BOB = natural("Lee", "Bob");
const ORIGINATOR = natural("Schmidt", "Hans");

const ETH_ALICE = "0xA11ce00000000000000000000000000000000001";
const XRP_BOB = "rBobXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";
const SANCTIONED = "0xBad0000000000000000000000000000000000666";
const SHARED = "0x5ha4ed0000000000000000000000000000000000";
const HELD_BY_DOWN_VASP = "0xD0w40000000000000000000000000000000000001";

const CARAVAN_SEED = randomSeedBase64();
const CARAVAN_ID = "caravan-test";

let peer: ProviderBPeer;
let client: ProviderBClient;
let caravanServer: RunningServer;
let caravanUrl: string;

/** What the stand-in Caravan received on its callback paths. */
const received: { method: string; path: string; headers: Headers; body: string }[] = [];

/** A minimal Caravan callback endpoint: opens a transfer's payload with Caravan's key and answers `verified`, sealed. */
async function fakeCaravan(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const body = await req.text();
  received.push({ method: req.method, path: url.pathname, headers: req.headers, body });
  const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json" } });
  if (url.pathname.endsWith("/v1/vasp/health")) return json({});
  if (url.pathname.endsWith("/v1/beneficiary/transfer")) {
    const b = JSON.parse(body);
    const sender = req.headers.get(HEADER.pubKey)!;
    const opened = openPayload(b.payload, sender, CARAVAN_SEED);
    if (!opened.ok) return json({ errorType: "VASP_BACKEND_INTERNAL_ERROR" }, 503);
    const msg = readIvms101(opened.value);
    if (!msg.ok) return json({ errorType: "MISSING_REQUIRED_MSG_FIELD" }, 422);
    const answer = { ivms101: { ...msg.value, BeneficiaryVASP: { beneficiaryVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Caravan", legalPersonNameIdentifierType: "LEGL" }] } } } } } };
    return json({ result: "verified", reasonType: "", reasonMsg: "", transferId: b.transferId, beneficiaryVasp: {}, payload: sealPayload(answer, sender, CARAVAN_SEED) });
  }
  if (url.pathname.endsWith("/v1/verification/tx") && req.method === "PUT") {
    const b = JSON.parse(body);
    const sender = req.headers.get(HEADER.pubKey)!;
    const opened = openPayload(b.payload, sender, CARAVAN_SEED);
    if (!opened.ok) return json({ errorType: "VASP_BACKEND_INTERNAL_ERROR" }, 503);
    return json({ result: "normal", transferId: b.transferId, payload: sealPayload(opened.value, sender, CARAVAN_SEED) });
  }
  return json({ result: "normal" });
}

beforeAll(async () => {
  caravanServer = await listen(fakeCaravan, { hostname: "127.0.0.1", port: 0 });
  caravanUrl = `http://127.0.0.1:${caravanServer.port}`;
  peer = await startProviderBPeer({
    connectingIp: "203.0.113.7",
    vasps: [
      {
        entityId: "kimchi-exchange",
        name: "Kimchi",
        legalName: "Kimchi Exchange Co., Ltd.",
        country: "KR",
        customers: { alice: [ALICE], bob: [BOB] },
        wallets: [
          { address: ETH_ALICE, customer: "alice" },
          { address: XRP_BOB, tag: "4242", customer: "bob" },
          { address: SHARED, customer: "alice" },
        ],
        deny: [{ address: SANCTIONED }],
      },
      { entityId: "other-vasp", country: "JP", customers: { carol: [natural("Sato", "Carol")] }, wallets: [{ address: SHARED, customer: "carol" }] },
      { entityId: "sleepy-vasp", country: "SG", health: "down", customers: { dan: [natural("Tan", "Dan")] }, wallets: [{ address: HELD_BY_DOWN_VASP, customer: "dan" }] },
    ],
  });
  peer.registerCaravan({ entityId: CARAVAN_ID, publicKeyBase64: publicKeyBase64(CARAVAN_SEED), callbackBaseUrl: caravanUrl, legalName: "Caravan Test Ltd", country: "DE" });
  client = new ProviderBClient({ apiUrl: peer.url, entityId: CARAVAN_ID, seedBase64: CARAVAN_SEED, fetch: globalThis.fetch, allowHttp: true });
});

afterAll(async () => {
  await peer?.stop();
  await caravanServer?.stop();
});

beforeEach(() => {
  peer.clearFaults();
  peer.setDiscoveryPending(0);
});

const outgoing = (over: Partial<TransferAuthorization> & { beneficiaryPersons?: Person[]; withoutOriginatingVasp?: boolean } = {}): TransferAuthorization => {
  const address = over.address ?? ETH_ALICE;
  const message = buildTransferMessage({
    originatorPersons: [ORIGINATOR],
    originatorAccount: "0x0r1g000000000000000000000000000000000001",
    beneficiaryPersons: over.beneficiaryPersons ?? [ALICE],
    beneficiaryAccount: accountNumber(address, over.tag),
    originatingVasp: { legalName: "Caravan Test Ltd", country: "DE" },
  });
  if (over.withoutOriginatingVasp) delete message.ivms101.OriginatingVASP;
  return {
    transferId: over.transferId ?? crypto.randomUUID(),
    currency: "ETH",
    amount: "1.5",
    tradePrice: "4500.00",
    isExceedingThreshold: true,
    address,
    tag: over.tag,
    network: "ethereum",
    message: over.message ?? message,
  };
};

/** A request signed by hand (for bodies the client would never send). */
async function signedFetch(method: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const datetime = formatDatetime(Date.now());
  const nonce = crypto.getRandomValues(new Uint32Array(1))[0]!;
  const headers = buildRequestHeaders({ entityId: CARAVAN_ID, publicKeyBase64: publicKeyBase64(CARAVAN_SEED), datetime, nonce, signature: signRequest(CARAVAN_SEED, datetime, bytes, nonce), json: true });
  const res = await fetch(peer.url + path, { method, headers, body: bytes });
  return { status: res.status, json: await res.json() };
}

describe("directory and request signatures", () => {
  test("GET /v1/code/vasps lists every member with health, entity ID, names, country and public keys", async () => {
    const r = await client.listVasps();
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const kimchi = r.body.vasps.find((v) => v.vaspEntityId === "kimchi-exchange")!;
    expect(kimchi).toMatchObject({ vaspName: "Kimchi", vaspLegalName: "Kimchi Exchange Co., Ltd.", countryOfRegistration: "KR", health: "up", allianceName: "code" });
    expect(kimchi.pubkeys[0]!.pubkey).toBe(peer.directory.vasp("kimchi-exchange").publicKeyBase64);
    expect(r.body.vasps.find((v) => v.vaspEntityId === "sleepy-vasp")!.health).toBe("down");
    expect(r.body.vasps.find((v) => v.vaspEntityId === CARAVAN_ID)!.pubkeys[0]!.pubkey).toBe(client.publicKeyBase64);
    expect(peer.requests.at(-1)).toMatchObject({ route: "vasps", fromEntityId: CARAVAN_ID, status: 200 });
  });

  test("every request carries the CodeVASP headers, and its signature verifies over datetime ‖ body ‖ nonce", async () => {
    const seen: { headers: Record<string, string>; body?: Uint8Array }[] = [];
    const spy = new ProviderBClient({
      apiUrl: peer.url,
      entityId: CARAVAN_ID,
      seedBase64: CARAVAN_SEED,
      allowHttp: true,
      fetch: (url, init) => {
        seen.push({ headers: init.headers, body: init.body });
        return fetch(url, init);
      },
    });
    expect((await spy.reportTxid("kimchi-exchange", { transferId: crypto.randomUUID(), txid: "abc" })).ok).toBe(false);
    const h = seen[0]!.headers;
    expect(h[HEADER.origin]).toBe(`code:${CARAVAN_ID}`);
    expect(h[HEADER.pubKey]).toBe(client.publicKeyBase64);
    expect(h[HEADER.datetime]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(parseNonce(h[HEADER.nonce])).not.toBeNull();
    expect(verifyRequest(client.publicKeyBase64, h[HEADER.datetime]!, seen[0]!.body!, parseNonce(h[HEADER.nonce])!, h[HEADER.signature]!)).toBe(true);
  });

  test("a request signed with another key than the registered one → 422 INVALID_HEADER_SIGNATURE", async () => {
    const impostor = new ProviderBClient({ apiUrl: peer.url, entityId: CARAVAN_ID, seedBase64: randomSeedBase64(), fetch: globalThis.fetch, allowHttp: true });
    expect(await impostor.listVasps()).toEqual({ ok: false, code: "INVALID_HEADER_SIGNATURE", status: 422 });
  });

  test("a body changed after signing → 422 INVALID_HEADER_SIGNATURE", async () => {
    const tamper = new ProviderBClient({
      apiUrl: peer.url,
      entityId: CARAVAN_ID,
      seedBase64: CARAVAN_SEED,
      allowHttp: true,
      fetch: (url, init) => fetch(url, { ...init, body: new TextEncoder().encode(new TextDecoder().decode(init.body).replace("abc", "abd")) }),
    });
    expect(await tamper.reportTxid("kimchi-exchange", { transferId: crypto.randomUUID(), txid: "abc" })).toEqual({ ok: false, code: "INVALID_HEADER_SIGNATURE", status: 422 });
  });

  test("an entity the network does not know → 422 INVALID_ORIGIN", async () => {
    const stranger = new ProviderBClient({ apiUrl: peer.url, entityId: "nobody", seedBase64: randomSeedBase64(), fetch: globalThis.fetch, allowHttp: true });
    expect(await stranger.listVasps()).toEqual({ ok: false, code: "INVALID_ORIGIN", status: 422 });
  });

  test("a request without the signature headers → 422 MISSING_HEADER_FIELD", async () => {
    const res = await fetch(`${peer.url}/v1/code/vasps`, { headers: { [HEADER.origin]: `code:${CARAVAN_ID}` } });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ errorType: "MISSING_HEADER_FIELD" });
  });

  test("a nonce repeated within 100 s → 422 DUPLICATED_HEADER_NONCE", async () => {
    const fixed = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const replaying = new ProviderBClient({ apiUrl: peer.url, entityId: CARAVAN_ID, seedBase64: CARAVAN_SEED, fetch: globalThis.fetch, allowHttp: true, nonce: () => fixed });
    expect((await replaying.listVasps()).ok).toBe(true);
    expect(await replaying.listVasps()).toEqual({ ok: false, code: "DUPLICATED_HEADER_NONCE", status: 422 });
  });

  test("a datetime outside the 100 s window → 422 INVALID_HEADER_DATETIME", async () => {
    const late = new ProviderBClient({ apiUrl: peer.url, entityId: CARAVAN_ID, seedBase64: CARAVAN_SEED, fetch: globalThis.fetch, allowHttp: true, now: () => Date.now() - 200_000 });
    expect(await late.listVasps()).toEqual({ ok: false, code: "INVALID_HEADER_DATETIME", status: 422 });
  });

  test("GET /v1/code/Vasp/{id}/pubkey gives the current key; an unknown VASP → 422 INVALID_TARGET_VASP_ID", async () => {
    expect(await client.currentPubkey("kimchi-exchange")).toEqual({ ok: true, status: 200, body: peer.directory.vasp("kimchi-exchange").publicKeyBase64 });
    expect(await client.getPubkeys("no-such-vasp")).toEqual({ ok: false, code: "INVALID_TARGET_VASP_ID", status: 422 });
  });
});

describe("address check: POST /v1/code/VerifyAddress/{id}", () => {
  test.each([
    ["a wallet of the VASP → valid, naming the VASP", { address: ETH_ALICE }, { result: "valid" }],
    ["an address with its memo → valid", { address: XRP_BOB, tag: "4242", currency: "XRP" }, { result: "valid" }],
    ["the right address with another memo → invalid NOT_FOUND_ADDRESS", { address: XRP_BOB, tag: "1", currency: "XRP" }, { result: "invalid", reasonType: "NOT_FOUND_ADDRESS" }],
    ["an address it does not hold → invalid NOT_FOUND_ADDRESS", { address: "0x0000000000000000000000000000000000000bad" }, { result: "invalid", reasonType: "NOT_FOUND_ADDRESS" }],
    ["an address on its deny list → invalid SANCTION_LIST", { address: SANCTIONED }, { result: "invalid", reasonType: "SANCTION_LIST" }],
    ["the beneficiary's name given in the other order → valid", { address: ETH_ALICE, beneficiaryPersons: [natural("Alice", "KIM")] }, { result: "valid" }],
    ["another beneficiary name → invalid INPUT_NAME_MISMATCHED", { address: ETH_ALICE, beneficiaryPersons: [BOB] }, { result: "invalid", reasonType: "INPUT_NAME_MISMATCHED" }],
  ])("%s", async (_name, check, expected) => {
    const r = await client.verifyAddress("kimchi-exchange", { currency: "ETH", ...check });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.body).toEqual({ ...expected, beneficiaryVaspEntityId: "kimchi-exchange", remotePubKey: peer.directory.vasp("kimchi-exchange").publicKeyBase64 } as never);
    // The sandbox really decrypted what was sent.
    expect(peer.requests.at(-1)!.payload!.Beneficiary!.accountNumber).toEqual([accountNumber(check.address, (check as { tag?: string }).tag)]);
  });

  test("a VASP that is down → 408 BENEFICIARY_VASP_REQUEST_TIMEOUT", async () => {
    expect(await client.verifyAddress("sleepy-vasp", { currency: "ETH", address: HELD_BY_DOWN_VASP })).toEqual({ ok: false, code: "BENEFICIARY_VASP_REQUEST_TIMEOUT", status: 408 });
  });
});

describe("authorization: POST /v1/code/transfer/{id}", () => {
  test("verified: the VASP decrypts our IVMS101 and answers its own beneficiary data, sealed for us", async () => {
    const t = outgoing();
    const r = await client.transfer("kimchi-exchange", t);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.body).toMatchObject({ result: "verified", transferId: t.transferId });
    // Payload round trip: what the sandbox opened is what we built, dialect and all.
    const got = peer.transfers.get(t.transferId)!;
    expect(got.ivms101).toEqual(t.message.ivms101);
    expect(got).toMatchObject({ fromEntityId: CARAVAN_ID, toEntityId: "kimchi-exchange", currency: "ETH", amount: "1.5", tradePrice: "4500.00", tradeCurrency: "USD", isExceedingThreshold: true, network: "ethereum" });
    const answer = r.body.ivms101!;
    expect(answer.Originator).toEqual(t.message.ivms101.Originator!);
    expect(answer.OriginatingVASP).toEqual(t.message.ivms101.OriginatingVASP!);
    expect(answer.Beneficiary!.accountNumber).toEqual([ETH_ALICE]);
    expect(fromWirePersons(answer.Beneficiary!.beneficiaryPersons)).toEqual([ALICE]);
    expect(answer.BeneficiaryVASP!.beneficiaryVASP.legalPerson).toEqual({
      name: { nameIdentifier: [{ legalPersonName: "Kimchi Exchange Co., Ltd.", legalPersonNameIdentifierType: "LEGL" }] },
      countryOfRegistration: "KR",
    });
  });

  test("an account with memo travels as address:memo and comes back for that account", async () => {
    const t = { ...outgoing({ address: XRP_BOB, tag: "4242", beneficiaryPersons: [BOB] }), currency: "XRP", network: "ripple" };
    const r = await client.transfer("kimchi-exchange", t);
    expect(r.ok && r.body.result).toBe("verified");
    expect(r.ok && r.body.ivms101!.Beneficiary!.accountNumber).toEqual([`${XRP_BOB}:4242`]);
    expect(peer.transfers.get(t.transferId)).toMatchObject({ address: XRP_BOB, tag: "4242" });
  });

  test.each([
    ["an address on the deny list → denied SANCTION_LIST", { address: SANCTIONED }, "SANCTION_LIST"],
    ["an unknown address → denied NOT_FOUND_ADDRESS", { address: "0x0000000000000000000000000000000000000bad" }, "NOT_FOUND_ADDRESS"],
    ["another beneficiary name → denied INPUT_NAME_MISMATCHED", { beneficiaryPersons: [BOB] }, "INPUT_NAME_MISMATCHED"],
    ["no OriginatingVASP → denied LACK_OF_INFORMATION", { withoutOriginatingVasp: true }, "LACK_OF_INFORMATION"],
  ])("%s", async (_name, over, reasonType) => {
    const r = await client.transfer("kimchi-exchange", outgoing(over));
    expect(r).toMatchObject({ ok: true, status: 200, body: { result: "denied", reasonType, ivms101: null } });
  });

  test("INVALID_RECEIVER_PUBLIC_KEY once → the key is read again and the request sent once more", async () => {
    peer.setFault("transfer", { kind: "invalidReceiverPublicKey" });
    const before = peer.requests.length;
    const key = peer.directory.vasp("kimchi-exchange").publicKeyBase64;
    const r = await client.transfer("kimchi-exchange", outgoing(), { remotePubKey: key });
    expect(r.ok && r.body.result).toBe("verified");
    expect(peer.requests.slice(before).map((q) => `${q.route}:${q.status}`)).toEqual(["transfer:422", "pubkey:200", "transfer:200"]);
  });

  test("after a key rotation the stale key is refused, re-read, and the answer opens with the new key", async () => {
    const old = peer.directory.vasp("other-vasp").publicKeyBase64;
    const fresh = peer.rotateKey("other-vasp");
    const r = await client.transfer("other-vasp", { ...outgoing({ address: SHARED, beneficiaryPersons: [] }) }, { remotePubKey: old });
    expect(r.ok).toBe(true);
    expect(r.ok && r.body).toMatchObject({ result: "verified", remotePubKey: fresh });
  });

  test("refused twice with INVALID_RECEIVER_PUBLIC_KEY → the request is not sent a third time", async () => {
    peer.setFault("transfer", { kind: "invalidReceiverPublicKey" }, 5);
    const before = peer.requests.length;
    expect(await client.transfer("kimchi-exchange", outgoing())).toEqual({ ok: false, code: "INVALID_RECEIVER_PUBLIC_KEY", status: 422 });
    expect(peer.requests.slice(before).filter((q) => q.route === "transfer")).toHaveLength(2);
  });

  test("the same transfer again gets the same answer; the same transferId with other content → 503 DUPLICATED_TRANSFER_ID", async () => {
    const t = outgoing();
    const first = await client.transfer("kimchi-exchange", t);
    const again = await client.transfer("kimchi-exchange", t);
    expect(again.ok && first.ok && again.body).toEqual(first.ok ? first.body : (null as never));
    expect(await client.transfer("kimchi-exchange", { ...t, amount: "2" })).toEqual({ ok: false, code: "DUPLICATED_TRANSFER_ID", status: 503 });
  });

  test("a payload not sealed for the VASP → 503 INVALID_ENCRYPTED_BODY; a body without its fields → 422 MISSING_REQUIRED_MSG_FIELD", async () => {
    const t = outgoing();
    const wrong = sealPayload(t.message, peer.directory.vasp("other-vasp").publicKeyBase64, CARAVAN_SEED);
    const body = { transferId: t.transferId, currency: "ETH", amount: "1", tradePrice: "1", tradeCurrency: "USD", isExceedingThreshold: "true", payload: wrong };
    expect(await signedFetch("POST", "/v1/code/transfer/kimchi-exchange", body)).toEqual({ status: 503, json: { errorType: "INVALID_ENCRYPTED_BODY", errorMsg: "" } });
    expect(await signedFetch("POST", "/v1/code/transfer/kimchi-exchange", { transferId: t.transferId })).toEqual({ status: 422, json: { errorType: "MISSING_REQUIRED_MSG_FIELD", errorMsg: "" } });
    expect(peer.transfers.has(t.transferId)).toBe(false);
  });

  test("a transferId that is not a UUIDv4 → 422 INVALID_MSG_FIELD_VALUE", async () => {
    expect(await client.transfer("kimchi-exchange", outgoing({ transferId: "tr_123" }))).toEqual({ ok: false, code: "INVALID_MSG_FIELD_VALUE", status: 422 });
  });
});

describe("after the authorization: txid and cancellation", () => {
  test("txid → normal; the same txid again → normal; another txid → TXID_ALREADY_EXISTS", async () => {
    const t = outgoing();
    expect((await client.transfer("kimchi-exchange", t)).ok).toBe(true);
    expect(await client.reportTxid("kimchi-exchange", { transferId: t.transferId, txid: "0xhash1" })).toEqual({
      ok: true,
      status: 200,
      body: { transferId: t.transferId, result: "normal" },
    });
    expect((await client.reportTxid("kimchi-exchange", { transferId: t.transferId, txid: "0xhash1" })).ok).toBe(true);
    expect(await client.reportTxid("kimchi-exchange", { transferId: t.transferId, txid: "0xhash2" })).toEqual({ ok: false, code: "TXID_ALREADY_EXISTS", status: 200 });
    expect(peer.transfers.get(t.transferId)!.txid).toBe("0xhash1");
  });

  test("txid for a transfer the VASP never authorized for us → UNKNOWN_TRANSFER_ID", async () => {
    expect(await client.reportTxid("kimchi-exchange", { transferId: crypto.randomUUID(), txid: "0x1" })).toEqual({ ok: false, code: "UNKNOWN_TRANSFER_ID", status: 200 });
  });

  test("PUT status canceled → normal, repeated → normal; a txid afterwards → TRANSFER_ALREADY_FAILED", async () => {
    const t = outgoing();
    expect((await client.transfer("kimchi-exchange", t)).ok).toBe(true);
    expect(await client.cancelTransfer("kimchi-exchange", { transferId: t.transferId, reasonType: "UNKNOWN" })).toEqual({
      ok: true,
      status: 200,
      body: { transferId: t.transferId, result: "normal" },
    });
    expect((await client.cancelTransfer("kimchi-exchange", { transferId: t.transferId, reasonType: "UNKNOWN" })).ok).toBe(true);
    expect(peer.transfers.get(t.transferId)).toMatchObject({ canceled: true, cancelReason: "UNKNOWN" });
    expect(await client.reportTxid("kimchi-exchange", { transferId: t.transferId, txid: "0x1" })).toEqual({ ok: false, code: "TRANSFER_ALREADY_FAILED", status: 200 });
  });
});

describe("beneficiary discovery: POST /v2/code/VerifyAddress, GET /v2/code/VerifyAddress/{requestId}", () => {
  const discover = async (address: string, tag?: string) => {
    const requestId = discoveryRequestId(crypto.randomUUID(), { address, tag, network: "ethereum" });
    const started = await client.requestDiscovery({ currency: "ETH", address, tag, network: "ethereum", requestId });
    expect(started).toEqual({ ok: true, status: 200, body: { result: "SUCCESS", requestId } });
    return requestId;
  };

  test("one VASP holds the address → valid with its entity ID", async () => {
    const r = await client.discoveryResult(await discover(ETH_ALICE));
    expect(r.ok && r.body).toMatchObject({ result: "valid", beneficiaryVaspEntityId: "kimchi-exchange" });
    expect(r.ok && r.body.analysisResult).toContainEqual({ entityId: "sleepy-vasp", result: "SYSTEM_NOT_AVAILABLE" });
  });

  test("an address with memo is searched as address:memo", async () => {
    const r = await client.discoveryResult(await discover(XRP_BOB, "4242"));
    expect(r.ok && r.body).toMatchObject({ result: "valid", beneficiaryVaspEntityId: "kimchi-exchange" });
  });

  test("no VASP holds it → invalid NOT_FOUND_ADDRESS", async () => {
    const r = await client.discoveryResult(await discover("0x0000000000000000000000000000000000000bad"));
    expect(r.ok && r.body).toMatchObject({ result: "invalid", reasonType: "NOT_FOUND_ADDRESS" });
  });

  test("a VASP that is down cannot answer, so its address is not found", async () => {
    const r = await client.discoveryResult(await discover(HELD_BY_DOWN_VASP));
    expect(r.ok && r.body).toMatchObject({ result: "invalid", reasonType: "NOT_FOUND_ADDRESS" });
  });

  test("pending for N polls (invalid PROCESSING), then the result", async () => {
    peer.setDiscoveryPending(2);
    const id = await discover(ETH_ALICE);
    for (let i = 0; i < 2; i++) {
      const r = await client.discoveryResult(id);
      expect(r.ok && r.body).toMatchObject({ result: "invalid", reasonType: "PROCESSING" });
    }
    const third = await client.discoveryResult(id);
    expect(third.ok && third.body).toMatchObject({ result: "valid", beneficiaryVaspEntityId: "kimchi-exchange" });
  });

  test("two VASPs hold it → invalid ALLIANCE_DATA_NON_UNIQUE_RESULT", async () => {
    const r = await client.discoveryResult(await discover(SHARED));
    expect(r.ok && r.body).toMatchObject({ result: "invalid", reasonType: "ALLIANCE_DATA_NON_UNIQUE_RESULT" });
    expect(r.ok && r.body.analysisResult!.filter((a) => a.result === "FOUND").map((a) => a.entityId).sort()).toEqual(["kimchi-exchange", "other-vasp"]);
  });

  test("an unknown request ID → invalid LACK_OF_INFORMATION", async () => {
    const r = await client.discoveryResult(crypto.randomUUID());
    expect(r.ok && r.body).toMatchObject({ result: "invalid", reasonType: "LACK_OF_INFORMATION" });
  });

  test.each([
    ["429", { kind: "status", status: 429 } as const, "TOO_MANY_REQUESTS", 429],
    ["500", { kind: "status", status: 500 } as const, "CODE_SERVER_INTERNAL_ERROR", 500],
    ["502 without errorType", { kind: "status", status: 502, errorType: null } as const, "HTTP_502", 502],
  ])("a %s from the network → code %s, and the next ask goes through", async (_name, fault, code, status) => {
    const id = await discover(ETH_ALICE);
    peer.setFault("discoveryResult", fault, 1);
    expect(await client.discoveryResult(id)).toEqual({ ok: false, code, status });
    expect((await client.discoveryResult(id)).ok).toBe(true);
  });
});

describe("failures are values: INVALID_RESPONSE, HTTP_<status>, TRANSPORT_ERROR", () => {
  test("200 with a non-JSON body → INVALID_RESPONSE", async () => {
    peer.setFault("vasps", { kind: "garbage" });
    expect(await client.listVasps()).toEqual({ ok: false, code: "INVALID_RESPONSE", status: 200 });
  });

  test("a redirect is not followed → TRANSPORT_ERROR", async () => {
    peer.setFault("*", { kind: "redirect" });
    expect(await client.listVasps()).toEqual({ ok: false, code: "TRANSPORT_ERROR" });
  });

  test("no answer within the timeout → TRANSPORT_ERROR", async () => {
    const impatient = new ProviderBClient({ apiUrl: peer.url, entityId: CARAVAN_ID, seedBase64: CARAVAN_SEED, fetch: globalThis.fetch, allowHttp: true, timeoutMs: 200 });
    peer.setFault("vasps", { kind: "hang" }, 1);
    expect(await impatient.listVasps()).toEqual({ ok: false, code: "TRANSPORT_ERROR" });
  });

  test("nobody listening → TRANSPORT_ERROR", async () => {
    const closed = await listen(() => new Response(""), { hostname: "127.0.0.1", port: 0 });
    const port = closed.port;
    await closed.stop();
    const nowhere = new ProviderBClient({ apiUrl: `http://127.0.0.1:${port}`, entityId: CARAVAN_ID, seedBase64: CARAVAN_SEED, fetch: globalThis.fetch, allowHttp: true });
    expect(await nowhere.listVasps()).toEqual({ ok: false, code: "TRANSPORT_ERROR" });
  });

  test("an answer for another transfer → INVALID_RESPONSE", async () => {
    peer.setFault("transfer", { kind: "answer", body: { result: "denied", reasonType: "UNKNOWN", transferId: crypto.randomUUID() } }, 1);
    expect(await client.transfer("kimchi-exchange", outgoing())).toEqual({ ok: false, code: "INVALID_RESPONSE", status: 200 });
  });

  test("verified with a payload that does not open → INVALID_RESPONSE", async () => {
    const t = outgoing();
    peer.setFault("transfer", { kind: "answer", body: { result: "verified", transferId: t.transferId, payload: sealPayload({ ivms101: {} }, client.publicKeyBase64, randomSeedBase64()) } }, 1);
    expect(await client.transfer("kimchi-exchange", t)).toEqual({ ok: false, code: "INVALID_RESPONSE", status: 200 });
  });

  test("an error body's free text is never passed on: only an errorType that looks like a code", async () => {
    peer.setFault("vasps", { kind: "answer", status: 400, body: { errorType: "Alice Kim is not allowed", errorMsg: "Alice Kim" } }, 1);
    expect(await client.listVasps()).toEqual({ ok: false, code: "HTTP_400", status: 400 });
  });
});

describe("the network as originating VASP toward Caravan's callbacks", () => {
  const target = { fromEntityId: "kimchi-exchange", toCaravanEnv: "test", providerId: "prv_b1" };
  const base = "/api/system/trp/provider_b/test/connections/prv_b1";

  test("sendIncomingTransfer POSTs a signed, sealed v1/beneficiary/transfer and opens the sealed answer", async () => {
    received.length = 0;
    const reply = await peer.sendIncomingTransfer({
      ...target,
      address: XRP_BOB.replace("Bob", "Car"),
      tag: "99",
      asset: "XRP",
      network: "ripple",
      amount: "100",
      tradePrice: "250",
      originatorPersons: [BOB],
      beneficiaryPersons: [ORIGINATOR],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ result: "verified", transferId: reply.transferId });
    const req = received[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe(`${base}/v1/beneficiary/transfer`);
    expect(req.headers.get("CF-Connecting-IP")).toBe("203.0.113.7");
    expect(req.headers.get(HEADER.origin)).toBe("code:kimchi-exchange");
    expect(req.headers.get(HEADER.pubKey)).toBe(peer.directory.vasp("kimchi-exchange").publicKeyBase64);
    expect(req.headers.get(HEADER.remotePubKey)).toBe(publicKeyBase64(CARAVAN_SEED));
    const nonce = parseNonce(req.headers.get(HEADER.nonce))!;
    expect(verifyRequest(req.headers.get(HEADER.pubKey)!, req.headers.get(HEADER.datetime)!, new TextEncoder().encode(req.body), nonce, req.headers.get(HEADER.signature)!)).toBe(true);
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({ transferId: reply.transferId, currency: "XRP", amount: "100", tradePrice: "250", tradeCurrency: "USD", isExceedingThreshold: "true", tag: "99", network: "ripple" });
    // The answer's payload came back opened: ours copied plus BeneficiaryVASP.
    expect(reply.ivms101!.Originator!.originatorPersons).toEqual(toWirePersons([BOB]));
    expect(reply.ivms101!.OriginatingVASP!.originatingVASP.legalPerson.name.nameIdentifier[0]!.legalPersonName).toBe("Kimchi Exchange Co., Ltd.");
    expect(reply.ivms101!.Beneficiary!.accountNumber).toEqual([`${XRP_BOB.replace("Bob", "Car")}:99`]);
    expect(reply.ivms101!.BeneficiaryVASP).toBeDefined();
  });

  test("edition 2023: the member writes originatorPerson / beneficiaryPerson and naturalPersonNameIdentifierType, version 101.2023", async () => {
    received.length = 0;
    const reply = await peer.sendIncomingTransfer({ ...target, asset: "ETH", network: "ethereum", amount: "1", address: ETH_ALICE, originatorPersons: [BOB], beneficiaryPersons: [ORIGINATOR], edition: "2023" });
    expect(reply.status).toBe(200);
    const sent = JSON.parse(received[0]!.body);
    const opened = openPayload(sent.payload, peer.directory.vasp("kimchi-exchange").publicKeyBase64, CARAVAN_SEED);
    expect(opened.ok).toBe(true);
    const m = (opened as { value: any }).value.ivms101;
    expect(m.payloadMetadata).toEqual({ payloadVersion: "101.2023" });
    expect(m.Originator.originatorPersons).toBeUndefined();
    expect(m.Originator.originatorPerson[0].naturalPerson.name.nameIdentifier).toEqual([{ primaryIdentifier: "Lee", secondaryIdentifier: "Bob", naturalPersonNameIdentifierType: "LEGL" }]);
    expect(m.Beneficiary.beneficiaryPerson[0].naturalPerson.name.nameIdentifier[0].naturalPersonNameIdentifierType).toBe("LEGL");
    expect(m.Beneficiary.accountNumber).toEqual([ETH_ALICE]);
    expect(m.OriginatingVASP.originatingVASP.legalPerson.countryOfRegistration).toBe("KR");
  });

  test("a payload that does not decrypt is sent verbatim, and a header can be left out", async () => {
    received.length = 0;
    const reply = await peer.sendIncomingTransfer({
      ...target,
      connectingIp: "198.51.100.1",
      headers: { [HEADER.pubKey]: null },
      payload: "bm90IGEgYm94",
      address: ETH_ALICE,
      asset: "ETH",
      amount: "1",
      originatorPersons: [BOB],
      beneficiaryPersons: [ALICE],
    });
    expect(reply.status).toBe(503);
    expect(received[0]!.headers.get(HEADER.pubKey)).toBeNull();
    expect(received[0]!.headers.get("CF-Connecting-IP")).toBe("198.51.100.1");
  });

  test.each([
    ["sendTxid", () => peer.sendTxid({ ...target, transferId: "t-1", txid: "0xabc", vout: "0" }), "POST", "v1/beneficiary/transfer/txid", { transferId: "t-1", txid: "0xabc", vout: "0" }],
    ["sendCancel", () => peer.sendCancel({ ...target, transferId: "t-1", reasonType: "UNKNOWN" }), "PUT", "v1/vasp/transfer/status", { transferId: "t-1", status: "canceled", reasonType: "UNKNOWN" }],
    ["askStatus", () => peer.askStatus({ ...target, transferId: "t-1" }), "POST", "v1/vasp/transfer/status", { transferId: "t-1" }],
    ["verificationTx", () => peer.verificationTx({ ...target, txid: "0xabc", beneficiaryAddress: "rX:1" }), "POST", "v1/verification/tx", { txid: "0xabc", beneficiaryAddress: "rX:1" }],
  ] as const)("%s → %s …/%s with a plain JSON body", async (_name, send, method, endpoint, body) => {
    received.length = 0;
    const reply = await send();
    expect(reply.status).toBe(200);
    expect(received[0]).toMatchObject({ method, path: `${base}/${endpoint}` });
    expect(JSON.parse(received[0]!.body)).toEqual(body);
    expect(received[0]!.headers.get(HEADER.remotePubKey)).toBeNull();
  });

  test("verifyAddress → POST …/v1/beneficiary/VerifyAddress with Beneficiary.accountNumber sealed for Caravan", async () => {
    received.length = 0;
    await peer.verifyAddress({ ...target, currency: "XRP", address: "rCaravanWallet", tag: "7" });
    expect(received[0]!.path).toBe(`${base}/v1/beneficiary/VerifyAddress`);
    const body = JSON.parse(received[0]!.body);
    const opened = openPayload(body.payload, peer.directory.vasp("kimchi-exchange").publicKeyBase64, CARAVAN_SEED);
    expect(opened).toEqual({ ok: true, value: { ivms101: { Beneficiary: { beneficiaryPersons: [], accountNumber: ["rCaravanWallet:7"] } } } });
  });

  test("requestTransferData → PUT …/v1/verification/tx with Beneficiary and BeneficiaryVASP sealed; the answer opens", async () => {
    received.length = 0;
    const reply = await peer.requestTransferData({ ...target, txid: "0xabc", beneficiaryAddress: ETH_ALICE, beneficiaryPersons: [ALICE] });
    expect(received[0]).toMatchObject({ method: "PUT", path: `${base}/v1/verification/tx` });
    expect(reply.ivms101!.Beneficiary!.beneficiaryPersons).toEqual(toWirePersons([ALICE]));
    expect(reply.ivms101!.BeneficiaryVASP!.beneficiaryVASP.legalPerson.countryOfRegistration).toBe("KR");
  });

  test("health → GET …/v1/vasp/health without sender headers", async () => {
    received.length = 0;
    const reply = await peer.health(target);
    expect(reply).toMatchObject({ status: 200, body: {} });
    expect(received[0]).toMatchObject({ method: "GET", path: `${base}/v1/vasp/health` });
    expect(received[0]!.headers.get(HEADER.origin)).toBeNull();
    expect(received[0]!.headers.get("CF-Connecting-IP")).toBe("203.0.113.7");
  });
});
