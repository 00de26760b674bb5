// provider_d incoming over real HTTP and mutual TLS through Caravan's own TRP listener: the sandbox TRP peer sends an
// inquiry to the Travel Address of a verified wallet; approved within the request with the wallet's address and our
// confirmation callback; the confirmation's txid completes it; the same request-identifier again creates nothing.
// Refusals before the body: no client certificate, a certificate no counterparty owns, a bad header, an unknown or
// forged token. And outgoing acknowledged: the peer's later resolution lands at our callback over mutual TLS.
import { beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { randomUUID } from "node:crypto";
import { PEER_ADDR, ORIGIN_ADDR, providerDSuiteForFile, travelAddressOf, INCOMING_INQUIRY } from "../support/provider_d.ts";
import { decodeTravelAddress } from "../../src/domain/provider_d/travel-address.ts";
import { makeTestCa } from "../../src/sandbox/provider_d/ca.ts";
import { withDb } from "../support/db.ts";

setDefaultTimeout(60_000);

const d = providerDSuiteForFile();
let travelAddress: string;
beforeAll(async () => {
  travelAddress = await travelAddressOf(d);
});
const inquiry = INCOMING_INQUIRY;
const transfers = async () => ((await d.call("/api/v2/transfers?limit=100", { key: d.owner })).body.data as any[]).filter((t) => t.direction === "incoming");
/** The incoming transfer of a request-identifier (the detail view names it as the cascade's external ID). */
async function byRequest(requestId: string): Promise<any> {
  for (const t of await transfers()) {
    const full = (await d.call(`/api/v2/transfers/${t.id}`, { key: d.owner })).body.data;
    if (full.cascade?.externalId === requestId) return full;
  }
  return undefined;
}

describe("the Travel Address of a verified wallet", () => {
  test("a ta… address of our listener's provider_d path with an expiring token; refused for another environment's settings or an unverified wallet", async () => {
    const decoded = decodeTravelAddress(travelAddress);
    expect(decoded.ok && decoded.url.startsWith(`${d.trpUrl}/api/system/trp/provider_d/test/${d.providerId}?t=i&ta=`)).toBe(true);
    const r = await d.call(`/api/v2/wallets/${d.walletId}/travel-address`, { key: d.owner });
    expect(Date.parse(r.body.data.expiresAt)).toBeGreaterThan(Date.now());
    const w = await d.call("/api/v2/wallets", { method: "POST", key: d.owner, json: { customerId: d.customerId, network: "ethereum", address: "0x52908400098527886E0F7030069857D2E4169EE7" } });
    const u = await d.call(`/api/v2/wallets/${w.body.data.id}/travel-address`, { key: d.owner });
    expect(u.status).toBe(400);
    expect(u.body.code).toBe("INVALID_REQUEST");
  });
});

describe("incoming inquiries", () => {
  test("approved within the request: the wallet's address and our confirmation callback; the transfer awaits the confirmation; {txid} completes it", async () => {
    const s = await d.peer.sendInquiry(travelAddress, inquiry);
    expect(s.status, JSON.stringify(s.answer)).toBe(200);
    const ap = (s.answer as any).approved;
    expect(ap.address.toLowerCase()).toBe(ORIGIN_ADDR.toLowerCase());
    expect(ap.callback).toContain(`/api/system/trp/provider_d/test/${d.providerId}?confirmation=`);
    const t = await byRequest(s.requestId);
    expect(t.state).toBe("awaiting_counterparty");
    expect(t.amount).toBe("0.25");
    expect(await d.peer.confirm(s.requestId, { txid: "0x" + "cd".repeat(32) })).toBe(204);
    const done = await d.until(t.id, (x) => x.state === "completed");
    expect(done.txHash).toBe("0x" + "cd".repeat(32));
  });

  test("the originator's {canceled} confirmation: rejected with ORIGINATOR_CANCELED", async () => {
    const s = await d.peer.sendInquiry(travelAddress, inquiry);
    const t = await byRequest(s.requestId);
    expect(t.state).toBe("awaiting_counterparty");
    expect(await d.peer.confirm(s.requestId, { canceled: "the customer withdrew" })).toBe(204);
    const done = await d.until(t.id, (x) => x.state === "rejected");
    expect(done.rejection.reason).toBe("ORIGINATOR_CANCELED");
  });

  test("the same request-identifier again answers the first answer and creates nothing", async () => {
    const id = randomUUID();
    const a = await d.peer.sendInquiry(travelAddress, inquiry, { requestId: id });
    const before = (await transfers()).length;
    const b = await d.peer.sendInquiry(travelAddress, inquiry, { requestId: id });
    expect(b.answer).toEqual(a.answer);
    expect((await transfers()).length).toBe(before);
  });

  test("refused before the body: a certificate no counterparty owns (403), one from a CA we do not accept (401), no certificate at all (handshake or 401)", async () => {
    const before = (await transfers()).length;
    const url = decodeTravelAddress(travelAddress);
    const target = url.ok ? url.url : "";
    const headers = { "api-version": "3.2.1", "request-identifier": randomUUID(), "content-type": "application/json" };
    const body = JSON.stringify({ ...inquiry, callback: "https://127.0.0.1:9/cb" });
    const stranger = d.peer.ca.issue("stranger.localhost");
    const r1 = await fetch(target, { method: "POST", headers, body, tls: { cert: stranger.certificate, key: stranger.privateKey, ca: d.peer.ca.certificate } } as RequestInit);
    expect(r1.status).toBe(403);
    const other = makeTestCa("Other CA");
    const o = other.issue("other.localhost");
    const r2 = await fetch(target, { method: "POST", headers, body, tls: { cert: o.certificate, key: o.privateKey, ca: d.peer.ca.certificate } } as RequestInit);
    expect(r2.status).toBe(401);
    other.dispose();
    const r3 = await fetch(target, { method: "POST", headers, body, tls: { ca: d.peer.ca.certificate } } as RequestInit);
    expect(r3.status).toBe(401);
    // The plain HTTP port, with a certificate header but no trusted proxy configured: the header is ignored.
    const viaHttp = await fetch(`${d.S.url}${new URL(target).pathname}${new URL(target).search}`, { method: "POST", headers: { ...headers, "x-client-cert": encodeURIComponent(d.peer.identity.certificate) }, body });
    expect(viaHttp.status).toBe(401);
    expect((await transfers()).length).toBe(before);
    expect(d.S.output()).toContain("client_certificate_unknown_counterparty");
    expect(d.S.output()).toContain("client_certificate_no_tls");
  });

  test("a counterparty whose certificate comes from an intermediate CA: accepted over our listener when it presents the chain", async () => {
    const sub = d.peer.ca.intermediate("Peer Intermediate CA");
    const leaf = sub.issue("chained.localhost");
    const counterparties = JSON.parse(d.credentials.counterparties);
    counterparties.push({ name: "Chained VASP", endpoint: "https://chained.example", certificate: leaf.certificate });
    expect((await d.call("/api/v2/providers/provider_d", { method: "PUT", key: d.owner, json: { credentials: { counterparties: JSON.stringify(counterparties) } } })).status).toBe(200);
    const url = decodeTravelAddress(travelAddress);
    const post = (cert: string) =>
      fetch(url.ok ? url.url : "", {
        method: "POST",
        headers: { "api-version": "3.2.1", "request-identifier": randomUUID(), "content-type": "application/json" },
        body: JSON.stringify({ ...inquiry, callback: "https://127.0.0.1:9/cb" }),
        tls: { cert, key: leaf.privateKey, ca: d.peer.ca.certificate },
      } as RequestInit);
    const withChain = await post(leaf.certificate + sub.chain);
    expect(withChain.status).toBe(200);
    expect(Object.keys(await withChain.json())).toEqual(["approved"]);
    expect((await post(leaf.certificate)).status).toBe(401);
  });

  test("a missing header, an unsupported api-version, a forged or unknown token, a body we do not understand: each refused, nothing created", async () => {
    const before = (await transfers()).length;
    const bad = await d.peer.sendInquiry(travelAddress, inquiry, { apiVersion: "2.1.0" });
    expect(bad.status).toBe(400);
    const forged = travelAddress.replace(/.$/, (ch) => (ch === "1" ? "2" : "1"));
    const url = decodeTravelAddress(travelAddress);
    const tampered = url.ok ? url.url.replace(/ta=[^.]+\./, "ta=d2FsXzAxbTg4ODg4ODg4ODg4ODg4ODg4ODg4ODg4ODguMTk5OTk5OTk5OQ.") : "";
    expect(decodeTravelAddress(forged).ok).toBe(false);
    const t = await d.peer.sendInquiry(tampered, inquiry);
    expect(t.status).toBe(404);
    const odd = await d.peer.sendInquiry(travelAddress, { ...inquiry, amount: "a lot" } as never);
    expect(odd.status).toBe(422);
    // Over 256 KiB, a content type that is not JSON, no request-identifier: 413, 415, 400.
    const raw = (h: Record<string, string>, body: string) =>
      fetch(url.ok ? url.url : "", { method: "POST", headers: h, body, tls: { cert: d.peer.identity.certificate, key: d.peer.identity.privateKey, ca: d.peer.ca.certificate } } as RequestInit);
    const h = { "api-version": "3.2.1", "request-identifier": randomUUID(), "content-type": "application/json" };
    expect((await raw(h, JSON.stringify({ ...inquiry, callback: "https://127.0.0.1:9/cb", pad: "x".repeat(300 * 1024) }))).status).toBe(413);
    expect((await raw({ ...h, "content-type": "text/plain" }, "{}")).status).toBe(415);
    expect((await raw({ "api-version": "3.2.1", "content-type": "application/json" }, "{}")).status).toBe(400);
    expect((await transfers()).length).toBe(before);
  });
});

describe("outgoing acknowledged, resolved later at our callback", () => {
  test("{version} → exchanging; the peer's approval POSTed to our resolution callback over mutual TLS → awaiting_counterparty", async () => {
    d.peer.setBehaviour("acknowledge");
    const id = await d.create(d.peer.travelAddress("acct-1"));
    await d.until(id, (x) => x.state === "exchanging");
    const r = d.peer.received.at(-1)!;
    expect(await d.peer.resolve(r.requestId, "approve")).toBe(204);
    const t = await d.until(id, (x) => x.state === "awaiting_counterparty");
    expect(t.beneficiary.address.toLowerCase()).toBe(PEER_ADDR.toLowerCase());
    d.peer.setBehaviour("approve");
  });

  test("acknowledged, then rejected later → rejected COUNTERPARTY_REJECTED", async () => {
    d.peer.setBehaviour("acknowledge");
    const id = await d.create(d.peer.travelAddress("acct-1"));
    await d.until(id, (x) => x.state === "exchanging");
    expect(await d.peer.resolve(d.peer.received.at(-1)!.requestId, "reject")).toBe(204);
    const t = await d.until(id, (x) => x.state === "rejected");
    expect(t.rejection.reason).toBe("COUNTERPARTY_REJECTED");
    d.peer.setBehaviour("approve");
  });
});

describe("incoming held for review: acknowledged, then resolved by a durable POST to the originator's callback", () => {
  test("{version} within the request; the officer's accept POSTs {approved} to the peer's callback; then {txid} completes it", async () => {
    const rule = await d.call("/api/v2/rules", { method: "POST", key: d.owner, json: { name: "Review every counterparty", category: "aml", stage: "postcheck", action: "require_review" } });
    expect(rule.status).toBe(201);
    let s: Awaited<ReturnType<typeof d.peer.sendInquiry>>;
    try {
      s = await d.peer.sendInquiry(travelAddress, inquiry);
    } finally {
      expect((await d.call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: d.owner, json: { isActive: false } })).status).toBe(200);
    }
    expect(s.answer).toEqual({ version: "3.2.1" });
    const t = await byRequest(s.requestId);
    expect(t.state).toBe("held");
    expect(s.resolution).toBeNull();
    const r = await d.call(`/api/v2/transfers/${t.id}`, { method: "PATCH", key: d.owner, json: { action: "accept" } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.state).toBe("awaiting_counterparty");
    const deadline = Date.now() + 20_000;
    while (s.resolution === null && Date.now() < deadline) await Bun.sleep(50);
    expect((s.resolution as any)?.approved?.address?.toLowerCase()).toBe(ORIGIN_ADDR.toLowerCase());
    expect(await d.peer.confirm(s.requestId, { txid: "0x" + "ef".repeat(32) })).toBe(204);
    await d.until(t.id, (x) => x.state === "completed");
  });
});

