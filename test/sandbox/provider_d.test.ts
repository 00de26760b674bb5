// The sandbox TRP peer (src/sandbox/provider_d/) on its own: mutual TLS with its own CA, the TRP headers, each
// switchable behaviour, idempotency per request-identifier, and two peers exchanging both ways (inquiry, deferred
// resolution to the originator's callback, confirmation). Then Caravan's provider_d connection test against it.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { randomUUID } from "node:crypto";
import { startTrpPeer, type TrpPeer } from "../../src/sandbox/provider_d/index.ts";
import { providerDConnectionTest } from "../../src/adapters/providers/provider_d/connection-test.ts";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";

// Servers and openssl on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const ORIGINATOR_IVMS = {
  originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Post", secondaryIdentifier: "Johnny", nameIdentifierType: "LEGL" }] } } }] },
  beneficiary: { beneficiaryPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "MachuPichu", secondaryIdentifier: "Freddie", nameIdentifierType: "LEGL" }] } } }] },
};

let beneficiary: TrpPeer;
let originator: TrpPeer;
beforeAll(async () => {
  beneficiary = await startTrpPeer({ name: "beneficiary.localhost" });
  originator = await startTrpPeer({ name: "originator.localhost", trust: [beneficiary.ca.certificate] });
  beneficiary.trustCa(originator.ca.certificate);
});
afterAll(async () => {
  await beneficiary?.close();
  await originator?.close();
});

const inquiry = { asset: { slip0044: 60 }, amount: "1.25", IVMS101: ORIGINATOR_IVMS };

describe("sandbox TRP peer", () => {
  test("a client without a certificate is refused at the handshake; one from an unknown CA too", async () => {
    const bare = fetch(`${beneficiary.url}/version`, { tls: { ca: beneficiary.ca.certificate } } as RequestInit);
    await expect(bare).rejects.toThrow();
    const { makeTestCa } = await import("../../src/sandbox/provider_d/ca.ts");
    const stranger = makeTestCa("Stranger CA");
    const s = stranger.issue("stranger.localhost");
    await expect(fetch(`${beneficiary.url}/version`, { tls: { cert: s.certificate, key: s.privateKey, ca: beneficiary.ca.certificate } } as RequestInit)).rejects.toThrow();
    stranger.dispose();
  });

  test("approve: the answer names an address and a confirmation callback, echoes the request-identifier; the client certificate is recorded", async () => {
    beneficiary.setBehaviour("approve");
    const s = await originator.sendInquiry(beneficiary.travelAddress("acct-1"), inquiry);
    expect(s.status).toBe(200);
    expect(s.answer).toEqual({ approved: { address: expect.any(String), callback: `${beneficiary.url}/confirm/${s.requestId}` } });
    const r = beneficiary.received.find((x) => x.requestId === s.requestId)!;
    expect(r.clientFingerprint).toBe(originator.identity.fingerprint);
    expect(r.path).toBe("/inquiry/acct-1");
    expect(await originator.confirm(s.requestId, { txid: "0xabc" })).toBe(204);
    expect(beneficiary.confirmations.at(-1)).toEqual({ id: s.requestId, body: { txid: "0xabc" } });
  });

  test("the same request-identifier again answers what it answered before, whatever the behaviour now", async () => {
    beneficiary.setBehaviour("reject");
    const id = randomUUID();
    const first = await originator.sendInquiry(beneficiary.travelAddress("acct-2"), inquiry, { requestId: id });
    beneficiary.setBehaviour("approve");
    const again = await originator.sendInquiry(beneficiary.travelAddress("acct-2"), inquiry, { requestId: id });
    expect(first.answer).toEqual({ rejected: expect.any(String) });
    expect(again.answer).toEqual(first.answer);
    expect(beneficiary.received.filter((x) => x.requestId === id)).toHaveLength(1);
  });

  test("acknowledge, then resolve later: the decision is POSTed to the originator's callback over mutual TLS", async () => {
    beneficiary.setBehaviour("acknowledge");
    const s = await originator.sendInquiry(beneficiary.travelAddress("acct-3"), inquiry);
    expect(s.answer).toEqual({ version: "3.2.1" });
    expect(s.resolution).toBeNull();
    expect(await beneficiary.resolve(s.requestId, "approve")).toBe(204);
    expect(s.resolution).toEqual({ approved: { address: expect.any(String), callback: `${beneficiary.url}/confirm/${s.requestId}` } });
  });

  test("4xx, 5xx, a refused api-version naming the supported ones", async () => {
    beneficiary.setBehaviour("http_4xx");
    expect((await originator.sendInquiry(beneficiary.travelAddress("a"), inquiry)).status).toBe(422);
    beneficiary.setBehaviour("http_5xx");
    expect((await originator.sendInquiry(beneficiary.travelAddress("a"), inquiry)).status).toBe(503);
    beneficiary.setBehaviour("approve");
    const old = await originator.sendInquiry(beneficiary.travelAddress("a"), inquiry, { apiVersion: "2.1.0" });
    expect(old.status).toBe(400);
    expect((old.answer as { supported: string[] }).supported).toContain("3.1.0");
  });

  test("never answer: the request stays open (the caller's own timeout ends it)", async () => {
    beneficiary.setBehaviour("silent");
    const pending = originator.sendInquiry(beneficiary.travelAddress("a"), inquiry).then(() => "answered");
    const outcome = await Promise.race([pending, new Promise((r) => setTimeout(() => r("still open"), 300))]);
    expect(outcome).toBe("still open");
    beneficiary.setBehaviour("approve");
  });
});

describe("Caravan's provider_d connection test against the peer", () => {
  test("a counterparty's /version over mutual TLS: success; its server certificate from a CA we do not accept: TRANSPORT_ERROR", async () => {
    const ours = beneficiary.ca.issue("caravan.localhost");
    const creds = (ca: string) => ({
      baseUrl: "https://caravan.localhost",
      legalName: "Caravan Test B.V.",
      lei: "5493001KJTIIGC8Y1R12",
      tlsCertificate: ours.certificate,
      tlsPrivateKey: ours.privateKey,
      clientCaCertificates: ca,
      counterparties: JSON.stringify([{ name: "Sandbox peer", endpoint: beneficiary.url, certificate: beneficiary.identity.certificate }]),
    });
    const fetch = providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" });
    const ok = await providerDConnectionTest(creds(beneficiary.ca.certificate), fetch, Date.now());
    expect(ok).toEqual({ success: true, message: "provider_d reached 1 counterparty over mutual TLS" });
    const wrongCa = await providerDConnectionTest(creds(originator.ca.certificate), fetch, Date.now());
    expect(wrongCa).toMatchObject({ success: false, error: "COUNTERPARTY_UNREACHABLE" });
    expect(wrongCa.message).toContain("Sandbox peer: TRANSPORT_ERROR");
  });
});
