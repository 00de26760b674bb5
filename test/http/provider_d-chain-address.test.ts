// provider_d outgoing without a Travel Address, end to end over mutual TLS with the sandbox TRP peer: a chain address
// the peer approved in an earlier provider_d transfer is the peer's, so a transfer to it is an inquiry at the peer's
// inquiryUrl (no account in the path; the beneficiary's accountNumber names it). A chain address no counterparty
// approved, or a counterparty without an inquiryUrl, is vasp_not_found and nothing is sent.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { PEER_ADDR, providerDSuiteForFile } from "../support/provider_d.ts";

setDefaultTimeout(60_000);

const d = providerDSuiteForFile();

/** Saves the peer as counterparty again, with (or without) its address-free inquiry endpoint. */
async function savePeer(inquiryUrl: string | null) {
  const cp = JSON.parse(d.credentials.counterparties!) as Record<string, unknown>[];
  const counterparties = JSON.stringify(cp.map((c) => ({ ...c, ...(inquiryUrl ? { inquiryUrl } : {}) })));
  const r = await d.call("/api/v2/providers/provider_d", { method: "PUT", key: d.owner, json: { credentials: { ...d.credentials, counterparties } } });
  expect([200, 201], r.text).toContain(r.status);
}

describe("provider_d outgoing to a chain address of a known counterparty", () => {
  test("a chain address no counterparty ever approved: vasp_not_found, no inquiry sent", async () => {
    await savePeer(`${d.peer.url}/inquiry`);
    const before = d.peer.received.length;
    const id = await d.create(PEER_ADDR);
    const t = await d.until(id, (x) => x.state === "failed");
    expect(t.cascade.attempts.map((a: any) => a.status)).toEqual(["vasp_not_found"]);
    expect(d.peer.received.length).toBe(before);
  });

  test("the peer approved the address before, but it has no inquiryUrl: vasp_not_found, no inquiry sent", async () => {
    await savePeer(null);
    d.peer.setBehaviour("approve");
    // The peer approves a Travel Address transfer with PEER_ADDR: from now on the address is known to be the peer's.
    const first = await d.create(d.peer.travelAddress("acct-1"));
    const approved = await d.until(first, (x) => x.state === "awaiting_counterparty");
    expect(approved.beneficiary.address.toLowerCase()).toBe(PEER_ADDR.toLowerCase());
    const before = d.peer.received.length;
    const id = await d.create(PEER_ADDR);
    const t = await d.until(id, (x) => x.state === "failed");
    expect(t.cascade.attempts.map((a: any) => a.status)).toEqual(["vasp_not_found"]);
    expect(d.peer.received.length).toBe(before);
  });

  test("with the peer's inquiryUrl: the inquiry goes there over mutual TLS naming the address; approved → awaiting_counterparty; accept with txHash sends {txid} → completed", async () => {
    await savePeer(`${d.peer.url}/inquiry`);
    d.peer.setBehaviour("approve");
    const before = d.peer.received.length;
    const id = await d.create(PEER_ADDR);
    const t = await d.until(id, (x) => x.state === "awaiting_counterparty");
    expect(t.cascade.provider).toBe("provider_d");
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    expect(t.beneficiary.vaspName).toBe("Sandbox TRP Peer");
    expect(t.beneficiary.address.toLowerCase()).toBe(PEER_ADDR.toLowerCase());
    const got = d.peer.received.slice(before);
    expect(got.length).toBe(1);
    const inquiry = got[0]!;
    expect(inquiry.path).toBe("/inquiry");
    expect(inquiry.clientFingerprint).toBe(d.ours.fingerprint);
    expect(inquiry.apiVersion).toBe("3.2.1");
    const ivms = inquiry.body.IVMS101 as any;
    expect(ivms.beneficiary.accountNumber.map((a: string) => a.toLowerCase())).toEqual([PEER_ADDR.toLowerCase()]);
    expect(ivms.beneficiary.beneficiaryPersons[0].naturalPerson.name.nameIdentifier[0].primaryIdentifier).toBe("Roe");
    expect(ivms.beneficiaryVASP.beneficiaryVASP.legalPerson.nationalIdentification.nationalIdentifier).toBe("506700T7Z685VUOZL877");
    expect(String(inquiry.body.callback)).toContain(`/api/system/trp/provider_d/test/${d.providerId}?resolution=${id}.`);
    const txHash = "0x" + "cd".repeat(32);
    const r = await d.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: d.owner, json: { action: "accept", txHash } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.state).toBe("completed");
    expect(d.peer.confirmations.at(-1)).toEqual({ id: inquiry.requestId, body: { txid: txHash } });
  });
});
