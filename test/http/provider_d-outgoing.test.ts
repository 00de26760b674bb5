// provider_d outgoing over real HTTP and mutual TLS: a transfer to a Travel Address of the sandbox TRP peer is carried
// by provider_d; the inquiry's headers and IVMS101; approved (the chain address replaces the Travel Address), then the
// confirmation with the txid on accept; rejected; a refused api-version asked again in one the peer supports.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { PEER_ADDR, providerDSuiteForFile } from "../support/provider_d.ts";
import { withDb } from "../support/db.ts";

setDefaultTimeout(60_000);

const d = providerDSuiteForFile();

describe("provider_d outgoing", () => {
  test("approved at once: the inquiry over mutual TLS with the TRP headers; awaiting_counterparty with the approved chain address; accept with txHash sends {txid} → completed", async () => {
    d.peer.setBehaviour("approve");
    const ta = d.peer.travelAddress("acct-1");
    const id = await d.create(ta);
    const t = await d.until(id, (x) => x.state === "awaiting_counterparty");
    expect(t.cascade.provider).toBe("provider_d");
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    expect(t.beneficiary.vaspName).toBe("Sandbox TRP Peer");
    expect(t.beneficiary.address.toLowerCase()).toBe(PEER_ADDR.toLowerCase());
    const inquiry = d.peer.received.at(-1)!;
    expect(inquiry.clientFingerprint).toBe(d.ours.fingerprint);
    expect(inquiry.apiVersion).toBe("3.2.1");
    expect(inquiry.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(inquiry.path).toBe("/inquiry/acct-1");
    expect(inquiry.body.amount).toBe(1.5);
    expect(inquiry.body.asset).toEqual({ slip0044: 60 });
    expect(String(inquiry.body.callback)).toContain(`/api/system/trp/provider_d/test/${d.providerId}?resolution=${id}.`);
    const ivms = inquiry.body.IVMS101 as any;
    expect(ivms.originator.originatorPersons[0].naturalPerson.name.nameIdentifier[0].primaryIdentifier).toBe("Doe");
    expect(ivms.beneficiary.beneficiaryPersons[0].naturalPerson.name.nameIdentifier[0].primaryIdentifier).toBe("Roe");
    expect(ivms.originatingVASP.originatingVASP.legalPerson.nationalIdentification.nationalIdentifier).toBe("5493001KJTIIGC8Y1R12");
    const txHash = "0x" + "ab".repeat(32);
    const r = await d.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: d.owner, json: { action: "accept", txHash } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.state).toBe("completed");
    expect(d.peer.confirmations.at(-1)).toEqual({ id: inquiry.requestId, body: { txid: txHash } });
  });

  test("rejected: the transfer is rejected with COUNTERPARTY_REJECTED and theirs rejected", async () => {
    d.peer.setBehaviour("reject");
    const id = await d.create(d.peer.travelAddress("acct-2"));
    const t = await d.until(id, (x) => x.state === "rejected");
    expect(t.status.theirs).toBe("rejected");
    expect(t.rejection.reason).toBe("COUNTERPARTY_REJECTED");
  });

  test("a peer refusing our api-version: asked again, same request-identifier, in the best 3.x version it names", async () => {
    d.peer.setBehaviour("approve");
    d.peer.setSupportedVersions(["3.1.0"]);
    const before = d.peer.received.length;
    const id = await d.create(d.peer.travelAddress("acct-1"));
    await d.until(id, (x) => x.state === "awaiting_counterparty");
    const got = d.peer.received.slice(before);
    expect(got.map((x) => x.apiVersion)).toEqual(["3.1.0"]);
    d.peer.setSupportedVersions(["3.2.1", "3.2.0", "3.1.0", "3.0.0"]);
  });

  test("a Travel Address of a host no counterparty owns: not carried (no inquiry sent), the transfer fails", async () => {
    const before = d.peer.received.length;
    const id = await d.create("ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv");
    const t = await d.until(id, (x) => x.state === "failed");
    expect(t.cascade.attempts.map((a: any) => a.status)).toEqual(["vasp_not_found"]);
    expect(d.peer.received.length).toBe(before);
  });
});

describe("provider_d expiry", () => {
  test("an approved outgoing transfer past its expiry: {canceled} POSTed to the approval's callback, then cancelled", async () => {
    d.peer.setBehaviour("approve");
    const id = await d.create(d.peer.travelAddress("acct-1"));
    await d.until(id, (x) => x.state === "awaiting_counterparty");
    const requestId = d.peer.received.at(-1)!.requestId;
    withDb(d.db, (db) => db.query("UPDATE transfers SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1000).toISOString(), id));
    const t = await d.until(id, (x) => x.state === "cancelled");
    expect(t.state).toBe("cancelled");
    expect(d.peer.confirmations.find((c) => c.id === requestId)?.body).toEqual({ canceled: "The transfer expired" });
  });

  test("never answered (the peer holds the request open): the transfer fails with submission_unknown after the exchange's timeout, never resent", async () => {
    d.peer.setBehaviour("silent");
    const before = d.peer.received.length;
    const id = await d.create(d.peer.travelAddress("acct-1"));
    const t = await d.until(id, (x) => x.state === "failed");
    expect(t.cascade.attempts.at(-1).status).toBe("submission_unknown");
    expect(d.peer.received.length).toBe(before + 1);
    const retry = await d.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: d.owner, json: { action: "retry", reason: "try again" } });
    expect(retry.status).toBe(400);
    d.peer.setBehaviour("approve");
  });
});

describe("provider_d connection test over HTTP", () => {
  test("POST /api/v2/providers/provider_d/test: the settings, then the peer's /version over mutual TLS → success; stored as the last test", async () => {
    const r = await d.call("/api/v2/providers/provider_d/test", { method: "POST", key: d.owner });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ success: true, message: "provider_d reached 1 counterparty over mutual TLS" });
    const got = await d.call("/api/v2/providers/provider_d", { key: d.owner });
    expect(got.body.data).toMatchObject({ lastTestResult: "success", lastError: null });
    expect(JSON.stringify(got.body)).not.toContain("PRIVATE KEY");
  });
});