describe("held incoming: the decision is retried until it lands; a rejection is sent too", () => {
  const held = async () => {
    const rule = await d.call("/api/v2/rules", { method: "POST", key: d.owner, json: { name: "Review every counterparty", category: "aml", stage: "postcheck", action: "require_review" } });
    try {
      const s = await d.peer.sendInquiry(travelAddress, inquiry);
      expect(s.answer).toEqual({ version: "3.2.1" });
      return { s, t: await byRequest(s.requestId) };
    } finally {
      await d.call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: d.owner, json: { isActive: false } });
    }
  };
  const landed = async (s: { resolution: unknown }) => {
    const deadline = Date.now() + 30_000;
    while (s.resolution === null && Date.now() < deadline) await Bun.sleep(50);
    return s.resolution as any;
  };

  test("the originator's callback answers 503 twice: the approval is POSTed again (backoff) and lands on the third attempt", async () => {
    const { s, t } = await held();
    const before = d.peer.callbackAttempts;
    d.peer.failCallbacks(2);
    expect((await d.call(`/api/v2/transfers/${t.id}`, { method: "PATCH", key: d.owner, json: { action: "accept" } })).status).toBe(200);
    expect((await landed(s))?.approved).toBeDefined();
    expect(d.peer.callbackAttempts - before).toBe(3);
    const history = withDb(d.db, (db) => (db.query("SELECT history FROM transfers WHERE id = ?").get(t.id) as { history: string }).history);
    expect(JSON.parse(history).map((h: { type: string }) => h.type)).toEqual(expect.arrayContaining(["resolution_retrying", "resolution_delivered"]));
  });

  test("the officer resolves the held transfer's case approved: awaiting_counterparty and {approved} POSTed; rejected: {rejected}", async () => {
    for (const resolution of ["approved", "rejected"] as const) {
      const { s, t } = await held();
      const cases = await d.call("/api/v2/cases?status=open&hasTransfer=true&limit=200", { key: d.owner });
      const c = (cases.body.data as { id: string; transferIds: string[] }[]).find((x) => x.transferIds.includes(t.id))!;
      const r = await d.call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: d.owner, json: { resolution, resolutionNote: "reviewed" } });
      expect(r.status, r.text).toBe(200);
      const got = await landed(s);
      expect(Object.keys(got ?? {})).toEqual([resolution]);
      const after = (await d.call(`/api/v2/transfers/${t.id}`, { key: d.owner })).body.data;
      expect(after.state).toBe(resolution === "approved" ? "awaiting_counterparty" : "rejected");
    }
  });

  test("PATCH reject of a held incoming transfer: rejected here, {rejected} POSTed to the originator", async () => {
    const { s, t } = await held();
    const r = await d.call(`/api/v2/transfers/${t.id}`, { method: "PATCH", key: d.owner, json: { action: "reject", status: "rejected", reason: "COMPLIANCE_POLICY" } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.state).toBe("rejected");
    expect(Object.keys((await landed(s)) ?? {})).toEqual(["rejected"]);
  });
});

describe("discoverability beneath our TRP endpoint", () => {
  test("/version, /uptime, /extensions, /identity over our listener, read by the references' decoders", async () => {
    const base = `${d.trpUrl}/api/system/trp/provider_d/test/${d.providerId}`;
    const tlsOpt = { tls: { cert: d.peer.identity.certificate, key: d.peer.identity.privateKey, ca: d.peer.ca.certificate } } as RequestInit;
    const v = await (await fetch(`${base}/version`, tlsOpt)).json();
    expect(v).toEqual({ version: "3.2.1", vendor: "Caravan" });
    const up = await (await fetch(`${base}/uptime`, tlsOpt)).text();
    expect(up).toMatch(/^\d+$/);
    expect(await (await fetch(`${base}/extensions`, tlsOpt)).json()).toEqual({ required: [], supported: [] });
    const id = await (await fetch(`${base}/identity`, tlsOpt)).json();
    expect(id.name).toBe("Caravan Test VASP B.V.");
    expect(id.lei).toBe("5493001KJTIIGC8Y1R12");
    expect(id.x509).toContain("BEGIN CERTIFICATE");
    expect((await fetch(`${d.trpUrl}/api/system/trp/provider_d/test/prv_other/version`, tlsOpt)).status).toBe(404);
  });
});
